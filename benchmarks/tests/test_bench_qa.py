"""End-to-end LoCoMo QA (``run_locomo_qa``) on a tiny file in LoCoMo's format with
llm="none": rows, summary, paired differences, the JSONL audit trail and resume."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from remem_bench import qa
from remem_bench.locomo import Question, load_locomo
from remem_bench.qa import (
    FULL_CONTEXT,
    _spread,
    compare_runs,
    paired_differences,
    run_locomo_qa,
    summarise,
    write_jsonl_summary,
)
from remem_bench.qa_metrics import locomo_f1
from shared_data import LOCOMO, needs_locomo

ENGINES = ["hybrid", "synapse", FULL_CONTEXT]
SUMMARY_KEYS = {
    "questions",
    "f1",
    "counts",
    "f1_1to4",
    "containment",
    "date_right_cat2",
    "date_graded_cat2",
    "containment_1to4",
    "reply_tokens_mean",
    "cat5_refusal",
    "false_refusal",
    "invented_rate",
    "context_tokens_p50",
    "context_tokens_mean",
    "llm_calls_mean",
    "latency_p50_s",
    "latency_p95_s",
    "evidence_recall",
    "judge_accuracy",
    "cache_hit_rate",
}
ROW_KEYS = {
    "invented",
    "engine",
    "conversation",
    "category",
    "question",
    "gold",
    "prediction",
    "draft",
    "refused",
    "f1",
    "containment",
    "date_right",
    "reply_tokens",
    "evidence_recall",
    "evidence",
    "context_tokens",
    "prompt_tokens",
    "llm_calls",
    "latency_s",
    "cache_hit",
}


CONV_A = {
    "speaker_a": "Ana",
    "speaker_b": "Ben",
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound named Biscuit."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "I started learning the cello in Lisbon."},
        {
            "speaker": "Ana",
            "dia_id": "D1:3",
            "text": "My sister lives in Paris, my brother in Rome.",
        },
    ],
    "session_2_date_time": "10:00 am on 20 June, 2023",
    "session_2": [
        {"speaker": "Ben", "dia_id": "D2:1", "text": "I played my first cello concert yesterday."},
        {"speaker": "Ana", "dia_id": "D2:2", "text": "Biscuit won a prize at the dog show."},
    ],
}
QA_A = [
    {
        "question": "Which cities do Ana's sister and brother live in?",
        "answer": "Paris, Rome",
        "category": 1,
        "evidence": ["D1:3"],
    },
    {
        "question": "When did Ben play his first cello concert?",
        "answer": "19 June 2023",
        "category": 2,
        "evidence": ["D2:1"],
    },
    {
        "question": "What is the name of Ana's greyhound?",
        "answer": "Biscuit",
        "category": 4,
        "evidence": ["D1:1"],
    },
    {
        "question": "What is the name of Ben's parrot?",
        "adversarial_answer": "Captain",
        "category": 5,
        "evidence": [],
    },
]
CONV_B = {
    "speaker_a": "Cleo",
    "speaker_b": "Dan",
    "session_1_date_time": "9:15 am on 2 March, 2023",
    "session_1": [
        {"speaker": "Cleo", "dia_id": "D1:1", "text": "I repaired an old typewriter."},
        {"speaker": "Dan", "dia_id": "D1:2", "text": "My niece won a chess tournament."},
    ],
    "session_2_date_time": "7:30 pm on 5 April, 2023",
    "session_2": [
        {"speaker": "Cleo", "dia_id": "D2:1", "text": "The typewriter needed a new ribbon."},
    ],
}
QA_B = [
    {
        "question": "What did Cleo repair?",
        "answer": "an old typewriter",
        "category": 4,
        "evidence": ["D1:1"],
    },
    {
        "question": "What tournament did Dan's niece win?",
        "answer": "chess",
        "category": 2,
        "evidence": ["D1:2"],
    },
    {
        "question": "Which violin does Dan's niece play?",
        "adversarial_answer": "a Stradivarius",
        "category": 5,
        "evidence": ["D1:2"],
    },
]
N_QUESTIONS = len(QA_A) + len(QA_B)
N_ANSWERABLE = N_QUESTIONS - 2
BLOCKS = len(ENGINES) * 2


def write_tiny(folder: Path) -> Path:
    """The two tiny conversations, as a LoCoMo file in ``folder`` (test_replay_answers.py
    replays runs over it too)."""
    data = [
        {"sample_id": "conv-a", "conversation": CONV_A, "qa": QA_A},
        {"sample_id": "conv-b", "conversation": CONV_B, "qa": QA_B},
    ]
    path = folder / "locomo_tiny.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_tiny(tmp_path)


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _key(r: dict) -> tuple:
    return (r["engine"], r["conversation"], r["question"])


def _scored_gold(r: dict, questions: dict) -> str | None:
    q = questions[(r["conversation"], r["question"])]
    return None if q.category == 5 else q.answer


@pytest.fixture
def finished(tiny: Path, tmp_path: Path) -> tuple[dict, Path]:
    out = tmp_path / "rows.jsonl"
    progress: list[str] = []
    result = run_locomo_qa(
        str(tiny), ENGINES, llm="none", k=5, jsonl=str(out), progress=progress.append
    )
    assert len(progress) == 2 and progress[0].startswith("[1/2] conv-a: 4 questions")
    return result, out


def _forbid_runs(monkeypatch: pytest.MonkeyPatch, why: str) -> None:
    """Make running any (engine, conversation) block fail the test."""

    def boom(*args, **kwargs):
        raise AssertionError(why)

    monkeypatch.setattr(qa, "_run_engine", boom)


def _record_runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The (engine, conversation) blocks the run goes on to run, in order."""
    ran: list[tuple[str, str]] = []
    real = qa._run_engine

    def spy(name, conv, *args, **kwargs):
        ran.append((name, conv.sample_id))
        return real(name, conv, *args, **kwargs)

    monkeypatch.setattr(qa, "_run_engine", spy)
    return ran


