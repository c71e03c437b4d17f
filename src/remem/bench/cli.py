"""``remem bench ...``: run a benchmark, print tables, optionally write JSON/Markdown.

Every benchmark is one function over the library, registered with its arguments by
:func:`benchmark` (:mod:`remem.bench.commands`); it returns the result
and its tables, and printing and writing them is done once, here.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..serve.settings import default_llm
from .commands import Arg, Commands, arg, ints, names

bench = Commands("bench")

Tables = list[Any]
Bench = Callable[[argparse.Namespace], "tuple[dict[str, Any], Tables] | int"]


def benchmark(name: str, *, help: str, args: Sequence[Arg]) -> Callable[[Bench], Bench]:
    """Register a benchmark: ``fn(args)`` gives (result, tables) or an exit status;
    the tables are printed and, with ``--json``/``--markdown``, written."""

    def register(fn: Bench) -> Bench:
        def run(ns: argparse.Namespace) -> int:
            command = "remem " + " ".join(shlex.quote(a) for a in sys.argv[1:])
            out = fn(ns)
            if isinstance(out, int):
                return out
            result, tables = out
            from .report import markdown, print_tables

            result["command"] = command
            print_tables(tables)
            if ns.json_out:
                Path(ns.json_out).write_text(json.dumps(result, indent=2))
            if ns.markdown:
                Path(ns.markdown).write_text(markdown(tables, command))
            return 0

        bench.command(name, help=help, args=args)(run)
        return fn

    return register


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _option(text: str) -> tuple[str, object]:
    """KEY=VALUE with VALUE read as JSON when it parses (true, 0.4, "x"), else text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def _option_list(flag: str, help: str, group: str | None = None) -> Arg:
    return arg(
        flag,
        action="append",
        type=_option,
        metavar="KEY=VALUE",
        help=help + "; repeatable",
        group=group,
    )


def _answer_option(help: str, group: str | None = None) -> Arg:
    return _option_list("--answer-option", help, group)


OUT = [
    arg("--json", dest="json_out", help="write the result as JSON to this file"),
    arg("--markdown", help="write the report as Markdown to this file"),
]
"""Where the result goes as JSON and the report as Markdown."""
DATA = arg("--data", required=True, help="path to locomo10.json")
RETRIEVAL = [
    arg(
        "--engines",
        type=names,
        default=["dense", "bm25", "hybrid"],
        help="engines to compare, comma-separated (default dense,bm25,hybrid)",
    ),
    arg("--k", type=ints, default=[5, 10, 20], help="cut-offs of recall@k (default 5,10,20)"),
    arg(
        "--conversations",
        type=names,
        default=None,
        help="only these conversations, comma-separated sample ids (default: all)",
    ),
    arg("--limit", type=int, default=None, help="questions per conversation"),
    arg(
        "--reuse-embeddings",
        action="store_true",
        help="embed each text once for all engines (ingest rates then exclude embedding)",
    ),
    arg("--json", dest="json_out", help="write results as JSON here"),
    arg("--markdown", help="write the report as Markdown here"),
]
"""The retrieval benchmarks' arguments (locomo, memorybank)."""
QA = "end-to-end answers (--answer)"


