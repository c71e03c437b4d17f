"""The MCP server's tools, one small function per area: storing memories, reading
them, giving them as a block for the agent's own prompt, changing one (and reading
its versions), and forgetting (with the list of users). ``mcp.py`` builds the
server; this module only names each tool's method on
:class:`~remem.serve.tenant.TenantMemory`, describes it for the agent, and pairs it
with the ``schema.py`` model that checks its arguments.

Imported only when a server is built (``mcp.create_server``): it needs the MCP SDK,
which ``remem --help`` must not. The tools are closures over ``call`` because the view
they act on is the calling request's, known only when the server runs.

Only the SDK's public API is used: ``Tool.from_function`` reads a function's
signature, and each tool's is made from its ``schema.py`` model (the same types,
strictness and bounds as the HTTP API's), so the SDK's own validation applies the
shared rules; the input schema the agent reads is set to that model's (the public
``Tool.parameters``); and :class:`StrictServer` refuses arguments the schema does not
declare, which a signature cannot say (the SDK drops them silently).

No tool exports or imports a user (``Memory.export_jsonl``/``import_jsonl``): that is
bulk data for an operator moving a store, not something an agent reasons over: a
whole user's memories would flood the model's context (and an import would need the
file's every line passed through it). The CLI, the HTTP routes and the clients carry
them.
"""

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import BaseModel, create_model
from pydantic_core import InitErrorDetails, ValidationError

from ..errors import NotFoundError, RememError
from . import schema
from .tenant import TenantMemory

#: ``call(method, *args, **kwargs)``: the TenantMemory method run off the event loop
Call = Callable[..., Awaitable[Any]]
#: a tool before it is built: its function, argument model, title and annotations
Spec = tuple[Callable[..., Awaitable[dict[str, Any]]], type[BaseModel], str, ToolAnnotations]

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)


def tools(view: Callable[[], TenantMemory]) -> list[Tool]:
    """The tools, in the order agents list them; ``view()`` gives the calling
    request's TenantMemory. Each tool's arguments are checked by the model of
    ``schema.py`` it is listed with, before the function runs."""
    call = _caller(view)
    specs = [
        *_storing(call),
        *_reading(call),
        *_prompting(call),
        *_changing(call),
        *_forgetting(call),
    ]
    return [_tool(fn, model, title, annotations) for fn, model, title, annotations in specs]


