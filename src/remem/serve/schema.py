"""What the HTTP API's bodies and the MCP tools' arguments may hold: one set of models.

Both faces validate a call with these same pydantic models, so whichever face a call
comes in by it is refused for the same reasons, before the library sees it:

* **unknown fields are refused**: a misspelt ``spaeker`` or an invented ``tenant``
  is an error, never silently dropped (a dropped ``tenant`` would still store);
* **types are strict**: ``"5"`` is not a number and ``5`` is not a string;
* **sizes are capped**: ``k`` at :data:`MAX_K`, a page at :data:`MAX_PAGE`, an
  offset at the library's :data:`~remem.validation.MAX_COUNT`, a batch at
  :data:`~remem.validation.MAX_BATCH`.

The descriptions are written for both readers: a developer reading the OpenAPI
document and an agent reading a tool's input schema.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from ..validation import MAX_BATCH, MAX_COUNT, MAX_TRACE_NODES

MAX_K = 200
"""The most memories one search, recall or answer may ask for: more than a reader's
context holds, so a larger k only costs time."""
MAX_PAGE = 1000
"""The most memories one page of a listing returns."""

UserId = Annotated[
    StrictStr,
    Field(
        description="The person whose memory this is: a stable id (at most 256 characters). "
        "Each user's memories are private to that user."
    ),
]
MemoryId = Annotated[StrictStr, Field(description="A memory id, as an add or a search gave it.")]
K = Annotated[
    StrictInt,
    Field(ge=1, le=MAX_K, description=f"How many memories to return or use (1 to {MAX_K})."),
]
Now = Annotated[
    StrictStr | None,
    Field(
        description="ISO 8601: the moment the question is asked (default: now). A time the "
        "question names, such as '10 days ago' or 'last Saturday', is taken relative to it."
    ),
]

FiltersIn = Annotated[
    dict[str, Any] | None,
    Field(
        description="Hard filters: only memories that pass are ranked or listed, so k come "
        "back whenever k pass. Keys: session_id and speaker (a string or a list: any of), "
        "metadata ({key: value or [values]}, equality), after and before (the time of "
        "saying, ISO 8601 or epoch seconds; after inclusive, before exclusive), "
        "event_after and event_before (the times a memory talks about: one must overlap; "
        "a memory naming no time does not pass). A bad filter is a 422 'invalid_filter'."
    ),
]


class Strict(BaseModel):
    """Refuses fields it does not declare."""

    model_config = ConfigDict(extra="forbid")


class MemoryIn(Strict):
    text: StrictStr = Field(
        description="What to remember: a fact or a conversation turn, as plain text."
    )
    speaker: StrictStr | None = Field(
        None, description="Who said it (a name helps later questions)."
    )
    timestamp: StrictStr | None = Field(
        None, description="When it was said or happened, ISO 8601 (default: now, UTC)."
    )
    session_id: StrictStr | None = Field(None, description="The conversation it came from.")
    metadata: dict[str, Any] | None = Field(
        None, description="Any JSON object to keep with it; returned exactly as stored."
    )


class AddRequest(MemoryIn):
    user_id: UserId


class UpdateBody(Strict):
    """An update's fields (``Memory.update``): each left out (or null) is kept."""

    user_id: UserId
    text: StrictStr | None = Field(None, description="The new text (default: kept).")
    metadata: dict[str, Any] | None = Field(
        None, description="The new metadata, replacing the old whole ({} clears it; default: kept)."
    )
    timestamp: StrictStr | None = Field(
        None, description="The new time it was said or happened, ISO 8601 (default: kept)."
    )


class UpdateRequest(UpdateBody):
    """:class:`UpdateBody` with the memory's id (the MCP tool; HTTP has it in the path)."""

    memory_id: MemoryId


SKIP_BLANK = (
    "Leave out the items (or table entries) whose text is blank (empty, whitespace or "
    "invisible characters only, as a chat export's lone zero-width space) and store "
    "the rest, instead of refusing them all; 'skipped' lists their positions. Any "
    "other problem still refuses the whole request."
)
"""``skip_blank``'s description, for the batch body and the import's query alike."""


class AddManyRequest(Strict):
    user_id: UserId
    items: list[MemoryIn | StrictStr] = Field(
        ...,
        max_length=MAX_BATCH,
        description="The memories, oldest first: objects with the fields of one memory "
        f'("text" required) or plain strings; at most {MAX_BATCH:,}.',
    )
    skip_blank: StrictBool = Field(False, description=SKIP_BLANK)


class QueryRequest(Strict):
    user_id: UserId
    query: StrictStr = Field(description="What to look for: a question or a few words.")
    k: K = 10
    now: Now = None
    filters: FiltersIn = None


class TraceRequest(QueryRequest):
    limit: StrictInt = Field(
        40, ge=1, le=MAX_TRACE_NODES, description=f"Nodes at most (1 to {MAX_TRACE_NODES})."
    )


class ContextRequest(QueryRequest):
    max_tokens: StrictInt = Field(
        1000,
        ge=1,
        le=MAX_COUNT,
        description="The block's budget in tokens (about four characters each).",
    )


class AnswerRequest(Strict):
    user_id: UserId
    question: StrictStr = Field(description="The question, in plain language.")
    k: K = 10
    now: Now = None
    filters: FiltersIn = None


class PageRequest(Strict):
    user_id: UserId
    limit: StrictInt = Field(
        100, ge=1, le=MAX_PAGE, description=f"At most this many (1 to {MAX_PAGE})."
    )
    offset: StrictInt = Field(
        0, ge=0, le=MAX_COUNT, description="Skip this many first, oldest first (0 or more)."
    )
    filters: FiltersIn = None


class UserRequest(Strict):
    user_id: UserId


class MemoryRequest(Strict):
    user_id: UserId
    memory_id: MemoryId


class NoArguments(Strict):
    pass


def memory_items(items: list[MemoryIn | str]) -> list[dict[str, Any] | str]:
    """Validated batch items as the library takes them (fields left out stay out)."""
    return [i if isinstance(i, str) else i.model_dump(exclude_none=True) for i in items]
