"""The demo's verdicts: an answer against the expected one's key words (or day), and
the evidence's rank. Hand-made answers only: the reader's score is not asserted."""

from __future__ import annotations

from datetime import date

from remem.demo import DemoQuestion, evidence_rank, grade, load_demo, names_day


def _q(answer: str | None, keys=(), alternatives=(), day=None) -> DemoQuestion:
    return DemoQuestion("?", answer, ("D1:1",) if answer else (), "x", keys, alternatives, day)


def test_an_answer_is_right_only_with_every_key_word_whole() -> None:
    teacher = _q("Ines Duarte", keys=("Ines", "Duarte"))
    assert grade("Her teacher is Ines Duarte.", False, teacher)
    assert not grade("Her teacher is Ines.", False, teacher)  # once "partly right"
    assert not grade("Remy.", False, teacher)
    company = _q("Halden Logistics", keys=("Halden",))
    assert grade("She left Halden's shipment team.", False, company)
    assert not grade("Haldenberg", False, company)
    time = _q("53:48", keys=("53:48",))
    assert grade("53:48", False, time) and not grade("153:48", False, time)
    # a refusal of something the conversation says is wrong
    assert not grade("Not mentioned in the conversation", True, _q("Porto", keys=("Porto",)))


def test_an_alternative_may_stand_for_the_key_words() -> None:
    animal = _q("A greyhound", keys=("greyhound",), alternatives=("dog",))
    assert grade("A retired racing greyhound.", False, animal)
    assert grade("A rescue dog called Biscuit.", False, animal)
    assert not grade("A cat.", False, animal)


def test_an_expected_day_is_right_only_when_the_answer_names_it() -> None:
    q = _q("Saturday 8 March 2025", day=date(2025, 3, 8))
    assert grade("Saturday 8 March 2025", False, q)
    assert grade("On March 8, 2025, at the rescue.", False, q)
    assert grade("the 8th of March", False, q)
    assert grade("2025-03-08", False, q)
    assert not grade("3 March 2025", False, q)  # the day the message was sent
    assert not grade("18 March 2025", False, q)
    assert not grade("8 March 2024", False, q)  # another year
    assert not grade("Some time in March 2025", False, q)  # once "partly right"
    assert not grade("Biscuit came home.", False, q)
    assert not names_day("on Saturday", date(2025, 3, 8))


def test_never_mentioned_questions_are_right_only_when_refused() -> None:
    assert grade("Not mentioned in the conversation", True, _q(None))
    assert not grade("Ines Duarte.", False, _q(None))


def test_evidence_rank_is_the_first_evidence_turn() -> None:
    assert evidence_rank(["D1:2", "D2:5", "D2:6"], ("D2:5",)) == 2
    assert evidence_rank(["D2:6", "D1:1"], ("D1:1", "D2:6")) == 1
    assert evidence_rank(["D1:2", None], ("D2:5",)) is None
    assert evidence_rank([], ("D2:5",)) is None


def test_every_demo_question_has_key_words_or_a_day_or_is_never_mentioned() -> None:
    _, _, questions = load_demo()
    for q in questions:
        assert (q.answer is None) == (not q.evidence) == (q.kind == "not-mentioned")
        if q.answer is not None:
            assert (q.day is None) == bool(q.keys or q.alternatives)
            # the key words are taken from the expected answer, and it is graded right
            assert all(w.lower() in q.answer.lower() for w in q.keys + q.alternatives)
            assert grade(q.answer, False, q)
