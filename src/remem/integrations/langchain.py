"""LangChain: :class:`RememRetriever`, a ``BaseRetriever`` over one user's memories.

It is a Runnable like any retriever (``retriever | format_docs | prompt | llm``), sync
and async. Each :class:`~langchain_core.documents.Document` carries the memory's text
as ``page_content`` and, in ``metadata``, what remem knows of the hit: ``id``,
``score``, ``speaker``, ``timestamp`` (ISO-8601), ``session``, the memory's own
``metadata`` and ``reached`` (how the engine found it: its anchor or the activation
path from one, see :meth:`remem.Memory.recall`). The document's ``id`` is the memory
id, so a caller can ``mem.delete`` what a chain retrieved.

Requires the ``langchain`` extra (``langchain-core``).
"""

from __future__ import annotations

from typing import Any

from ._common import check_binding, check_now, hit_dict, require

require("langchain_core", "langchain")

from langchain_core.callbacks import (  # noqa: E402
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402

from ..aio import AsyncMemory  # noqa: E402
from ..memory import Memory  # noqa: E402
from ..types import Recall  # noqa: E402


class RememRetriever(BaseRetriever):
    """The ``k`` memories of ``user_id`` most relevant to the query, best first.

    ``memory`` is a :class:`remem.Memory` (any engine); ``now`` is passed to
    :meth:`~remem.Memory.recall` as the moment the question is asked (default: the
    current time at each call), ``explain=False`` skips tracing activation paths.
    Arguments are checked with remem's rules when the retriever is made: a missing
    or non-string ``user_id``, a ``k`` that is not a positive int, a ``now`` that is
    not a time or a ``memory`` that is not a Memory raise a :class:`remem.RememError`
    at once.
    """

    memory: Any = None
    user_id: Any = None
    k: Any = 4
    now: Any = None
    explain: bool = True

    def __init__(self, **data: Any) -> None:
        # remem's own checks and errors before pydantic's (which would wrap them)
        memory, user_id, k = check_binding(
            data.get("memory"), data.get("user_id"), data.get("k", 4)
        )
        check_now(data.get("now"))
        super().__init__(**{**data, "memory": memory, "user_id": user_id, "k": k})

    def _recall(self, query: str) -> Recall:
        mem: Memory = self.memory
        return mem.recall(query, self.user_id, self.k, now=self.now, explain=self.explain)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return _documents(self._recall(query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        # AsyncMemory runs the recall in a worker thread: the loop stays free
        mem = AsyncMemory.of(self.memory)
        rec = await mem.recall(query, self.user_id, self.k, now=self.now, explain=self.explain)
        return _documents(rec)


def _documents(rec: Recall) -> list[Document]:
    return [
        Document(
            id=hit.id,
            page_content=hit.text,
            metadata=hit_dict(hit, rec.explanations.get(hit.id)),
        )
        for hit in rec.hits
    ]
