"""The shared word rules (remem/words.py) and the question read once (question.py)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from remem.question import read_question
from remem.words import (
    ANSWER_TYPES,
    answer_type,
    asks_for_date,
    content_keys,
    date_unit,
    is_temporal,
    names,
    possessed,
    word_key,
    word_list,
)


@pytest.mark.parametrize("name", ["personal_words.txt", "phrase_ends.txt", "auxiliaries.txt"])
def test_word_lists_are_words_without_comments(name):
    words = word_list(name)
    assert words and len(set(words)) == len(words)
    assert all(w == w.strip().lower() and w and "#" not in w for w in words)


def test_word_keys_meet_across_inflections_and_leave_personal_words_out():
    assert word_key("moved") == word_key("move")
    assert word_key("named") == word_key("name")
    assert content_keys("Did my sister move?") == {word_key("sister"), word_key("move")}
    # a doubled consonant "-ing" and "-ed" leave, and an irregular past
    assert word_key("digging") == word_key("dig") == word_key("dug")
    assert word_key("planned") == word_key("plan") == word_key("planning")
    assert word_key("filled") == word_key("fill") and word_key("added") == word_key("add")
    assert word_key("staffed") == word_key("staff")
    # a plural of four letters, which the stemmer leaves whole; not "this", "plus",
    # "news", nor "days", a count of them
    assert word_key("mugs") == word_key("mug") and word_key("hens") == word_key("hen")
    assert word_key("this") == "this" and word_key("plus") == "plus"
    assert word_key("news") != word_key("new") and word_key("days") != word_key("day")


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When did I get the keys?", "date"),
        ("Which year did she graduate?", "date"),
        ("How many dogs do I have?", "number"),
        ("How old is my cat?", "number"),
        ("Who is teaching you the cello?", "person"),
        ("What is the name of Priya's brother?", "person"),
        ("Where do I live now?", "place"),
        ("Which city did they move to?", "place"),
        ("Did I finish the book?", "yes/no"),
        ("What did I buy for the party?", "thing"),
        ("What was the date of my dad's retirement party?", "date"),
        ("By how many points did the team win the final?", "number"),
        # a weekday, not a date, whatever follows "of the week" (stop 64)
        ("Which day of the week does my gran go to the day centre now?", "thing"),
        ("Which day did I move?", "date"),
        # a noun that is a date, whoever's it is (stop 72)
        ("What's my hawk's hatch date?", "date"),
        ("What is our due date again?", "date"),
        ("What was the release date of the album?", "date"),
        ("What's our date night restaurant called?", "thing"),
    ],
)
def test_answer_type_reads_the_asking_words(question, kind):
    assert kind in ANSWER_TYPES
    assert answer_type(question) == kind


@pytest.mark.parametrize(
    ("question", "unit"),
    [
        ("On what day did Declan pick up the boat?", {"day"}),
        ("Which year did she graduate?", {"year"}),
        ("When did I collect my hens?", set()),
        ("What did I do on that day?", set()),  # no date question
        ("What was the date of the party?", {"date"}),
    ],
)
def test_the_unit_a_date_question_asks_by(question, unit):
    assert date_unit(question) == {word_key(u) for u in unit}


def test_temporal_and_date_questions_differ():
    assert is_temporal("How long did the trip take?")
    assert not asks_for_date("How long did the trip take?")
    assert asks_for_date("When did the trip start?") and is_temporal("When did it start?")
    assert not is_temporal("Where do I live?")


def test_possessed_and_names():
    assert possessed("What is my favourite film?") == ["film"]
    assert possessed("Where did my sister move?") == ["sister"]
    assert possessed("How many of my pieces broke in the kiln?") == ["pieces"]
    # a verb's particle ends the phrase, not the first word (stop 72)
    assert possessed("What did my sister bring round as a present?") == ["sister"]
    assert possessed("How long was my cabinet away at the workshop?") == ["cabinet"]
    assert possessed("What is wrong with my back?") == ["back"]
    assert names("What did Xiomara say on Monday in May?") == ["Xiomara"]


def test_a_question_is_read_once_with_one_clock():
    now = datetime(2024, 5, 8, 12, tzinfo=timezone.utc)
    q = read_question("What did I do last Saturday with Ines?", now)
    assert q.now == now and q.window is not None
    saturday = datetime(2024, 5, 4, 12, tzinfo=timezone.utc)
    assert q.window.start <= saturday < q.window.end
    assert q.first_person and q.names == ("Ines",) and q.answer_type == "thing"
    assert "what" not in q.lexical and "saturday" in q.tokens
    assert {k for _, k in q.content} == content_keys(q.text) - {word_key("what")}


def test_identifiers_are_read_only_when_the_stage_wants_them():
    assert read_question("Where is order A035X?", None).identifiers
    assert read_question("Where is order A035X?", None, identifiers=False).identifiers == ()


def test_a_question_without_a_clock_reads_the_clock_once():
    q = read_question("What did I do yesterday?", None)
    assert q.now is None and q.window is not None


def test_a_question_opening_with_a_reminder_is_read_from_what_asks():
    """ "Remind me, what's the date of the wedding?" asks a date (stop 73: it was read
    as a thing and answered "legal bit")."""
    from remem.words import answer_type, asking_part

    assert answer_type("Remind me, what's the date of the wedding in Portugal?") == "date"
    assert answer_type("Quick question: who is my dentist?") == "person"
    assert asking_part("Out of interest, how many hens do I keep?") == "how many hens do I keep?"
    assert asking_part("Remind me who's teaching it?") == "Remind me who's teaching it?"
