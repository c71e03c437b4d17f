"""Median BM25 peak of questions, with bm25s' words and with SYNAPSE's lexical channel.

    .venv/bin/python scripts/lexical_peaks.py \
        --longmemeval ../shared/data/longmemeval/longmemeval_oracle_dev.json \
        --embed-cache bench-out/v30/cache-lme.npz --locomo ../shared/data/locomo/locomo10.json

A question's peak is 1 - (30th best BM25 score) / (best), what ``lexical_peak`` is
compared with (``engines/synapse/engine.py``, ``lexical_share``). ``lexical_peak`` is
about the median peak, so that about half the questions keep the full lexical share.
Prints the median and the share of questions below 0.7 for the question as bm25s
tokenises it ("old") and with the asking words left out and inflected forms matched
("new"). LongMemEval: every fourth question of the pooled haystacks (pool 45, seed 0).
A development script: it reads the engine's index through internals.
"""

from __future__ import annotations

import argparse

import numpy as np

from remem import Memory
from remem.embed import create_embedder
from remem.index.tokenize import without_asking
from remem_bench.embedcache import DiskCachedEmbedder
from remem_bench.locomo import load_locomo, retrieval_questions
from remem_bench.longmemeval import load_longmemeval, pooled


def peaks(mem: Memory, question: str) -> list[float]:
    out = []
    with mem._engine.ctx.indexes.use("u") as idx:
        for query, inflections in ((question, False), (without_asking(question), True)):
            bm = np.sort(idx.bm25.scores(query, inflections=inflections))[::-1]
            if len(bm) < 30 or bm[0] <= 0:
                out.append(np.nan)
            else:
                out.append(1.0 - bm[29] / bm[0])
    return out


def summary(name: str, rows: list[list[float]]) -> None:
    v = np.array(rows)
    for i, label in enumerate(("old", "new")):
        x = v[:, i][~np.isnan(v[:, i])]
        below = (x < 0.7).mean()
        print(f"{name} {label}: n {len(x)} median {np.median(x):.3f} below 0.7 {below:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--longmemeval")
    ap.add_argument("--embed-cache")
    ap.add_argument("--locomo")
    args = ap.parse_args()
    embedder = create_embedder("minilm")
    if args.embed_cache:
        embedder = DiskCachedEmbedder(embedder, args.embed_cache)
    if args.longmemeval:
        rows = []
        for q in list(pooled(load_longmemeval(args.longmemeval), 45, 0))[::4]:
            if q.abstention or not q.evidence:
                continue
            with Memory(":memory:", engine="bm25", embedder=embedder, llm="none") as mem:
                mem.add_many([t.as_item() for t in q.turns], user_id="u")
                rows.append(peaks(mem, q.question))
        summary("longmemeval", rows)
    if args.locomo:
        rows = []
        for conv in load_locomo(args.locomo):
            with Memory(":memory:", engine="bm25", embedder=embedder, llm="none") as mem:
                mem.add_many([t.as_item() for t in conv.turns], user_id="u")
                rows.extend(peaks(mem, q.question) for q in retrieval_questions(conv))
        summary("locomo", rows)


if __name__ == "__main__":
    main()