def test_rows_and_summary(tiny, finished):
    result, out = finished
    assert result["benchmark"] == "locomo-qa"
    assert result["reader"] == "none"
    assert result["conversations"] == 2 and result["resumed_blocks"] == 0
    assert result["k"] == 5 and result["max_context_tokens"] == 900
    assert set(result["engines"]) == set(ENGINES)
    rows = _lines(out)
    assert len(rows) == len(ENGINES) * N_QUESTIONS
    questions = {(c.sample_id, q.question): q for c in load_locomo(tiny) for q in c.questions}
    for name in ENGINES:
        s = result["engines"][name]
        assert set(s) == SUMMARY_KEYS
        assert s["questions"] == N_QUESTIONS
        assert sum(r["engine"] == name for r in rows) == N_QUESTIONS
        assert s["counts"] == {"1": 1, "2": 2, "3": 0, "4": 2, "5": 2}
        for c, v in s["f1"].items():
            if c == "3":
                assert math.isnan(v)  # no question of that category
            else:
                assert 0.0 <= v <= 1.0
        assert 0.0 <= s["f1_1to4"] <= 1.0
        assert 0.0 <= s["cat5_refusal"] <= 1.0 and 0.0 <= s["false_refusal"] <= 1.0
        assert 0.0 <= s["evidence_recall"] <= 1.0
        assert s["llm_calls_mean"] == 0.0
        assert s["judge_accuracy"] is None and s["cache_hit_rate"] is None
        assert s["context_tokens_mean"] > 0
        mine = [r for r in rows if r["engine"] == name]
        answerable = [r["f1"] for r in mine if r["category"] != 5]
        assert len(answerable) == N_ANSWERABLE
        assert s["f1_1to4"] == pytest.approx(sum(answerable) / len(answerable))
        refusals = [r["refused"] for r in mine if r["category"] == 5]
        assert s["cat5_refusal"] == pytest.approx(sum(refusals) / len(refusals))
    for r in rows:
        assert set(r) == ROW_KEYS
        assert 0.0 <= r["f1"] <= 1.0
        assert r["f1"] == locomo_f1(r["prediction"], _scored_gold(r, questions), r["category"])
        assert r["llm_calls"] == 0 and r["prompt_tokens"] == 0 and r["cache_hit"] is None
        assert isinstance(r["refused"], bool)
        q = questions[(r["conversation"], r["question"])]
        assert r["gold"] == (q.adversarial_answer if q.category == 5 else q.answer)
        if r["category"] == 5:
            assert r["f1"] == (1.0 if "not mentioned" in r["prediction"].lower() else 0.0)
        if r["engine"] == FULL_CONTEXT:  # the whole (tiny) conversation fits
            n_turns = 5 if r["conversation"] == "conv-a" else 3
            assert len(r["evidence"]) == n_turns
            if r["category"] != 5:
                assert r["evidence_recall"] == 1.0
    # the greyhound question: the typed reader cuts the name from the evidence turn
    grey = next(r for r in rows if r["engine"] == "hybrid" and "greyhound" in r["question"])
    assert grey["prediction"] == "Biscuit" and grey["invented"] == []
    assert grey["evidence"][0] == "D1:1" and grey["evidence_recall"] == 1.0
    assert grey["f1"] == 1.0  # the gold is "Biscuit"


