"""The ``remem`` command line: a thin face over :class:`remem.Memory`.

Each memory command maps one-to-one onto a Memory method; ``bench`` runs the
committed benchmarks; ``demo`` shows the whole thing offline.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from . import __version__
from .errors import RememError

DEFAULT_DB = "remem.db"


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _names(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _option(text: str) -> tuple[str, object]:
    """KEY=VALUE with VALUE read as JSON when it parses (true, 0.4, "x"), else text."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key.strip(), json.loads(value)
    except json.JSONDecodeError:
        return key.strip(), value


def _answer_option_arg(parser: argparse._ActionsContainer, help: str) -> None:
    parser.add_argument(
        "--answer-option",
        action="append",
        type=_option,
        metavar="KEY=VALUE",
        help=help + "; repeatable",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="remem", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action="version", version=f"remem {__version__}")
    p.add_argument(
        "--db",
        default=os.environ.get("REMEM_DB", DEFAULT_DB),
        help="database path (env REMEM_DB; default remem.db)",
    )
    p.add_argument("--engine", default=os.environ.get("REMEM_ENGINE", "hybrid"))
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("demo", help="remember a small conversation and query it (offline)")
    d.add_argument("-k", type=int, default=5)
    d.add_argument("--llm", default="auto", help="reader: auto (local if installed), none...")

    q = sub.add_parser("ask", help="answer a question from a user's memory (or refuse)")
    q.add_argument("question")
    q.add_argument("--user", required=True)
    q.add_argument("-k", type=int, default=10)
    q.add_argument("--llm", default=os.environ.get("REMEM_LLM", "auto"))
    q.add_argument("--json", action="store_true", help="print the Answer as JSON")

    a = sub.add_parser("add", help="store one memory; prints its id")
    a.add_argument("text")
    a.add_argument("--user", required=True)
    a.add_argument("--speaker")
    a.add_argument("--timestamp")
    a.add_argument("--session")
    a.add_argument("--metadata", help="a JSON object")

    s = sub.add_parser("search", help="the user's best memories for a query")
    s.add_argument("query")
    s.add_argument("--user", required=True)
    s.add_argument("-k", type=int, default=10)
    s.add_argument("--json", action="store_true", help="print JSON lines")

    r = sub.add_parser("recall", help="search with the engine's confidence, gate and paths")
    r.add_argument("query")
    r.add_argument("--user", required=True)
    r.add_argument("-k", type=int, default=10)
    r.add_argument("--json", action="store_true", help="print the Recall as JSON")

    ls = sub.add_parser("list", help="a user's memories in the order they were added")
    ls.add_argument("--user", required=True)
    ls.add_argument("--limit", type=int, default=None)
    ls.add_argument("--offset", type=int, default=0)
    ls.add_argument("--json", action="store_true", help="print JSON lines")

    sub.add_parser("users", help="every user with memories")

    co = sub.add_parser("consolidate", help="run the engine's pending consolidation now")
    co.add_argument("--user", required=True)

    g = sub.add_parser("get", help="one memory by id")
    g.add_argument("id")
    g.add_argument("--user", required=True)

    x = sub.add_parser("delete", help="delete one memory")
    x.add_argument("id")
    x.add_argument("--user", required=True)

    u = sub.add_parser("delete-user", help="erase everything of a user")
    u.add_argument("user")

    c = sub.add_parser("count", help="number of memories of a user")
    c.add_argument("--user", required=True)

    e = sub.add_parser("export-table", help="write a user's global memory table (JSON)")
    e.add_argument("path")
    e.add_argument("--user", required=True)

    i = sub.add_parser("import-table", help="add an exported table's entries to a user")
    i.add_argument("path")
    i.add_argument("--user", required=True)

    sv = sub.add_parser("serve", help="the HTTP API (needs the 'server' extra)")
    sv.add_argument("--path", help="database file or postgresql:// URL (default: --db)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8080)
    sv.add_argument("--workers", type=int, default=1, help="worker processes")
    sv.add_argument("--llm", default=os.environ.get("REMEM_LLM", "none"), help="reader")
    sv.add_argument("--max-body-bytes", type=int, default=8 * 1024 * 1024)
    sv.add_argument("--cors", type=_names, default=[], help="allowed origins (default: none)")
    sv.add_argument("--key-cache", type=float, default=0.0, help="seconds a verified key is cached")
    sv.add_argument(
        "--pool-size", type=int, default=0, help="PostgreSQL connections per worker (default 10)"
    )
    sv.add_argument("--log-level", default="info")

    ks = sub.add_parser("keys", help="API keys of the servers (each bound to one tenant)")
    ksub = ks.add_subparsers(dest="keys", required=True)
    kc = ksub.add_parser("create", help="a new key for a tenant; printed once")
    kc.add_argument("--tenant", required=True)
    kc.add_argument("--label")
    kl = ksub.add_parser("list", help="keys (never their secrets)")
    kl.add_argument("--tenant")
    kl.add_argument("--json", action="store_true")
    kr = ksub.add_parser("revoke", help="revoke a key by its id")
    kr.add_argument("key_id")

    from .serve.mcp import add_parser as add_mcp_parser  # imports no MCP SDK

    add_mcp_parser(sub)
    b = sub.add_parser("bench", help="benchmarks")
    bsub = b.add_subparsers(dest="bench", required=True)
    lo = bsub.add_parser("locomo", help="evidence recall on LoCoMo, engines side by side")
    lo.add_argument("--data", required=True, help="path to locomo10.json")
    _retrieval_args(lo)
    lo.add_argument(
        "--turns",
        type=_ints,
        help="only each conversation's first N turns (short histories); a list runs each",
    )
    qa = lo.add_argument_group("end-to-end answers (--answer)")
    qa.add_argument("--answer", action="store_true", help="answer with a reader; official F1")
    qa.add_argument("--llm", default="local", help="reader backend: local, openai or none")
    qa.add_argument("--llm-url", help="reader endpoint (openai; default OPENAI_BASE_URL)")
    qa.add_argument("--llm-model", help="reader model name (openai)")
    qa.add_argument(
        "--llm-threads", type=int, help="CPU threads of the local reader (default: up to 4)"
    )
    qa.add_argument(
        "--llm-seed",
        type=int,
        help="reader's sampling seed (with --answer-option temperature=T > 0: repeated runs)",
    )
    qa.add_argument("--answer-k", type=int, default=10, help="memories recalled per question")
    qa.add_argument("--context-tokens", type=int, default=900, help="memory context budget")
    qa.add_argument(
        "--grounding", type=float, default=0.5, help="answer-grounding check (0 turns it off)"
    )
    _answer_option_arg(qa, "an answer option for every engine (order=rank, premise=false)")
    qa.add_argument("--jsonl", help="per-question outputs here (audits)")
    qa.add_argument(
        "--resume",
        action="store_true",
        help="keep every finished block of --jsonl (also those outside this run)",
    )
    qa.add_argument(
        "--resume-from",
        action="append",
        metavar="JSONL",
        help="also keep the complete blocks of this JSONL (a part run in parallel); repeatable",
    )
    qa.add_argument("--judge-url", help="optional LLM judge endpoint (OpenAI-compatible)")
    qa.add_argument("--judge-model", help="optional LLM judge model")
    mb = bsub.add_parser(
        "memorybank", help="evidence recall on MemoryBank's probing questions (English)"
    )
    mb.add_argument("--data", required=True, help="path to memory_bank_en.json")
    mb.add_argument("--labels", default=None, help="evidence labels (default: the bundled ones)")
    _retrieval_args(mb)
    gr = bsub.add_parser(
        "grounding",
        help="the answer-grounding check replayed at several thresholds on a saved QA run",
    )
    gr.add_argument("--data", required=True, help="path to locomo10.json")
    gr.add_argument(
        "--jsonl", required=True, help="rows of a saved --answer run (best made with --grounding 0)"
    )
    gr.add_argument("--json", dest="json_out")
    gr.add_argument("--markdown")
    rp = bsub.add_parser(
        "replay", help="a saved --answer run's drafts settled again by the current answer rules"
    )
    rp.add_argument("--data", required=True, help="path to locomo10.json")
    rp.add_argument("--jsonl", required=True, help="rows of a saved --answer run")
    rp.add_argument("--out", required=True, help="the replayed rows go here (JSONL)")
    rp.add_argument("--grounding", type=float, default=0.5, help="grounding check threshold")
    _answer_option_arg(rp, "a switch of the answer rules (premise=false, date_answers=false)")
    rp.add_argument("--json", dest="json_out")
    rp.add_argument("--markdown")
    sp = bsub.add_parser(
        "spread", help="repeated --answer runs (sampled, one seed each): mean, sd, range"
    )
    sp.add_argument("runs", nargs="+", metavar="JSONL", help="the runs' per-question rows")
    sp.add_argument("--json", dest="json_out")
    sp.add_argument("--markdown")
    qc = bsub.add_parser(
        "qa-compare", help="two --answer runs question by question (a rerun, or a change)"
    )
    qc.add_argument("a", help="JSONL of run A")
    qc.add_argument("b", help="JSONL of run B")
    qc.add_argument(
        "--exclude",
        action="append",
        metavar="JSONL",
        help="leave out the questions of this run (held-out comparisons); repeatable",
    )
    qc.add_argument("--json", dest="json_out")
    qc.add_argument("--markdown")
    ld = bsub.add_parser("load", help="concurrent clients against remem serve (loopback)")
    ld.add_argument("--url", help="database (default: a throwaway PostgreSQL via pgserver)")
    ld.add_argument("--workers", type=int, default=2)
    ld.add_argument("--clients", type=int, default=50)
    ld.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    ld.add_argument("--llm", default="none", help="the server's reader: none or local")
    ld.add_argument("--users", type=int, default=5, help="users per tenant (2 tenants)")
    ld.add_argument("--seed", type=int, default=7)
    ld.add_argument("--server-log", help="the server's output goes here")
    ld.add_argument("--json", dest="json_out")
    ld.add_argument("--markdown")
    sc = bsub.add_parser("scale", help="ingest and search latency on a synthetic history")
    sc.add_argument("--engines", type=_names, default=None)
    sc.add_argument("--n", type=_ints, default=[1000, 10000])
    sc.add_argument("--queries", type=int, default=200)
    sc.add_argument("--mixed", type=int, default=100, help="rounds of add + search")
    sc.add_argument("--seed", type=int, default=7)
    sc.add_argument("--json", dest="json_out")
    sc.add_argument("--markdown")
    return p


def _retrieval_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--engines", type=_names, default=["dense", "bm25", "hybrid"])
    p.add_argument("--k", type=_ints, default=[5, 10, 20])
    p.add_argument("--conversations", type=_names, default=None)
    p.add_argument("--limit", type=int, default=None, help="questions per conversation")
    p.add_argument(
        "--reuse-embeddings",
        action="store_true",
        help="embed each text once for all engines (ingest rates then exclude embedding)",
    )
    p.add_argument("--json", dest="json_out", help="write results as JSON here")
    p.add_argument("--markdown", help="write the report as Markdown here")


def _print_hit(hit: Any) -> None:
    print(json.dumps(hit.to_dict(), ensure_ascii=False))


def _print_line(hit: Any, *, score: bool) -> None:
    who = f"{hit.speaker}: " if hit.speaker else ""
    lead = f"{hit.score:8.4f}  " if score else ""
    print(f"{lead}{hit.id}  {hit.timestamp:%Y-%m-%d %H:%M}  {who}{hit.text}")


def run(args: argparse.Namespace) -> int:
    if args.command == "demo":
        from .demo import run_demo

        return run_demo(engine=args.engine, k=args.k, llm=args.llm)
    if args.command == "bench":
        from .bench import cli as bench_cli

        return bench_cli.run(args)

    if args.command == "serve":
        from .serve.http import serve

        serve(
            args.path or args.db,
            host=args.host,
            port=args.port,
            workers=args.workers,
            engine=args.engine,
            llm=args.llm,
            max_body_bytes=args.max_body_bytes,
            cors_origins=args.cors,
            key_cache_s=args.key_cache,
            pool_size=args.pool_size,
            log_level=args.log_level,
        )
        return 0
    if args.command == "mcp":
        from .serve.mcp import run as run_mcp

        return run_mcp(args) or 0

    from .memory import Memory

    if args.command == "keys":
        with Memory(args.db, engine=args.engine, llm="none") as mem:
            return _keys(mem, args)
    llm = getattr(args, "llm", "auto")
    with Memory(args.db, engine=args.engine, llm=llm) as mem:
        if args.command == "ask":
            a = mem.answer(args.question, user_id=args.user, k=args.k)
            if args.json:
                print(json.dumps(a.to_dict(), ensure_ascii=False))
            else:
                print(a.text)
                for h in a.evidence:
                    who = f"{h.speaker}: " if h.speaker else ""
                    print(f"  - [{h.timestamp:%Y-%m-%d}] {who}{h.text}", file=sys.stderr)
        elif args.command == "add":
            metadata = json.loads(args.metadata) if args.metadata else None
            print(
                mem.add(
                    args.text,
                    user_id=args.user,
                    speaker=args.speaker,
                    timestamp=args.timestamp,
                    session_id=args.session,
                    metadata=metadata,
                )
            )
        elif args.command == "search":
            hits = mem.search(args.query, user_id=args.user, k=args.k)
            for h in hits:
                if args.json:
                    _print_hit(h)
                else:
                    _print_line(h, score=True)
        elif args.command == "recall":
            rec = mem.recall(args.query, user_id=args.user, k=args.k)
            if args.json:
                print(json.dumps(rec.to_dict(), ensure_ascii=False))
            else:
                verdict = "refuse: not in memory" if rec.refuse else "answerable"
                print(f"confidence {rec.confidence:.3f} ({verdict})")
                for h in rec.hits:
                    _print_line(h, score=True)
                    if h.id in rec.explanations:
                        print(f"          via {rec.explanations[h.id]}")
        elif args.command == "list":
            for h in mem.memories(args.user, limit=args.limit, offset=args.offset):
                if args.json:
                    _print_hit(h)
                else:
                    _print_line(h, score=False)
        elif args.command == "users":
            for name in mem.users():
                print(name)
        elif args.command == "consolidate":
            print(mem.consolidate(args.user))
        elif args.command == "get":
            hit = mem.get(args.id, user_id=args.user)
            if hit is None:
                print(f"remem: no memory {args.id} for user {args.user}", file=sys.stderr)
                return 1
            _print_hit(hit)
        elif args.command == "delete":
            if not mem.delete(args.id, user_id=args.user):
                print(f"remem: no memory {args.id} for user {args.user}", file=sys.stderr)
                return 1
        elif args.command == "delete-user":
            print(mem.delete_user(args.user))
        elif args.command == "count":
            print(mem.count(args.user))
        elif args.command == "export-table":
            print(mem.export_table(args.user, args.path))
        elif args.command == "import-table":
            print(len(mem.import_table(args.path, args.user)))
    return 0


def _keys(mem: Any, args: argparse.Namespace) -> int:
    if args.keys == "create":
        key, info = mem.keys.create(args.tenant, args.label)
        print(key)
        print(
            f"key id {info.key_id} for tenant {info.tenant}: store the key now, it is "
            "not shown again",
            file=sys.stderr,
        )
    elif args.keys == "list":
        for info in mem.keys.list(args.tenant):
            if args.json:
                print(json.dumps(info.to_dict()))
            else:
                state = "active" if info.active else "revoked"
                print(f"{info.key_id}  {info.tenant}  {state}  {info.label or ''}".rstrip())
    elif args.keys == "revoke" and not mem.keys.revoke(args.key_id):
        print(f"remem: no active key {args.key_id}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except json.JSONDecodeError as exc:
        print(f"remem: --metadata is not valid JSON: {exc}", file=sys.stderr)
        return 2
    except RememError as exc:
        print(f"remem: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
