"""``remem-bench ...``: run a benchmark, print tables, optionally write JSON/Markdown.

Every benchmark is one small function over the harness (the convention of
:mod:`remem_bench.command`); it returns the result and its tables, and printing and
writing them is done once, there. The exit statuses are remem's own (docs/cli.md):
0 done, 2 refused input (a usage error, or one of remem's errors), 1 what was not
foreseen. Each command imports what it runs when it runs, so ``--help`` is quick.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from .command import INTS, NAMES, Bench, Tables, benchmark, cli, fail, option_list, progress

Result = tuple[dict[str, Any], Tables]

ENGINE = click.option(
    "--engine",
    envvar="REMEM_ENGINE",
    default="hybrid",
    show_default=True,
    help="retrieval engine (env REMEM_ENGINE)",
)
"""``remem``'s own global ``--engine`` was this option of ``load`` and ``scale``."""


def _options(*options: Callable[[Bench], Bench]) -> Callable[[Bench], Bench]:
    """Several click options as one decorator, listed in ``--help`` in this order."""

    def apply(fn: Bench) -> Bench:
        for option in reversed(options):
            fn = option(fn)
        return fn

    return apply


def _engines(default: Sequence[str], what: str = "engines") -> Callable[[Bench], Bench]:
    shown = ",".join(default)
    return click.option(
        "--engines", type=NAMES, default=shown, help=f"{what}, comma-separated (default {shown})"
    )


CONVERSATIONS = click.option(
    "--conversations",
    type=NAMES,
    default=None,
    help="only these conversations, comma-separated sample ids (default: all)",
)
REUSE = click.option(
    "--reuse-embeddings",
    is_flag=True,
    help="embed each text once for all engines (ingest rates then exclude embedding)",
)
RETRIEVAL = _options(
    _engines(["dense", "bm25", "hybrid"], "engines to compare"),
    click.option(
        "--k", type=INTS, default="5,10,20", help="cut-offs of recall@k (default 5,10,20)"
    ),
    CONVERSATIONS,
    click.option("--limit", type=int, default=None, help="questions per conversation"),
    REUSE,
)
"""The retrieval benchmarks' options (locomo, memorybank)."""
DATA = click.option("--data", required=True, help="path to locomo10.json")
EMBED_CACHE = click.option("--embed-cache", help="keep every vector in this .npz across runs")

QA = _options(
    click.option("--answer", is_flag=True, help="answer with a reader; official F1"),
    click.option("--llm", default="local", help="reader backend: local, openai or none"),
    click.option("--llm-url", help="reader endpoint (openai; default OPENAI_BASE_URL)"),
    click.option("--llm-model", help="reader model name (openai)"),
    click.option("--llm-threads", type=int, help="CPU threads of the local reader (up to 4)"),
    click.option(
        "--llm-seed",
        type=int,
        help="reader's sampling seed (with --answer-option temperature=T > 0: repeated runs)",
    ),
    click.option(
        "--readers",
        type=NAMES,
        default="",
        help="readers side by side over the same recall, comma-separated (none,local)",
    ),
    click.option("--answer-k", type=int, default=10, help="memories recalled per question"),
    click.option("--context-tokens", type=int, default=900, help="memory context budget"),
    click.option(
        "--grounding",
        type=float,
        default=0.0,
        help="answer-grounding check (0, the reader's default, turns it off)",
    ),
    option_list("--answer-option", "an answer option for every engine (order=rank, premise=false)"),
    click.option("--jsonl", help="per-question outputs here (audits)"),
    click.option(
        "--resume",
        is_flag=True,
        help="keep every finished block of --jsonl (also those outside this run)",
    ),
    click.option(
        "--resume-from",
        multiple=True,
        metavar="JSONL",
        help="also keep the complete blocks of this JSONL (a part run in parallel); repeatable",
    ),
    click.option("--judge-url", help="optional LLM judge endpoint (OpenAI-compatible)"),
    click.option("--judge-model", help="optional LLM judge model"),
)
"""End-to-end answers (``locomo --answer``)."""


@benchmark("locomo", help="evidence recall on LoCoMo, engines side by side")
@DATA
@RETRIEVAL
@click.option(
    "--turns",
    type=INTS,
    default=None,
    help="only each conversation's first N turns (short histories); a list runs each",
)
@QA
def locomo(**o: Any) -> Result | int:
    if o["answer"]:
        return _locomo_answers(o)
    if o["turns"]:
        return _locomo_short_histories(o)
    return _retrieval("locomo", o)


