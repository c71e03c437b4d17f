"""The optional LLM judge of ``remem-bench locomo --answer --judge-url``: the
harness's own prompt and reading of the reply (``remem_bench/data/judge.txt``)."""

from __future__ import annotations

from remem_bench.qa import judge_answer
from scripted_llm import ScriptedLLM


def test_the_judge_reads_its_verdict_also_from_a_fenced_reply() -> None:
    judge = ScriptedLLM('```json\n{"correct": false}\n```')
    assert judge_answer(judge, "Where?", "Lisbon", "Porto") == 0.0
    sent = judge.calls[0]["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    assert "Gold answer: Lisbon" in sent[1]["content"] and "Porto" in sent[1]["content"]


def test_a_rambling_reply_is_asked_again_once_with_the_reason() -> None:
    replies = iter(["I think it is right", '{"correct": true}'])
    judge = ScriptedLLM(lambda messages, schema: next(replies))
    assert judge_answer(judge, "Where?", "Lisbon", "Lisbon") == 1.0
    assert len(judge.calls) == 2
    assert "not valid" in judge.calls[1]["messages"][-1]["content"]


def test_no_verdict_twice_or_a_failing_backend_is_no_score() -> None:
    assert judge_answer(ScriptedLLM("maybe"), "q", "g", "p") is None
    assert judge_answer(ScriptedLLM('{"correct": "yes"}'), "q", "g", "p") is None
    assert judge_answer(ScriptedLLM(fail=True), "q", "g", "p") is None
