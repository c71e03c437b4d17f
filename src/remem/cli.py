"""The ``remem`` command line: a thin face over :class:`remem.Memory`.

Each memory command maps one-to-one onto a Memory method; ``keys`` manages the
servers' API keys; ``serve`` and ``mcp`` run the servers (:mod:`remem.serve`);
``demo`` shows the whole thing offline (the benchmarks are ``remem-bench``'s, in
benchmarks/ beside the package).
Every command is a click command, as in sqlite-utils' cli.py: a few lines over the
library, its docstring the ``--help`` text with an example; what remem adds to click
(lazy help texts, option sections, exit statuses) is :mod:`remem.commands`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from ._version import __version__
from .commands import Group, option, options
from .serve.mcp import mcp
from .serve.settings import Globals, Settings, db_key, env_default, global_options, origins

if TYPE_CHECKING:
    from .memory import Memory

CONTEXT = {"help_option_names": ["-h", "--help"]}


@click.group(cls=Group, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="remem", message="%(prog)s %(version)s")
@global_options
@click.pass_context
def cli(ctx: click.Context, db: str, engine: str, key_file: str | None) -> None:
    """Long-term memory for LLM agents.

    \b
    Example:
        remem add "I keep my passport in the blue drawer" --user ana
        remem search "where is my passport?" --user ana
    """
    ctx.obj = Globals(db, engine, key_file)


# -- memory commands ----------------------------------------------------------------------


@contextmanager
def _memory(g: Globals, *, create: bool = False, **settings: Any) -> Iterator[Memory]:
    """The Memory of the global options (``--db``, ``--engine``, ``--key-file``),
    closed afterwards.

    Only commands that store something (``create``) make a new database file: a read
    of a mistyped ``--db`` (or of ``./remem.db`` in the wrong folder) is an error,
    not a fresh empty file that answers "nothing" and is left lying around."""
    from .memory import Memory

    store = None if create else {"create": False}
    key = db_key(g.key_file)
    with Memory(g.db, engine=g.engine, store_options=store, key=key, **settings) as mem:
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


def _missing(memory_id: str, user: str) -> int:
    print(f"remem: no memory {memory_id} for user {user}", file=sys.stderr)
    return 1


USER = option("--user", required=True, help="the user's id: each user's memories are apart")
K = option("-k", type=int, default=10, help="how many memories to use (default %(default)s)")
READERS = (
    "auto (local when installed, else none), local (SmolLM2, offline), openai (any "
    "OpenAI-compatible endpoint), none (no model: the best evidence sentence)"
)
"""The ``--llm`` choices, as :func:`remem.llm.create_llm` takes them (a test holds the
two together; listing them here keeps ``remem --help`` from importing the LLMs)."""
NOW = option(
    "--now",
    help="ISO 8601: when the question is asked (default: now); '10 days ago' and "
    "'last Saturday' in it are taken relative to this",
)
JSON_LINES = option("--json", "as_json", is_flag=True, help="print JSON lines")

_FILTER = "Filters (only memories that pass are ranked or listed)"
FILTERS = options(
    option("--session", "f_session", multiple=True, section=_FILTER,
           help="from this session (repeat: any of)"),
    option("--speaker", "f_speaker", multiple=True, section=_FILTER,
           help="said by this speaker (repeat: any of)"),
    option("--meta", "f_meta", multiple=True, metavar="KEY=VALUE", section=_FILTER,
           help="metadata KEY equals VALUE (JSON when it parses: 1, true; else text); "
           "repeat for more keys, the same key twice means any of"),
    option("--after", "f_after", section=_FILTER, help="said at or after this ISO 8601 time"),
    option("--before", "f_before", section=_FILTER, help="said before this ISO 8601 time"),
    option("--event-after", "f_event_after", section=_FILTER,
           help="talks about a time overlapping from this ISO 8601 time on"),
    option("--event-before", "f_event_before", section=_FILTER,
           help="talks about a time overlapping before this ISO 8601 time"),
)  # fmt: skip
"""The read commands' filter options, as ``Memory(..., filters=)`` takes them."""


