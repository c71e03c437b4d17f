"""The serving settings: one frozen object that the CLI, the HTTP server (and each of
its uvicorn workers) and the MCP server read, and the constants they share.

A setting comes from, first to last: its command-line flag; its environment variable
(:meth:`Settings.from_env`, through :mod:`remem.env`, which also holds the defaults
of the settings that have a variable); the default written here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import env
from ..commands import option, options

if TYPE_CHECKING:
    from ..memory import Memory

LOOPBACK = "127.0.0.1"
"""Both servers listen on loopback unless told otherwise: an API with keys is still
not something to expose by accident (put it behind a TLS-terminating proxy)."""
HTTP_PORT = 8080
"""``remem serve``'s port: the common unprivileged HTTP port."""
MCP_PORT = 8765
"""``remem mcp --transport http``'s port: not the HTTP API's, so both can run at once."""
MAX_BODY_BYTES = int(env.default("REMEM_SERVE_MAX_BODY"))
"""The HTTP request body cap (8 MiB, in :mod:`remem.env` as ``REMEM_SERVE_MAX_BODY``'s
default): a full batch (10,000 items, about 800 bytes each) of ordinary conversation
turns fits, and no single request makes a worker hold much more than that."""


def default_llm(http: bool) -> str:
    """The reader when neither ``--llm`` nor ``REMEM_LLM`` names one.

    ``remem ask`` and ``remem mcp`` (one person, or one local agent, asking): ``auto``,
    the bundled local model when it is installed, since answering is what they were
    started for. ``remem serve``: ``none``. A server answers many users from several
    workers; the local model costs each worker about 150 MB more memory
    (docs/deploy.md) and each answer CPU time that other requests wait for, so a
    server loads it only when asked (``--llm local``), never because a package
    happens to be installed. (Memory creates the LLM lazily either way: the
    difference is what the first answer loads, not start-up time.)
    """
    return "none" if http else "auto"


def _env(name: str, parse: Callable[[str], Any] = str, show: Callable[[Any], str] = str) -> Any:
    """A field backed by the environment variable ``name``: its default is the
    variable's default in :mod:`remem.env` read by ``parse``; ``show`` writes a value
    back as the variable's text."""
    return field(default=parse(env.default(name)), metadata={"env": (name, parse, show)})


def origins(text: str) -> tuple[str, ...]:
    return tuple(o.strip() for o in text.split(",") if o.strip())


