"""LlamaIndex: :class:`RememMemoryBlock`, a memory block of ``llama-index-core``'s
``Memory`` (``llama_index.core.memory``), the framework's current memory API.

``Memory`` keeps the recent chat as a FIFO queue; when it outgrows its token
budget, the oldest messages are flushed into the memory blocks (``aput``), and every
``get`` asks each block for context (``aget``) and puts it into the system message.
This block stores the flushed messages as remem memories of one user (the speaker is
the role, or a name given in ``speakers``; the session is the ``Memory``'s
``session_id``) and answers ``aget`` with remem's recall for the latest message, one
line a memory, best first: ``[2023-05-08] Ana: I'm moving to Lisbon in May``. Under
token pressure the ``Memory`` truncates the worst lines first.

Requires the ``llamaindex`` extra (``llama-index-core``).
"""

from __future__ import annotations

from typing import Any

from ._common import check_binding, check_now, require

require("llama_index.core.memory", "llamaindex")

from llama_index.core.base.llms.types import ChatMessage, TextBlock  # noqa: E402
from llama_index.core.bridge.pydantic import Field  # noqa: E402
from llama_index.core.memory import BaseMemoryBlock  # noqa: E402

from ..aio import AsyncMemory  # noqa: E402
from ..errors import InvalidInputError, InvalidTypeError  # noqa: E402
from ..memory import Memory  # noqa: E402
from ..tokens import estimate_tokens  # noqa: E402
from ..types import Hit  # noqa: E402


class RememMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory of one remem user inside a LlamaIndex ``Memory``.

    ``memory`` is a :class:`remem.Memory`, ``user_id`` the user whose memories are
    written and recalled, ``k`` how many come back; ``query_messages`` is how many of
    the latest messages make the query; ``roles`` which messages are stored (system
    and tool messages are not, by default); ``speakers`` maps a role to the name
    stored as its speaker (``{"user": "Ana"}``: remem indexes "Ana: ...", and
    questions name people). Arguments are checked with remem's rules when the block
    is made, and a bad one raises a :class:`remem.RememError`.
    """

    name: str = Field(default="remem", description="The name of the memory block.")
    description: str | None = Field(
        default="Long-term memories of this user, recalled by remem for the latest message."
    )
    memory: Any = None
    user_id: Any = None
    k: Any = 5
    query_messages: int = 1
    roles: tuple[str, ...] = ("user", "assistant")
    speakers: dict[str, str] = Field(default_factory=dict)
    now: Any = None

    def __init__(self, **data: Any) -> None:
        # remem's own checks and errors before pydantic's (which would wrap them)
        memory, user_id, k = check_binding(
            data.get("memory"), data.get("user_id"), data.get("k", 5)
        )
        check_now(data.get("now"))
        query_messages = data.get("query_messages", 1)
        if not isinstance(query_messages, int) or isinstance(query_messages, bool):
            raise InvalidTypeError("query_messages must be an int")
        if query_messages < 1:
            raise InvalidInputError(f"query_messages must be positive, not {query_messages}")
        super().__init__(**{**data, "memory": memory, "user_id": user_id, "k": k})

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        texts = [t for m in messages or [] if (t := _text(m))]
        query = "\n".join(texts[-self.query_messages :])
        if not query:
            return ""
        mem: Memory = self.memory
        rec = await AsyncMemory.of(mem).recall(query, self.user_id, self.k, now=self.now)
        return "\n".join(_line(hit) for hit in rec.hits)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        if not isinstance(messages, list):
            raise InvalidTypeError(f"messages must be a list, not {type(messages).__name__}")
        items = []
        for m in messages:
            if not isinstance(m, ChatMessage):
                raise InvalidTypeError(f"a message must be a ChatMessage, not {type(m).__name__}")
            role = str(getattr(m.role, "value", m.role))
            text = _text(m)
            if role not in self.roles or not text:
                continue
            session = m.additional_kwargs.get("session_id")
            items.append(
                {
                    "text": text,
                    "speaker": self.speakers.get(role, role),
                    "session_id": session if isinstance(session, str) and session else None,
                }
            )
        if items:
            mem: Memory = self.memory
            await AsyncMemory.of(mem).add_many(items, self.user_id)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Drop the worst memories (the last lines) until enough tokens are freed."""
        lines = content.splitlines()
        while lines and tokens_to_truncate > 0:
            tokens_to_truncate -= estimate_tokens(lines.pop())
        return "\n".join(lines) or None


def _text(message: ChatMessage) -> str:
    return "".join(b.text for b in message.blocks if isinstance(b, TextBlock)).strip()


def _line(hit: Hit) -> str:
    who = f"{hit.speaker}: " if hit.speaker else ""
    return f"[{hit.timestamp:%Y-%m-%d}] {who}{hit.text}"
