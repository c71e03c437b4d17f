"""The demo's verdicts: an answer against the expected one, and the evidence's rank."""

from __future__ import annotations

from remem.demo import evidence_rank, grade, load_demo


def test_answerable_questions_are_graded_by_token_f1() -> None:
    assert grade("Ines Duarte", False, "Ines Duarte") == ("right", 1.0)
    verdict, f1 = grade("Her teacher is Ines.", False, "Ines Duarte")
    assert verdict == "partly" and 0 < f1 < 0.5  # type: ignore[operator]
    assert grade("Remy.", False, "Ines Duarte") == ("wrong", 0.0)
    # a refusal of something the conversation says is its own verdict, never right
    assert grade("Not mentioned in the conversation", True, "Porto") == ("refused", 0.0)


def test_an_expected_day_is_graded_by_the_day_the_answer_writes() -> None:
    expected = "Saturday 8 March 2025"
    assert grade("Saturday 8 March 2025", False, expected)[0] == "right"
    assert grade("On March 8, 2025, at the rescue.", False, expected)[0] == "right"
    # the day the message was sent shares "March 2025" with it: still wrong
    assert grade("3 March 2025", False, expected)[0] == "wrong"
    assert grade("Some time in March 2025", False, expected)[0] == "partly"
    assert grade("Biscuit came home.", False, expected)[0] == "wrong"


def test_never_mentioned_questions_are_right_only_when_refused() -> None:
    assert grade("Not mentioned in the conversation", True, None) == ("right", None)
    assert grade("Ines Duarte.", False, None) == ("wrong", None)


def test_evidence_rank_is_the_first_evidence_turn() -> None:
    assert evidence_rank(["D1:2", "D2:5", "D2:6"], ("D2:5",)) == 2
    assert evidence_rank(["D2:6", "D1:1"], ("D1:1", "D2:6")) == 1
    assert evidence_rank(["D1:2", None], ("D2:5",)) is None
    assert evidence_rank([], ("D2:5",)) is None


def test_every_demo_question_has_an_expected_answer_or_is_never_mentioned() -> None:
    _, _, questions = load_demo()
    for q in questions:
        assert (q.answer is None) == (not q.evidence) == (q.kind == "not-mentioned")