@dataclass(frozen=True)
class Settings:
    """What the CLI, the HTTP server and the MCP server are configured with."""

    db: str = _env("REMEM_DB")
    """The database: a SQLite file (created by the first command that stores
    something, or by a server; a command that only reads refuses a missing one; the
    current directory's ``remem.db`` by default, so two commands run in one place
    share it) or a ``postgresql://`` URL."""
    key_file: str = _env("REMEM_DB_KEY_FILE")
    """A file holding the key of an encrypted SQLite database ("": the key is
    ``REMEM_DB_KEY``'s, or there is none). The settings hold where the key is, never the
    key: :meth:`to_env` hands them to worker processes, and a key is read only where
    the database is opened (:func:`db_key`)."""
    engine: str = _env("REMEM_ENGINE")
    """The retrieval engine: ``hybrid`` (dense + BM25), :class:`remem.Memory`'s own
    default, which needs no LLM and no consolidation."""
    llm: str = default_llm(http=False)
    """The reader of answers; default :func:`default_llm` (``auto``, and ``none`` for
    the HTTP server, whose :meth:`from_env` is called with ``http=True``)."""

    host: str = LOOPBACK
    """The HTTP server's interface (:data:`LOOPBACK`)."""
    port: int = HTTP_PORT
    """The HTTP server's port (:data:`HTTP_PORT`)."""
    workers: int = 1
    """HTTP worker processes. One: a single process already serves requests on a
    thread pool (the library releases the GIL in SQLite, ONNX and llama.cpp); more
    use more cores (docs/deploy.md)."""
    max_body_bytes: int = _env("REMEM_SERVE_MAX_BODY", int)
    """The request body cap (:data:`MAX_BODY_BYTES`)."""
    cors_origins: tuple[str, ...] = _env("REMEM_SERVE_CORS", origins, ",".join)
    """Origins a browser may call the API from: none, so CORS is off unless named."""
    key_cache_s: float = _env("REMEM_SERVE_KEY_CACHE_S", float)
    """Seconds a verified API key is cached per worker: 0, so a revoked key stops at
    its next request on every worker (a cache saves one indexed read per request)."""
    pool_size: int = _env("REMEM_SERVE_POOL", int)
    """PostgreSQL connections per worker; 0 keeps the store's own default (10)."""
    log_level: str = "info"
    """uvicorn's log level for the HTTP server: its access log and errors."""

    mcp_transport: str = "stdio"
    """The MCP server's transport: ``stdio`` (a local agent's child process, trusted)
    or ``http`` (streamable HTTP, keyed)."""
    mcp_host: str = LOOPBACK
    """The MCP server's interface over HTTP (:data:`LOOPBACK`)."""
    mcp_port: int = MCP_PORT
    """The MCP server's port over HTTP (:data:`MCP_PORT`)."""
    tenant: str | None = None
    """stdio MCP only: serve this tenant's users; None uses user ids as given."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, http: bool = False) -> Settings:
        """The defaults with every variable set in ``environ`` (default: the process
        environment) applied; ``http``: the HTTP server's (its reader default is
        ``none``, see :func:`default_llm`)."""
        values: dict[str, Any] = {"llm": env.read("REMEM_LLM", environ) or default_llm(http)}
        for f in dataclasses.fields(cls):
            if "env" in f.metadata:
                name, parse, _ = f.metadata["env"]
                values[f.name] = parse(env.read(name, environ))
        return cls(**values)

    def to_env(self) -> dict[str, str]:
        """The variables :meth:`from_env` reads back as these settings (how ``remem
        serve`` hands its settings to uvicorn's worker processes)."""
        out = {"REMEM_LLM": self.llm}
        for f in dataclasses.fields(self):
            if "env" in f.metadata:
                name, _, show = f.metadata["env"]
                out[name] = show(getattr(self, f.name))
        return out

    def open_memory(self) -> Memory:
        """The Memory these settings describe (``pool_size`` applies to PostgreSQL),
        for a server: its embedding model is loaded now (:meth:`Memory.warm_up`), so
        the server is ready when it starts listening."""
        from ..memory import Memory

        pool = self.pool_size if self.pool_size and self.db.startswith("postgres") else 0
        mem = Memory(
            self.db,
            engine=self.engine,
            llm=self.llm,
            store_options={"max_size": pool} if pool else None,
            key=db_key(self.key_file),
        )
        try:
            mem.warm_up()
        except BaseException:
            mem.close()
            raise
        return mem


def db_key(key_file: str | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The database key of the CLI and the servers: the content of ``key_file``
    (``--key-file``, ``REMEM_DB_KEY_FILE``) if one is named, else ``REMEM_DB_KEY``,
    else None (a plain database). Never a command-line value: ``ps`` shows those."""
    from ..store.cipher import check_key, read_key_file

    if key_file:
        return read_key_file(key_file)
    key = env.read("REMEM_DB_KEY", environ)
    return check_key(key, "REMEM_DB_KEY") if key else None


ENGINES = (
    "hybrid (dense + BM25), dense, bm25, synapse (a concept graph, gated), ilstma "
    "(a question cache over a global table), or a variant of the last two for ablations "
    "(synapse-nofan, ilstma-paper, ...: an unknown name lists them all)"
)
"""The engines ``--engine`` takes, as :func:`remem.engines.create_engine` knows them
(a test holds the two together; listing them here keeps ``remem --help`` from
importing the engines)."""


def engine_help() -> str:
    """``--engine``'s help: the built-ins (:data:`ENGINES`), the engines installed
    distributions declare (their entry points' names, read from metadata: no plugin is
    imported), and the dotted path form."""
    from ..plugins import ENGINES_GROUP, installed_names

    found = installed_names(ENGINES_GROUP)
    plugins = f"; installed: {', '.join(found)}" if found else ""
    text = f"{ENGINES}{plugins}; or an Engine class as package.module:Class"
    return f"retrieval engine: {text.replace('%', '%%')} (env REMEM_ENGINE; default %(default)s)"


def env_default(name: str, *, http: bool = False) -> Callable[[], Any]:
    """A command-line flag's default: the setting ``name`` as the environment makes
    it when the parser is built (``http``: as the HTTP server reads it)."""
    return lambda: getattr(Settings.from_env(http=http), name)


@dataclass(frozen=True)
class Globals:
    """The options before any command (``remem --db X count``), which every command
    that opens the database reads: click hands them to the group, the group hands
    them on as this object (``ctx.obj``)."""

    db: str
    engine: str
    key_file: str | None


global_options = options(
    option(
        "--db",
        default=env_default("db"),
        help=f"database path (env REMEM_DB; default {Settings.db})",
    ),
    option("--engine", default=env_default("engine"), help=engine_help),
    option(
        "--key-file",
        metavar="PATH",
        default=env_default("key_file"),
        help="a file holding the key of an encrypted SQLite database (env "
        "REMEM_DB_KEY_FILE; without one, env REMEM_DB_KEY holds the key, if any)",
    ),
)
"""The options before any command: ``remem``'s, and ``python -m remem.serve.mcp``'s."""
