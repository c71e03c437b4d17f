"""One tenant's view of a :class:`~remem.Memory`, with JSON-ready results.

The HTTP server and the MCP server are both thin faces over this class, so the one
rule that keeps tenants apart - every user id is scoped by the tenant before it
reaches the library, and only the tenant's own users come back - is written once.
A view without a tenant (the local stdio MCP server, a trusted process on the same
machine) passes user ids through unchanged.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..errors import InvalidInputError, InvalidTypeError
from ..keys import check_tenant, scoped_user, unscoped_user
from ..memory import Memory
from ..types import Added, Hit
from ..validation import check_id


class TenantMemory:
    def __init__(self, mem: Memory, tenant: str | None = None):
        self.mem = mem
        self.tenant = check_tenant(tenant) if tenant is not None else None

    # -- scoping ----------------------------------------------------------------------

    def _user(self, user_id: Any) -> str:
        user_id = check_id(user_id, "user_id")
        return user_id if self.tenant is None else scoped_user(self.tenant, user_id)

    @staticmethod
    def _hit(hit: Hit) -> dict[str, Any]:
        return hit.to_dict()

    # -- writes -----------------------------------------------------------------------

    def add(self, user_id: str, text: str, **fields: Any) -> dict[str, Any]:
        allowed = {"speaker", "timestamp", "session_id", "metadata"}
        extra = set(fields) - allowed
        if extra:
            raise InvalidInputError(f"unknown fields {sorted(extra)}")
        return {"id": self.mem.add(text, user_id=self._user(user_id), **fields)}

    def add_many(
        self, user_id: str, items: Sequence[Mapping[str, Any] | str], skip_blank: bool = False
    ) -> dict[str, Any]:
        ids = self.mem.add_many(items, user_id=self._user(user_id), skip_blank=skip_blank)
        return self._added(ids)

    @staticmethod
    def _added(ids: Added) -> dict[str, Any]:
        """New ids and the positions left out as blank (``skip_blank``), as JSON."""
        return {"ids": list(ids), "skipped": ids.skipped}

    def update(self, user_id: str, memory_id: str, **fields: Any) -> dict[str, Any]:
        """The memory as it now is; a NotFoundError (404) for another user's id too."""
        extra = set(fields) - {"text", "metadata", "timestamp"}
        if extra:
            raise InvalidInputError(f"unknown fields {sorted(extra)}")
        return self._hit(self.mem.update(memory_id, self._user(user_id), **fields))

    def history(self, user_id: str, memory_id: str) -> dict[str, Any]:
        versions = self.mem.history(memory_id, self._user(user_id))
        return {"versions": [v.to_dict() for v in versions]}

    def delete(self, user_id: str, memory_id: str) -> dict[str, Any]:
        return {"deleted": self.mem.delete(memory_id, user_id=self._user(user_id))}

    def delete_user(self, user_id: str) -> dict[str, Any]:
        return {"deleted": self.mem.delete_user(self._user(user_id))}

    def import_table(self, user_id: str, data: Any, skip_blank: bool = False) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise InvalidTypeError("a memory table must be a JSON object")
        user = self._user(user_id)
        return self._added(self.mem.import_data(data, user_id=user, skip_blank=skip_blank))

    # -- reads ------------------------------------------------------------------------

    def search(
        self, user_id: str, query: str, k: int = 10, now: Any = None, filters: Any = None
    ) -> dict[str, Any]:
        hits = self.mem.search(query, user_id=self._user(user_id), k=k, now=now, filters=filters)
        return {"hits": [self._hit(h) for h in hits]}

    def recall(
        self, user_id: str, query: str, k: int = 10, now: Any = None, filters: Any = None
    ) -> dict[str, Any]:
        user = self._user(user_id)
        return self.mem.recall(query, user_id=user, k=k, now=now, filters=filters).to_dict()

    def trace(
        self,
        user_id: str,
        query: str,
        k: int = 10,
        now: Any = None,
        limit: int = 40,
        filters: Any = None,
    ) -> dict[str, Any]:
        user = self._user(user_id)
        trace = self.mem.trace(query, user_id=user, k=k, now=now, limit=limit, filters=filters)
        return trace.to_dict()

    def short_term(self, user_id: str) -> dict[str, Any]:
        return self.mem.short_term(self._user(user_id))

    def engine(self) -> dict[str, Any]:
        """The engine's name and abilities (what a client may show), not its settings."""
        info = self.mem.engine_info
        abilities = info.abilities
        return {
            "name": info.name,
            "gate": abilities.gate,
            "flow": abilities.flow,
            "short_term": abilities.short_term,
        }

    def answer(
        self, user_id: str, question: str, k: int = 10, now: Any = None, filters: Any = None
    ) -> dict[str, Any]:
        user = self._user(user_id)
        return self.mem.answer(question, user_id=user, k=k, now=now, filters=filters).to_dict()

    def context(
        self,
        user_id: str,
        query: str,
        k: int = 10,
        max_tokens: int = 1000,
        now: Any = None,
        filters: Any = None,
    ) -> dict[str, Any]:
        user = self._user(user_id)
        block = self.mem.context(
            query, user_id=user, k=k, max_tokens=max_tokens, now=now, filters=filters
        )
        return {"context": block}

    def get(self, user_id: str, memory_id: str) -> dict[str, Any] | None:
        hit = self.mem.get(memory_id, user_id=self._user(user_id))
        return self._hit(hit) if hit else None

    def memories(
        self, user_id: str, limit: int = 100, offset: int = 0, filters: Any = None
    ) -> dict[str, Any]:
        user = self._user(user_id)
        hits = self.mem.memories(user, limit=limit, offset=offset, filters=filters)
        return {"count": self.mem.count(user), "memories": [self._hit(h) for h in hits]}

    def users(self) -> dict[str, Any]:
        names = self.mem.users()
        if self.tenant is not None:
            names = [u for u in (unscoped_user(self.tenant, n) for n in names) if u is not None]
        return {"users": names}

    def export_lines(self, user_id: str, vectors: bool = False) -> Iterator[str]:
        """The user's JSONL export, naming the user by the tenant's own name."""
        user = self._user(user_id)
        return self.mem.export_lines(user, vectors=vectors, as_user=user_id)

    def import_jsonl(self, user_id: str, body: bytes, on_conflict: str = "error") -> dict[str, Any]:
        """A JSONL export sent whole (a request body) added to the user."""
        user = self._user(user_id)
        return {"imported": self.mem.import_jsonl(io.BytesIO(body), user, on_conflict=on_conflict)}

    def export_table(self, user_id: str) -> dict[str, Any]:
        data = self.mem.export_data(self._user(user_id))
        data["user_id"] = user_id  # the tenant's own name, never the stored one
        return data
