"""Routes that read a user's memory for a question: search, recall, trace, the
short-term memory, answer, and the context block for an agent's prompt."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..schema import AnswerRequest, ContextRequest, QueryRequest, TraceRequest
from .deps import Tenant, UserQ
from .models import KEYED, AnswerOut, ContextOut, RecallOut, SearchOut, TraceOut

router = APIRouter(tags=["retrieval"])


@router.post("/v1/search", response_model=SearchOut, responses=KEYED)
def search(body: QueryRequest, t: Tenant) -> dict[str, Any]:
    """The user's k most relevant memories, best first."""
    return t.search(body.user_id, body.query, body.k, body.now, body.filters)


@router.post("/v1/recall", response_model=RecallOut, responses=KEYED)
def recall(body: QueryRequest, t: Tenant) -> dict[str, Any]:
    """Search plus the engine's confidence, refusal verdict and explanations."""
    return t.recall(body.user_id, body.query, body.k, body.now, body.filters)


@router.post("/v1/trace", response_model=TraceOut, responses=KEYED)
def trace(body: TraceRequest, t: Tenant) -> dict[str, Any]:
    """The recall, plus the part of the engine's graph the query activated
    (SYNAPSE): the most activated episodes and concepts and the edges that
    carried activation between them."""
    return t.trace(body.user_id, body.query, body.k, body.now, body.limit, body.filters)


@router.get("/v1/short-term", responses=KEYED)
def short_term(t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """The user's short-term memory (ILSTMA): its five segments, their estimated
    tokens, the questions seen and the cache; 422 for an engine without one."""
    return t.short_term(user_id)


@router.post("/v1/answer", response_model=AnswerOut, responses=KEYED)
def answer(body: AnswerRequest, t: Tenant) -> dict[str, Any]:
    """Answer from the user's memory or refuse ("Not mentioned in the conversation")."""
    return t.answer(body.user_id, body.question, body.k, body.now, body.filters)


@router.post("/v1/context", response_model=ContextOut, responses=KEYED)
def context(body: ContextRequest, t: Tenant) -> dict[str, Any]:
    """A prompt-ready block of the user's memory for the agent's next LLM call,
    within max_tokens: the relevant memories best first with date and speaker
    (superseded ones marked), after ILSTMA's summary, profile and recent turns;
    "" when nothing is recalled."""
    return t.context(body.user_id, body.query, body.k, body.max_tokens, body.now, body.filters)