@benchmark(
    "locomo",
    help="evidence recall on LoCoMo, engines side by side",
    args=[
        DATA,
        *RETRIEVAL,
        arg(
            "--turns",
            type=ints,
            help="only each conversation's first N turns (short histories); a list runs each",
        ),
        arg("--answer", action="store_true", help="answer with a reader; official F1", group=QA),
        arg("--llm", default="local", help="reader backend: local, openai or none", group=QA),
        arg("--llm-url", help="reader endpoint (openai; default OPENAI_BASE_URL)", group=QA),
        arg("--llm-model", help="reader model name (openai)", group=QA),
        arg(
            "--llm-threads",
            type=int,
            help="CPU threads of the local reader (default: up to 4)",
            group=QA,
        ),
        arg(
            "--llm-seed",
            type=int,
            help="reader's sampling seed (with --answer-option temperature=T > 0: repeated runs)",
            group=QA,
        ),
        arg(
            "--readers",
            type=names,
            default=[],
            help="readers side by side over the same recall, comma-separated (none,local)",
            group=QA,
        ),
        arg("--answer-k", type=int, default=10, help="memories recalled per question", group=QA),
        arg("--context-tokens", type=int, default=900, help="memory context budget", group=QA),
        arg(
            "--grounding",
            type=float,
            default=0.0,
            help="answer-grounding check (0, the reader's default, turns it off)",
            group=QA,
        ),
        _answer_option("an answer option for every engine (order=rank, premise=false)", QA),
        arg("--jsonl", help="per-question outputs here (audits)", group=QA),
        arg(
            "--resume",
            action="store_true",
            help="keep every finished block of --jsonl (also those outside this run)",
            group=QA,
        ),
        arg(
            "--resume-from",
            action="append",
            metavar="JSONL",
            help="also keep the complete blocks of this JSONL (a part run in parallel); repeatable",
            group=QA,
        ),
        arg("--judge-url", help="optional LLM judge endpoint (OpenAI-compatible)", group=QA),
        arg("--judge-model", help="optional LLM judge model", group=QA),
    ],
)
def locomo(args: argparse.Namespace) -> tuple[dict[str, Any], Tables] | int:
    if args.answer:
        return _locomo_answers(args)
    if args.turns:
        return _locomo_short_histories(args)
    return _retrieval(args)


def _locomo_answers(args: argparse.Namespace) -> tuple[dict[str, Any], Tables] | int:
    if args.turns is not None:
        print("remem: --turns applies to retrieval runs, not to --answer", file=sys.stderr)
        return 2
    from ..llm import create_llm
    from .qa import run_locomo_qa
    from .report import qa_tables

    judge = None
    if args.judge_url or args.judge_model:
        judge = create_llm("openai", base_url=args.judge_url, model=args.judge_model)
    llm_options = {"base_url": args.llm_url} if args.llm_url else {}
    if args.llm_model:
        llm_options["model"] = args.llm_model
    local = args.llm in ("local", "auto") or any(r in ("local", "auto") for r in args.readers)
    if args.llm_threads and local:  # the others have no threads
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
        readers=args.readers,
    )
    return result, qa_tables(result)


