"""``remem mcp``: remem as a Model Context Protocol server, built on the official SDK.

Choices, and why:

* **The tools map one-to-one onto** :class:`~remem.serve.tenant.TenantMemory`. The HTTP
  server is a face over the same class, so tenant scoping, validation and the shape of
  every result are written once; a tool here only names the method, describes it for
  the agent, and turns remem's errors into tool errors. Tool names say what an agent
  wants to do (``search_memory``, ``forget``) rather than mirror the library's verbs.
* **The HTTP API's rules for arguments.** Each tool's arguments are checked by the
  same pydantic model as the matching HTTP body (``schema.py``): an unknown field, a
  number sent as text or a ``k`` over 200 is refused by both faces alike. (The SDK
  still decodes a list or an object sent as a JSON string, which some clients do.)
* **stdio is trusted, HTTP is keyed.** A stdio server is a child process of the agent
  on the same machine: whoever can start it can already read the database, so it serves
  one fixed view (``--tenant``, or raw user ids without one) and asks for no key. Over
  streamable HTTP every request must carry ``Authorization: Bearer rmm_...``; the key
  is checked with :meth:`remem.keys.KeyRing.verify` on *every* request (so a revoked
  key stops working at its next request, even inside an open MCP session) and the
  key's tenant scopes that request. A missing, wrong or revoked key never reaches a
  tool: the SDK's bearer middleware answers HTTP 401.
* **The SDK's own auth path, no middleware of ours.** The SDK runs a
  :class:`TokenVerifier` per HTTP request and carries the result into the tool call
  (``get_access_token()``); we plug :class:`KeyVerifier` into it. The verifier keeps
  only a fingerprint of the key (never the key) in the access token it returns, and
  nothing here logs a key. The fingerprint is the token's subject, so the SDK binds an
  MCP session to the key that opened it: another key, even the same tenant's, cannot
  ride that session.
* **Errors are the agent's to read, internals are not.** A :class:`~remem.errors.RememError`
  (bad input, a missing memory, a failing LLM or store) becomes a tool result with
  ``isError`` and remem's own message, so the agent can correct itself and the session
  goes on. Anything else is a bug: the agent sees only a generic message, the
  traceback goes to the server's log (stderr).
* **The SDK is optional.** This module imports nothing from ``mcp`` until the server
  starts, so ``remem --help`` works without ``pip install 'remem[mcp]'``. The library
  itself (keys, validation, numpy) is imported there too: every ``remem`` command
  imports this module to build its parser.
* **Blocking work leaves the event loop.** Tools are async only to read the request's
  tenant; the Memory call itself runs on a worker thread (embedding and SQLite block),
  so one slow answer does not stall other requests.
"""

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from ..commands import Command, option, options
from ..errors import InvalidInputError
from .settings import LOOPBACK, MCP_PORT, Globals, Settings, env_default, global_options

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.mcpserver import MCPServer

    from ..memory import Memory

SERVER_NAME = "remem"
HTTP_PATH = "/mcp"
DESCRIPTION = (
    "Serve remem as an MCP server: over stdio for a local agent (trusted, no key), or "
    f"over streamable HTTP at http://HOST:PORT{HTTP_PATH}, where every request needs an "
    "API key (Authorization: Bearer rmm_...) and the key's tenant scopes it."
)

INSTRUCTIONS = """\
Long-term memory across conversations. Every memory belongs to one user_id; use a stable \
id for the person you are talking to and the same id in every call.
- Store facts worth keeping (preferences, plans, names, dates, events) with add_memory, or \
many turns at once with add_memories. Store them as plain sentences in the user's words.
- Before answering anything that depends on the past, call search_memory (raw memories, best \
first), recall_memory (the same with a verdict on whether memory holds the answer) or \
answer_question (a short answer grounded in memory).
- "Not mentioned in the conversation" from answer_question, or refuse=true from recall_memory, \
means memory does not hold the answer: say you don't know or ask, do not guess.
- forget / forget_user delete permanently."""

# -- tool errors (the tools themselves are in mcptools.py, imported with the SDK) -----


def _tool_error(message: str) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


# -- API keys -------------------------------------------------------------------------


class KeyVerifier:
    """The SDK's ``TokenVerifier`` over remem's API keys.

    The returned access token names the key's tenant (``client_id`` and the
    ``tenant`` claim) and carries a fingerprint of the key instead of the key.
    """

    def __init__(self, mem: "Memory"):
        from ..keys import KeyRing  # the server's, not `remem --help`'s, import

        self._keys = KeyRing.of(mem)

    async def verify_token(self, token: str) -> "AccessToken | None":
        import hashlib  # here, not at the top: it loads OpenSSL into `remem count` too

        import anyio
        from mcp.server.auth.provider import AccessToken

        tenant = await anyio.to_thread.run_sync(self._keys.verify, token)
        if tenant is None:
            return None
        fingerprint = hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()[:32]
        return AccessToken(
            token=fingerprint,
            client_id=tenant,
            scopes=[],
            subject=fingerprint,
            claims={"tenant": tenant},
        )


def _request_tenant() -> str:
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    tenant = (token.claims or {}).get("tenant") if token is not None else None
    if not isinstance(tenant, str):  # unreachable behind the bearer middleware: fail closed
        raise _tool_error("this server needs an API key (Authorization: Bearer rmm_...)")
    return tenant


# -- the server -----------------------------------------------------------------------