def test_paired_table_is_each_engine_minus_hybrid(finished):
    result, out = finished
    paired = result["paired"]
    assert set(paired) == {"synapse", FULL_CONTEXT}
    rows = _lines(out)
    ref = {(r["conversation"], r["question"]): r["f1"] for r in rows if r["engine"] == "hybrid"}
    for name, p in paired.items():
        assert p["minus"] == "hybrid"
        assert p["questions"] == N_ANSWERABLE
        diffs = [
            r["f1"] - ref[(r["conversation"], r["question"])]
            for r in rows
            if r["engine"] == name and r["category"] != 5
        ]
        assert p["diff"] == pytest.approx(sum(diffs) / len(diffs))
        lo, hi = p["ci95"]
        assert lo <= p["diff"] + 1e-12 and p["diff"] <= hi + 1e-12
        assert min(diffs) <= lo and hi <= max(diffs)
    assert paired_differences(rows, ["synapse"]) == {}  # no base, no table


def test_jsonl_summary_recomputes_the_table(finished):
    result, out = finished
    again = write_jsonl_summary(out)
    assert set(again["engines"]) == set(ENGINES)
    for name in ENGINES:
        assert again["engines"][name]["f1_1to4"] == result["engines"][name]["f1_1to4"]
        assert again["engines"][name]["questions"] == N_QUESTIONS
    assert again["paired"] == result["paired"]
    assert (
        summarise(_lines(out), ["hybrid"])["hybrid"]["f1_1to4"]
        == (result["engines"]["hybrid"]["f1_1to4"])
    )


def test_resume_on_a_finished_file_runs_nothing(tiny, finished, monkeypatch):
    result, out = finished
    before = out.read_text(encoding="utf-8")

    _forbid_runs(monkeypatch, "a finished block was run again")
    again = run_locomo_qa(str(tiny), ENGINES, llm="none", k=5, jsonl=str(out), resume=True)
    assert again["resumed_blocks"] == BLOCKS
    after = out.read_text(encoding="utf-8")
    assert len(after.splitlines()) == len(before.splitlines()) == len(ENGINES) * N_QUESTIONS
    assert sorted(after.splitlines()) == sorted(before.splitlines())
    for name in ENGINES:
        assert again["engines"][name]["f1_1to4"] == result["engines"][name]["f1_1to4"]
    assert again["paired"] == result["paired"]


def test_resume_reruns_a_truncated_block_only(tiny, finished, monkeypatch):
    result, out = finished
    rows = _lines(out)
    last = rows[-1]
    assert (last["engine"], last["conversation"]) == (FULL_CONTEXT, "conv-b")
    out.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[:-1]), encoding="utf-8"
    )
    ran = _record_runs(monkeypatch)
    again = run_locomo_qa(str(tiny), ENGINES, llm="none", k=5, jsonl=str(out), resume=True)
    assert ran == [(FULL_CONTEXT, "conv-b")]
    assert again["resumed_blocks"] == BLOCKS - 1
    now = _lines(out)
    assert len(now) == len(rows)
    assert sorted(map(_key, now)) == sorted(map(_key, rows))
    assert len(set(map(_key, now))) == len(now)  # no duplicated rows
    block = [r for r in now if (r["engine"], r["conversation"]) == (FULL_CONTEXT, "conv-b")]
    assert [r["question"] for r in block] == [q["question"] for q in QA_B]
    assert again["engines"][FULL_CONTEXT]["questions"] == N_QUESTIONS


def test_parts_run_in_parallel_are_merged_with_resume_from(tiny, finished, monkeypatch, tmp_path):
    _, out = finished
    rows = _lines(out)
    # part A holds conv-a's blocks plus half of a conv-b block; part B holds conv-b
    # complete and conv-a's hybrid block again (taken once, from the first file)
    a_rows = [r for r in rows if r["conversation"] == "conv-a"]
    b_rows = [r for r in rows if r["conversation"] == "conv-b"]
    part_a, part_b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    part_a.write_text("".join(json.dumps(r) + "\n" for r in a_rows + b_rows[:1]))
    dup = [r for r in a_rows if r["engine"] == "hybrid"]
    part_b.write_text("".join(json.dumps(r) + "\n" for r in b_rows + dup))

    _forbid_runs(monkeypatch, "a block complete in one of the parts was run again")
    merged = run_locomo_qa(
        str(tiny),
        ENGINES,
        llm="none",
        k=5,
        jsonl=str(part_a),
        resume=True,
        resume_from=[str(part_b)],
    )
    assert merged["resumed_blocks"] == BLOCKS
    now = _lines(part_a)
    assert sorted(map(_key, now)) == sorted(map(_key, rows))  # each row exactly once


