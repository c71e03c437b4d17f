"""Where the typed reader's wrong answers on the check sets come from: the reader, or
the recall before it.

    python scripts/answer_misses.py ENGINE FILE [FILE ...]

For each answerable question that is not about a date and is answered wrong (graded
as ``remem-bench answers`` grades), whether an expected word is in one of the first 6
memories the recall ranks (the reader read past it), only in the 7th to 20th, or in
none of them (recall missed it). Prints one line per miss and the tally.
"""

from __future__ import annotations

import argparse
from collections import Counter

from remem import Memory
from remem.embed import create_embedder
from remem_bench.answercheck import fill, grade, has_word, load

#: the memories the typed reader reads (``answer.typed.DEPTH`` was 6 when this was
#: first run) and how far the recall is looked into
READ, LOOKED = 6, 20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    embedder = create_embedder("minilm")
    tally: Counter[str] = Counter()
    for path in args.files:
        for conv in load(path):
            user = conv["user_id"]
            with Memory(":memory:", engine=args.engine, embedder=embedder, llm="none") as mem:
                now = fill(mem, user, conv["sessions"])
                for q in conv["questions"]:
                    if q["kind"] in ("never", "date"):
                        continue
                    a = mem.answer(q["question"], user_id=user, now=now)
                    if grade(q, a.text, a.refused):
                        continue
                    wanted = q.get("expected", []) + q.get("any", [])
                    hits = mem.recall(q["question"], user_id=user, k=LOOKED, now=now).hits
                    at = [i for i, h in enumerate(hits) if any(has_word(w, h.text) for w in wanted)]
                    stage = "read" if at and at[0] < READ else ("ranked" if at else "missed")
                    tally[stage] += 1
                    print(stage, at[:3], user, q["kind"], q["question"], "->", a.text[:60])
    print(args.engine, dict(tally))


if __name__ == "__main__":
    main()
