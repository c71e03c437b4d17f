"""Lexical concept extraction for SYNAPSE (no LLM): entities, topics and folding."""

from __future__ import annotations

import pytest

from remem.engines.synapse.concepts import LexicalExtractor, fold
from remem.index.tokenize import STOPWORDS


def _extract(text: str) -> dict[str, str]:
    return dict(LexicalExtractor().extract(text))


@pytest.mark.parametrize(
    ("word", "folded"),
    [
        ("paintings", "painting"),
        ("stories", "story"),
        ("dog's", "dog"),
        ("dog’s", "dog"),
        ("dogs", "dogs"),  # 4 letters: too short to fold safely
        ("glass", "glass"),
        ("status", "status"),
        ("analysis", "analysis"),
        ("ties", "ties"),
        ("classes", "class"),
        ("watches", "watch"),
        ("boxes", "box"),
        ("dishes", "dish"),
        ("glasses", "glass"),
        ("movies", "movie"),
    ],
)
def test_fold(word, folded):
    assert fold(word) == folded


def test_entities_found():
    found = _extract("Last year we moved to Lisbon and I joined Halden Logistics as a driver.")
    assert found["lisbon"] == "entity"
    # the multi-word name is one entity (folded like any label)
    assert found[fold("halden logistics")] == "entity"
    assert found["driver"] == "topic"


def test_multiword_entity_with_of():
    found = _extract("She works at the Bank of England now.")
    assert found["bank of england"] == "entity"


@pytest.mark.parametrize(
    "text",
    [
        "Yeah, the concert was loud.",
        "Thanks! The concert was loud.",
        "Wow. The concert was loud.",
        "I loved it. Definitely the concert was loud.",
    ],
)
def test_sentence_initial_chat_words_are_not_entities(text):
    found = _extract(text)
    for word in ("yeah", "thanks", "wow", "definitely", "the"):
        assert word not in found
    assert found["concert"] == "topic"


def test_stopwords_and_short_words_are_not_topics():
    text = "There is a cat in the garden and it is not such a big deal for them."
    found = _extract(text)
    assert not (set(found) & STOPWORDS)
    assert "cat" not in found and "big" not in found  # under min_concept_chars = 4
    assert {"garden", "deal", "them"} <= set(found)
    assert LexicalExtractor(min_chars=3).extract("A cat sat.") == [
        ("cat", "topic"),
        ("sat", "topic"),
    ]


def test_plurals_fold_into_one_label():
    found = _extract("I collect paintings. My favourite painting hangs by the stories shelf.")
    assert "painting" in found and "paintings" not in found
    assert "story" in found and "stories" not in found


def test_sentence_initial_pronouns_are_not_entities():
    """The module promises entities are "capitalised word runs that are not just a
    sentence's first word"; a sentence-initial "My"/"Our"/"We" names nothing, yet it
    becomes the entity "my"/"our"/"we", a hub concept linking every memory that
    happens to start with it."""
    found = _extract("My sister plays chess. Our dog barked. We laughed.")
    assert found.get("sister") == "topic"
    assert "my" not in found
    assert "our" not in found
    assert "we" not in found