def test_without_resume_the_file_is_rewritten(tiny, finished):
    _, out = finished
    run_locomo_qa(str(tiny), ["hybrid"], llm="none", k=5, jsonl=str(out))
    rows = _lines(out)
    assert len(rows) == N_QUESTIONS and {r["engine"] for r in rows} == {"hybrid"}


def test_conversation_limit_and_category_filters(tiny):
    result = run_locomo_qa(
        str(tiny), ["bm25"], llm="none", conversations=["conv-b"], categories=(2, 4, 5)
    )
    assert result["conversations"] == 1
    s = result["engines"]["bm25"]
    assert s["questions"] == len(QA_B)
    assert s["counts"] == {"1": 0, "2": 1, "3": 0, "4": 1, "5": 1}
    assert result["paired"] == {}  # hybrid did not run
    assert result["jsonl"] is None


# -- _spread -------------------------------------------------------------------------


def _questions(counts: dict[int, int]) -> list[Question]:
    qs = []
    for i in range(max(counts.values())):  # interleave categories, as LoCoMo does
        for c, n in counts.items():
            if i < n:
                qs.append(Question(f"q{c}-{i}", "a", c, ("D1:1",)))
    return qs


@pytest.mark.parametrize("limit", [1, 3, 5, 8, 20])
def test_spread_keeps_every_category_and_about_limit(limit):
    counts = {1: 10, 2: 5, 3: 2, 4: 20, 5: 3}
    qs = _questions(counts)
    kept = _spread(qs, limit)
    assert {q.category for q in kept} == set(counts)  # every category represented
    assert len(kept) <= limit + len(counts)  # one extra per category at most
    assert [q for q in qs if q in kept] == kept  # original order, no duplicates
    for c in counts:
        mine = [q for q in qs if q.category == c]
        chosen = [q for q in kept if q.category == c]
        assert chosen == mine[: len(chosen)]  # the first ones of each category
    assert _spread(qs, limit) == kept  # reproducible


def test_spread_is_proportional():
    qs = _questions({1: 10, 2: 5, 3: 2, 4: 20, 5: 3})
    kept = _spread(qs, 20)
    # shares: round(20 * n / 40) -> 5, 2 (2.5 rounds to even), 1, 10, 2 (1.5 -> 2)
    assert {c: sum(q.category == c for q in kept) for c in range(1, 6)} == {
        1: 5,
        2: 2,
        3: 1,
        4: 10,
        5: 2,
    }


def test_spread_keeps_all_when_under_the_limit():
    qs = _questions({1: 2, 4: 3})
    assert _spread(qs, 5) == qs
    assert _spread(qs, 50) == qs


# -- the real data set, when present --------------------------------------------------


@needs_locomo
def test_smoke_on_locomo_conv26(tmp_path):
    out = tmp_path / "conv26.jsonl"
    result = run_locomo_qa(
        str(LOCOMO), ["hybrid"], llm="none", conversations=["conv-26"], limit=5, jsonl=str(out)
    )
    conv = next(c for c in load_locomo(LOCOMO) if c.sample_id == "conv-26")
    planned = _spread(conv.questions, 5)
    rows = _lines(out)
    assert [r["question"] for r in rows] == [q.question for q in planned]
    assert {r["category"] for r in rows} == {q.category for q in conv.questions}
    s = result["engines"]["hybrid"]
    assert s["questions"] == len(planned)
    assert 0.0 <= s["f1_1to4"] <= 1.0 and 0.0 <= s["evidence_recall"] <= 1.0
    assert all(0.0 <= r["f1"] <= 1.0 and r["llm_calls"] == 0 for r in rows)
    assert all(0 < r["context_tokens"] <= 900 for r in rows if not r["refused"] or r["evidence"])
    assert result["conversations"] == 1 and result["limit"] == 5


