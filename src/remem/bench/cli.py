"""``remem bench ...``: run a benchmark, print tables, optionally write JSON/Markdown."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from .report import (
    compare_tables,
    grounding_tables,
    load_tables,
    locomo_tables,
    markdown,
    print_tables,
    qa_tables,
    scale_tables,
    short_history_tables,
    spread_tables,
)


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    command = "remem " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    if args.bench == "qa-compare":
        from .qa import compare_runs

        result = compare_runs(args.a, args.b, exclude=args.exclude or ())
        tables = compare_tables(result)
    elif args.bench == "spread":
        from .spread import spread_runs

        result = spread_runs(args.runs)
        tables = spread_tables(result)
    elif args.bench == "replay":
        from .qa import replay_run

        result = replay_run(
            args.data,
            args.jsonl,
            args.out,
            grounding=args.grounding,
            options=dict(args.answer_option or []),
        )
        tables = qa_tables(result)
    elif args.bench == "grounding":
        from .qa import grounding_sweep

        result = grounding_sweep(args.data, args.jsonl)
        tables = grounding_tables(result)
    elif args.bench == "locomo" and args.answer:
        if args.turns is not None:
            print("remem: --turns applies to retrieval runs, not to --answer", file=sys.stderr)
            return 2
        from ..llm import create_llm
        from .qa import run_locomo_qa

        judge = None
        if args.judge_url or args.judge_model:
            judge = create_llm("openai", base_url=args.judge_url, model=args.judge_model)
        llm_options = {"base_url": args.llm_url} if args.llm_url else {}
        if args.llm_model:
            llm_options["model"] = args.llm_model
        if args.llm_threads and args.llm in ("local", "auto"):  # the others have no threads
            llm_options["n_threads"] = args.llm_threads
        if args.llm_seed is not None and args.llm != "none":
            llm_options["seed"] = args.llm_seed
        result = run_locomo_qa(
            args.data,
            args.engines,
            llm=args.llm,
            llm_options=llm_options,
            k=args.answer_k,
            max_context_tokens=args.context_tokens,
            grounding=args.grounding,
            answer_options=dict(args.answer_option or []),
            conversations=args.conversations,
            limit=args.limit,
            judge=judge,
            jsonl=args.jsonl,
            resume=args.resume,
            resume_from=args.resume_from or (),
            progress=_progress,
        )
        tables = qa_tables(result)
    elif args.bench == "load":
        from .load import run_load

        result = run_load(
            db=args.url,
            workers=args.workers,
            clients=args.clients,
            duration=args.duration,
            engine=args.engine,
            llm=args.llm,
            users_per_tenant=args.users,
            seed=args.seed,
            log_path=args.server_log,
        )
        tables = load_tables(result)
    elif args.bench == "locomo" and args.turns:
        from ..embed import create_embedder
        from ..embed.base import MemoEmbedder
        from .runner import run_locomo

        # one model for every length; with --reuse-embeddings one memo too, so the
        # shorter histories' turns (prefixes of the longer ones) are embedded once
        embedder = create_embedder("minilm")
        if args.reuse_embeddings:
            embedder = MemoEmbedder(embedder)
        runs = [
            run_locomo(
                args.data,
                args.engines,
                args.k,
                turns=n,
                conversations=args.conversations,
                limit=args.limit,
                progress=_progress,
                embedder=embedder,
            )
            for n in args.turns
        ]
        result = {"benchmark": "locomo-short-histories", "data": args.data, "runs": runs}
        tables = short_history_tables(result)
    elif args.bench in ("locomo", "memorybank"):
        from .runner import run_locomo, run_memorybank

        extra = {"labels": args.labels} if args.bench == "memorybank" else {}
        result = (run_locomo if args.bench == "locomo" else run_memorybank)(
            args.data,
            args.engines,
            args.k,
            conversations=args.conversations,
            limit=args.limit,
            progress=_progress,
            reuse_embeddings=args.reuse_embeddings,
            **extra,
        )
        tables = locomo_tables(result)
    else:
        from .scale import run_scale

        result = run_scale(
            args.engines or [args.engine],
            args.n,
            queries=args.queries,
            mixed=args.mixed,
            seed=args.seed,
            progress=_progress,
        )
        tables = scale_tables(result)
    result["command"] = command
    print_tables(tables)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2))
    if args.markdown:
        Path(args.markdown).write_text(markdown(tables, command))
    return 0