def create_server(
    mem: "Memory",
    *,
    tenant: str | None = None,
    require_keys: bool = False,
    name: str = SERVER_NAME,
    log_level: str = "INFO",
) -> "MCPServer":
    """An MCP server (the SDK's ``MCPServer``) whose tools act on ``mem``.

    Without keys every call uses one view, ``TenantMemory(mem, tenant)`` (``tenant``
    None: user ids are used as given); that is for stdio, a trusted local process.
    With ``require_keys`` the streamable HTTP app asks every request for an API key
    and scopes the call to the key's tenant; ``tenant`` must then be None.
    """
    try:
        from mcp.server.auth.settings import AuthSettings

        from .mcptools import StrictServer, tools
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            f"the MCP server needs the MCP SDK 2.x (pip install 'remem[mcp]'): {exc}"
        ) from exc

    if require_keys and tenant is not None:
        raise InvalidInputError("with require_keys the API key's tenant scopes each request")

    from .tenant import TenantMemory

    if require_keys:

        def view() -> TenantMemory:
            return TenantMemory(mem, _request_tenant())

        auth: dict[str, Any] = {
            "token_verifier": KeyVerifier(mem),
            # The SDK's auth settings are OAuth's. remem's keys use none of the OAuth
            # endpoints: no resource server URL (so no metadata route is published),
            # and the issuer, a required field, is never advertised nor contacted.
            "auth": AuthSettings(
                issuer_url="http://127.0.0.1",  # type: ignore[arg-type]  # pydantic parses it
                resource_server_url=None,
            ),
        }
    else:
        local = TenantMemory(mem, tenant)

        def view() -> TenantMemory:
            return local

        auth = {}

    from .._version import __version__

    server = StrictServer(
        name,
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=tools(view),
        log_level=log_level,  # type: ignore[arg-type]  # checked by click's Choice
        **auth,
    )
    from .accesslog import hide_tool_errors

    hide_tool_errors()  # a failed tool's message may quote a memory: not into the log
    return server


def serve_stdio(server: "MCPServer") -> None:
    server.run("stdio")


def serve_http(
    server: "MCPServer", host: str = LOOPBACK, port: int = MCP_PORT, log_level: str = "info"
) -> None:
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    # uvicorn's access log has the method, path and status, never a header, and
    # never a query string (accesslog.py): no key, no user id
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level)
    from .accesslog import hide_queries

    hide_queries()  # after the config, which sets up uvicorn's loggers
    uvicorn.Server(config).run()


# -- command line ---------------------------------------------------------------------


MCP_OPTIONS = options(
    option(
        "--transport",
        type=click.Choice(["stdio", "http"]),
        default=env_default("mcp_transport"),
        help="stdio: a local agent's child process, trusted; http: streamable HTTP, "
        "each request keyed (default %(default)s)",
    ),
    option("--host", default=env_default("mcp_host"), help=f"HTTP host (default {LOOPBACK})"),
    option(
        "--port", type=int, default=env_default("mcp_port"), help=f"HTTP port (default {MCP_PORT})"
    ),
    option("--tenant", help="stdio only: serve this tenant's users (default: raw user ids)"),
    option(
        "--llm",
        default=env_default("llm"),
        help="reader for answer_question: auto, local, openai, none (env REMEM_LLM)",
    ),
)
"""``remem mcp``'s own options (after the global ones)."""
EXAMPLE = """

\b
Examples:
    remem --db memory.db mcp
    remem --db memory.db mcp --transport http --port 8765"""


def serve_settings(g: Globals, **given: Any) -> int:
    """Serve with the global options ``g`` and the ``mcp`` options ``given``."""
    return run(
        Settings(
            db=g.db,
            key_file=g.key_file or "",
            engine=g.engine,
            llm=given["llm"],
            mcp_transport=given["transport"],
            mcp_host=given["host"],
            mcp_port=given["port"],
            tenant=given["tenant"],
        )
    )


@click.command(
    "mcp",
    cls=Command,
    short_help="serve memory to agents over the Model Context Protocol",
    help=DESCRIPTION + EXAMPLE,
)
@MCP_OPTIONS
@click.pass_obj
def mcp(g: Globals, **given: Any) -> int:
    """``remem mcp``: serve until interrupted."""
    return serve_settings(g, **given)


@click.command(
    cls=Command, help=DESCRIPTION, context_settings={"help_option_names": ["-h", "--help"]}
)
@global_options
@MCP_OPTIONS
def standalone(db: str, engine: str, key_file: str | None, **given: Any) -> int:
    """``python -m remem.serve.mcp``: the ``mcp`` command with remem's global options."""
    return serve_settings(Globals(db, engine, key_file), **given)


def run(settings: Settings) -> int:
    """Serve the MCP server ``settings`` describe until interrupted; the Memory is
    closed on the way out."""
    if settings.mcp_transport == "http" and settings.tenant is not None:
        print(
            "remem: --tenant is for stdio; over HTTP each API key's tenant scopes its requests",
            file=sys.stderr,
        )
        return 2
    mem = settings.open_memory()
    try:
        if settings.mcp_transport == "stdio":
            serve_stdio(create_server(mem, tenant=settings.tenant, log_level="WARNING"))
        else:
            serve_http(create_server(mem, require_keys=True), settings.mcp_host, settings.mcp_port)
    except KeyboardInterrupt:
        pass
    finally:
        mem.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m remem.serve.mcp``: the ``mcp`` command with remem's global options."""
    from ..commands import main as run_command

    return run_command(standalone, "python -m remem.serve.mcp", argv)


if __name__ == "__main__":
    sys.exit(main())
