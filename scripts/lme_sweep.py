"""Sweep SYNAPSE's ranking settings over LongMemEval's pooled haystacks.

    .venv/bin/python scripts/lme_sweep.py \
        --data ../shared/data/longmemeval/longmemeval_oracle_dev.json \
        --embed-cache bench-out/v30/cache-lme.npz \
        --set w_pagerank=0.1 --set w_pagerank=0.1+w_anchored=0.1 [--questions N] \
        [--time depth=100]

A set is written as the benchmarks write an engine's options (``key=value+key=value``,
as after ``synapse@``). Each haystack of ``remem-bench longmemeval`` (pool 45, seed 0)
is ingested once into SYNAPSE; then every ``--set`` (settings that only change the
ranking: weights, anchors, activation dynamics; not the graph's build) is swapped into
the engine and the question searched again (engine internals: a development script,
not an API). ``--time`` sets one of the time stage's options
(``Memory(time_options=...)``) for every row, read as ``remem-bench longmemeval
--time-option`` reads it. Prints evidence recall@5 and @10 per question type for the
default and each set. The default's row reproduces ``remem-bench longmemeval``'s
synapse row, which checks that the swap changes nothing else.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from remem import Memory
from remem.embed import create_embedder
from remem.engines.synapse.config import SynapseConfig
from remem_bench.command import key_value as _option
from remem_bench.embedcache import DiskCachedEmbedder
from remem_bench.engines import engine_spec
from remem_bench.longmemeval import load_longmemeval, pooled
from remem_bench.metrics import evidence_recall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--embed-cache")
    ap.add_argument(
        "--time", action="append", default=[], type=_option, help="a time option, key=value"
    )
    ap.add_argument("--questions", type=int, default=0, help="0 = all")
    ap.add_argument("--set", action="append", default=[], dest="sets", help="key=value+key=value")
    args = ap.parse_args()
    qs = [q for q in pooled(load_longmemeval(args.data), 45, 0)]
    if args.questions:
        qs = qs[:: max(1, len(qs) // args.questions)][: args.questions]
    embedder = create_embedder("minilm")
    if args.embed_cache:
        embedder = DiskCachedEmbedder(embedder, args.embed_cache)
    # each set in the benchmarks' engine-option syntax, checked as Memory checks them
    sets = {
        name: SynapseConfig.for_engine("synapse", engine_spec(f"synapse@{name}")[1])
        for name in ["", *args.sets]
    }
    time_options = dict(args.time) or None
    got: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for qi, q in enumerate(qs):
        if q.abstention or not q.evidence:
            continue
        with Memory(
            ":memory:", engine="synapse", embedder=embedder, llm="none", time_options=time_options
        ) as mem:
            mem.add_many([t.as_item() for t in q.turns], user_id="u")
            engine = mem._engine
            base = engine.cfg
            for name, cfg in sets.items():
                engine.cfg = cfg
                hits = mem.search(q.question, user_id="u", k=10, now=q.question_date)
                turns = [h.metadata.get("turn") for h in hits]
                for k in (5, 10):
                    r = evidence_recall(q.evidence, turns, k)
                    got[(name, q.question_type, k)].append(r)
                    got[(name, "all", k)].append(r)
            engine.cfg = base
        if qi % 50 == 49:
            print(f"... {qi + 1}/{len(qs)}", flush=True)
    if isinstance(embedder, DiskCachedEmbedder):
        embedder.save()  # the next sweep embeds nothing
    types = sorted({t for _, t, _ in got} - {"all"}) + ["all"]
    short = {t: "".join(w[0] for w in t.split("-")) for t in types}
    print("set | k | " + " | ".join(f"{short[t]} ({len(got[('', t, 5)])})" for t in types))
    for k in (5, 10):
        for name in sets:
            vals = " | ".join(f"{np.mean(got[(name, t, k)]):.3f}" for t in types)
            print(f"{name or 'default'} | {k} | {vals}")


if __name__ == "__main__":
    main()
