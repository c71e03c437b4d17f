"""The noun hierarchy the typed reader asks whether a phrase names a kind of the noun
a question asks for (WordNet 3.0's nouns, shipped with the package)."""

from __future__ import annotations

import gzip
from datetime import datetime, timezone
from importlib import resources

import pytest

from remem.answer import nlp
from remem.answer.kinds import alike, doer_of, is_a, main_verbs, names_a_kind, synonyms, verbs_kin
from remem.answer.typed import typed_answer
from remem.question import as_question
from remem.types import Hit


@pytest.mark.parametrize(
    ("noun", "kind", "expected"),
    [
        ("fern", "plant", True),
        ("greyhound", "animal", True),
        ("greyhound", "dog", True),
        ("puffin", "bird", True),
        ("toaster", "appliance", True),
        ("car", "food", False),
        ("daughter", "plant", False),
        ("plant", "plant", False),  # the noun asked is no answer to itself
        ("fern", "thing", False),  # every noun is a thing: that says nothing
        ("no such word", "plant", False),
    ],
)
def test_a_noun_is_a_kind_of_another(noun: str, kind: str, expected: bool) -> None:
    assert is_a(noun, kind) is expected


@pytest.mark.parametrize("pos", ["noun", "verb"])
def test_the_shipped_hierarchy_carries_wordnets_licence(pos: str) -> None:
    path = resources.files("remem.answer").joinpath("data").joinpath(f"{pos}_hypernyms.tsv.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        head = [next(f) for _ in range(16)]
    assert head[0].startswith("# WordNet Release 3.0")
    assert any("Princeton University" in line for line in head)


@pytest.mark.parametrize(
    ("noun", "other", "same"),
    [
        ("teacher", "instructor", True),
        ("holiday", "vacation", True),
        ("doctor", "physician", True),
        ("teacher", "student", False),  # related, not one thing
        ("bike", "car", False),
        ("zzyzx", "zzyzx2", False),  # WordNet holds neither
    ],
)
def test_two_names_of_one_thing(noun, other, same) -> None:
    assert alike(noun, other) is same
    assert (other in synonyms(noun)) is same


def test_a_kind_said_by_the_first_word_of_its_name() -> None:
    assert names_a_kind("labrador", "dog")  # "labrador retriever"
    assert not names_a_kind("laptop", "dog")


@pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")
def test_the_reader_answers_what_plant_with_a_kind_of_plant() -> None:
    t0 = datetime(2026, 2, 24, 20, tzinfo=timezone.utc)
    hits = [
        Hit(
            "a",
            "My daughter begged for fish, so I'm going to set up an aquarium.",
            1.0,
            "user",
            t0,
            "s1",
        ),  # noqa: E501
        Hit(
            "b",
            "Some driftwood with a Java fern tied onto it went in the aquarium.",
            0.9,
            "user",
            t0,
            "s1",
        ),  # noqa: E501
    ]
    found = typed_answer(as_question("What plant did I put in my aquarium?"), hits)
    assert found is not None and "fern" in found[0]


@pytest.mark.parametrize(
    ("verb", "other", "kin"),
    [
        ("cook", "make", True),  # "I'm making my grandmother's goulash" of "cook"
        ("make", "bake", True),
        ("bake", "cook", True),
        ("hire", "employ", True),
        ("start", "begin", True),
        ("buy", "purchase", True),
        ("sell", "buy", False),  # the two sides of one deal are no one doing
        ("make", "do", False),  # "do" is too general to tie anything
        ("buy", "get", False),
        ("zzyzx", "make", False),  # WordNet holds no such verb
    ],
)
def test_two_verbs_of_one_doing(verb: str, other: str, kin: bool) -> None:
    assert verbs_kin(verb, other) is kin
    assert verbs_kin(other, verb) is kin


@pytest.mark.parametrize(
    ("question", "verbs"),
    [
        ("When did I pick up the bike I'm restoring?", {"pick", "pick up"}),
        ("When did the new sofa finally turn up?", {"turn up"}),  # "turn" alone is too general
        ("When was Nadia due to collect the keys?", {"collect"}),
        ("When is Omar going to start his new job?", {"start"}),
        ("When was I supposed to ring the plumber?", {"ring", "suppose"}),
        ("When did I want to visit Rome?", {"want"}),  # wanting is its own doing
    ],
)
def test_the_doing_a_question_asks_of(question: str, verbs: set[str]) -> None:
    """``main_verbs``: the main verb, a phrasal verb WordNet holds as one, and the
    doing planned when the main verb is "be" or "go" ("was due to collect")."""
    assert main_verbs(question) == verbs


def test_whom_a_question_asks_the_doing_of() -> None:
    assert doer_of("When was Gordon due to collect the dog?") == "gordon"
    assert doer_of("When did I collect the dog?") == "i"
    assert doer_of("When did the dog arrive?") == ""


@pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")
def test_a_thing_asked_by_its_noun_is_a_kind_of_it_where_one_is_said() -> None:
    """ "What tool did Pim borrow?": the jigsaw, a kind of tool, said fourth, not the
    running club named in the first memory, which shares the question's names
    (``typed._kinds_first``)."""
    t0 = datetime(2026, 3, 1, 10, tzinfo=timezone.utc)
    said = [
        ("Pim", "Wren talked me into a Sunday run with the Millford Striders."),
        ("Wren", "Pim, how did the shed go in the end?"),
        ("Pim", "Slowly. The roof alone took a whole Saturday."),
        ("Wren", "Will you need any tools? I've got a jigsaw you're welcome to borrow."),
    ]
    hits = [Hit(str(i), text, 1.0 - i / 10, who, t0, "s1") for i, (who, text) in enumerate(said)]
    found = typed_answer(as_question("What tool did Pim borrow from Wren?"), hits)
    assert found is not None and found[0] == "jigsaw"