def _filters(given: dict[str, Any]) -> dict[str, Any] | None:
    """The filter options (``f_*``) as a ``filters`` mapping (checked by ``Memory``),
    None for none."""
    out: dict[str, Any] = {}
    for key in ("session", "speaker"):
        if given.get(f"f_{key}"):
            out["session_id" if key == "session" else key] = list(given[f"f_{key}"])
    for key in ("after", "before", "event_after", "event_before"):
        if given.get(f"f_{key}") is not None:
            out[key] = given[f"f_{key}"]
    meta: dict[str, list[Any]] = {}
    for item in given.get("f_meta") or ():
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


@cli.command()
@option(
    "-k",
    type=int,
    default=5,
    help="evidence shown per question (default %(default)s; answered at Memory.answer's depth)",
)
@option("--llm", default="auto", help=f"reader: {READERS} (default %(default)s)")
@option(
    "--encrypted",
    is_flag=True,
    help="in an encrypted database (needs the 'encrypt' extra), and show that "
    "its bytes hold none of the conversation's words",
)
@click.pass_obj
def demo(g: Globals, k: int, llm: str, encrypted: bool) -> int:
    """remember a small conversation and query it (offline)

    \b
    Example:
        remem demo --llm none
    """
    from .demo import run_demo

    return run_demo(engine=g.engine, k=k, llm=llm, encrypted=encrypted)


@cli.command()
@click.argument("question", help="the question, in words")
@options(USER, K, NOW, FILTERS)
@option(
    "--llm",
    default=env_default("llm"),
    help=f"reader: {READERS} (env REMEM_LLM; default %(default)s)",
)
@option("--json", "as_json", is_flag=True, help="print the Answer as JSON")
@click.pass_obj
def ask(
    g: Globals, question: str, user: str, k: int, now: str | None, llm: str, as_json: bool,
    **given: Any,
) -> None:  # fmt: skip
    """answer a question from a user's memory (or refuse)

    \b
    Example:
        remem ask "where is my passport?" --user ana --llm none
    """
    with _memory(g, llm=llm) as mem:
        a = mem.answer(question, user_id=user, k=k, now=now, filters=_filters(given))
        if as_json:
            print(json.dumps(a.to_dict(), ensure_ascii=False))
            return
        print(a.text)
        for h in a.evidence:
            who = f"{h.speaker}: " if h.speaker else ""
            print(f"  - [{h.timestamp:%Y-%m-%d}] {who}{h.text}", file=sys.stderr)


@cli.command()
@click.argument("text", help="what to remember")
@USER
@option("--speaker", help="who said it")
@option(
    "--timestamp",
    help="when it was said, ISO 8601: 2023-05-08T13:56:00, 2023-05-08, or with an "
    "offset (Z, +01:00); without one it is kept as given (default: now, UTC)",
)
@option("--session", help="the conversation it belongs to, an id of your choice")
@option("--metadata", help="a JSON object")
@click.pass_obj
def add(
    g: Globals, text: str, user: str, speaker: str | None, timestamp: str | None,
    session: str | None, metadata: str | None,
) -> None:  # fmt: skip
    """store one memory; prints its id

    \b
    Example:
        remem add "I keep my passport in the blue drawer" --user ana --speaker Ana
    """
    with _memory(g, create=True) as mem:
        meta = json.loads(metadata) if metadata else None
        print(
            mem.add(
                text, user_id=user, speaker=speaker, timestamp=timestamp,
                session_id=session, metadata=meta,
            )
        )  # fmt: skip


@cli.command()
@click.argument("query", help="what to look for, in words")
@options(USER, K, NOW, FILTERS, JSON_LINES)
@click.pass_obj
def search(
    g: Globals, query: str, user: str, k: int, now: str | None, as_json: bool, **given: Any
) -> None:
    """the user's best memories for a query

    \b
    Example:
        remem search "where is my passport?" --user ana -k 3 --json
    """
    with _memory(g) as mem:
        hits = mem.search(query, user_id=user, k=k, now=now, filters=_filters(given))
        _print_hits(hits, as_json=as_json, score=True)