def test_optional_llm_judge_scores_answerable_questions(tiny, tmp_path):
    """The judge sees question, gold and prediction; category 5 is never judged; a
    failing judge leaves the score empty and the run goes on."""
    from scripted_llm import ScriptedLLM

    def verdict(messages, schema):
        return '{"correct": true}' if "Biscuit" in messages[-1]["content"] else '{"correct": false}'

    judge = ScriptedLLM(verdict)
    result = run_locomo_qa(str(tiny), ["hybrid"], llm="none", judge=judge, jsonl=None)
    s = result["engines"]["hybrid"]
    assert len(judge.calls) == N_ANSWERABLE  # category 5 is scored by refusal instead
    prompts = [c["messages"][-1]["content"] for c in judge.calls]
    assert any("Gold answer: Biscuit" in p for p in prompts)
    assert 0.0 < s["judge_accuracy"] < 1.0  # only the greyhound question is judged right
    broken = run_locomo_qa(str(tiny), ["hybrid"], llm="none", judge=ScriptedLLM(fail=True))
    assert broken["engines"]["hybrid"]["judge_accuracy"] is None


def test_full_context_asks_grouped_by_prompt_and_writes_in_file_order(tmp_path, monkeypatch):
    """The full-context reader is asked the plain questions first, then those about
    time, so the shared window is reused instead of re-read at every switch; the
    rows still come out in the file's order, each with its own question's answer."""
    from remem.llm import create_llm
    from scripted_llm import ScriptedLLM

    qa_rows = [
        {"question": "When did Cleo repair it?", "answer": "2 March 2023", "category": 2},
        {"question": "What did Cleo repair?", "answer": "a typewriter", "category": 4},
        {"question": "When did Dan's niece win?", "answer": "2 March 2023", "category": 2},
        {"question": "What did the niece win?", "answer": "chess", "category": 4},
    ]
    for q in qa_rows:
        q["evidence"] = ["D1:1"]
    data = tmp_path / "time.json"
    data.write_text(json.dumps([{"sample_id": "conv-b", "conversation": CONV_B, "qa": qa_rows}]))

    def reply(messages, schema):
        return "echo " + messages[-1]["content"].rsplit("Question:", 1)[-1].strip()

    reader = ScriptedLLM(reply)
    reader.count_tokens = create_llm("none").count_tokens
    monkeypatch.setattr(qa, "create_llm", lambda name, **kw: reader)
    out = tmp_path / "rows.jsonl"
    run_locomo_qa(str(data), [FULL_CONTEXT], llm="scripted", grounding=0, jsonl=str(out))
    asked = [c["messages"][-1]["content"].rsplit("Question:", 1)[-1].strip() for c in reader.calls]
    assert asked == [qa_rows[i]["question"] for i in (1, 3, 0, 2)]  # plain, then time
    rows = _lines(out)
    assert [r["question"] for r in rows] == [q["question"] for q in qa_rows]
    assert all(r["draft"] == "echo " + r["question"] for r in rows)


def test_resume_with_fewer_conversations_or_engines_keeps_the_other_blocks(
    tiny, finished, monkeypatch
):
    """A part run with --resume over a subset must not drop the blocks it does not
    plan: that lost hours of saved rows once."""
    _, out = finished
    rows = _lines(out)

    _forbid_runs(monkeypatch, "a finished block was run again")
    run_locomo_qa(
        str(tiny),
        ["hybrid"],
        llm="none",
        k=5,
        jsonl=str(out),
        resume=True,
        conversations=["conv-b"],
    )
    assert sorted(map(_key, _lines(out))) == sorted(map(_key, rows))


def test_resume_of_a_subset_reruns_its_partial_block_and_keeps_the_rest(
    tiny, finished, monkeypatch
):
    _, out = finished
    rows = _lines(out)
    partial = [r for r in rows if (r["engine"], r["conversation"]) == ("hybrid", "conv-b")]
    others = [r for r in rows if (r["engine"], r["conversation"]) != ("hybrid", "conv-b")]
    out.write_text("".join(json.dumps(r) + "\n" for r in others + partial[:1]))
    ran = _record_runs(monkeypatch)
    result = run_locomo_qa(
        str(tiny),
        ["hybrid"],
        llm="none",
        k=5,
        jsonl=str(out),
        resume=True,
        conversations=["conv-b"],
    )
    assert ran == [("hybrid", "conv-b")]
    assert result["engines"]["hybrid"]["questions"] == len(partial)
    now = _lines(out)
    assert sorted(map(_key, now)) == sorted(map(_key, rows))  # partial row replaced, not doubled
    assert not out.with_name(out.name + ".tmp").exists()


