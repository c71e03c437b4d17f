"""Per-question rankings of a ``remem-bench locomo`` or ``remem-bench longmemeval`` run.

    PYTHONPATH=src python scripts/recall_per_question.py OUT.jsonl -- \
        bench locomo --data ../shared/data/locomo/locomo10.json --engines hybrid,synapse \
        --k 5,10,20 --reuse-embeddings --json run.json

Runs the CLI command after ``--`` unchanged (its tables and --json as usual) and writes
one line per (engine, question) to OUT.jsonl: the engine, the question (LoCoMo: the
conversation and the question's index in it; LongMemEval: its id and type), its
evidence, the ranked ids and the evidence recall at each k. Two commits' files are
compared with ``--diff A.jsonl B.jsonl``: every question whose recall fell or rose at
some k. The bench's tables have no per-question recall; this script reads it through
the harness's internals (``runner.evidence_recall``, ``lme_runner._score_ranking``),
so it runs unchanged on older commits that have the same harness.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

Row = dict[str, Any]


def _patch_locomo(rows: list[Row]) -> None:
    """Record each LoCoMo question's ranking as the runner scores it."""
    from remem_bench import runner

    state: dict[str, Any] = {}
    open_engine, evidence_recall = runner.open_engine, runner.evidence_recall

    @contextmanager
    def opened(name: str, *args: Any, **kwargs: Any) -> Iterator[Any]:
        with open_engine(name, *args, **kwargs) as mem:
            search, recall = mem.search, mem.recall

            def searched(question: str, **kw: Any) -> Any:
                state["q"], state["user"] = question, kw.get("user_id")
                return search(question, **kw)

            def recalled(question: str, **kw: Any) -> Any:
                state["q"], state["user"] = question, kw.get("user_id")
                return recall(question, **kw)

            mem.search, mem.recall = searched, recalled
            state["engine"], state["seen"] = name, {}
            yield mem

    def scored(evidence: Any, got: Any, k: int) -> float:
        value = evidence_recall(evidence, got, k)
        key = (state["user"], state["q"])
        row = state["seen"].get(key)
        if row is None:
            row = {"engine": state["engine"], "user": state["user"], "question": state["q"]}
            row.update(evidence=list(evidence), ranked=list(got), recall={})
            state["seen"][key] = row
            rows.append(row)
        row["recall"][str(k)] = value
        return value

    runner.open_engine, runner.evidence_recall = opened, scored


def _patch_longmemeval(rows: list[Row]) -> None:
    """Record each LongMemEval question's ranking as the runner scores it."""
    from remem_bench import lme_runner

    score_ranking = lme_runner._score_ranking

    def scored(run: Any, q: Any, hits: Any, ks: Any) -> None:
        turns = [h.metadata.get("turn") for h in hits]
        recall = {str(k): lme_runner.evidence_recall(q.evidence, turns, k) for k in ks}
        rows.append(
            {
                "engine": run.engine,
                "user": q.question_id,
                "type": q.question_type,
                "question": q.question,
                "evidence": list(q.evidence),
                "ranked": turns,
                "recall": recall,
            }
        )
        score_ranking(run, q, hits, ks)

    lme_runner._score_ranking = scored


def diff(before_path: str, after_path: str) -> None:
    """Print every (engine, question) whose recall differs at some k, falls first."""

    def load(path: str) -> dict[tuple[str, str, str], Row]:
        with open(path) as f:
            rows = [json.loads(line) for line in f]
        return {(r["engine"], r["user"], r["question"]): r for r in rows}

    before, after = load(before_path), load(after_path)
    moved = []
    for key, b in before.items():
        a = after.get(key)
        if a is None:
            continue
        deltas = {k: a["recall"][k] - b["recall"][k] for k in b["recall"]}
        if any(deltas.values()):
            moved.append((min(deltas.values()) < 0, key, b, a, deltas))
    moved.sort(key=lambda m: (not m[0], m[1]))
    for fell, (engine, user, question), b, a, deltas in moved:
        print(f"{'FELL' if fell else 'ROSE'} {engine} {user} {b.get('type', '')}: {question}")
        print("   ", " ".join(f"@{k} {b['recall'][k]:.2f}->{a['recall'][k]:.2f}" for k in deltas))
        print("    evidence", b["evidence"])
        for label, r in (("before", b), ("after", a)):
            ranks = [r["ranked"].index(e) + 1 if e in r["ranked"] else None for e in r["evidence"]]
            print(f"    {label} evidence ranks {ranks}")
    fell = sum(m[0] for m in moved)
    print(f"{len(before)} rows; {fell} fell, {len(moved) - fell} rose")


def main(argv: list[str]) -> int:
    """``OUT.jsonl -- <remem CLI args>`` or ``--diff A.jsonl B.jsonl``."""
    if argv[0] == "--diff":
        diff(argv[1], argv[2])
        return 0
    out, cli_args = argv[0], argv[argv.index("--") + 1 :]
    rows: list[Row] = []
    _patch_locomo(rows)
    _patch_longmemeval(rows)
    from remem.cli import main as cli_main

    code = cli_main(cli_args)
    with open(out, "w") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
