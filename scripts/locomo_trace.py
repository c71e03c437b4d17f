"""Trace LoCoMo questions through the offline reader, as ``answer_trace.py`` does for a
check set: the memories recalled (with their turn ids, the gold ones marked), the answer,
and the typed reader's best candidates with their features. The loop behind the
containment mends of issue 37.

    .venv/bin/python scripts/locomo_trace.py ../shared/data/locomo/locomo10.json \
        conv-26 "What did Caroline research?" ["another question" ...] [--engine synapse]

One conversation is told once; every question given is asked of it.
"""

from __future__ import annotations

import argparse

from remem import Memory
from remem.answer import typed
from remem.answer.want import wanted
from remem.embed import create_embedder
from remem_bench.locomo import load_locomo


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data")
    p.add_argument("conversation")
    p.add_argument("questions", nargs="+")
    p.add_argument("--engine", default="synapse")
    p.add_argument("--top", type=int, default=10, help="memories shown")
    p.add_argument("--candidates", type=int, default=8, help="candidates shown")
    args = p.parse_args()
    conv = next(c for c in load_locomo(args.data) if c.sample_id == args.conversation)
    gold = {q.question: (q.answer, set(q.evidence)) for q in conv.questions}
    with Memory(
        ":memory:", engine=args.engine, embedder=create_embedder("minilm"), llm="none"
    ) as mem:
        for session in conv.sessions:
            mem.add_many([t.as_item() for t in session], user_id=conv.sample_id)
        around = mem._recaller.around(conv.sample_id)
        for question in args.questions:
            answer_, evidence = gold.get(question, (None, set()))
            answer = mem.answer(question, conv.sample_id, 10)
            read, _, _ = mem._question(question, conv.sample_id, 10, None, what="question")
            want = wanted(read)
            print(f"\nQ: {question}  gold: {answer_!r} {sorted(evidence)}")
            print(f"want: {want}")
            print(f"answer: {answer.text!r}{' (refused)' if answer.refused else ''}")
            for i, h in enumerate(answer.evidence[: args.top]):
                dia = (h.metadata or {}).get("dia_id", "")
                mark = "*" if dia in evidence else " "
                print(f"  {mark}{i} {dia} {h.speaker}: {h.text[:150]}")
            found = (
                typed.typed_candidates(read, want, answer.evidence, around) if want.kind else None
            )
            for s in (found or [])[: args.candidates]:
                feats = {k: round(v, 2) for k, v in s.features.items() if v}
                dia = (s.hit.metadata or {}).get("dia_id", "")
                print(f"  {s.score:5.2f} {dia} {s.text!r} {feats}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