def _locomo_short_histories(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from ..embed import create_embedder
    from ..embed.base import MemoEmbedder
    from .report import short_history_tables
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
    return result, short_history_tables(result)


def _retrieval(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .report import locomo_tables
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
    return result, locomo_tables(result)


benchmark(
    "memorybank",
    help="evidence recall on MemoryBank's probing questions (English)",
    args=[
        arg("--data", required=True, help="path to memory_bank_en.json"),
        arg("--labels", default=None, help="evidence labels (default: the bundled ones)"),
        *RETRIEVAL,
    ],
)(_retrieval)


@benchmark(
    "verdict",
    help="the 'not in memory' verdict on LoCoMo (and LongMemEval): refusal vs false refusal",
    args=[
        DATA,
        arg(
            "--engines",
            type=names,
            default=["hybrid", "synapse"],
            help="engines, comma-separated (default hybrid,synapse)",
        ),
        arg("--k", type=int, default=10, help="memories recalled per question (default 10)"),
        arg(
            "--conversations",
            type=names,
            default=None,
            help="only these conversations, comma-separated sample ids (default: all)",
        ),
        arg(
            "--lme",
            default=None,
            help="also a LongMemEval file (its own, never-said and abstention questions)",
        ),
        arg(
            "--lme-questions",
            type=int,
            default=None,
            help="only this many LongMemEval questions, spread over the file (default: all)",
        ),
        arg(
            "--lme-pool",
            type=int,
            default=45,
            help="sessions of other questions pooled into each LongMemEval history "
            "(default 45; 0: the question's own sessions, a small memory)",
        ),
        arg("--embed-cache", help="keep every vector in this .npz across runs"),
        *OUT,
    ],
)
def verdict(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .report import verdict_tables
    from .verdict import run_verdict

    result = run_verdict(
        args.data,
        args.engines,
        k=args.k,
        conversations=args.conversations,
        progress=_progress,
        lme=args.lme,
        lme_questions=args.lme_questions,
        lme_pool=args.lme_pool,
        embed_cache=args.embed_cache,
    )
    return result, verdict_tables(result)


@benchmark(
    "readers-replay",
    help="a saved --answer run's recall read again by today's local rules and by none",
    args=[
        DATA,
        arg("--jsonl", required=True, help="rows of a saved --answer run (made with local)"),
        arg(
            "--no-verdict",
            action="store_true",
            help="leave out the 'not in memory' verdict (readers alone)",
        ),
        arg(
            "--grounding",
            type=float,
            default=0.0,
            help="the answer-grounding check for the local drafts (0, the default, is off)",
        ),
        *OUT,
    ],
)
def readers_replay(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .qa import paired_differences, readers_replay, summarise
    from .report import qa_tables

    rows, labels = readers_replay(
        args.data, args.jsonl, verdict=not args.no_verdict, grounding=args.grounding
    )
    result = {
        "benchmark": "locomo-qa-readers-replay",
        "data": args.data,
        "jsonl": args.jsonl,
        "replayed": args.jsonl,
        "grounding": args.grounding,
        "answer_options": {"verdict": not args.no_verdict},
        "engines": summarise(rows, labels),
        "paired": paired_differences(rows, labels, base=labels[0]) if labels else {},
    }
    return result, qa_tables(result)


@benchmark(
    "grounding",
    help="the answer-grounding check replayed at several thresholds on a saved QA run",
    args=[
        DATA,
        arg(
            "--jsonl",
            required=True,
            help="rows of a saved --answer run (best made with --grounding 0)",
        ),
        *OUT,
    ],
)
def grounding(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .qa import grounding_sweep
    from .report import grounding_tables

    result = grounding_sweep(args.data, args.jsonl)
    return result, grounding_tables(result)


@benchmark(
    "replay",
    help="a saved --answer run's drafts settled again by the current answer rules",
    args=[
        DATA,
        arg("--jsonl", required=True, help="rows of a saved --answer run"),
        arg("--out", required=True, help="the replayed rows go here (JSONL)"),
        arg("--grounding", type=float, default=0.0, help="grounding check threshold (0: off)"),
        _answer_option("a switch of the answer rules (premise=false, date_answers=false)"),
        *OUT,
    ],
)
def replay(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .qa import replay_run
    from .report import qa_tables

    result = replay_run(
        args.data,
        args.jsonl,
        args.out,
        grounding=args.grounding,
        options=dict(args.answer_option or []),
    )
    return result, qa_tables(result)


@benchmark(
    "spread",
    help="repeated --answer runs (sampled, one seed each): mean, sd, range",
    args=[
        arg("runs", nargs="+", metavar="JSONL", help="the runs' per-question rows"),
        *OUT,
    ],
)
def spread(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .report import spread_tables
    from .spread import spread_runs

    result = spread_runs(args.runs)
    return result, spread_tables(result)


@benchmark(
    "qa-compare",
    help="two --answer runs question by question (a rerun, or a change)",
    args=[
        arg("a", help="JSONL of run A"),
        arg("b", help="JSONL of run B"),
        arg(
            "--exclude",
            action="append",
            metavar="JSONL",
            help="leave out the questions of this run (held-out comparisons); repeatable",
        ),
        *OUT,
    ],
)
def qa_compare(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .qa import compare_runs
    from .report import compare_tables

    result = compare_runs(args.a, args.b, exclude=args.exclude or ())
    return result, compare_tables(result)


@benchmark(
    "load",
    help="concurrent clients against remem serve (loopback)",
    args=[
        arg("--url", help="database (default: a throwaway PostgreSQL via pgserver)"),
        arg("--workers", type=int, default=2, help="server worker processes (default 2)"),
        arg("--clients", type=int, default=50, help="concurrent clients (default 50)"),
        arg("--duration", type=float, default=60.0, help="seconds of load"),
        arg("--llm", default=default_llm(http=True), help="the server's reader: none or local"),
        arg("--users", type=int, default=5, help="users per tenant (2 tenants)"),
        arg("--seed", type=int, default=7, help="seed of the clients' choices (default 7)"),
        arg("--server-log", help="the server's output goes here"),
        *OUT,
    ],
)
def load(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .load import run_load
    from .report import load_tables

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
    return result, load_tables(result)


@benchmark(
    "scale",
    help="ingest and search latency on a synthetic history",
    args=[
        arg("--engines", type=names, help="engines, comma-separated (default: --engine)"),
        arg(
            "--n",
            type=ints,
            default=[1000, 10000],
            help="history sizes in memories, comma-separated (default 1000,10000)",
        ),
        arg("--queries", type=int, default=200, help="searches timed per size (default 200)"),
        arg("--mixed", type=int, default=100, help="rounds of add + search"),
        arg("--seed", type=int, default=7, help="seed of the synthetic history (default 7)"),
        *OUT,
    ],
)
def scale(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .report import scale_tables
    from .scale import run_scale

    result = run_scale(
        args.engines or [args.engine],
        args.n,
        queries=args.queries,
        mixed=args.mixed,
        seed=args.seed,
        progress=_progress,
    )
    return result, scale_tables(result)


@benchmark(
    "longmemeval",
    help="evidence recall over long assistant histories (LongMemEval S, M or oracle files)",
    args=[
        arg("--data", required=True, help="a LongMemEval JSON file (S, M or oracle)"),
        arg(
            "--engines",
            type=names,
            default=["dense", "bm25", "hybrid", "synapse"],
            help="engines to compare, comma-separated (default dense,bm25,hybrid,synapse)",
        ),
        arg("--k", type=ints, default=[5, 10, 20], help="cut-offs of recall@k (default 5,10,20)"),
        arg(
            "--pool",
            type=int,
            default=None,
            help="sessions of other questions added to each haystack (default: 45 for an "
            "oracle file, whose haystacks hold only the evidence sessions; 0 otherwise)",
        ),
        arg("--seed", type=int, default=0, help="seed of the pooled sessions"),
        arg("--questions", type=int, default=None, help="this many, spread over the file"),
        arg("--types", type=names, default=None, help="only these question types"),
        arg("--repeats", type=int, default=3, help="later searches timed per question"),
        arg(
            "--passages",
            type=names,
            default=None,
            help="passage settings to compare, MAX/OVERLAP or off (e.g. 128/1,200/1,off); "
            "default: the Memory's own",
        ),
        arg(
            "--reuse-embeddings",
            action="store_true",
            help="embed each text once for all engines (ingest rates then exclude embedding)",
        ),
        arg(
            "--embed-cache",
            help="keep every vector in this .npz across runs (implies --reuse-embeddings)",
        ),
        arg(
            "--clock",
            choices=["question", "none"],
            default="question",
            help="ask at each question's date (default) or at the current time",
        ),
        _option_list("--time-option", "a time option for every Memory (window_weight=0.5)"),
        _option_list("--exact-option", "an identifier option for every Memory (lift=false)"),
        arg(
            "--readers",
            type=names,
            default=[],
            help="readers answering from the same recall, comma-separated (none,local,"
            "local@span): gold-answer containment, F1, refusal of abstention questions",
        ),
        *OUT,
    ],
)
def longmemeval(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .lme_runner import run_longmemeval
    from .longmemeval import is_oracle, load_longmemeval, pooled, spread
    from .report import longmemeval_tables

    questions = load_longmemeval(args.data)
    pool = args.pool if args.pool is not None else (45 if is_oracle(questions) else 0)
    questions = pooled(questions, pool, args.seed)  # drawn from the whole file
    if args.types:
        questions = [q for q in questions if q.question_type in set(args.types)]
    questions = spread(questions, args.questions)
    result = run_longmemeval(
        questions,
        args.engines,
        args.k,
        reuse_embeddings=args.reuse_embeddings,
        repeats=args.repeats,
        passages=args.passages,
        embed_cache=args.embed_cache,
        clock=args.clock == "question",
        time_options=dict(args.time_option or []) or None,
        exact_options=dict(args.exact_option or []) or None,
        readers=args.readers,
        progress=_progress,
    )
    result.update({"data": args.data, "pool": pool, "seed": args.seed, "passages": args.passages})
    return result, longmemeval_tables(result)


@benchmark(
    "ingest",
    help="long turns against short ones: word pieces/s, first search after a write, peak RSS",
    args=[
        arg("--short", required=True, help="path to locomo10.json (short chat turns)"),
        arg("--long", required=True, help="a LongMemEval JSON file (long assistant turns)"),
        arg(
            "--engines",
            type=names,
            default=["hybrid", "synapse"],
            help="engines, comma-separated (default hybrid,synapse)",
        ),
        arg("--turns", type=int, default=500, help="turns of each kind per ingest"),
        arg("--rounds", type=int, default=3, help="ingests of each kind, timed (default 3)"),
        arg("--no-rss", action="store_true", help="skip the fresh-process peak RSS"),
        *OUT,
    ],
)
def ingest(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .ingest import run_ingest
    from .report import ingest_tables

    result = run_ingest(
        args.short,
        args.long,
        args.engines,
        turns=args.turns,
        rounds=args.rounds,
        rss=not args.no_rss,
        progress=_progress,
    )
    return result, ingest_tables(result)


@benchmark(
    "answers",
    help="answers graded by content on conversations written for it (issue 37): right "
    "names, numbers, places and days, refusals of what was never said, invented words",
    args=[
        arg(
            "--engines",
            type=names,
            default=["hybrid", "synapse"],
            help="engines, comma-separated (default hybrid,synapse)",
        ),
        arg("--llm", default="auto", help="reader backend (default auto, Memory's own)"),
        *OUT,
    ],
)
def answers(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .answercheck import run_answer_check, tables

    result = run_answer_check(args.engines, llm=args.llm, progress=_progress)
    return result, tables(result)


@benchmark(
    "time",
    help="event times at ingest and question windows: exact intervals on the hand-labelled sets",
    args=[
        arg(
            "data",
            nargs="*",
            metavar="JSONL",
            help="time-expression files (default: the bundled development, held-out and "
            "independently labelled sets)",
        ),
        *OUT,
    ],
)
def time_expressions(args: argparse.Namespace) -> tuple[dict[str, Any], Tables]:
    from .timeset import DEV, HELDOUT, INDEPENDENT, load, remem_extractor, score, tables

    result: dict[str, Any] = {"sets": {}}
    out: Tables = []
    for path in args.data or [DEV, HELDOUT, INDEPENDENT]:
        name = Path(path).stem
        scored = score(load(path), remem_extractor)
        result["sets"][name] = scored
        out += tables(name, scored)
    if not args.data:  # and the windows questions name, read by the same rules
        from . import qwindows

        asked = qwindows.score(qwindows.load(), qwindows.question_reader)
        result["questions"] = asked
        out += qwindows.tables(qwindows.QUESTIONS.stem, asked)
    return result, out


def main(argv: Sequence[str], **global_options: Any) -> int:
    """``remem bench ARGS``: the benchmarks' own argparse command line, handed its
    arguments raw by remem's click command line; ``global_options`` are remem's
    (``--db``, ``--engine``, ``--key-file``), which some benchmarks read."""
    from .commands import run_parsed

    parser = argparse.ArgumentParser(prog="remem bench", description="benchmarks")
    parser.set_defaults(**global_options)
    bench.add_to(parser)
    return run_parsed(parser.parse_args(argv))
