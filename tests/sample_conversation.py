"""Conversations shared by several test modules. ``TURNS``: ten turns for the ILSTMA
and table tests, one rare topic per turn, so position i is table index i and each turn
can be asked about alone. ``RECURRING``: memories whose names recur, for graph tests.
``BOB``: three items of one user as every face takes them (text, speaker, time,
session, metadata), for the HTTP, client and context tests."""

from __future__ import annotations

from datetime import datetime, timezone

BASE = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)

TURNS = [
    ("Alice", "I bought a turquoise kayak from the harbour shop in Tromso."),
    ("Bob", "My cousin Ezekiel plays the bassoon in a jazz quartet."),
    ("Alice", "The greenhouse tomatoes finally ripened after the heatwave."),
    ("Bob", "We watched a documentary about octopus camouflage yesterday."),
    ("Alice", "Our landlord promised to fix the creaky staircase by Friday."),
    ("Bob", "I repaired the vintage typewriter with a tiny screwdriver."),
    ("Alice", "The bakery on Maple Street sells pistachio croissants now."),
    ("Bob", "My niece Philippa won a chess tournament in Reykjavik."),
    ("Alice", "We are planning a canoe trip along the Danube next autumn."),
    ("Bob", "The museum exhibit featured meteorites from Antarctica."),
]

RECURRING = [
    ("I adopted a retired racing greyhound named Biscuit last spring.", "s1"),
    ("Biscuit the greyhound sleeps on the sofa all afternoon.", "s1"),
    ("My sister is getting married in Lisbon next September.", "s2"),
    ("We walked Biscuit along the river in Lisbon.", "s2"),
    ("I'm allergic to penicillin, so I always tell new doctors.", "s3"),
    ("The wedding in Lisbon will have a fado singer.", "s3"),
    ("My cousin moved to Porto for a job at a bike company.", "s4"),
    ("We visited my cousin in Porto in June.", "s4"),
]
"""(text, session) of one person's memories whose names recur (Biscuit, greyhound,
Lisbon, Porto): SYNAPSE makes a concept of a label only once two memories share it, so
these give the trace and explorer tests a graph with concepts."""


BOB = [
    {
        "text": "I adopted a retired racing greyhound named Biscuit last spring.",
        "speaker": "Bob",
        "timestamp": "2023-05-08T13:56:00+00:00",
        "session_id": "s1",
        "metadata": {"source": "chat", "turn": 1, "tags": ["pets", "dog"]},
    },
    {
        "text": "My sister is getting married in Lisbon next September.",
        "speaker": "Bob",
        "timestamp": "2023-05-09T10:00:00+00:00",
        "session_id": "s1",
    },
    {
        "text": "I'm allergic to penicillin, so I always tell new doctors.",
        "speaker": "Bob",
        "timestamp": "2023-06-01T09:30:00+00:00",
        "session_id": "s2",
        "metadata": {"source": "intake form"},
    },
]