def test_compare_runs_question_by_question(finished, tmp_path, capsys):
    from remem_bench.cli import main

    result, out = finished
    same = compare_runs(out, out)
    for name in ENGINES:
        e = same["engines"][name]
        assert e["questions"] == N_QUESTIONS
        assert e["identical_predictions"] == e["identical_evidence"] == N_QUESTIONS
        assert e["diff"] == 0.0 and e["ci95"] == [0.0, 0.0]
        assert e["f1_1to4_a"] == pytest.approx(result["engines"][name]["f1_1to4"])

    # B changes one hybrid answer (scored 1 instead of less) and drops a synapse row
    rows = _lines(out)
    i = next(
        j
        for j, r in enumerate(rows)
        if r["engine"] == "hybrid" and r["category"] != 5 and r["f1"] < 1.0
    )
    gained = 1.0 - rows[i]["f1"]
    rows[i] = {**rows[i], "prediction": "changed", "f1": 1.0}
    dropped = next(j for j, r in enumerate(rows) if r["engine"] == "synapse")
    del rows[dropped]
    b = tmp_path / "b.jsonl"
    b.write_text("".join(json.dumps(r) + "\n" for r in rows[::-1]))  # order does not matter
    diff = compare_runs(out, b)["engines"]
    scored = sum(r["category"] != 5 for r in _lines(out) if r["engine"] == "hybrid")
    assert diff["hybrid"]["identical_predictions"] == N_QUESTIONS - 1
    assert diff["hybrid"]["identical_evidence"] == N_QUESTIONS
    assert diff["hybrid"]["diff"] == pytest.approx(gained / scored)
    lo, hi = diff["hybrid"]["ci95"]
    assert 0.0 <= lo <= diff["hybrid"]["diff"] <= hi
    assert diff["synapse"]["questions"] == N_QUESTIONS - 1

    # a run kept gzipped (as docs/results keeps them) reads the same
    gz = tmp_path / "b.jsonl.gz"
    gz.write_bytes(gzip.compress(b.read_bytes()))
    assert compare_runs(out, gz)["engines"] == diff

    md = tmp_path / "cmp.md"
    assert main(["qa-compare", str(out), str(b), "--markdown", str(md)]) == 0
    assert "hybrid" in capsys.readouterr().out
    assert "identical predictions" in md.read_text() and "| hybrid |" in md.read_text()


def test_a_cut_short_last_line_reruns_its_block_only(tiny, finished, monkeypatch, caplog):
    _, out = finished
    text = out.read_text(encoding="utf-8")
    out.write_text(text[: text.rstrip("\n").rfind("\n") + 1] + text.splitlines()[-1][:25])
    ran = _record_runs(monkeypatch)
    with caplog.at_level("WARNING", logger="remem_bench"):
        run_locomo_qa(str(tiny), ENGINES, llm="none", k=5, jsonl=str(out), resume=True)
    assert ran == [(FULL_CONTEXT, "conv-b")]  # the block of the cut row, nothing else
    assert any("cut short" in r.getMessage() for r in caplog.records)
    assert sorted(map(_key, _lines(out))) == sorted(map(_key, _lines_of(text)))

    broken = out.read_text(encoding="utf-8").splitlines()
    broken[1] = broken[1][:10]
    out.write_text("\n".join(broken) + "\n")
    with pytest.raises(ValueError, match="line 2 is not a JSON row"):
        run_locomo_qa(str(tiny), ENGINES, llm="none", k=5, jsonl=str(out), resume=True)


def _lines_of(text: str) -> list[dict]:
    return [json.loads(x) for x in text.splitlines()]


def _script(name: str) -> tuple[str, Path, dict[str, str]]:
    """bash, one of scripts/, and an environment whose REMEM is this interpreter's."""
    import os
    import shutil
    import sys

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    script = Path(__file__).resolve().parents[2] / "scripts" / name
    return bash, script, {**os.environ, "REMEM_BENCH": f"{sys.executable} -m remem_bench"}


