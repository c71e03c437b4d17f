"""The ``remem`` command line: a thin face over :class:`remem.Memory`.

Each memory command maps one-to-one onto a Memory method; ``keys`` manages the
servers' API keys; ``serve`` and ``mcp`` run the servers (:mod:`remem.serve`);
``demo`` shows the whole thing offline (the benchmarks are ``remem-bench``'s, in
benchmarks/ beside the package).
Every command is registered the same way (:mod:`remem.commands`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .commands import Commands, add_args, arg, names, run
from .serve.mcp import mcp
from .serve.settings import GLOBAL_ARGS, Settings, db_key, env_default

if TYPE_CHECKING:
    from .memory import Memory


commands = Commands("command")
keys = Commands("keys")


# -- memory commands ----------------------------------------------------------------------


@contextmanager
def _memory(args: argparse.Namespace, *, create: bool = False, **options: Any) -> Iterator[Memory]:
    """The Memory of the global options (``--db``, ``--engine``, ``--key-file``),
    closed afterwards.

    Only commands that store something (``create``) make a new database file: a read
    of a mistyped ``--db`` (or of ``./remem.db`` in the wrong folder) is an error,
    not a fresh empty file that answers "nothing" and is left lying around."""
    from .memory import Memory

    store = None if create else {"create": False}
    key = db_key(args.key_file)
    with Memory(args.db, engine=args.engine, store_options=store, key=key, **options) as mem:
        yield mem


def _print_hit(hit: Any) -> None:
    print(json.dumps(hit.to_dict(), ensure_ascii=False))


def _print_line(hit: Any, *, score: bool) -> None:
    who = f"{hit.speaker}: " if hit.speaker else ""
    lead = f"{hit.score:8.4f}  " if score else ""
    print(f"{lead}{hit.id}  {hit.timestamp:%Y-%m-%d %H:%M}  {who}{hit.text}")


def _print_hits(hits: Sequence[Any], *, as_json: bool, score: bool) -> None:
    for h in hits:
        if as_json:
            _print_hit(h)
        else:
            _print_line(h, score=score)


def _missing(args: argparse.Namespace) -> int:
    print(f"remem: no memory {args.id} for user {args.user}", file=sys.stderr)
    return 1


USER = arg("--user", required=True, help="the user's id: each user's memories are apart")
K = arg("-k", type=int, default=10, help="how many memories to use (default %(default)s)")
READERS = (
    "auto (local when installed, else none), local (SmolLM2, offline), openai (any "
    "OpenAI-compatible endpoint), none (no model: the best evidence sentence)"
)
"""The ``--llm`` choices, as :func:`remem.llm.create_llm` takes them (a test holds the
two together; listing them here keeps ``remem --help`` from importing the LLMs)."""
NOW = arg(
    "--now",
    help="ISO 8601: when the question is asked (default: now); '10 days ago' and "
    "'last Saturday' in it are taken relative to this",
)

_FILTER = "filters (only memories that pass are ranked or listed)"
FILTERS = [
    arg("--session", dest="f_session", action="append", group=_FILTER,
        help="from this session (repeat: any of)"),
    arg("--speaker", dest="f_speaker", action="append", group=_FILTER,
        help="said by this speaker (repeat: any of)"),
    arg("--meta", dest="f_meta", action="append", metavar="KEY=VALUE", group=_FILTER,
        help="metadata KEY equals VALUE (JSON when it parses: 1, true; else text); "
        "repeat for more keys, the same key twice means any of"),
    arg("--after", dest="f_after", group=_FILTER, help="said at or after this ISO 8601 time"),
    arg("--before", dest="f_before", group=_FILTER, help="said before this ISO 8601 time"),
    arg("--event-after", dest="f_event_after", group=_FILTER,
        help="talks about a time overlapping from this ISO 8601 time on"),
    arg("--event-before", dest="f_event_before", group=_FILTER,
        help="talks about a time overlapping before this ISO 8601 time"),
]  # fmt: skip
"""The read commands' filter options, as ``Memory(..., filters=)`` takes them."""


