"""Score the slot reader (``remem.time.current.decide``) on pair files.

Each line of a file is a pair of memories, the second said later, with what the
second does to the first: "superseded", "same" (a slot restated) or "different".
Prints, per file, right / all, the changes found, and every false "superseded"
(the costly error: a current value hidden behind a wrong one), then the misses.

    PYTHONPATH=src python scripts/slot_pairs.py [FILE ...]

Without files: the development set and the held-out set in ``remem_bench/data``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from remem.time.current import decide

DATA = Path(__file__).resolve().parent.parent / "benchmarks" / "remem_bench" / "data"
FILES = [DATA / "slot_changes.jsonl", DATA / "slot_changes_heldout.jsonl"]


def score(path: Path) -> None:
    """Print one file's figures and its wrong pairs."""
    rows = [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]
    right = found = changes = false = 0
    wrong = []
    for r in rows:
        got = decide(r["first"], r["second"], r.get("first_speaker"), r.get("second_speaker"))
        right += got == r["expected"]
        changes += r["expected"] == "superseded"
        found += got == "superseded" == r["expected"]
        false += got == "superseded" != r["expected"]
        if got != r["expected"]:
            wrong.append(f"  {r['expected']:>10} got {got:<10} {r['first']!r} -> {r['second']!r}")
    print(
        f"{path.name}: right {right}/{len(rows)}, changes found {found}/{changes}, "
        f"false superseded {false}"
    )
    print("\n".join(sorted(wrong, key=lambda w: "superseded got" not in w[:30])))


def main(argv: list[str]) -> None:
    for f in [Path(a) for a in argv] or FILES:
        score(f)


if __name__ == "__main__":
    main(sys.argv[1:])