def test_the_full_run_script_runs_two_parts_and_merges(tiny, tmp_path):
    """scripts/locomo_qa_full.sh, as the history runs it (reader none here):
    docs/notes/benchmark-history.md#end-to-end-answers-on-locomo-bundled-reader-all-1986-questions."""
    import subprocess

    bash, script, env = _script("locomo_qa_full.sh")
    env = {
        **env,
        "LLM": "none",
        "PART_A": "conv-a",
        "PART_B": "conv-b",
    }
    out = tmp_path / "out"

    def run() -> None:
        done = subprocess.run(
            [bash, str(script), str(tiny), "hybrid,bm25", str(out)],
            env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr

    run()
    a, b = _lines(out / "qa-full.jsonl"), _lines(out / "qa-full-b.jsonl")
    assert {r["conversation"] for r in b} == {"conv-b"}
    assert {(r["engine"], r["conversation"]) for r in a} == {
        (e, c) for e in ("hybrid", "bm25") for c in ("conv-a", "conv-b")
    }  # the merge took part B's blocks in
    table = (out / "qa-full.md").read_text()
    assert "| hybrid |" in table and "| bm25 |" in table
    summary = json.loads((out / "qa-full.json").read_text())
    assert summary["resumed_blocks"] == 4
    assert summary["engines"]["bm25"]["questions"] == N_QUESTIONS

    before = (out / "qa-full.jsonl").read_text()
    run()  # again: everything is kept, nothing is answered twice
    assert sorted((out / "qa-full.jsonl").read_text().splitlines()) == sorted(before.splitlines())


def test_answer_options_reach_every_engine_from_the_command_line(tiny, tmp_path, monkeypatch):
    """--answer-option KEY=VALUE (JSON values) reaches every engine's Answerer, the
    full-context one too (except the options its window fixes), and the table says so."""
    import functools

    from remem.answer import Answerer
    from remem_bench.cli import main

    seen: list[dict] = []
    original = Answerer.__init__

    @functools.wraps(original)  # keeps the signature Memory checks options against
    def spy(self, llm, **kw):
        seen.append(kw)
        original(self, llm, **kw)

    monkeypatch.setattr(Answerer, "__init__", spy)
    md = tmp_path / "qa.md"
    argv = ["locomo", "--data", str(tiny), "--answer", "--llm", "none"]
    argv += ["--engines", f"hybrid,{FULL_CONTEXT}", "--conversations", "conv-b"]
    argv += ["--answer-option", "premise=false", "--answer-option", "order=rank"]
    assert main([*argv, "--markdown", str(md)]) == 0
    assert any(kw.get("premise") is False and kw.get("order") == "rank" for kw in seen)
    full = [kw for kw in seen if kw.get("max_answer_tokens") == 48]  # the full-context one
    assert full and all(kw.get("premise") is False and "order" not in kw for kw in full)
    assert "premise=False, order=rank" in md.read_text()
    assert main([*argv[:-4], "--answer-option", "novalue"]) == 2  # a usage error


def test_a_question_asked_twice_pairs_by_occurrence(tmp_path):
    """LoCoMo asks a few questions twice in one conversation (with different golds):
    each occurrence pairs with the same occurrence of the other engine or run, and
    none is lost to a key collision."""

    def row(engine, f1, prediction="p"):
        q = {"conversation": "c", "question": "Same?", "category": 4, "evidence": []}
        return {**q, "engine": engine, "f1": f1, "prediction": prediction, "draft": ""}

    rows = [row("hybrid", 0.0), row("hybrid", 1.0), row("synapse", 1.0), row("synapse", 1.0)]
    p = paired_differences(rows, ["hybrid", "synapse"])["synapse"]
    assert p["questions"] == 2 and p["diff"] == pytest.approx(0.5)  # (1-0 + 1-1) / 2
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in rows))
    b.write_text("".join(json.dumps(r) + "\n" for r in [*rows[:1], row("hybrid", 1.0, "q")]))
    cmp = compare_runs(a, b)["engines"]["hybrid"]
    assert cmp["questions"] == 2 and cmp["identical_predictions"] == 1
    # --exclude: the first occurrence's run left out leaves the second only
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(rows[0]) + "\n")
    held_out = compare_runs(a, b, exclude=[first])["engines"]["hybrid"]
    assert held_out["questions"] == 1 and held_out["identical_predictions"] == 0


def test_sampled_reruns_repeat_by_seed(tiny, tmp_path, llama_server):
    """--llm-seed with a sampling temperature: a rerun with the same seed draws the
    same drafts (the benchmark's repeated runs differ by seed, nothing else), and the
    result and its table name the seed."""
    pytest.importorskip("xllamacpp")
    from remem_bench.cli import main

    def run(name: str, seed: int) -> list[str]:
        argv = ["locomo", "--data", str(tiny), "--answer", "--llm", "openai"]
        argv += ["--llm-url", llama_server.base_url, "--llm-model", "smollm2"]
        argv += ["--llm-seed", str(seed), "--answer-option", "temperature=1.2"]
        argv += ["--engines", "hybrid", "--conversations", "conv-b", "--grounding", "0"]
        argv += [
            "--jsonl",
            str(tmp_path / f"{name}.jsonl"),
            "--json",
            str(tmp_path / f"{name}.json"),
        ]
        argv += ["--markdown", str(tmp_path / f"{name}.md")]
        assert main(argv) == 0
        rows = [json.loads(x) for x in (tmp_path / f"{name}.jsonl").read_text().splitlines()]
        assert len(rows) == len(QA_B)
        return [r["draft"] for r in rows]

    first = run("a", 4)
    assert run("b", 4) == first
    summary = json.loads((tmp_path / "a.json").read_text())
    assert summary["reader_seed"] == 4 and summary["answer_options"] == {"temperature": 1.2}
    assert "seed 4" in (tmp_path / "a.md").read_text()


