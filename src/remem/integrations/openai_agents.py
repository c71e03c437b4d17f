"""OpenAI Agents SDK: :func:`remem_tools`, function tools bound to one remem user.

``Agent(name="assistant", tools=remem_tools(mem, user_id="ana"))`` gives the model
three tools:

- ``remember(text)``: store a memory of the user, returns its id;
- ``recall(query)``: the user's ``k`` most relevant memories as JSON (id, text, score,
  speaker, timestamp, session, metadata, how each was reached) and the engine's
  ``refuse`` verdict;
- ``forget(memory_id)``: delete one of the user's memories.

The user is fixed when the tools are made, never an argument the model chooses, so
a model cannot reach another user's memories (another user's id looks missing). A
call the model got wrong (empty text, a bad id) returns remem's message to the model,
(or the SDK's, for arguments that do not fit the tool's schema) so it can correct
itself; any other failure returns the SDK's generic message and
never its details.

Requires the ``openai-agents`` extra.
"""

from __future__ import annotations

import json
from typing import Any

from ._common import check_binding, hit_dict, require

require("agents", "openai-agents")

from agents import FunctionTool, ModelBehaviorError, RunContextWrapper, function_tool  # noqa: E402
from agents.tool import default_tool_error_function  # noqa: E402

from ..aio import AsyncMemory  # noqa: E402
from ..errors import InvalidInputError, InvalidTypeError, NotFoundError  # noqa: E402
from ..memory import Memory  # noqa: E402
from ..validation import check_optional_name  # noqa: E402

#: errors in what the model sent, whose message helps it retry (no memory text in them)
_MODEL_ERRORS = (InvalidInputError, InvalidTypeError, NotFoundError)


def remem_tools(
    memory: Memory,
    user_id: str,
    *,
    k: int = 5,
    speaker: str | None = None,
    session_id: str | None = None,
) -> list[FunctionTool]:
    """The ``remember``, ``recall`` and ``forget`` tools over ``memory``, for ``user_id``.

    ``speaker`` and ``session_id`` are stored with every memory ``remember`` writes;
    ``k`` is how many memories ``recall`` returns. Arguments are checked with remem's
    rules here, and a bad one raises a :class:`remem.RememError`.
    """
    mem, user, k = check_binding(memory, user_id, k)
    amem = AsyncMemory.of(mem)  # each call in a worker thread: the agent's loop stays free
    speaker = check_optional_name(speaker, "speaker")
    session_id = check_optional_name(session_id, "session_id")

    async def remember(text: str) -> str:
        """Store something worth remembering about the user for later conversations.

        Args:
            text: What to remember, as one self-contained statement.
        """
        new_id = await amem.add(text, user, speaker=speaker, session_id=session_id)
        return json.dumps({"id": new_id})

    async def recall(query: str) -> str:
        """Search the user's long-term memory; returns the most relevant memories.

        Args:
            query: What to look for, as a question or keywords.
        """
        rec = await amem.recall(query, user, k)
        memories = [{"text": h.text, **hit_dict(h, rec.explanations.get(h.id))} for h in rec.hits]
        return json.dumps({"memories": memories, "refuse": rec.refuse}, ensure_ascii=False)

    async def forget(memory_id: str) -> str:
        """Delete one of the user's memories by the id remember or recall gave.

        Args:
            memory_id: The id of the memory to delete.
        """
        gone = await amem.delete(memory_id, user)
        return json.dumps({"deleted": gone})

    return [
        function_tool(f, failure_error_function=_tool_error) for f in (remember, recall, forget)
    ]


def _tool_error(ctx: RunContextWrapper[Any], error: Exception) -> str:
    """What the model is told of a failed call: remem's message for its own mistakes,
    the SDK's fixed message for anything else (which may hold internal details)."""
    if isinstance(error, _MODEL_ERRORS):
        return f"remem refused the call: {error}"
    if isinstance(error, ModelBehaviorError):  # arguments that do not fit the tool's schema
        return f"the call's arguments were invalid: {error}"
    return default_tool_error_function(ctx, error)