def _filters(args: argparse.Namespace) -> dict[str, Any] | None:
    """The filter options as a ``filters`` mapping (checked by ``Memory``), None for none."""
    out: dict[str, Any] = {}
    for key in ("session", "speaker"):
        if getattr(args, f"f_{key}", None):
            out["session_id" if key == "session" else key] = getattr(args, f"f_{key}")
    for key in ("after", "before", "event_after", "event_before"):
        if getattr(args, f"f_{key}", None) is not None:
            out[key] = getattr(args, f"f_{key}")
    meta: dict[str, list[Any]] = {}
    for item in getattr(args, "f_meta", None) or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            from .errors import InvalidFilterError

            raise InvalidFilterError(f"--meta {item!r} is not KEY=VALUE")
        meta.setdefault(key, []).append(_meta_value(raw))
    if meta:
        out["metadata"] = meta
    return out or None


def _meta_value(raw: str) -> Any:
    """A ``--meta`` value: a JSON scalar when it reads as one (1, true, null), else text."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, (int, float, bool, str)) or value is None else raw


@commands.command(
    "demo",
    help="remember a small conversation and query it (offline)",
    args=[
        arg("-k", type=int, default=5, help="evidence shown per question (default %(default)s)"),
        arg("--llm", default="auto", help=f"reader: {READERS} (default %(default)s)"),
        arg(
            "--encrypted",
            action="store_true",
            help="in an encrypted database (needs the 'encrypt' extra), and show that "
            "its bytes hold none of the conversation's words",
        ),
    ],
)
def demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(engine=args.engine, k=args.k, llm=args.llm, encrypted=args.encrypted)


@commands.command(
    "ask",
    help="answer a question from a user's memory (or refuse)",
    args=[
        arg("question", help="the question, in words"),
        USER,
        K,
        NOW,
        *FILTERS,
        arg(
            "--llm",
            default_from=env_default("llm"),
            help=f"reader: {READERS} (env REMEM_LLM; default %(default)s)",
        ),
        arg("--json", action="store_true", help="print the Answer as JSON"),
    ],
)
def ask(args: argparse.Namespace) -> None:
    with _memory(args, llm=args.llm) as mem:
        a = mem.answer(
            args.question, user_id=args.user, k=args.k, now=args.now, filters=_filters(args)
        )
        if args.json:
            print(json.dumps(a.to_dict(), ensure_ascii=False))
            return
        print(a.text)
        for h in a.evidence:
            who = f"{h.speaker}: " if h.speaker else ""
            print(f"  - [{h.timestamp:%Y-%m-%d}] {who}{h.text}", file=sys.stderr)


@commands.command(
    "add",
    help="store one memory; prints its id",
    args=[
        arg("text", help="what to remember"),
        USER,
        arg("--speaker", help="who said it"),
        arg(
            "--timestamp",
            help="when it was said, ISO 8601: 2023-05-08T13:56:00, 2023-05-08, or with an "
            "offset (Z, +01:00); without one it is kept as given (default: now, UTC)",
        ),
        arg("--session", help="the conversation it belongs to, an id of your choice"),
        arg("--metadata", help="a JSON object"),
    ],
)
def add(args: argparse.Namespace) -> None:
    with _memory(args, create=True) as mem:
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


@commands.command(
    "search",
    help="the user's best memories for a query",
    args=[
        arg("query", help="what to look for, in words"),
        USER,
        K,
        NOW,
        *FILTERS,
        arg("--json", action="store_true", help="print JSON lines"),
    ],
)
def search(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        hits = mem.search(
            args.query, user_id=args.user, k=args.k, now=args.now, filters=_filters(args)
        )
        _print_hits(hits, as_json=args.json, score=True)


@commands.command(
    "recall",
    help="search with the engine's confidence, gate and paths",
    args=[
        arg("query", help="what to look for, in words"),
        USER,
        K,
        NOW,
        *FILTERS,
        arg("--json", action="store_true", help="print the Recall as JSON"),
    ],
)
def recall(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        rec = mem.recall(
            args.query, user_id=args.user, k=args.k, now=args.now, filters=_filters(args)
        )
        if args.json:
            print(json.dumps(rec.to_dict(), ensure_ascii=False))
            return
        verdict = "refuse: not in memory" if rec.refuse else "answerable"
        print(f"confidence {rec.confidence:.3f} ({verdict})")
        for h in rec.hits:
            _print_line(h, score=True)
            if h.id in rec.explanations:
                print(f"          via {rec.explanations[h.id]}")


@commands.command(
    "list",
    help="a user's memories in the order they were added",
    args=[
        USER,
        arg("--limit", type=int, default=None, help="at most this many (default: all)"),
        arg("--offset", type=int, default=0, help="skip this many first (default 0)"),
        *FILTERS,
        arg("--json", action="store_true", help="print JSON lines"),
    ],
)
def list_memories(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        hits = mem.memories(args.user, limit=args.limit, offset=args.offset, filters=_filters(args))
        _print_hits(hits, as_json=args.json, score=False)


@commands.command("users", help="every user with memories")
def users(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        for name in mem.users():
            print(name)


@commands.command("consolidate", help="run the engine's pending consolidation now", args=[USER])
def consolidate(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        print(mem.consolidate(args.user))


MEMORY_ID = arg("id", help="the memory's id, as add printed it")


@commands.command("get", help="one memory by id", args=[MEMORY_ID, USER])
def get(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        hit = mem.get(args.id, user_id=args.user)
        if hit is None:
            return _missing(args)
        _print_hit(hit)
        return 0


@commands.command(
    "update",
    help="change one memory's text, metadata or time; prints it as it now is (JSON)",
    description="Change one memory (its id stays) and print it as JSON. Options not "
    "given are kept; --metadata replaces the metadata whole. The old version stays in "
    "'remem history' until the memory is deleted.",
    args=[
        MEMORY_ID,
        USER,
        arg("--text", help="the new text"),
        arg("--metadata", help="the new metadata, a JSON object ('{}' clears it)"),
        arg("--timestamp", help="the new time of saying, ISO 8601 (as 'add' takes it)"),
    ],
)
def update(args: argparse.Namespace) -> int:
    from .errors import NotFoundError

    metadata = json.loads(args.metadata) if args.metadata is not None else None
    with _memory(args) as mem:
        try:
            hit = mem.update(
                args.id, args.user, text=args.text, metadata=metadata, timestamp=args.timestamp
            )
        except NotFoundError:
            return _missing(args)
        _print_hit(hit)
        return 0


@commands.command(
    "history",
    help="one memory's versions, oldest first",
    args=[MEMORY_ID, USER, arg("--json", action="store_true", help="print JSON lines")],
)
def history(args: argparse.Namespace) -> int:
    from .errors import NotFoundError

    with _memory(args) as mem:
        try:
            versions = mem.history(args.id, args.user)
        except NotFoundError:
            return _missing(args)
    for v in versions:
        if args.json:
            print(json.dumps(v.to_dict(), ensure_ascii=False))
        else:
            changed = ",".join(v.changed) or "added"
            print(f"v{v.version}  {v.at:%Y-%m-%d %H:%M:%S}  {changed:<23}  {v.text}")
    return 0


@commands.command("delete", help="delete one memory", args=[MEMORY_ID, USER])
def delete(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        return 0 if mem.delete(args.id, user_id=args.user) else _missing(args)


@commands.command(
    "delete-user",
    help="erase everything of a user",
    args=[arg("user", help="the user's id; all their memories are erased")],
)
def delete_user(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        print(mem.delete_user(args.user))


@commands.command("count", help="number of memories of a user", args=[USER])
def count(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        print(mem.count(args.user))


@commands.command(
    "export-table",
    help="write a user's global memory table (JSON)",
    args=[arg("path", help="the JSON file to write"), USER],
)
def export_table(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        print(mem.export_table(args.user, args.path))


@commands.command(
    "import-table",
    help="add an exported table's entries to a user",
    args=[
        arg("path", help="a table written by export-table"),
        USER,
        arg(
            "--skip-blank",
            action="store_true",
            help="leave out entries whose text is blank (empty, whitespace or invisible "
            "characters only) instead of refusing the table; stderr says which",
        ),
    ],
)
def import_table(args: argparse.Namespace) -> None:
    with _memory(args, create=True) as mem:
        ids = mem.import_table(args.path, args.user, skip_blank=args.skip_blank)
        print(len(ids))
        if ids.skipped:
            _say_skipped(ids.skipped)


@commands.command(
    "export",
    help="write a user's memories as versioned JSONL (ids, times, history)",
    args=[
        arg("path", help="the JSONL file to write ('-': standard output)"),
        USER,
        arg("--vectors", action="store_true", help="add each memory's vector"),
    ],
)
def export_jsonl(args: argparse.Namespace) -> None:
    with _memory(args) as mem:
        if args.path == "-":
            n = mem.export_jsonl(args.user, sys.stdout, vectors=args.vectors)
            print(f"remem: exported {n} memories", file=sys.stderr)
        else:
            print(mem.export_jsonl(args.user, args.path, vectors=args.vectors))


@commands.command(
    "import",
    help="add the memories of a JSONL export to a user, keeping ids, times and history",
    args=[
        arg("path", help="a file written by 'remem export' ('-': standard input)"),
        USER,
        arg(
            "--on-conflict",
            choices=("error", "skip"),
            default="error",
            help="a memory id the user has already: refuse the import (default) or "
            "leave that line out (to run an interrupted import again)",
        ),
    ],
)
def import_jsonl(args: argparse.Namespace) -> None:
    source = sys.stdin.buffer if args.path == "-" else args.path
    with _memory(args, create=True) as mem:
        print(mem.import_jsonl(source, args.user, on_conflict=args.on_conflict))


def _say_skipped(positions: Sequence[int]) -> None:
    """The blank entries an import left out, on stderr (stdout keeps the count)."""
    n = len(positions)
    where = ", ".join(map(str, positions))
    many = "ies, at positions" if n > 1 else "y, at position"
    print(f"remem: left out {n} blank entr{many} {where}", file=sys.stderr)


# -- encryption at rest -------------------------------------------------------------------

NEW_KEY = arg(
    "--new-key-file",
    metavar="PATH",
    required=True,
    help="a file holding the new key (a key is never given on the command line)",
)


def _rewrite(args: argparse.Namespace, old: str | None, new: str | None, done: str) -> None:
    """Write ``--db`` anew under ``new`` (``store/cipher.py``: a new file beside it,
    fsynced, renamed over it; a run stopped part-way leaves the old file whole)."""
    from .errors import InvalidInputError
    from .store import is_postgres
    from .store.cipher import rewrite

    if is_postgres(args.db) or args.db == ":memory:":
        raise InvalidInputError("encrypt, decrypt and rekey work on SQLite files")
    rewrite(args.db, old, new)
    print(f"{args.db}: {done}", file=sys.stderr)


def _current_key(args: argparse.Namespace) -> str:
    key = db_key(args.key_file)
    if key is None:
        from .errors import InvalidInputError

        raise InvalidInputError(
            "give the database's current key: --key-file PATH or env REMEM_DB_KEY"
        )
    return key


@commands.command(
    "encrypt",
    help="encrypt a plain SQLite database under a new key, atomically",
    args=[NEW_KEY],
)
def encrypt(args: argparse.Namespace) -> None:
    from .store.cipher import read_key_file

    _rewrite(args, None, read_key_file(args.new_key_file), "encrypted")


@commands.command(
    "decrypt",
    help="write an encrypted database back as a plain one (key: --key-file or REMEM_DB_KEY)",
)
def decrypt(args: argparse.Namespace) -> None:
    _rewrite(args, _current_key(args), None, "decrypted (a plain file now)")


@commands.command(
    "rekey",
    help="re-encrypt a database under a new key, atomically (old key: --key-file or REMEM_DB_KEY)",
    args=[NEW_KEY],
)
def rekey(args: argparse.Namespace) -> None:
    from .store.cipher import read_key_file

    _rewrite(args, _current_key(args), read_key_file(args.new_key_file), "rekeyed")


# -- the servers and their keys -----------------------------------------------------------


@commands.command(
    "serve",
    help="the HTTP API (needs the 'server' extra)",
    args=[
        arg("--path", help="database file or postgresql:// URL (default: --db)"),
        arg(
            "--host",
            default_from=env_default("host"),
            help="interface to listen on (default %(default)s: this machine only)",
        ),
        arg(
            "--port",
            type=int,
            default_from=env_default("port"),
            help="TCP port (default %(default)s)",
        ),
        arg("--workers", type=int, default_from=env_default("workers"), help="worker processes"),
        arg(
            "--llm",
            default_from=env_default("llm", http=True),
            help=f"reader of /v1/answer: {READERS} (env REMEM_LLM; default %(default)s)",
        ),
        arg(
            "--max-body-bytes",
            type=int,
            default_from=env_default("max_body_bytes"),
            help="largest request body accepted, in bytes (env REMEM_SERVE_MAX_BODY; "
            "default %(default)s)",
        ),
        arg(
            "--cors",
            type=names,
            default_from=env_default("cors_origins"),
            help="allowed origins (default: none)",
        ),
        arg(
            "--key-cache",
            type=float,
            default_from=env_default("key_cache_s"),
            help="seconds a verified key is cached",
        ),
        arg(
            "--pool-size",
            type=int,
            default_from=env_default("pool_size"),
            help="PostgreSQL connections per worker (default 10)",
        ),
        arg(
            "--log-level",
            default_from=env_default("log_level"),
            help="uvicorn's: critical, error, warning, info (access log), debug, trace "
            "(default %(default)s)",
        ),
    ],
)
def serve(args: argparse.Namespace) -> None:
    from .serve.http import serve as serve_http

    serve_http(
        Settings(
            db=args.path or args.db,
            key_file=args.key_file or "",
            engine=args.engine,
            llm=args.llm,
            host=args.host,
            port=args.port,
            workers=args.workers,
            max_body_bytes=args.max_body_bytes,
            cors_origins=tuple(args.cors),
            key_cache_s=args.key_cache,
            pool_size=args.pool_size,
            log_level=args.log_level,
        )
    )


@commands.command(
    "ui",
    help="the memory explorer page, for you on this machine (needs the 'server' extra)",
    description="Serve the memory explorer (users, memories, search with how each hit "
    "was reached, SYNAPSE's activated graph, ILSTMA's short-term memory, deletes) at "
    "http://HOST:PORT/ui/ over an existing database. It answers without API keys, so "
    "it listens on loopback only; ?user=ID opens a user. For others, run remem serve "
    "and open /ui there (keyed, one tenant's users).",
    args=[
        arg("--host", default="127.0.0.1", help="a loopback address (default %(default)s)"),
        arg("--port", type=int, default=8090, help="TCP port (default %(default)s)"),
    ],
)
def ui(args: argparse.Namespace) -> None:
    from .serve.http import serve_local

    serve_local(args.db, args.engine, args.host, args.port, db_key(args.key_file))


@contextmanager
def _key_ring(args: argparse.Namespace, *, create: bool = False) -> Iterator[Any]:
    from .keys import KeyRing

    with _memory(args, create=create, llm="none") as mem:
        yield KeyRing.of(mem)


@keys.command(
    "create",
    help="a new key for a tenant; printed once",
    args=[
        arg("--tenant", required=True, help="the tenant the key is bound to"),
        arg("--label", help="a note to know the key by in keys list"),
    ],
)
def keys_create(args: argparse.Namespace) -> None:
    with _key_ring(args, create=True) as ring:
        key, info = ring.create(args.tenant, args.label)
        print(key)
        print(
            f"key id {info.key_id} for tenant {info.tenant}: store the key now, it is "
            "not shown again",
            file=sys.stderr,
        )


@keys.command(
    "list",
    help="keys (never their secrets)",
    args=[
        arg("--tenant", help="only this tenant's keys"),
        arg("--json", action="store_true", help="print JSON lines"),
    ],
)
def keys_list(args: argparse.Namespace) -> None:
    with _key_ring(args) as ring:
        for info in ring.list(args.tenant):
            if args.json:
                print(json.dumps(info.to_dict()))
            else:
                state = "active" if info.active else "revoked"
                print(f"{info.key_id}  {info.tenant}  {state}  {info.label or ''}".rstrip())


@keys.command(
    "revoke",
    help="revoke a key by its id",
    args=[arg("key_id", help="the key's id, as keys list shows it (rmm_<id>_...)")],
)
def keys_revoke(args: argparse.Namespace) -> int:
    with _key_ring(args) as ring:
        if ring.revoke(args.key_id):
            return 0
        print(f"remem: no active key {args.key_id}", file=sys.stderr)
        return 1


commands.group("keys", keys, help="API keys of the servers (each bound to one tenant)")
commands.add(mcp)


# -- the parser and main ------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="remem", description="Long-term memory for LLM agents.")
    p.add_argument("--version", action="version", version=f"remem {__version__}")
    add_args(p, GLOBAL_ARGS)
    commands.add_to(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
