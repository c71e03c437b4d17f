"""A synthetic, reproducible conversation history of any length, for scale tests.

Sentences are built from templates over vocabularies of people, places, things and
activities, so the BM25 vocabulary and the embedding space look like chat rather
than random tokens, and queries about a sampled memory have a real answer in it.
The base word lists are widened with generated names, towns and described objects
(hundreds of each, fixed by a seed), so a long history keeps meeting new entities,
as a real one does, and the concept graph grows with it instead of saturating at a
few dozen labels.
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


_SYLLABLES = [
    "ka", "lo", "mi", "ra", "ten", "vi", "so", "dar", "el", "an", "ju", "ber",
    "no", "sha", "tu", "lin", "mar", "os", "pe", "ri", "zan", "go", "fe", "ul",
]  # fmt: skip
_ADJECTIVES = [
    "vintage", "red", "secondhand", "tiny", "electric", "wooden", "borrowed",
    "handmade", "blue", "folding", "antique", "cheap",
]  # fmt: skip
_PLACE_KINDS = ["market", "museum", "harbour", "bakery", "park", "gallery", "station", "trail"]


def _names(rng: random.Random, n: int) -> list[str]:
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 3))).capitalize())
    return sorted(out)


def _vocabulary() -> dict[str, list[str]]:
    rng = random.Random(1234)
    towns = _names(rng, 120)
    return {
        "person": PEOPLE + _names(rng, 300),
        "place": PLACES
        + [f"the {rng.choice(_PLACE_KINDS)} in {t}" for t in towns[:80]]
        + towns[80:],
        "thing": THINGS + [f"{a} {t}" for a in _ADJECTIVES for t in THINGS],
        "activity": ACTIVITIES,
        "feeling": FEELINGS,
    }


VOCABULARY = _vocabulary()


def _fill(template: str, rng: random.Random) -> str:
    v = VOCABULARY
    return template.format(
        person=rng.choice(v["person"]),
        place=rng.choice(v["place"]),
        thing=rng.choice(v["thing"]),
        activity=rng.choice(v["activity"]),
        feeling=rng.choice(v["feeling"]),
    )


def synthetic_history(n: int, seed: int = 7, start: datetime | None = None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    t = start or datetime(2024, 1, 1, 9, 0)
    items = []
    for i in range(n):
        text = _fill(rng.choice(TEMPLATES), rng)
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
    return [_fill(rng.choice(QUESTION_TEMPLATES), rng) for _ in range(n)]