def test_the_seeds_script_runs_sampled_repeats_and_their_spread(tiny, tmp_path, llama_server):
    """scripts/locomo_qa_seeds.sh, as
    docs/notes/benchmark-history.md#repeated-runs-with-sampled-decoding runs it, with the reader
    served by a real llama.cpp server; an odd number of seeds runs the last alone."""
    import subprocess

    bash, script, env = _script("locomo_qa_seeds.sh")
    env = {
        **env,
        "LLM": "openai",
        "OPENAI_BASE_URL": llama_server.base_url,
        "REMEM_LLM_MODEL": "smollm2",
        "SEEDS": "3 4 5",
        "LIMIT": "all",
    }
    out = tmp_path / "seeds"
    done = subprocess.run(
        [bash, str(script), str(tiny), "hybrid,bm25", str(out)],
        env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    for seed in (3, 4, 5):
        run = json.loads((out / f"seed-{seed}.json").read_text())
        assert run["reader_seed"] == seed and run["answer_options"] == {"temperature": 0.7}
        assert len(_lines(out / f"seed-{seed}.jsonl")) == 2 * N_QUESTIONS
    spread = json.loads((out / "spread.json").read_text())
    assert [Path(r["run"]).name for r in spread["runs"]] == [f"seed-{s}.jsonl" for s in (3, 4, 5)]
    assert "Over 3 runs" in (out / "spread.md").read_text()


def test_readers_side_by_side_read_the_same_recall(tiny, tmp_path):
    out = tmp_path / "readers.jsonl"
    result = run_locomo_qa(
        str(tiny),
        ["hybrid", FULL_CONTEXT],
        llm="none",
        k=5,
        readers=["none", "none@extract"],
        jsonl=str(out),
    )
    labels = [
        "hybrid/none",
        "hybrid/none@extract",
        f"{FULL_CONTEXT}/none",
        f"{FULL_CONTEXT}/none@extract",
    ]
    assert list(result["engines"]) == labels and result["readers"] == ["none", "none@extract"]
    rows = _lines(out)
    assert len(rows) == N_QUESTIONS * len(labels)
    by = {}
    for r in rows:
        by.setdefault((r["conversation"], r["question"]), {})[r["engine"]] = r
    for both in by.values():  # one recall per question, read by both readers
        assert both["hybrid/none"]["evidence"] == both["hybrid/none@extract"]["evidence"]
    # without a generating reader every mode is extractive, and a date question gets
    # the day the memory talks about ("yesterday", said on 20 June: the gold 19 June)
    when = by[("conv-a", "When did Ben play his first cello concert?")]
    assert when["hybrid/none@extract"]["prediction"] == "Monday 19 June 2023"
    # the default reader (typed) cuts a span, extract quotes a sentence: a date is
    # the same day for both, and neither writes a word no turn holds
    assert when["hybrid/none"]["prediction"] == "Monday 19 June 2023"
    assert all(r["invented"] == [] for both in by.values() for r in both.values())
    for label in labels:
        e = result["engines"][label]
        assert 0 <= e["containment_1to4"] <= 1 and e["reply_tokens_mean"] > 0
    # resuming finds every block of every reader done
    again = run_locomo_qa(
        str(tiny),
        ["hybrid", FULL_CONTEXT],
        llm="none",
        k=5,
        readers=["none", "none@extract"],
        jsonl=str(out),
        resume=True,
    )
    assert again["resumed_blocks"] == 2 * len(labels)
    assert sorted(map(_key, _lines(out))) == sorted(map(_key, rows))


def test_an_unknown_reader_is_a_clear_error(tiny):
    from remem import RememError

    with pytest.raises(RememError, match="unknown llm"):
        run_locomo_qa(str(tiny), ["hybrid"], llm="none", readers=["none", "gpt-9"])
