"""The typed hit judge's curve on LoCoMo: hit rate against hit precision over a grid of
its two floors (the reader's score, the share of the question's words its sentence
speaks to), on the very cache states the lexical judge sees.

Each conversation runs ILSTMA's flow with the lexical judge (the default) in the
file's question order. Before each question the typed reader reads the cache as it
stands (``EngineContext.spans``, what the typed judge calls), so both judges are
scored on the same caches, question by question: a paired comparison. A hit is right
when a cached dialogue is gold evidence (the flow bench's definition). The grid is
reported for conversations 1-5 (where the floors are chosen: the reader's weights
were fitted there too) and 6-10 (held out).

    PYTHONPATH=src python scripts/judge_curve.py ../shared/data/locomo/locomo10.json \
        --json docs/results/stop47/judge/curve.json \
        --markdown docs/results/stop47/judge/curve.md
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from remem.embed import create_embedder
from remem.embed.base import MemoEmbedder
from remem.memory import Memory
from remem_bench.engines import open_engine
from remem_bench.locomo import Conversation, load_locomo, retrieval_questions

FIRST = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")
SCORES = (-99.0, 3.0, 4.0, 5.0, 6.0, 7.0)
SHARES = (0.0, 0.4, 0.5, 0.6, 0.7)


def rows_of(conv: Conversation, embedder: MemoEmbedder) -> list[dict[str, Any]]:
    """One row per question: the typed reader's best span over the cache as the
    lexical flow left it, and what the lexical judge then did."""
    mem = open_engine("ilstma", embedder)
    user = conv.sample_id
    try:
        for session in conv.sessions:
            mem.add_many([t.as_item() for t in session], user_id=user)
        return [_row(mem, user, q.question, set(q.evidence)) for q in retrieval_questions(conv)]
    finally:
        mem.close()


def _row(mem: Memory, user: str, question: str, gold: set[str]) -> dict[str, Any]:
    cached = mem.short_term(user)["cache_ids"]
    row: dict[str, Any] = {"conv": user, "question": question, "evidence": sorted(gold)}
    if cached:
        dia = {i: mem.get(i, user_id=user).metadata.get("dia_id") for i in cached}  # type: ignore[union-attr]
        spans = mem._engine.ctx.spans
        assert spans is not None, "the typed reader needs spaCy's English pipeline"
        t = time.perf_counter()
        span = spans(user, mem._recaller.read(question, None), cached)
        row["typed_ms"] = 1000 * (time.perf_counter() - t)
        row["cache_gold"] = bool(set(dia.values()) & gold)
        if span is not None:
            row.update(score=span.score, share=span.share, span=span.text)
            row["span_gold"] = dia[span.memory_id] in gold
    r = mem.recall(question, user_id=user, k=10)
    row["lexical_hit"] = r.cache_hit
    if r.cache_hit:
        row["lexical_right"] = bool({h.metadata.get("dia_id") for h in r.hits} & gold)
    return row


def grid(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Hit rate and precision of the lexical judge and of the typed judge at every
    pair of floors, over ``rows``."""
    n = len(rows)
    lex = [r for r in rows if r.get("lexical_hit")]
    out: dict[str, Any] = {
        "questions": n,
        "cache_held_evidence": sum(bool(r.get("cache_gold")) for r in rows) / n,
        "lexical": _rate(n, [bool(r["lexical_right"]) for r in lex]),
        "typed": [],
    }
    spans = [r for r in rows if "score" in r]
    for share in SHARES:
        for score in SCORES:
            hits = [r for r in spans if r["score"] >= score and r["share"] >= share]
            right = [bool(r["cache_gold"]) for r in hits]
            out["typed"].append({"share": share, "score": score, **_rate(n, right)})
    return out


def _rate(n: int, right: list[bool]) -> dict[str, Any]:
    hits = len(right)
    return {"hits": hits, "hit_rate": hits / n, "precision": sum(right) / hits if hits else None}


def markdown(halves: dict[str, dict[str, Any]]) -> str:
    lines = []
    for name, g in halves.items():
        lex = g["lexical"]
        lines += [
            f"**{name}: {g['questions']} questions, cache held evidence "
            f"{g['cache_held_evidence']:.3f}; lexical judge (0.6): hit rate "
            f"{lex['hit_rate']:.3f}, precision {_p(lex['precision'])} ({lex['hits']} hits)**",
            "",
            "| share \\ score | " + " | ".join(_s(s) for s in SCORES) + " |",
            "|---" * (len(SCORES) + 1) + "|",
        ]
        for share in SHARES:
            cells = [c for c in g["typed"] if c["share"] == share]
            lines.append(
                f"| {share:.1f} | "
                + " | ".join(f"{c['hit_rate']:.3f} / {_p(c['precision'])}" for c in cells)
                + " |"
            )
        lines.append("")
    return "\n".join(lines)


def _s(score: float) -> str:
    return "any" if score < -50 else f">= {score:g}"


def _p(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data")
    parser.add_argument("--json", required=True)
    parser.add_argument("--markdown", required=True)
    args = parser.parse_args()
    embedder = MemoEmbedder(create_embedder("minilm"))
    rows: list[dict[str, Any]] = []
    for conv in load_locomo(args.data):
        rows += rows_of(conv, embedder)
        print(conv.sample_id, len(rows), flush=True)
    halves = {
        "conversations 1-5": grid([r for r in rows if r["conv"] in FIRST]),
        "conversations 6-10": grid([r for r in rows if r["conv"] not in FIRST]),
        "all 10": grid(rows),
    }
    ms = sorted(r["typed_ms"] for r in rows if "typed_ms" in r)
    timing = {"typed_ms_mean": sum(ms) / len(ms), "typed_ms_p95": ms[int(0.95 * len(ms))]}
    with open(args.json, "w") as f:
        json.dump({"grids": halves, "timing": timing, "rows": rows}, f, indent=1)
    with open(args.markdown, "w") as f:
        f.write(markdown(halves))
        f.write(
            f"\nThe typed reader over the cache: {timing['typed_ms_mean']:.1f} ms mean, "
            f"{timing['typed_ms_p95']:.1f} ms p95 per question.\n"
        )


if __name__ == "__main__":
    main()
