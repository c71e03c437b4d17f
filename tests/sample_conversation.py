"""A ten-turn conversation shared by the ILSTMA and table tests: one rare topic per
turn, so position i is table index i and each turn can be asked about alone."""

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
