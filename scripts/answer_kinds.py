"""Answer the check sets' questions of some kinds only, on one engine, and count the
right ones per kind: the quick loop for a reader change that touches a few kinds.

    .venv/bin/python scripts/answer_kinds.py --kinds thing,never --out run.json \
        benchmarks/remem_bench/data/answer_check*.json
    .venv/bin/python scripts/answer_kinds.py --diff before.json after.json

Each conversation is filled as ``remem-bench answers`` fills it and each question
graded as it grades (``remem_bench.answercheck``), so a kind's count is that
benchmark's, for one engine. ``--diff`` lists the questions whose grade changed.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from remem import Memory
from remem.embed import create_embedder
from remem_bench.answercheck import fill, grade, load


def run(files: list[str], kinds: set[str], engine: str) -> list[list]:
    """[set, user, kind, question, answer, right] for each question of ``kinds``."""
    embedder = create_embedder("minilm")
    rows: list[list] = []
    for path in files:
        for conv in load(path):
            asked = [q for q in conv["questions"] if "all" in kinds or q["kind"] in kinds]
            with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
                now = fill(mem, conv["user_id"], conv["sessions"])
                for q in asked:
                    a = mem.answer(q["question"], user_id=conv["user_id"], now=now)
                    right = bool(grade(q, a.text, a.refused))
                    rows.append(
                        [Path(path).stem, conv["user_id"], q["kind"], q["question"], a.text, right]
                    )
    return rows


def totals(rows: list[list]) -> str:
    right, asked = Counter(), Counter()
    for row in rows:
        asked[row[2]] += 1
        right[row[2]] += row[5]
    per = " ".join(f"{k} {right[k]}/{asked[k]}" for k in sorted(asked))
    return f"right {sum(right.values())} of {len(rows)}: {per}"


def diff(before: list[list], after: list[list]) -> None:
    old = {(r[0], r[1], r[3]): r for r in before}
    for row in after:
        was = old.get((row[0], row[1], row[3]))
        if was is not None and was[5] != row[5]:
            tag = "GAIN" if row[5] else "LOSS"
            print(f"{tag} {row[0]} {row[1]} {row[2]} | {row[3]} | {was[4][:40]} -> {row[4][:40]}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--kinds", default="all", help="comma-separated question kinds, or all")
    ap.add_argument("--engine", default="synapse")
    ap.add_argument("--out", help="write the rows here (JSON)")
    ap.add_argument("--diff", action="store_true", help="files are two runs' rows: compare")
    args = ap.parse_args()
    if args.diff:
        before, after = (json.loads(Path(f).read_text()) for f in args.files)
        diff(before, after)
        print("before", totals(before), "\nafter ", totals(after))
        return
    rows = run(args.files, set(args.kinds.split(",")), args.engine)
    if args.out:
        Path(args.out).write_text(json.dumps(rows))
    print(totals(rows))


if __name__ == "__main__":
    main()