@cli.command()
@click.argument("query", help="what to look for, in words")
@options(USER, K, NOW, FILTERS)
@option("--json", "as_json", is_flag=True, help="print the Recall as JSON")
@click.pass_obj
def recall(
    g: Globals, query: str, user: str, k: int, now: str | None, as_json: bool, **given: Any
) -> None:
    """search with the engine's confidence, gate and paths

    \b
    Example:
        remem --engine synapse recall "when did Ana move?" --user ana
    """
    with _memory(g) as mem:
        rec = mem.recall(query, user_id=user, k=k, now=now, filters=_filters(given))
        if as_json:
            print(json.dumps(rec.to_dict(), ensure_ascii=False))
            return
        verdict = "refuse: not in memory" if rec.refuse else "answerable"
        print(f"confidence {rec.confidence:.3f} ({verdict})")
        for h in rec.hits:
            _print_line(h, score=True)
            if h.id in rec.explanations:
                print(f"          via {rec.explanations[h.id]}")


@cli.command("list")
@USER
@option("--limit", type=int, default=None, help="at most this many (default: all)")
@option("--offset", type=int, default=0, help="skip this many first (default 0)")
@options(FILTERS, JSON_LINES)
@click.pass_obj
def list_memories(
    g: Globals, user: str, limit: int | None, offset: int, as_json: bool, **given: Any
) -> None:
    """a user's memories in the order they were added

    \b
    Example:
        remem list --user ana --limit 20 --speaker Ana
    """
    with _memory(g) as mem:
        hits = mem.memories(user, limit=limit, offset=offset, filters=_filters(given))
        _print_hits(hits, as_json=as_json, score=False)


@cli.command()
@click.pass_obj
def users(g: Globals) -> None:
    """every user with memories

    \b
    Example:
        remem --db memory.db users
    """
    with _memory(g) as mem:
        for name in mem.users():
            print(name)


@cli.command()
@USER
@click.pass_obj
def consolidate(g: Globals, user: str) -> None:
    """run the engine's pending consolidation now

    \b
    Example:
        remem --engine synapse consolidate --user ana
    """
    with _memory(g) as mem:
        print(mem.consolidate(user))


MEMORY_ID = click.argument("memory_id", metavar="ID", help="the memory's id, as add printed it")


@cli.command()
@MEMORY_ID
@USER
@click.pass_obj
def get(g: Globals, memory_id: str, user: str) -> int:
    """one memory by id

    \b
    Example:
        remem get 5f0c...e1 --user ana
    """
    with _memory(g) as mem:
        hit = mem.get(memory_id, user_id=user)
        if hit is None:
            return _missing(memory_id, user)
        _print_hit(hit)
        return 0


@cli.command()
@MEMORY_ID
@USER
@option("--text", help="the new text")
@option("--metadata", help="the new metadata, a JSON object ('{}' clears it)")
@option("--timestamp", help="the new time of saying, ISO 8601 (as 'add' takes it)")
@click.pass_obj
def update(
    g: Globals, memory_id: str, user: str, text: str | None, metadata: str | None,
    timestamp: str | None,
) -> int:  # fmt: skip
    """change one memory's text, metadata or time; prints it as it now is (JSON)

    Change one memory (its id stays) and print it as JSON. Options not given are
    kept; --metadata replaces the metadata whole. The old version stays in 'remem
    history' until the memory is deleted.

    \b
    Example:
        remem update 5f0c...e1 --user ana --text "My bike is blue now"
    """
    from .errors import NotFoundError

    meta = json.loads(metadata) if metadata is not None else None
    with _memory(g) as mem:
        try:
            hit = mem.update(memory_id, user, text=text, metadata=meta, timestamp=timestamp)
        except NotFoundError:
            return _missing(memory_id, user)
        _print_hit(hit)
        return 0


@cli.command()
@MEMORY_ID
@USER
@JSON_LINES
@click.pass_obj
def history(g: Globals, memory_id: str, user: str, as_json: bool) -> int:
    """one memory's versions, oldest first

    \b
    Example:
        remem history 5f0c...e1 --user ana
    """
    from .errors import NotFoundError

    with _memory(g) as mem:
        try:
            versions = mem.history(memory_id, user)
        except NotFoundError:
            return _missing(memory_id, user)
    for v in versions:
        if as_json:
            print(json.dumps(v.to_dict(), ensure_ascii=False))
        else:
            changed = ",".join(v.changed) or "added"
            print(f"v{v.version}  {v.at:%Y-%m-%d %H:%M:%S}  {changed:<23}  {v.text}")
    return 0


