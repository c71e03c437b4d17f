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

import argparse
import functools
import hashlib
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..commands import arg, command
from ..errors import InvalidInputError, NotFoundError, RememError
from .settings import LOOPBACK, MCP_PORT, Settings, env_default

if TYPE_CHECKING:
    from mcp.server.auth.provider import AccessToken
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from pydantic import BaseModel

    from ..memory import Memory
    from .tenant import TenantMemory

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

# -- the tools ------------------------------------------------------------------------


def _tool_error(message: str) -> Exception:
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(message)


def _strict(tool: "Tool", model: "type[BaseModel]") -> "Tool":
    """``tool`` validating its arguments with ``model``, the HTTP API's own model
    (``schema.py``): unknown fields and loose types are refused, sizes are capped, and
    the input schema the agent reads is that model's.

    The SDK builds a tool's argument model from the function's signature, and that
    model drops unknown fields and coerces ``"5"`` to 5; the SDK validates with the
    tool's ``fn_metadata.arg_model``, which is swapped here for the shared model (with
    the SDK's base for the one method it calls on it)."""
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
    from pydantic import create_model

    arguments = create_model(f"{tool.name}Arguments", __base__=(model, ArgModelBase))
    metadata = tool.fn_metadata.model_copy(update={"arg_model": arguments})
    schema = arguments.model_json_schema(by_alias=True)
    return tool.model_copy(update={"fn_metadata": metadata, "parameters": schema})


