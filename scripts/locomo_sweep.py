"""Sweep SYNAPSE's settings over LoCoMo's retrieval questions (categories 1-4).

    .venv/bin/python scripts/locomo_sweep.py \
        --data ../shared/data/locomo/locomo10.json \
        --set seed_scale=top --set inhibit_beta=0.1+iterations=5 [--conversations conv-26]

A set is written as the benchmarks write an engine's options (``key=value+key=value``,
as after ``synapse@``). Each conversation is ingested once into SYNAPSE; then every
``--set`` is swapped into the engine, the built graph dropped (so a setting of the
graph's build takes effect: the concepts are kept, they are extracted at ingest) and
every question searched again (engine internals: a development script, not an API).
Prints evidence recall@5/10/20 per raw category for the default and each set; the
default's row reproduces ``remem-bench locomo --engines synapse``'s row, which checks
that the swap changes nothing else.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

import numpy as np

from remem import Memory
from remem.embed import create_embedder
from remem.engines.synapse.config import SynapseConfig
from remem_bench.engines import engine_spec
from remem_bench.locomo import load_locomo, retrieval_questions
from remem_bench.metrics import evidence_recall

KS = (5, 10, 20)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--conversations", default="", help="comma-separated sample ids")
    ap.add_argument("--set", action="append", default=[], dest="sets", help="key=value+key=value")
    ap.add_argument("--digits", type=int, default=3, help="decimals printed")
    args = ap.parse_args()
    convs = load_locomo(args.data)
    if args.conversations:
        wanted = set(args.conversations.split(","))
        convs = [c for c in convs if c.sample_id in wanted]
    embedder = create_embedder("minilm")
    sets = {
        name: SynapseConfig.for_engine("synapse", engine_spec(f"synapse@{name}")[1])
        for name in ["", *args.sets]
    }
    got: dict[tuple[str, str, int], list[float]] = defaultdict(list)
    for conv in convs:
        with Memory(":memory:", engine="synapse", embedder=embedder, llm="none") as mem:
            for session in conv.sessions:
                mem.add_many([t.as_item() for t in session], user_id=conv.sample_id)
            engine = mem._engine
            base = engine.cfg
            for name, cfg in sets.items():
                engine.cfg = cfg
                engine._graphs.clear()
                for q in retrieval_questions(conv):
                    hits = mem.search(q.question, user_id=conv.sample_id, k=max(KS))
                    ids = [h.metadata.get("dia_id") for h in hits]
                    for k in KS:
                        r = evidence_recall(q.evidence, ids, k)
                        got[(name, str(q.category), k)].append(r)
                        got[(name, "all", k)].append(r)
            engine.cfg = base
        print(f"... {conv.sample_id}", flush=True)
    cats = ["1", "2", "3", "4", "all"]
    print("set | " + " | ".join(f"cat{c} @5/10/20" for c in cats))
    for name in sets:
        cells = [
            " / ".join(f"{np.mean(got[(name, c, k)]):.{args.digits}f}" for k in KS) for c in cats
        ]
        print(f"{name or 'default'} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
