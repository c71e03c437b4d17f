"""A synthetic, reproducible conversation history of any length, for scale tests.

Sentences are built from templates over small vocabularies (people, places, things,
activities), so the BM25 vocabulary and the embedding space look like chat rather
than random tokens, and queries about a sampled memory have a real answer in it.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

PEOPLE = [
    "Ana",
    "Bruno",
    "Chen",
    "Dara",
    "Eli",
    "Farah",
    "Goran",
    "Hana",
    "Ivo",
    "Jade",
    "Kofi",
    "Lena",
    "Mateo",
    "Nia",
    "Omar",
    "Petra",
    "Quinn",
    "Rosa",
    "Sami",
    "Tariq",
]
PLACES = [
    "Lisbon",
    "the lake house",
    "the office",
    "Kyoto",
    "the climbing gym",
    "grandma's",
    "the farmers market",
    "Porto",
    "the library",
    "the dog park",
    "Berlin",
    "the beach",
    "the hospital",
    "the new cafe",
    "the stadium",
    "the art school",
]
THINGS = [
    "guitar",
    "bike",
    "cookbook",
    "garden",
    "novel",
    "painting",
    "camera",
    "puppy",
    "kitchen",
    "laptop",
    "violin",
    "tent",
    "sourdough starter",
    "telescope",
    "kayak",
    "sewing machine",
    "chess set",
    "piano",
    "apartment",
    "motorbike",
]
ACTIVITIES = [
    "running",
    "painting",
    "hiking",
    "baking",
    "learning Spanish",
    "pottery",
    "volunteering",
    "swimming",
    "birdwatching",
    "rock climbing",
    "yoga",
    "knitting",
    "photography",
    "gardening",
    "salsa dancing",
    "chess",
]
FEELINGS = [
    "thrilled",
    "nervous",
    "exhausted",
    "proud",
    "relieved",
    "curious",
    "frustrated",
    "grateful",
    "excited",
    "calm",
]
TEMPLATES = [
    "I finally bought a {thing} at {place}, and I feel {feeling} about it.",
    "{person} and I went {activity} near {place} last weekend.",
    "My {thing} broke again, so {person} is helping me fix it.",
    "I've been {activity} every morning; it makes me feel {feeling}.",
    "{person} recommended {place} for {activity}, so we are going next month.",
    "Yesterday at {place} I ran into {person}, who just started {activity}.",
    "I'm saving up for a new {thing} because the old one is falling apart.",
    "{person} gave me a {thing} for my birthday and I was {feeling}.",
    "We are planning a trip to {place} in the spring to try {activity}.",
    "Honestly I felt {feeling} after the meeting at {place} with {person}.",
]
QUESTION_TEMPLATES = [
    "Who did I go {activity} with?",
    "What did {person} give me?",
    "Where are we planning a trip?",
    "How did I feel about the {thing}?",
    "Who recommended {place}?",
]


def synthetic_history(n: int, seed: int = 7, start: datetime | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    t = start or datetime(2024, 1, 1, 9, 0)
    items = []
    for i in range(n):
        text = rng.choice(TEMPLATES).format(
            person=rng.choice(PEOPLE),
            place=rng.choice(PLACES),
            thing=rng.choice(THINGS),
            activity=rng.choice(ACTIVITIES),
            feeling=rng.choice(FEELINGS),
        )
        t += timedelta(minutes=rng.randint(1, 180))
        items.append(
            {
                "text": text,
                "speaker": "user" if i % 2 == 0 else "assistant",
                "timestamp": t,
                "session_id": f"s{i // 20}",
                "metadata": {"n": i},
            }
        )
    return items


def synthetic_queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [
        rng.choice(QUESTION_TEMPLATES).format(
            person=rng.choice(PEOPLE),
            place=rng.choice(PLACES),
            thing=rng.choice(THINGS),
            activity=rng.choice(ACTIVITIES),
        )
        for _ in range(n)
    ]
