"""The write path behind ``Memory``: embed, one transaction, then tell the rest.

Order of work in every write: the caller has validated everything; embeddings are
computed; then one store transaction; then this process's indexes, the engine and
the recall pipeline's stages hear of it. A failure before the transaction leaves the
store untouched; the transaction is all-or-nothing; engines and stages derive their
state from the store, so a crash after it loses nothing.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import numpy as np

from . import table, transfer
from .embed.base import Embedder
from .engines.base import Engine, EngineContext, UserLocks
from .errors import (
    EmbedderError,
    ErasureIncompleteError,
    InvalidInputError,
    NotFoundError,
    StoreError,
)
from .index.passages import PassagePlan, embed_memories
from .recall import Recaller
from .store import Store, UserState
from .store.base import UpdateConflict
from .store.history import HISTORY_TABLES, restore, versions
from .time.current import slot_book
from .types import Added, NewMemory, Passages, StoredMemory, Version
from .validation import MAX_BATCH

#: how often an update reads its memory again after another process updated it
#: between the read and the update's transaction (choice: each try is one embedding)
UPDATE_ATTEMPTS = 5


def embedder_id(embedder: Embedder) -> str:
    """How a file records the model its vectors were made with ("name/size")."""
    return f"{embedder.name}/{embedder.dim}"


def check_embedder(store: Store, embedder: Embedder, where: str) -> None:
    """Refuse a file whose vectors another embedder made. An endpoint embedder learns
    its vector size from its first reply, and the indexes need it now: it is taken
    from the file's record of the same model, else the endpoint is asked once (a dead
    one fails here, clearly)."""
    stored = store.get_meta("embedder")
    if not embedder.dim:
        name, _, size = (stored or "").rpartition("/")
        if name == embedder.name and size.isdigit():
            embedder.dim = int(size)
        else:
            embedder.embed(["remem: the vector size"])
        if not embedder.dim:
            raise EmbedderError(f"{embedder.name} did not tell its vector size")
    mine = embedder_id(embedder)
    if stored is not None and stored != mine:
        raise StoreError(
            f"{where!r} holds vectors of {stored}, but this Memory embeds with {mine}; "
            "open it with the same embedder"
        )


class Writer:
    """Adds and erases one Memory's memories (module notes)."""

    def __init__(
        self, ctx: EngineContext, engine: Engine, recaller: Recaller, passages: PassagePlan | None
    ):
        self._store = ctx.store
        self._embedder = ctx.embedder
        self._indexes = ctx.indexes
        self._engine = engine
        self._recaller = recaller
        self._passages = passages
        self._lock = threading.Lock()
        # Per user, not per Memory: the store orders one user's writes itself, and a
        # server's threads adding for different users must not queue behind each other.
        self._user_locks = UserLocks()
        self._update_locks = UserLocks()
        self._embedder_recorded = False
        # the slots each memory sets ("I moved to Porto"): attaching the tables here
        # makes every add of this process write them (``CurrentTables.on_add``)
        self._slots = slot_book(ctx.store)
        # the versions of updated memories (``store/history.py``): attached here, so
        # every update of this process writes them and every delete erases them
        self._history = ctx.store.attach(HISTORY_TABLES)

    def history(self, user_id: str, memory_id: str) -> list[Version]:
        """The memory's versions, oldest first (:class:`NotFoundError`: as ``update``)."""
        found = versions(self._history, user_id, memory_id)
        if found is None:
            raise NotFoundError(f"no memory {memory_id!r} for this user")
        return found

    def insert(
        self,
        user_id: str,
        new: list,
        vectors: Any = None,
        passages: Any = None,
        *,
        ids: Sequence[str] | None = None,
        created_at: Sequence[float] | None = None,
    ) -> list[StoredMemory]:
        """Store validated memories (embedding them unless ``vectors`` are given);
        ``ids`` and ``created_at``: kept as given (``Store.add``)."""
        if vectors is None:
            vectors, passages = embed_memories(self._embedder, new, self._passages)
        if not self._embedder_recorded:  # once per Memory: not a round trip per add
            with self._lock:
                if self._store.get_meta("embedder") is None:
                    self._store.set_meta("embedder", embedder_id(self._embedder))
                self._embedder_recorded = True
        with self._user_locks(user_id):
            # the index is brought current and extended here, on the write path, so
            # the first search after a write is as fast as the rest
            before = self._indexes.get(user_id).state
            stored = self._store.add(
                user_id, new, vectors, passages, ids=ids, created_at=created_at
            )
            after = self._indexes.added(user_id, stored, before)
            # the slots they set were written in the add's transaction; the cached
            # view of them takes the add in place (``time/current.py``)
            self._slots.added(user_id, stored, before, after)
        self._engine.on_add(user_id, stored)
        return stored

    def update(
        self,
        user_id: str,
        memory_id: str,
        *,
        text: str | None,
        metadata: dict[str, Any] | None,
        timestamp: datetime | None,
    ) -> StoredMemory:
        """Replace a memory's text, metadata or time (validated; None: kept) and
        return it as stored. An update is a delete and an add of the same id in one
        store transaction (``Store.update``): the new version is embedded, the rows
        every extension derived from the old one (SYNAPSE's mentions, ILSTMA's recall
        counts and the notes quoting it, the event times, the slots) are dropped and
        derived again, the history keeps both versions, and this process's index,
        engine and stages hear of a delete then an add. So recall never sees the old
        text, and nothing order-dependent can disagree with the store: the memory
        takes the next sequence number, as a new memory would (it lists last in
        ``Memory.memories``; SYNAPSE places it in the newest consolidation window and
        extracts its concepts at the next consolidation; ILSTMA pushes it into its
        short-term memory as the newest turn and summarises its old group again).
        Its id, speaker, session and time of saying (unless given) stay. Changing
        nothing writes nothing. :class:`NotFoundError` for no such memory of the
        user (another user's id looks the same)."""
        # this process's updates of the user queue here (not its adds: the lock is held
        # while embedding), so only another process's update can overtake one
        with self._update_locks(user_id):
            return self._update(user_id, memory_id, text, metadata, timestamp)

    def _update(
        self,
        user_id: str,
        memory_id: str,
        text: str | None,
        metadata: dict[str, Any] | None,
        timestamp: datetime | None,
    ) -> StoredMemory:
        for _attempt in range(UPDATE_ATTEMPTS):
            old = self._store.get(user_id, [memory_id]).get(memory_id)
            if old is None:
                raise NotFoundError(f"no memory {memory_id!r} for this user")
            new = NewMemory(
                text=old.text if text is None else text,
                speaker=old.speaker,
                timestamp=old.timestamp if timestamp is None else timestamp,
                session_id=old.session_id,
                metadata=old.metadata if metadata is None else metadata,
            )
            changed = _changed(old, new)
            if not changed:
                return old
            vectors, passages = embed_memories(self._embedder, [new], self._passages)
            try:
                return self._replace(user_id, old, new, vectors[0], passages[0], changed)
            except UpdateConflict:
                continue  # another writer updated it meanwhile: read it again
        raise StoreError(f"memory {memory_id!r} kept changing under this update; try again")

    def _replace(
        self,
        user_id: str,
        old: StoredMemory,
        new: NewMemory,
        vector: Any,
        passages: Any,
        changed: tuple[str, ...],
    ) -> StoredMemory:
        """The store's update, then this process's index, slots, engine and stages,
        told of a delete and an add (the store moved both of the user's revisions)."""
        with self._user_locks(user_id):
            before = self._indexes.get(user_id).state
            stored = self._store.update(
                user_id, old.id, new, vector, passages, expect_seq=old.seq, changed=changed
            )
            if stored is None:
                raise NotFoundError(f"no memory {old.id!r} for this user")
            if before is not None:
                self._indexes.deleted(user_id, [old.id], before)
                deleted = UserState(before.epoch, before.next_seq, before.del_rev + 1)
                after = self._indexes.added(user_id, [stored], deleted)
                # the slot view reloads: the old version's slot rows are gone
                self._slots.added(user_id, [stored], before, after)
        self._engine.on_delete(user_id, [old.id])
        self._recaller.forget(user_id, [old.id])
        self._engine.on_add(user_id, [stored])
        return stored

    def remove(self, user_id: str, ids: list[str]) -> list[str]:
        """Delete validated ids from the store, this process's indexes, the engine and
        the stages (these too when the store could not scrub the files yet: the rows
        are gone)."""
        pending: ErasureIncompleteError | None = None
        with self._user_locks(user_id):
            before = self._indexes.get(user_id).state
            try:
                gone = self._store.delete(user_id, ids)
            except ErasureIncompleteError as exc:
                gone, pending = list(exc.result or []), exc  # type: ignore[call-overload]
            if gone:
                self._indexes.deleted(user_id, gone, before)
        if gone:
            self._engine.on_delete(user_id, gone)
            self._recaller.forget(user_id, gone)
        if pending is not None:
            raise pending
        return gone

    def erase_user(self, user_id: str) -> int:
        """Every row of the user, and all this process keeps of them."""
        pending: ErasureIncompleteError | None = None
        n = 0
        with self._user_locks(user_id):
            try:
                n = self._store.delete_user(user_id)
            except ErasureIncompleteError as exc:
                pending = exc
            self._indexes.drop(user_id)
            self._slots.forget_user(user_id)
        self._engine.on_delete_user(user_id)
        self._recaller.forget_user(user_id)
        if pending is not None:
            raise pending
        return n

    def import_parsed(self, parsed: table.ImportedTable, user_id: str) -> Added:
        """Add an exported table's entries (all or nothing), keeping order, times and
        recall metadata."""
        if not parsed.memories:
            return Added([], parsed.skipped)
        if len(parsed.memories) > MAX_BATCH:
            raise InvalidInputError(f"a table imports at most {MAX_BATCH:,} entries at once")
        vectors, passages = parsed.vectors, parsed.passages
        if vectors is not None and passages is not None:
            vectors, passages = self._complete_passages(parsed.memories, vectors, passages)
        stored = self.insert(user_id, parsed.memories, vectors, passages)
        meta = [(m.id, n, t) for m, (n, t) in zip(stored, parsed.meta, strict=True)]
        self._taking_back(user_id, stored, lambda: table.write_meta(self._store, user_id, meta))
        return Added([m.id for m in stored], parsed.skipped)

    def check_batch(self, user_id: str, batch: Sequence[transfer.Record], skip: bool) -> set[str]:
        """The ids of a batch of imported memories the user has already (to leave
        out, with ``skip``; else an InvalidInputError naming the first such line); a
        batch naming one id twice is an InvalidInputError naming the second line."""
        seen: set[str] = set()
        for r in batch:
            if r.id in seen:
                raise InvalidInputError(f"line {r.line}: memory id {r.id!r} appears twice")
            seen.add(r.id)
        mine = set(self._store.get(user_id, list(seen)))
        if mine and not skip:
            first = next(r for r in batch if r.id in mine)
            raise InvalidInputError(
                f"line {first.line}: the user has a memory {first.id!r} already "
                "(on_conflict='skip' leaves such lines out)"
            )
        return mine

    def import_batch(self, user_id: str, batch: Sequence[transfer.Record], skip: bool) -> int:
        """Add a batch of imported memories in one transaction, with their ids, times
        and history (all or nothing); returns how many were added. An id the user has
        already: as :meth:`check_batch`; an id another user of this store holds (the
        same file imported for two users) gets a new id."""
        mine = self.check_batch(user_id, batch, skip)
        todo = [r for r in batch if r.id not in mine]
        if not todo:
            return 0
        elsewhere = set(self._store.taken([r.id for r in todo]))
        ids = [uuid.uuid4().hex if r.id in elsewhere else r.id for r in todo]
        now = time.time()
        created = [now if r.created_at is None else r.created_at for r in todo]
        vectors, passages = _given_vectors(todo)
        new = [r.memory for r in todo]
        if vectors is not None and passages is not None:
            vectors, passages = self._complete_passages(new, vectors, passages)
        stored = self.insert(user_id, new, vectors, passages, ids=ids, created_at=created)
        kept = [(m.id, r.history) for m, r in zip(stored, todo, strict=True)]
        self._taking_back(user_id, stored, lambda: restore(self._history, user_id, kept))
        return len(stored)

    def _taking_back(self, user_id: str, stored: list[StoredMemory], then: Any) -> None:
        """Run ``then`` after an import's insert; if it fails, take the inserted
        memories back out before its error propagates (all or nothing)."""
        try:
            then()
        except BaseException as exc:
            try:
                self.remove(user_id, [m.id for m in stored])
            except ErasureIncompleteError as pending:
                # the import's own error is what the caller must see; say the rest
                note = getattr(exc, "add_note", None)  # Python 3.11+
                if note is not None:
                    note(f"remem: the entries taken back out: {pending}")
            raise

    def _complete_passages(
        self, memories: Sequence[Any], vectors: np.ndarray, passages: list
    ) -> tuple[np.ndarray, list]:
        """A table written before passages existed holds long memories embedded whole:
        those get their passages (and the vector made of them) now."""
        limit, plan = self._embedder.max_pieces, self._passages
        if limit is None or plan is None:
            return vectors, passages
        todo = [
            i
            for i, (m, p) in enumerate(zip(memories, passages, strict=True))
            if p is None and self._embedder.count_pieces(m.index_text) > limit
        ]
        if todo:
            vecs, parts = embed_memories(self._embedder, [memories[i] for i in todo], plan)
            vectors, passages = vectors.copy(), list(passages)
            for j, i in enumerate(todo):
                vectors[i], passages[i] = vecs[j], parts[j]
        return vectors, passages


def _given_vectors(
    batch: Sequence[transfer.Record],
) -> tuple[np.ndarray | None, list[Passages | None] | None]:
    """A batch's vectors from its file when every line brings them (else None: the
    batch is embedded again, as ``add`` would)."""
    if not batch or any(r.vector is None for r in batch):
        return None, None
    return np.stack([r.vector for r in batch if r.vector is not None]), [r.passages for r in batch]


def _changed(old: StoredMemory, new: NewMemory) -> tuple[str, ...]:
    """The fields an update changes. Times compare as written, offset included: the
    same instant said in another zone is another time of saying (event times are read
    in the zone a memory was said in)."""
    out = [f for f in ("text", "metadata") if getattr(new, f) != getattr(old, f)]
    if new.timestamp.isoformat() != old.timestamp.isoformat():
        out.append("timestamp")
    return tuple(out)