def _tools(view: "Callable[[], TenantMemory]") -> "list[Tool]":
    """The tools; ``view()`` gives the calling request's TenantMemory.

    Defined in here so pydantic and the SDK are imported only when a server is built.
    Each tool's arguments are checked by the model of ``schema.py`` it is listed with,
    before the function runs: the signatures below only name them.
    """
    import anyio
    from mcp.server.mcpserver.tools import Tool
    from mcp.types import ToolAnnotations

    from . import schema

    async def call(method: str, *args: Any, **kwargs: Any) -> Any:
        tm = view()  # here, in the request's context, not on the worker thread
        fn = functools.partial(getattr(tm, method), *args, **kwargs)
        try:
            return await anyio.to_thread.run_sync(fn)
        except RememError as exc:
            raise _tool_error(str(exc)) from None

    async def add_memory(
        user_id: str,
        text: str,
        speaker: str | None = None,
        timestamp: str | None = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Remember one thing about a user for later conversations.

        Use it whenever the user tells you something worth knowing next time: a
        preference, a plan, a person, a date, an event. Store it as a plain sentence,
        ideally in the user's words, with the speaker (the chat role: "user" for the
        user's words, "assistant" for yours) and the time it was said.
        Returns {"id": ...}, the memory's id (for get_memory and forget)."""
        return await call(
            "add",
            user_id,
            text,
            speaker=speaker,
            timestamp=timestamp,
            session_id=session_id,
            metadata=metadata,
        )

    async def add_memories(
        user_id: str, items: list[Any], skip_blank: bool = False
    ) -> dict[str, Any]:
        """Remember many things about a user at once, e.g. a whole conversation.

        All or nothing: one invalid item rejects the batch (the error names it) and
        nothing is stored; with skip_blank, items whose text is blank are left out
        instead. Returns {"ids": [...], "skipped": [...]}: the new ids in the order of
        the items, and the positions of the items left out as blank."""
        return await call("add_many", user_id, schema.memory_items(items), skip_blank)

    async def search_memory(
        user_id: str, query: str, k: int = 10, now: str | None = None
    ) -> dict[str, Any]:
        """Find a user's memories relevant to a question or topic, best first.

        Use it before answering anything that depends on earlier conversations, when
        you want to read the memories yourself. Returns {"hits": [...]}, each with id,
        text, speaker, timestamp, session_id, metadata and a score (comparable only
        within one result). An empty list means nothing relevant is stored."""
        return await call("search", user_id, query, k=k, now=now)

    async def recall_memory(
        user_id: str, query: str, k: int = 10, now: str | None = None
    ) -> dict[str, Any]:
        """Like search_memory, plus how sure memory is that it holds the answer.

        Returns {"hits", "confidence", "refuse", "concepts", "explanations", "absent",
        "not_in_memory", ...}.
        When refuse is true the engine judged that memory does not hold the answer:
        say you don't know rather than answer from the hits. explanations says, per
        hit id, how it was reached (a direct match, or a path through related
        memories and concepts)."""
        return await call("recall", user_id, query, k=k, now=now)

    async def list_memories(user_id: str, limit: int = 100, offset: int = 0) -> dict[str, Any]:
        """Page through everything remembered about a user, oldest first (to review
        or clean up memory, not to answer questions: use search_memory for that).
        Returns {"count": total, "memories": [...]}."""
        return await call("memories", user_id, limit=limit, offset=offset)

    async def answer_question(
        user_id: str, question: str, k: int = 10, now: str | None = None
    ) -> dict[str, Any]:
        """Answer a question from a user's memory, or say that memory does not hold it.

        Use it for a direct question about the user's past ("when did I move?", "what
        is my sister's name?"). Returns {"text", "refused", "evidence", ...}: text is a
        short answer grounded in the evidence memories. When refused is true the text is
        "Not mentioned in the conversation": memory lacks the answer, so tell the user
        you don't know (or ask them) instead of guessing."""
        return await call("answer", user_id, question, k=k, now=now)

    async def get_memory(user_id: str, memory_id: str) -> dict[str, Any]:
        """Read one memory of a user by its id: id, text, speaker, timestamp,
        session_id, metadata. An error when the user has no memory with that id."""
        hit = await call("get", user_id, memory_id)
        if hit is None:
            raise _tool_error(str(NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")))
        return hit

    async def forget(user_id: str, memory_id: str) -> dict[str, Any]:
        """Delete one memory of a user permanently, e.g. when the user asks you to
        forget it or it turned out wrong. Returns {"deleted": true}, or false when the
        user has no memory with that id (nothing changed)."""
        return await call("delete", user_id, memory_id)

    async def forget_user(user_id: str) -> dict[str, Any]:
        """Erase everything remembered about a user, permanently (for example when
        they ask to delete their data). Returns {"deleted": n}, the memories removed."""
        return await call("delete_user", user_id)

    async def list_users() -> dict[str, Any]:
        """The user ids that have memories here. Returns {"users": [...]}."""
        return await call("users")

    read = ToolAnnotations(read_only_hint=True, open_world_hint=False)
    write = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
    erase = ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
    )
    return [
        _strict(Tool.from_function(fn, title=title, annotations=annotations), model)
        for fn, model, title, annotations in (
            (add_memory, schema.AddRequest, "Remember", write),
            (add_memories, schema.AddManyRequest, "Remember many", write),
            (search_memory, schema.QueryRequest, "Search memory", read),
            (recall_memory, schema.QueryRequest, "Recall with confidence", read),
            (list_memories, schema.PageRequest, "List memories", read),
            (answer_question, schema.AnswerRequest, "Answer from memory", read),
            (get_memory, schema.MemoryRequest, "Read a memory", read),
            (forget, schema.MemoryRequest, "Forget a memory", erase),
            (forget_user, schema.UserRequest, "Forget a user", erase),
            (list_users, schema.NoArguments, "List users", read),
        )
    ]


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
        from mcp.server.mcpserver import MCPServer
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

    server = MCPServer(
        name,
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=_tools(view),
        log_level=log_level,  # type: ignore[arg-type]  # checked by argparse's choices
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


@command(
    "mcp",
    help="serve memory to agents over the Model Context Protocol",
    description=DESCRIPTION,
    args=[
        arg(
            "--transport",
            choices=["stdio", "http"],
            default_from=env_default("mcp_transport"),
            help="stdio: a local agent's child process, trusted; http: streamable HTTP, "
            "each request keyed (default %(default)s)",
        ),
        arg("--host", default_from=env_default("mcp_host"), help=f"HTTP host (default {LOOPBACK})"),
        arg(
            "--port",
            type=int,
            default_from=env_default("mcp_port"),
            help=f"HTTP port (default {MCP_PORT})",
        ),
        arg("--tenant", help="stdio only: serve this tenant's users (default: raw user ids)"),
        arg(
            "--llm",
            default_from=env_default("llm"),
            help="reader for answer_question: auto, local, openai, none (env REMEM_LLM)",
        ),
    ],
)
def mcp(args: argparse.Namespace) -> int:
    """``remem mcp``: serve until interrupted."""
    return run(
        Settings(
            db=args.db,
            engine=args.engine,
            llm=args.llm,
            mcp_transport=args.transport,
            mcp_host=args.host,
            mcp_port=args.port,
            tenant=args.tenant,
        )
    )


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
    from ..commands import standalone
    from .settings import GLOBAL_ARGS

    return standalone(mcp, "python -m remem.serve.mcp", GLOBAL_ARGS, argv)


if __name__ == "__main__":
    sys.exit(main())