class StrictServer(MCPServer):
    """The SDK's server, refusing a tool call that passes an argument the tool's input
    schema does not declare: a misspelt ``spaeker`` or an invented ``tenant`` is an
    error, as over HTTP, never silently dropped (the SDK drops it; a dropped
    ``tenant`` would still store). The refusal is the one pydantic gives for a model
    that forbids extra fields, raised as the SDK raises its own argument errors."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:
        # read per call (13 tools: well under a millisecond), so a tool added later holds too
        schemas = {t.name: t.input_schema for t in await self.list_tools()}
        declared = schemas.get(name, {}).get("properties")  # None: not a tool; the SDK says so
        unknown = [key for key in arguments if declared is not None and key not in declared]
        if unknown:
            errors: list[InitErrorDetails] = [
                {"type": "extra_forbidden", "loc": (key,), "input": arguments[key]}
                for key in unknown
            ]
            refused = ValidationError.from_exception_data(f"{name}Arguments", errors)
            raise ToolError(f"Error executing tool {name}: {refused}") from refused
        return await super().call_tool(name, arguments, context)


def _caller(view: Callable[[], TenantMemory]) -> Call:
    """The one way a tool reaches memory: the view is taken in the request's context,
    the blocking call runs on a worker thread, and remem's errors become tool errors
    (the agent reads the message and can correct itself)."""

    async def call(method: str, *args: Any, **kwargs: Any) -> Any:
        tm = view()  # here, in the request's context, not on the worker thread
        fn = functools.partial(getattr(tm, method), *args, **kwargs)
        try:
            return await anyio.to_thread.run_sync(fn)
        except RememError as exc:
            raise ToolError(str(exc)) from None

    return call


def _tool(
    fn: Callable[..., Awaitable[dict[str, Any]]],
    model: type[BaseModel],
    title: str,
    annotations: ToolAnnotations,
) -> Tool:
    """``fn`` as a tool whose arguments are ``model``'s fields, the HTTP API's own model
    (``schema.py``): loose types are refused and sizes are capped by the SDK's
    validation, since the signature it reads carries the model's annotations; the
    input schema the agent reads is the model's, which also says that no other field
    is taken (:class:`StrictServer` holds to it)."""

    fields = model.model_fields
    if set(inspect.signature(fn).parameters) != set(fields):  # drift: fail at start-up
        raise TypeError(f"{fn.__name__}'s parameters are not {model.__name__}'s fields")

    async def run(**arguments: Any) -> dict[str, Any]:
        return await fn(**arguments)

    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]  # what the SDK reads
        [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=field.rebuild_annotation(),
                default=inspect.Parameter.empty if field.is_required() else field.default,
            )
            for name, field in fields.items()
        ],
        return_annotation=dict[str, Any],
    )
    run.__annotations__ = {name: field.rebuild_annotation() for name, field in fields.items()}
    run.__annotations__["return"] = dict[str, Any]
    functools.update_wrapper(run, fn, assigned=("__module__", "__name__", "__qualname__"))
    tool = Tool.from_function(
        run, name=fn.__name__, title=title, description=fn.__doc__, annotations=annotations
    )
    arguments = create_model(f"{fn.__name__}Arguments", __base__=model)
    return tool.model_copy(update={"parameters": arguments.model_json_schema(by_alias=True)})


def _storing(call: Call) -> list[Spec]:
    """Tools that add memories: one at a time, or a batch (a whole conversation)."""

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

    return [
        (add_memory, schema.AddRequest, "Remember", WRITE),
        (add_memories, schema.AddManyRequest, "Remember many", WRITE),
    ]


def _reading(call: Call) -> list[Spec]:
    """Tools that read a user's memories: for a question (search, recall, answer) or
    to review them (list, get by id)."""

    async def search_memory(
        user_id: str,
        query: str,
        k: int = 10,
        now: str | None = None,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Find a user's memories relevant to a question or topic, best first.

        Use it before answering anything that depends on earlier conversations, when
        you want to read the memories yourself. Returns {"hits": [...]}, each with id,
        text, speaker, timestamp, session_id, metadata and a score (comparable only
        within one result). An empty list means nothing relevant is stored. filters
        keeps only matching memories: {"session_id", "speaker", "metadata": {key:
        value}, "after"/"before" (when said), "event_after"/"event_before" (the time a
        memory talks about)}, ISO 8601 times."""
        return await call("search", user_id, query, k=k, now=now, filters=filters)

    async def recall_memory(
        user_id: str,
        query: str,
        k: int = 10,
        now: str | None = None,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Like search_memory, plus how sure memory is that it holds the answer.

        Returns {"hits", "confidence", "refuse", "concepts", "explanations", "absent",
        "not_in_memory", ...}.
        When refuse is true the engine judged that memory does not hold the answer:
        say you don't know rather than answer from the hits. explanations says, per
        hit id, how it was reached (a direct match, or a path through related
        memories and concepts). filters: as search_memory."""
        return await call("recall", user_id, query, k=k, now=now, filters=filters)

    async def list_memories(
        user_id: str, limit: int = 100, offset: int = 0, filters: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Page through everything remembered about a user, oldest first (to review
        or clean up memory, not to answer questions: use search_memory for that).
        Returns {"count": total, "memories": [...]}. filters: as search_memory."""
        return await call("memories", user_id, limit=limit, offset=offset, filters=filters)

    async def answer_question(
        user_id: str,
        question: str,
        k: int = 10,
        now: str | None = None,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Answer a question from a user's memory, or say that memory does not hold it.

        Use it for a direct question about the user's past ("when did I move?", "what
        is my sister's name?"). Returns {"text", "refused", "evidence", ...}: text is a
        short answer grounded in the evidence memories. When refused is true the text is
        "Not mentioned in the conversation": memory lacks the answer, so tell the user
        you don't know (or ask them) instead of guessing. filters: as search_memory."""
        return await call("answer", user_id, question, k=k, now=now, filters=filters)

    async def get_memory(user_id: str, memory_id: str) -> dict[str, Any]:
        """Read one memory of a user by its id: id, text, speaker, timestamp,
        session_id, metadata. An error when the user has no memory with that id."""
        hit = await call("get", user_id, memory_id)
        if hit is None:
            raise ToolError(str(NotFoundError(f"no memory {memory_id!r} for user {user_id!r}")))
        return hit

    return [
        (search_memory, schema.QueryRequest, "Search memory", READ),
        (recall_memory, schema.QueryRequest, "Recall with confidence", READ),
        (list_memories, schema.PageRequest, "List memories", READ),
        (answer_question, schema.AnswerRequest, "Answer from memory", READ),
        (get_memory, schema.MemoryRequest, "Read a memory", READ),
    ]


def _prompting(call: Call) -> list[Spec]:
    """The tool that hands the agent its memory ready for its own prompt."""

    async def memory_context(
        user_id: str,
        query: str,
        k: int = 10,
        max_tokens: int = 1000,
        now: str | None = None,
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """A ready-to-read block of what memory holds about a user for a topic, to
        put in your own context before you reply.

        Returns {"context": text}: the relevant memories best first, one a line as
        "[date, note] speaker: text" (a note "superseded by a later memory" marks a
        fact that changed: trust the "latest" one), within max_tokens (about four
        characters each); "" when nothing is remembered. filters: as search_memory."""
        return await call(
            "context", user_id, query, k=k, max_tokens=max_tokens, now=now, filters=filters
        )

    return [(memory_context, schema.ContextRequest, "Memory for a prompt", READ)]


def _changing(call: Call) -> list[Spec]:
    """Tools that correct a memory and show how it read before."""

    async def update_memory(
        user_id: str,
        memory_id: str,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        """Correct or change one memory of a user, e.g. when a fact changed ("I moved
        to Porto") or was stored wrong: give the new text, metadata or time (what you
        leave out is kept; metadata replaces the old whole). Searches then find only
        the new version; memory_history keeps the old ones. Returns the memory as it
        now is. An error when the user has no memory with that id."""
        fields = {"text": text, "metadata": metadata, "timestamp": timestamp}
        changes = {k: v for k, v in fields.items() if v is not None}
        return await call("update", user_id, memory_id, **changes)

    async def memory_history(user_id: str, memory_id: str) -> dict[str, Any]:
        """The versions of one memory of a user, oldest first: how it read when first
        stored and after each update_memory, each with text, metadata, timestamp, the
        fields it changed and when. Returns {"versions": [...]}; the last is the memory
        now. An error when the user has no memory with that id."""
        return await call("history", user_id, memory_id)

    return [
        (update_memory, schema.UpdateRequest, "Change a memory", WRITE),
        (memory_history, schema.MemoryRequest, "A memory's versions", READ),
    ]


def _forgetting(call: Call) -> list[Spec]:
    """Tools over stored data as a whole: forget a memory or a user, list the users."""

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

    return [
        (forget, schema.MemoryRequest, "Forget a memory", ERASE),
        (forget_user, schema.UserRequest, "Forget a user", ERASE),
        (list_users, schema.NoArguments, "List users", READ),
    ]