def _llm_options(o: dict[str, Any]) -> dict[str, Any]:
    """The reader's options from ``--llm-*``; the threads only for the local one."""
    options: dict[str, Any] = {"base_url": o["llm_url"]} if o["llm_url"] else {}
    if o["llm_model"]:
        options["model"] = o["llm_model"]
    local = o["llm"] in ("local", "auto") or any(r in ("local", "auto") for r in o["readers"])
    if o["llm_threads"] and local:  # the others have no threads
        options["n_threads"] = o["llm_threads"]
    if o["llm_seed"] is not None and o["llm"] != "none":
        options["seed"] = o["llm_seed"]
    return options


def _locomo_answers(o: dict[str, Any]) -> Result | int:
    if o["turns"] is not None:
        fail("--turns applies to retrieval runs, not to --answer")
        return 2
    from remem import create_llm

    from .qa import run_locomo_qa
    from .report import qa_tables

    judge = None
    if o["judge_url"] or o["judge_model"]:
        judge = create_llm("openai", base_url=o["judge_url"], model=o["judge_model"])
    result = run_locomo_qa(
        o["data"],
        o["engines"],
        llm=o["llm"],
        llm_options=_llm_options(o),
        k=o["answer_k"],
        max_context_tokens=o["context_tokens"],
        grounding=o["grounding"],
        answer_options=o["answer_option"],
        conversations=o["conversations"],
        limit=o["limit"],
        judge=judge,
        jsonl=o["jsonl"],
        resume=o["resume"],
        resume_from=o["resume_from"],
        progress=progress,
        readers=o["readers"],
    )
    return result, qa_tables(result)


def _locomo_short_histories(o: dict[str, Any]) -> Result:
    from remem.embed import create_embedder

    from .embedcache import MemoEmbedder
    from .report import short_history_tables
    from .runner import run_locomo

    # one model for every length; with --reuse-embeddings one memo too, so the
    # shorter histories' turns (prefixes of the longer ones) are embedded once
    embedder = create_embedder("minilm")
    if o["reuse_embeddings"]:
        embedder = MemoEmbedder(embedder)
    runs = [
        run_locomo(
            o["data"],
            o["engines"],
            o["k"],
            turns=n,
            conversations=o["conversations"],
            limit=o["limit"],
            progress=progress,
            embedder=embedder,
        )
        for n in o["turns"]
    ]
    result = {"benchmark": "locomo-short-histories", "data": o["data"], "runs": runs}
    return result, short_history_tables(result)


def _retrieval(name: str, o: dict[str, Any]) -> Result:
    from .report import locomo_tables
    from .runner import run_locomo, run_memorybank

    extra = {"labels": o["labels"]} if name == "memorybank" else {}
    result = (run_locomo if name == "locomo" else run_memorybank)(
        o["data"],
        o["engines"],
        o["k"],
        conversations=o["conversations"],
        limit=o["limit"],
        progress=progress,
        reuse_embeddings=o["reuse_embeddings"],
        **extra,
    )
    return result, locomo_tables(result)


@benchmark("memorybank", help="evidence recall on MemoryBank's probing questions (English)")
@click.option("--data", required=True, help="path to memory_bank_en.json")
@click.option("--labels", default=None, help="evidence labels (default: the bundled ones)")
@RETRIEVAL
def memorybank(**o: Any) -> Result:
    return _retrieval("memorybank", o)


@benchmark(
    "verdict",
    help="the 'not in memory' verdict on LoCoMo (and LongMemEval): refusal vs false refusal",
)
@DATA
@_engines(["hybrid", "synapse"])
@click.option("--k", type=int, default=10, help="memories recalled per question (default 10)")
@CONVERSATIONS
@click.option(
    "--lme", help="also a LongMemEval file (its own, never-said and abstention questions)"
)
@click.option(
    "--lme-questions", type=int, help="only this many LongMemEval questions, spread over the file"
)
@click.option(
    "--lme-pool",
    type=int,
    default=45,
    help="sessions of other questions pooled into each LongMemEval history "
    "(default 45; 0: the question's own sessions, a small memory)",
)
@EMBED_CACHE
def verdict(**o: Any) -> Result:
    from .report import verdict_tables
    from .verdict import run_verdict

    data, engines = o.pop("data"), o.pop("engines")
    result = run_verdict(data, engines, progress=progress, **o)
    return result, verdict_tables(result)


@benchmark("spread", help="repeated --answer runs (sampled, one seed each): mean, sd, range")
@click.argument("runs", nargs=-1, required=True, metavar="JSONL...")
def spread(runs: tuple[str, ...]) -> Result:
    from .report import spread_tables
    from .spread import spread_runs

    result = spread_runs(list(runs))
    return result, spread_tables(result)