@cli.command()
@MEMORY_ID
@USER
@click.pass_obj
def delete(g: Globals, memory_id: str, user: str) -> int:
    """delete one memory

    \b
    Example:
        remem delete 5f0c...e1 --user ana
    """
    with _memory(g) as mem:
        return 0 if mem.delete(memory_id, user_id=user) else _missing(memory_id, user)


@cli.command("delete-user")
@click.argument("user", help="the user's id; all their memories are erased")
@click.pass_obj
def delete_user(g: Globals, user: str) -> None:
    """erase everything of a user

    \b
    Example:
        remem delete-user ana
    """
    with _memory(g) as mem:
        print(mem.delete_user(user))


@cli.command()
@USER
@click.pass_obj
def count(g: Globals, user: str) -> None:
    """number of memories of a user

    \b
    Example:
        remem --db memory.db count --user ana
    """
    with _memory(g) as mem:
        print(mem.count(user))


@cli.command("export-table")
@click.argument("path", help="the JSON file to write")
@USER
@click.pass_obj
def export_table(g: Globals, path: str, user: str) -> None:
    """write a user's global memory table (JSON)

    \b
    Example:
        remem export-table ana.json --user ana
    """
    with _memory(g) as mem:
        print(mem.export_table(user, path))


@cli.command("import-table")
@click.argument("path", help="a table written by export-table")
@USER
@option(
    "--skip-blank",
    is_flag=True,
    help="leave out entries whose text is blank (empty, whitespace or invisible "
    "characters only) instead of refusing the table; stderr says which",
)
@click.pass_obj
def import_table(g: Globals, path: str, user: str, skip_blank: bool) -> None:
    """add an exported table's entries to a user

    \b
    Example:
        remem import-table ana.json --user ana-copy
    """
    with _memory(g, create=True) as mem:
        ids = mem.import_table(path, user, skip_blank=skip_blank)
        print(len(ids))
        if ids.skipped:
            _say_skipped(ids.skipped)


@cli.command("export")
@click.argument("path", help="the JSONL file to write ('-': standard output)")
@USER
@option("--vectors", is_flag=True, help="add each memory's vector")
@click.pass_obj
def export_jsonl(g: Globals, path: str, user: str, vectors: bool) -> None:
    """write a user's memories as versioned JSONL (ids, times, history)

    \b
    Example:
        remem export ana.jsonl --user ana
    """
    with _memory(g) as mem:
        if path == "-":
            n = mem.export_jsonl(user, sys.stdout, vectors=vectors)
            print(f"remem: exported {n} memories", file=sys.stderr)
        else:
            print(mem.export_jsonl(user, path, vectors=vectors))


@cli.command("import")
@click.argument("path", help="a file written by 'remem export' ('-': standard input)")
@USER
@option(
    "--on-conflict",
    type=click.Choice(["error", "skip"]),
    default="error",
    help="a memory id the user has already: refuse the import (default) or "
    "leave that line out (to run an interrupted import again)",
)
@click.pass_obj
def import_jsonl(g: Globals, path: str, user: str, on_conflict: str) -> None:
    """add the memories of a JSONL export to a user, keeping ids, times and history

    \b
    Example:
        remem --db other.db import ana.jsonl --user ana
    """
    source = sys.stdin.buffer if path == "-" else path
    with _memory(g, create=True) as mem:
        print(mem.import_jsonl(source, user, on_conflict=on_conflict))


def _say_skipped(positions: Sequence[int]) -> None:
    """The blank entries an import left out, on stderr (stdout keeps the count)."""
    n = len(positions)
    where = ", ".join(map(str, positions))
    many = "ies, at positions" if n > 1 else "y, at position"
    print(f"remem: left out {n} blank entr{many} {where}", file=sys.stderr)


# -- encryption at rest -------------------------------------------------------------------

NEW_KEY = option(
    "--new-key-file",
    metavar="PATH",
    required=True,
    help="a file holding the new key (a key is never given on the command line)",
)


def _rewrite(g: Globals, old: str | None, new: str | None, done: str) -> None:
    """Write ``--db`` anew under ``new`` (``store/cipher.py``: a new file beside it,
    fsynced, renamed over it; a run stopped part-way leaves the old file whole)."""
    from .errors import InvalidInputError
    from .store import is_postgres
    from .store.cipher import rewrite

    if is_postgres(g.db) or g.db == ":memory:":
        raise InvalidInputError("encrypt, decrypt and rekey work on SQLite files")
    rewrite(g.db, old, new)
    print(f"{g.db}: {done}", file=sys.stderr)


