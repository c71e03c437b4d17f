"""scripts/replay_answers.py: saved answer runs read again by remem's own answer code
(the rules, the reader's routing, the verdict), over the tiny LoCoMo file of
test_bench_qa.py. The script lives beside the harness, not in it (the harness uses the
public API only, test_public_api.py), and shares its command convention and exit
statuses (remem_bench.cli.main)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from test_bench_qa import _lines, write_tiny

from remem.llm import create_llm
from remem_bench import qa
from remem_bench.cli import main
from remem_bench.qa import compare_runs, run_locomo_qa
from scripted_llm import ScriptedLLM

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "replay_answers.py"
_spec = importlib.util.spec_from_file_location("replay_answers", SCRIPT)
assert _spec and _spec.loader
replay_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay_answers)
replay_rows = replay_answers.replay_rows
grounding_sweep = replay_answers.grounding_sweep


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_tiny(tmp_path)


def _main(args: list[str]) -> int:
    return main(args, group=replay_answers.replays, prog=replay_answers.PROG)


def test_grounding_sweep_replays_the_check_on_saved_drafts(tiny, tmp_path, monkeypatch):
    """At threshold 0 the replay equals the run; a threshold refuses the ungrounded
    reply ("Madrid" is in no evidence) and keeps the grounded one ("Biscuit")."""

    def reply(messages, schema):
        asked = messages[-1]["content"].rsplit("Question:", 1)[-1]
        return "Biscuit" if "greyhound" in asked else "Madrid"

    out = tmp_path / "g0.jsonl"
    reader = ScriptedLLM(reply)
    reader.count_tokens = create_llm("none").count_tokens
    monkeypatch.setattr(qa, "create_llm", lambda name, **kw: reader)  # the scripted reader
    run = run_locomo_qa(
        str(tiny),
        ["hybrid"],
        llm="scripted",
        grounding=0,
        jsonl=str(out),
        answer_options={"verdict": False},  # the grounding check alone
    )
    sweep = grounding_sweep(str(tiny), str(out), thresholds=(0.0, 0.5))["engines"]["hybrid"]
    off, on = sweep
    assert off["f1_1to4"] == pytest.approx(run["engines"]["hybrid"]["f1_1to4"])
    assert off["false_refusal"] == 0.0 and off["cat5_refusal"] == 0.0
    assert on["cat5_refusal"] == 1.0  # "Madrid" for the parrot and violin: refused
    assert 0.0 < on["false_refusal"] < 1.0  # "Biscuit" stays, the other Madrids go


def test_replay_of_saved_drafts_equals_a_live_run(tiny, tmp_path, monkeypatch, capsys):
    """A run at grounding 0 replayed at 0.5 gives row for row what a live run at 0.5
    gives, and a run replayed at its own setting is unchanged: the replay is the live
    rule (remem.answer.settle), so post-processing changes can be measured on saved
    drafts without calling the reader."""

    def reply(messages, schema):
        asked = messages[-1]["content"].rsplit("Question:", 1)[-1]
        return "The answer is: Biscuit" if "greyhound" in asked else "Answer: **Madrid**"

    reader = ScriptedLLM(reply)
    reader.count_tokens = create_llm("none").count_tokens
    monkeypatch.setattr(qa, "create_llm", lambda name, **kw: reader)
    off, on = tmp_path / "g0.jsonl", tmp_path / "g5.jsonl"
    run_locomo_qa(str(tiny), ["hybrid"], llm="scripted", grounding=0, jsonl=str(off))
    run_locomo_qa(str(tiny), ["hybrid"], llm="scripted", grounding=0.5, jsonl=str(on))
    fields = ("prediction", "refused", "f1", "draft")
    live = [{f: r[f] for f in fields} for r in _lines(on)]
    replayed = replay_rows(str(tiny), _lines(off), 0.5)
    assert [{f: r[f] for f in fields} for r in replayed] == live
    assert replay_rows(str(tiny), _lines(on), 0.5) == _lines(on)
    assert any(r["prediction"] == "Biscuit" for r in replayed)  # the framing is gone

    out, md = tmp_path / "replayed.jsonl", tmp_path / "replayed.md"
    args = ["replay", "--data", str(tiny), "--jsonl", str(off), "--out", str(out)]
    assert _main([*args, "--grounding", "0.5", "--markdown", str(md)]) == 0
    assert [{f: r[f] for f in fields} for r in _lines(out)] == live
    assert "replayed from" in md.read_text() and "| hybrid |" in md.read_text()
    cmp = compare_runs(off, out)["engines"]["hybrid"]
    assert cmp["identical_drafts"] == cmp["questions"]  # same reader replies
    assert cmp["identical_predictions"] < cmp["questions"]  # settled differently


def test_replay_switches_answer_rules_by_name(tiny, tmp_path, capsys):
    """replay --answer-option: each rule can be switched off on the same drafts
    (how each rule's share is measured:
    docs/notes/benchmark-history.md#how-the-answer-rules-moved-the-numbers-the-same-drafts-settled-again),
    and a wrong name is refused."""

    base = {"conversation": "conv-a", "engine": "hybrid", "evidence": ["D2:1"], "refused": False}
    base |= {"context_tokens": 9, "prompt_tokens": 20, "llm_calls": 1, "latency_s": 0.1}
    base |= {"cache_hit": None, "evidence_recall": 1.0}
    rows = [
        {**base, "category": 2, "question": "When did Ben play his first cello concert?",
         "gold": "19 June 2023", "draft": "Ben played the cello on 19 June 2023.",
         "prediction": "", "f1": 0.0},
        {**base, "category": 5, "question": "Where did Ana play her first cello concert?",
         "gold": "Lisbon", "draft": "The concert was in Lisbon", "evidence": ["D1:2", "D1:1"],
         "prediction": "", "f1": 0.0},
    ]  # fmt: skip
    on = replay_rows(str(tiny), rows, 0.5)
    assert on[0]["prediction"] == "19 June 2023" and on[0]["f1"] == 1.0
    assert on[1]["refused"] is True  # Ben's cello, asked as Ana's: the premise check
    off = replay_rows(str(tiny), rows, 0.5, {"date_answers": False, "premise": False})
    assert off[0]["prediction"] == "Ben played the cello on 19 June 2023."
    assert off[1]["refused"] is False and off[1]["prediction"] == "in Lisbon"  # trimmed
    judged = replay_rows(str(tiny), [dict(rows[0], judge=0.0)], 0.5)[0]
    assert judged["judge"] is None  # the judge scored the old prediction, not this one
    with pytest.raises(ValueError, match="unknown replay options"):
        replay_rows(str(tiny), rows, 0.5, {"order": "rank"})  # changes drafts: not replayable

    src, out, md = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "r.md"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["replay", "--data", str(tiny), "--jsonl", str(src), "--out", str(out)]
    assert _main([*args, "--answer-option", "premise=false", "--markdown", str(md)]) == 0
    assert [r["refused"] for r in _lines(out)] == [False, False]
    assert "premise=False" in md.read_text()


def test_readers_replay_reads_the_saved_recall_by_every_reader(tiny, tmp_path, capsys):
    """readers-replay: each saved row read by saved, local, none and routed, with the
    verdict or without; the JSON names the command as the script."""
    saved = tmp_path / "run.jsonl"
    run_locomo_qa(str(tiny), ["hybrid"], llm="none", jsonl=str(saved))
    out = tmp_path / "rr.json"
    args = ["readers-replay", "--data", str(tiny), "--jsonl", str(saved), "--json", str(out)]
    assert _main(args) == 0
    result = json.loads(out.read_text())
    assert list(result["engines"]) == [f"hybrid/{r}" for r in replay_answers.REPLAY_READERS]
    assert result["command"].startswith("python scripts/replay_answers.py readers-replay")
    assert _main([*args, "--no-verdict"]) == 0
    assert json.loads(out.read_text())["answer_options"] == {"verdict": False}


def test_the_exit_statuses_are_remem_benchs(tmp_path, capsys):
    """2 for a usage error, 1 for a file that is not there (docs/cli.md's statuses)."""
    assert (
        _main(["replay", "--data", "d", "--jsonl", "j", "--out", "o", "--answer-option", "x"]) == 2
    )
    assert "KEY=VALUE" in capsys.readouterr().err
    missing = str(tmp_path / "missing.jsonl")
    assert _main(["grounding", "--data", "d", "--jsonl", missing]) == 1
    assert "python scripts/replay_answers.py:" in capsys.readouterr().err


def test_the_harness_has_no_replay_any_more(capsys):
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    assert "replay" not in listed and "grounding" not in listed