@benchmark("qa-compare", help="two --answer runs question by question (a rerun, or a change)")
@click.argument("a")
@click.argument("b")
@click.option(
    "--exclude",
    multiple=True,
    metavar="JSONL",
    help="leave out the questions of this run (held-out comparisons); repeatable",
)
def qa_compare(a: str, b: str, exclude: tuple[str, ...]) -> Result:
    from .qa import compare_runs
    from .report import compare_tables

    result = compare_runs(a, b, exclude=exclude)
    return result, compare_tables(result)


@benchmark("load", help="concurrent clients against remem serve (loopback)")
@click.option("--url", help="database (default: a throwaway PostgreSQL via pgserver)")
@click.option("--workers", type=int, default=2, help="server worker processes (default 2)")
@click.option("--clients", type=int, default=50, help="concurrent clients (default 50)")
@click.option("--duration", type=float, default=60.0, help="seconds of load")
@ENGINE
@click.option(
    "--llm", default="none", help="the server's reader: none (a server's default) or local"
)
@click.option("--users", type=int, default=5, help="users per tenant (2 tenants)")
@click.option("--seed", type=int, default=7, help="seed of the clients' choices (default 7)")
@click.option("--server-log", help="the server's output goes here")
def load(url: str | None, users: int, server_log: str | None, **o: Any) -> Result:
    from .load import run_load
    from .report import load_tables

    result = run_load(db=url, users_per_tenant=users, log_path=server_log, **o)
    return result, load_tables(result)


@benchmark("scale", help="ingest and search latency on a synthetic history")
@click.option("--engines", type=NAMES, help="engines, comma-separated (default: --engine)")
@ENGINE
@click.option(
    "--n",
    type=INTS,
    default="1000,10000",
    help="history sizes in memories, comma-separated (default 1000,10000)",
)
@click.option("--queries", type=int, default=200, help="searches timed per size (default 200)")
@click.option("--mixed", type=int, default=100, help="rounds of add + search")
@click.option("--seed", type=int, default=7, help="seed of the synthetic history (default 7)")
def scale(engines: list[str] | None, engine: str, n: list[int], **o: Any) -> Result:
    from .report import scale_tables
    from .scale import run_scale

    result = run_scale(engines or [engine], n, progress=progress, **o)
    return result, scale_tables(result)


@benchmark(
    "longmemeval",
    help="evidence recall over long assistant histories (LongMemEval S, M or oracle files)",
)
@click.option("--data", required=True, help="a LongMemEval JSON file (S, M or oracle)")
@_engines(["dense", "bm25", "hybrid", "synapse"], "engines to compare")
@click.option("--k", type=INTS, default="5,10,20", help="cut-offs of recall@k (default 5,10,20)")
@click.option(
    "--pool",
    type=int,
    default=None,
    help="sessions of other questions added to each haystack (default: 45 for an "
    "oracle file, whose haystacks hold only the evidence sessions; 0 otherwise)",
)
@click.option("--seed", type=int, default=0, help="seed of the pooled sessions")
@click.option("--questions", type=int, default=None, help="this many, spread over the file")
@click.option("--types", type=NAMES, default=None, help="only these question types")
@click.option("--repeats", type=int, default=3, help="later searches timed per question")
@click.option(
    "--passages",
    type=NAMES,
    default=None,
    help="passage settings to compare, MAX/OVERLAP or off (e.g. 128/1,200/1,off); "
    "default: the Memory's own",
)
@REUSE
@click.option(
    "--embed-cache",
    help="keep every vector in this .npz across runs (implies --reuse-embeddings)",
)
@click.option(
    "--clock",
    type=click.Choice(["question", "none"]),
    default="question",
    help="ask at each question's date (default) or at the current time",
)
@option_list("--time-option", "a time option for every Memory (window_weight=0.5)")
@option_list("--exact-option", "an identifier option for every Memory (lift=false)")
@click.option(
    "--readers",
    type=NAMES,
    default="",
    help="readers answering from the same recall, comma-separated (none,local,"
    "local@span): gold-answer containment, F1, refusal of abstention questions",
)
def longmemeval(**o: Any) -> Result:
    from .lme_runner import run_longmemeval
    from .report import longmemeval_tables

    questions, pool = _lme_questions(o)
    result = run_longmemeval(
        questions,
        o["engines"],
        o["k"],
        reuse_embeddings=o["reuse_embeddings"],
        repeats=o["repeats"],
        passages=o["passages"],
        embed_cache=o["embed_cache"],
        clock=o["clock"] == "question",
        time_options=o["time_option"] or None,
        exact_options=o["exact_option"] or None,
        readers=o["readers"],
        progress=progress,
    )
    result.update({"data": o["data"], "pool": pool, "seed": o["seed"], "passages": o["passages"]})
    return result, longmemeval_tables(result)


