"""Where SYNAPSE's PageRank puts LongMemEval's evidence turns.

    .venv/bin/python scripts/lme_pagerank.py \
        --data ../shared/data/longmemeval/longmemeval_oracle_dev.json \
        [--questions 30] [--embed-cache bench-out/v30/cache-lme.npz]

Builds the pooled haystacks of ``remem-bench longmemeval`` (pool 45, seed 0), takes
``--questions`` answerable ones spread over the file, ingests each into SYNAPSE and
reads its graph after one search (engine internals: a development script, not an
API). Prints the mean normalised PageRank (each episode's over the largest episode's)
of the person's and the assistant's turns, the mean percentile of the evidence turns'
PageRank among all turns and among the person's turns, and PageRank's correlation with
a turn's length, quoted by
docs/notes/benchmark-history.md#pageranks-weight-issue-17-fifth-round-tried-not-adopted.
"""

from __future__ import annotations

import argparse

import numpy as np

from remem import Memory
from remem.embed import create_embedder
from remem_bench.embedcache import DiskCachedEmbedder
from remem_bench.longmemeval import load_longmemeval, pooled


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--questions", type=int, default=30)
    ap.add_argument("--embed-cache")
    args = ap.parse_args()
    qs = [q for q in pooled(load_longmemeval(args.data), 45, 0) if q.evidence]
    qs = qs[:: max(1, len(qs) // args.questions)][: args.questions]
    embedder = create_embedder("minilm")
    if args.embed_cache:
        embedder = DiskCachedEmbedder(embedder, args.embed_cache)
    user_pr, assistant_pr, pct_all, pct_user, corr = [], [], [], [], []
    for q in qs:
        with Memory(":memory:", engine="synapse", embedder=embedder, llm="none") as mem:
            ids = mem.add_many([t.as_item() for t in q.turns], user_id="u")
            mem.search(q.question, user_id="u", k=5, now=q.question_date)
            engine = mem._engine
            idx = engine.ctx.indexes.get("u")
            graph = engine._graph("u", idx, engine._layer("u"), search=True)
            turn = dict(zip(ids, q.turns, strict=True))
            turns = [turn[i] for i in idx.ids]
            nodes = graph.nodes_of(np.arange(len(turns)))
            pr = np.full(len(turns), np.nan)
            pr[nodes >= 0] = graph.episode_scaled(graph.pagerank)[nodes[nodes >= 0]]
            user = np.array([t.role == "user" for t in turns])
            evidence = np.array([t.turn_id in set(q.evidence) for t in turns])
            known = ~np.isnan(pr)
            user_pr.append(np.nanmean(pr[user]))
            assistant_pr.append(np.nanmean(pr[~user]))
            for mask, out in ((known, pct_all), (known & user, pct_user)):
                out += [float((pr[mask] < v).mean()) for v in pr[evidence & mask]]
            lengths = np.array([len(t.text) for t in turns])
            corr.append(float(np.corrcoef(pr[known], lengths[known])[0, 1]))
    print(f"questions {len(qs)}")
    print(
        f"mean normalised PageRank: person {np.mean(user_pr):.3f},"
        f" assistant {np.mean(assistant_pr):.3f}"
    )
    print(
        f"evidence PageRank percentile: among all turns {np.mean(pct_all):.3f},"
        f" among the person's {np.mean(pct_user):.3f}"
    )
    print(f"correlation of PageRank with length: {np.mean(corr):.3f}")


if __name__ == "__main__":
    main()