def _current_key(g: Globals) -> str:
    key = db_key(g.key_file)
    if key is None:
        from .errors import InvalidInputError

        raise InvalidInputError(
            "give the database's current key: --key-file PATH or env REMEM_DB_KEY"
        )
    return key


@cli.command()
@NEW_KEY
@click.pass_obj
def encrypt(g: Globals, new_key_file: str) -> None:
    """encrypt a plain SQLite database under a new key, atomically

    \b
    Example:
        remem --db memory.db encrypt --new-key-file key.txt
    """
    from .store.cipher import read_key_file

    _rewrite(g, None, read_key_file(new_key_file), "encrypted")


@cli.command()
@click.pass_obj
def decrypt(g: Globals) -> None:
    """write an encrypted database back as a plain one (key: --key-file or REMEM_DB_KEY)

    \b
    Example:
        remem --db memory.db --key-file key.txt decrypt
    """
    _rewrite(g, _current_key(g), None, "decrypted (a plain file now)")


@cli.command()
@NEW_KEY
@click.pass_obj
def rekey(g: Globals, new_key_file: str) -> None:
    """re-encrypt a database under a new key, atomically (old key: --key-file or
    REMEM_DB_KEY); an encrypted PostgreSQL store: its key store's data keys rewrapped

    \b
    Example:
        remem --db memory.db --key-file old.txt rekey --new-key-file new.txt
    """
    from . import env
    from .store import is_postgres
    from .store.cipher import read_key_file

    new = read_key_file(new_key_file)
    if is_postgres(g.db):
        _rewrap(_current_key(g), new)
        return
    keyring = env.read("REMEM_KEYRING")
    if keyring and _sealed(g.db, _current_key(g)):
        from .store.cipher import rekey_sealed

        rekey_sealed(g.db, keyring, _current_key(g), new)
        print(f"{g.db}: rekeyed, and its key store {keyring} rewrapped", file=sys.stderr)
        return
    _rewrite(g, _current_key(g), new, "rekeyed")


def _sealed(db: str, key: str) -> bool:
    """Whether the SQLite file ``db`` seals its users' rows under a key store (read
    with ``key``, or with the new key after a killed rekey: then assumed sealed)."""
    from .store.cipher import driver, key_statement

    con = driver().connect(db)
    try:
        con.execute(key_statement(key))
        row = con.execute("SELECT value FROM meta WHERE key = 'envelope'").fetchone()
    except Exception:  # noqa: BLE001 - not this key's (a killed rekey's new one): let it say
        return True
    finally:
        con.close()
    return row is not None


def _rewrap(old: str, new: str) -> None:
    """An encrypted PostgreSQL store's rekey: every data key in the key store
    (``REMEM_KEYRING``) rewrapped under the new master key; the database is untouched
    (``DirectoryKeyRing.rotate``: killed part-way, run it again)."""
    from . import env
    from .errors import InvalidInputError
    from .store.envelope import rotate_master

    where = env.read("REMEM_KEYRING")
    if not where:
        raise InvalidInputError("an encrypted PostgreSQL store's rekey needs REMEM_KEYRING")
    n = rotate_master(where, old, new)
    print(f"{where}: {n} data keys rewrapped under the new master key", file=sys.stderr)


# -- the servers and their keys -----------------------------------------------------------