def _lme_questions(o: dict[str, Any]) -> tuple[list[Any], int]:
    """The questions asked, and the sessions pooled into each history."""
    from .longmemeval import is_oracle, load_longmemeval, pooled, spread

    questions = load_longmemeval(o["data"])
    pool = o["pool"] if o["pool"] is not None else (45 if is_oracle(questions) else 0)
    questions = pooled(questions, pool, o["seed"])  # drawn from the whole file
    if o["types"]:
        questions = [q for q in questions if q.question_type in set(o["types"])]
    return spread(questions, o["questions"]), pool


@benchmark(
    "ingest",
    help="long turns against short ones: word pieces/s, first search after a write, peak RSS",
)
@click.option("--short", required=True, help="path to locomo10.json (short chat turns)")
@click.option("--long", required=True, help="a LongMemEval JSON file (long assistant turns)")
@_engines(["hybrid", "synapse"])
@click.option("--turns", type=int, default=500, help="turns of each kind per ingest")
@click.option("--rounds", type=int, default=3, help="ingests of each kind, timed (default 3)")
@click.option("--no-rss", is_flag=True, help="skip the fresh-process peak RSS")
def ingest(short: str, long: str, engines: list[str], no_rss: bool, **o: Any) -> Result:
    from .ingest import run_ingest
    from .report import ingest_tables

    result = run_ingest(short, long, engines, rss=not no_rss, progress=progress, **o)
    return result, ingest_tables(result)


@benchmark(
    "answers",
    help="answers graded by content on conversations written for it (issue 37): right "
    "names, numbers, places and days, refusals of what was never said, invented words",
)
@_engines(["hybrid", "synapse"])
@click.option("--llm", default="auto", help="reader backend (default auto, Memory's own)")
@click.option(
    "--data",
    default=None,
    help="the conversations (default the development set, data/answer_check.json; "
    "data/answer_check_heldout33.json is the latest held-out one)",
)
def answers(engines: list[str], llm: str, data: str | None) -> Result:
    from .answercheck import DATA, run_answer_check, tables

    result = run_answer_check(engines, llm=llm, path=data or DATA, progress=progress)
    return result, tables(result)


@benchmark(
    "time",
    help="event times at ingest and question windows: exact intervals on the hand-labelled sets",
)
@click.argument("data", nargs=-1, metavar="[JSONL]...")
def time_expressions(data: tuple[str, ...]) -> Result:
    """Time-expression files (default: the bundled development, held-out and
    independently labelled sets, and the questions' windows)."""
    from .timeset import DEV, HELDOUT, INDEPENDENT, load, remem_extractor, score, tables

    result: dict[str, Any] = {"sets": {}}
    out: Tables = []
    for path in data or [DEV, HELDOUT, INDEPENDENT]:
        name = Path(path).stem
        scored = score(load(path), remem_extractor)
        result["sets"][name] = scored
        out += tables(name, scored)
    if not data:  # and the windows questions name, read by the same rules
        from . import qwindows

        asked = qwindows.score(qwindows.load(), qwindows.question_reader)
        result["questions"] = asked
        out += qwindows.tables(qwindows.QUESTIONS.stem, asked)
    return result, out


def main(
    argv: Sequence[str] | None = None, group: click.Group = cli, prog: str = "remem-bench"
) -> int:
    """Run a command line of ``group`` (a script's own, as scripts/replay_answers.py's,
    called ``prog``) and give its exit status (docs/cli.md's, as ``remem``'s)."""
    from remem import RememError

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        code = group.main(args, prog, standalone_mode=False, obj={"argv": args, "prog": prog})
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.Abort:
        fail("interrupted", prog)
        return 130
    except RememError as exc:
        fail(str(exc), prog)
        return 2
    except OSError as exc:
        fail(f"{exc.strerror or exc}{f': {exc.filename!r}' if exc.filename else ''}", prog)
        return 1
    except Exception as exc:
        if os.environ.get("REMEM_DEBUG"):
            raise
        fail(f"unexpected {type(exc).__name__}: {exc} (REMEM_DEBUG=1 shows the traceback)", prog)
        return 1
    return code if isinstance(code, int) else 0


def run() -> None:
    """The ``remem-bench`` script."""
    sys.exit(main())