@cli.command()
@option("--path", help="database file or postgresql:// URL (default: --db)")
@option(
    "--host",
    default=env_default("host"),
    help="interface to listen on (default %(default)s: this machine only)",
)
@option("--port", type=int, default=env_default("port"), help="TCP port (default %(default)s)")
@option("--workers", type=int, default=env_default("workers"), help="worker processes")
@option(
    "--llm",
    default=env_default("llm", http=True),
    help=f"reader of /v1/answer: {READERS} (env REMEM_LLM; default %(default)s)",
)
@option(
    "--max-body-bytes",
    type=int,
    default=env_default("max_body_bytes"),
    help="largest request body accepted, in bytes (env REMEM_SERVE_MAX_BODY; default %(default)s)",
)
@option(
    "--cors",
    default=lambda: ",".join(env_default("cors_origins")()),
    help="allowed origins, comma-separated (default: none)",
)
@option(
    "--key-cache",
    type=float,
    default=env_default("key_cache_s"),
    help="seconds a verified key is cached",
)
@option(
    "--pool-size",
    type=int,
    default=env_default("pool_size"),
    help="PostgreSQL connections per worker (default 10)",
)
@option(
    "--log-level",
    default=env_default("log_level"),
    help="uvicorn's: critical, error, warning, info (access log), debug, trace "
    "(default %(default)s)",
)
@click.pass_obj
def serve(g: Globals, path: str | None, cors: str, key_cache: float, **given: Any) -> None:
    """the HTTP API (needs the 'server' extra)

    \b
    Example:
        remem --db memory.db serve --port 8080 --workers 2
    """
    from .serve.http import serve as serve_http

    serve_http(
        Settings(
            db=path or g.db,
            key_file=g.key_file or "",
            engine=g.engine,
            cors_origins=origins(cors),
            key_cache_s=key_cache,
            **given,
        )
    )


@cli.command()
@option("--host", default="127.0.0.1", help="a loopback address (default %(default)s)")
@option("--port", type=int, default=8090, help="TCP port (default %(default)s)")
@click.pass_obj
def ui(g: Globals, host: str, port: int) -> None:
    """the memory explorer page, for you on this machine (needs the 'server' extra)

    Serve the memory explorer (users, memories, search with how each hit was
    reached, SYNAPSE's activated graph, ILSTMA's short-term memory, deletes) at
    http://HOST:PORT/ui/ over an existing database. It answers without API keys, so
    it listens on loopback only; ?user=ID opens a user. For others, run remem serve
    and open /ui there (keyed, one tenant's users).

    \b
    Example:
        remem --db memory.db ui --port 8090
    """
    from .serve.http import serve_local

    serve_local(g.db, g.engine, host, port, db_key(g.key_file))


@contextmanager
def _key_ring(g: Globals, *, create: bool = False) -> Iterator[Any]:
    from .keys import KeyRing

    with _memory(g, create=create, llm="none") as mem:
        yield KeyRing.of(mem)


@cli.group()
def keys() -> None:
    """API keys of the servers (each bound to one tenant)

    \b
    Example:
        remem keys create --tenant acme --label laptop
    """


@keys.command("create")
@option("--tenant", required=True, help="the tenant the key is bound to")
@option("--label", help="a note to know the key by in keys list")
@click.pass_obj
def keys_create(g: Globals, tenant: str, label: str | None) -> None:
    """a new key for a tenant; printed once

    \b
    Example:
        remem keys create --tenant acme --label laptop
    """
    with _key_ring(g, create=True) as ring:
        key, info = ring.create(tenant, label)
        print(key)
        print(
            f"key id {info.key_id} for tenant {info.tenant}: store the key now, it is "
            "not shown again",
            file=sys.stderr,
        )


@keys.command("list")
@option("--tenant", help="only this tenant's keys")
@JSON_LINES
@click.pass_obj
def keys_list(g: Globals, tenant: str | None, as_json: bool) -> None:
    """keys (never their secrets)

    \b
    Example:
        remem keys list --tenant acme
    """
    with _key_ring(g) as ring:
        for info in ring.list(tenant):
            if as_json:
                print(json.dumps(info.to_dict()))
            else:
                state = "active" if info.active else "revoked"
                print(f"{info.key_id}  {info.tenant}  {state}  {info.label or ''}".rstrip())


@keys.command("revoke")
@click.argument("key_id", help="the key's id, as keys list shows it (rmm_<id>_...)")
@click.pass_obj
def keys_revoke(g: Globals, key_id: str) -> int:
    """revoke a key by its id

    \b
    Example:
        remem keys revoke rmm_3f9a...
    """
    with _key_ring(g) as ring:
        if ring.revoke(key_id):
            return 0
        print(f"remem: no active key {key_id}", file=sys.stderr)
        return 1


cli.add_command(mcp)


# -- main ---------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """``remem``: exit statuses and errors as docs/cli.md lists them (:mod:`remem.commands`)."""
    from .commands import main as run_command

    return run_command(cli, "remem", argv)


if __name__ == "__main__":
    sys.exit(main())
