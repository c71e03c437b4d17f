"""The public facade: validates every argument once, builds the parts, routes.

``Memory`` owns no algorithm. A read goes to the recall pipeline
(``recall/pipeline.py``: the question read once, the engine's candidates, the time and
exact-identifier stages, the engine's extras, the verdict); a write to the write path
(``writes.py``: embed, one transaction, then indexes, engine and stages); an answer to
the reader (``answer/``) over a recall.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, replace
from functools import cached_property
from typing import IO, Any

from . import table, transfer
from .answer import Answer, Answerer, nlp
from .answer.context import build_context
from .answer.verdict import VerdictModel, verdict_model
from .config import MemoryConfig
from .embed import Embedder, create_embedder
from .embed.base import CheckedEmbedder
from .engines import EngineContext, create_engine
from .engines.base import EngineInfo
from .errors import ErasureIncompleteError, InvalidTypeError, StoreError
from .filters import Filters, check_filters
from .index.cache import IndexCache
from .llm import LLM, LazyLLM
from .question import Question
from .recall import Recalled, Recaller, trace_view
from .store import Store, open_store
from .store.extension import Extension, Tables, registered_extensions
from .types import Added, Hit, Recall, StoredMemory, Trace, Version
from .validation import (
    DEFAULT_MAX_TEXT_CHARS,
    MAX_TRACE_NODES,
    build_batch,
    build_memory,
    check_between,
    check_changes,
    check_choice,
    check_count,
    check_id,
    check_k,
    check_path,
    check_switch,
    check_text,
    check_user_id,
    parse_timestamp,
)
from .writes import Writer, check_embedder, embedder_id


class Memory:
    """Long-term memory for LLM agents, one isolated space per ``user_id``.

    >>> with Memory(path=":memory:", engine="hybrid") as mem:
    ...     _ = mem.add("I'm moving to Lisbon in May", user_id="u1", speaker="Ana")
    ...     mem.search("where is Ana moving?", user_id="u1", k=1)[0].text
    "I'm moving to Lisbon in May"
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        engine: str = "hybrid",
        *,
        embedder: str | Embedder = "minilm",
        engine_options: Mapping[str, Any] | None = None,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
        max_cached_users: int = 256,
        store: Store | None = None,
        store_options: Mapping[str, Any] | None = None,
        llm: str | LLM = "auto",
        llm_options: Mapping[str, Any] | None = None,
        answer_options: Mapping[str, Any] | None = None,
        passage_options: Mapping[str, Any] | None = None,
        time_options: Mapping[str, Any] | None = None,
        exact_options: Mapping[str, Any] | None = None,
        verdict: str | VerdictModel | Mapping[str, Any] | None = None,
        key: str | bytes | None = None,
    ):
        # every argument is checked here, before a model is loaded or a file created
        # (MemoryConfig.build takes these very arguments: a test holds the two together)
        config = MemoryConfig.build(**{name: v for name, v in locals().items() if name != "self"})
        self.max_text_chars = config.max_text_chars
        self._llm = LazyLLM(llm, config.llm_options)
        self._answer_options = asdict(config.answer)
        self._embedder = CheckedEmbedder(
            create_embedder(embedder) if isinstance(embedder, str) else embedder
        )
        self._passages = config.passages
        self._store = store or open_store(config.target, key=config.key, **vars(config.store))
        #: Where the memories live, for messages: a database URL without its password.
        self.path = str(getattr(self._store, "location", config.target))
        try:
            # every registered extension (the built-in engines' tables among them),
            # so any engine's delete erases what the others keep of a memory
            for ext in registered_extensions():
                self._store.attach(ext)
            check_embedder(self._store, self._embedder, self.path)
            self._indexes = IndexCache(
                self._store,
                self._embedder.dim,
                config.max_cached_users,
                self._passages.score if self._passages else "max",
            )
            ctx = EngineContext(self._store, self._embedder, self._indexes, self._llm)
            self.engine_name = engine
            self._engine = create_engine(engine, ctx, **config.engine_options)
            self._recaller = Recaller(
                self._engine,
                ctx,
                time=config.time,
                exact=config.exact,
                verdict=config.verdict
                or verdict_model(self._engine.verdict, f"engine {engine!r}'s declared verdict"),
            )
            if nlp.available():  # the typed reader, handed down to the engines
                ctx.spans = self._recaller.best_span
            self._writer = Writer(ctx, self._engine, self._recaller, self._passages)
        except BaseException:
            self._store.close()
            raise
        self._closed = False

    # -- lifecycle ----------------------------------------------------------------

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self._engine.close()
        finally:
            self._store.close()

    def __repr__(self) -> str:
        return f"Memory(path={self.path!r}, engine={self.engine_name!r})"

    @property
    def llm(self) -> LLM:
        """The reader and helper model, created on first use (loading a model is slow
        and search-only users never need one)."""
        return self._llm()

    def _check_open(self) -> None:
        if self._closed:
            raise StoreError("this Memory is closed")

    def _user(self, user_id: Any) -> str:
        """A user id checked, on an open Memory, as the store holds it (``_uid``)."""
        user_id = self._uid(user_id)
        self._check_open()
        return user_id

    def _uid(self, user_id: Any) -> str:
        """A user id checked and turned into the id the store's user columns hold (a
        keyed hash on an encrypted store: ``Store.user_ref``). Every call taking a
        user id passes it here first, so the engines, indexes and extensions below see
        only that id, and a dump of the database names no user."""
        return self._store.user_ref(check_user_id(user_id))

    def user_ref(self, user_id: str) -> str:
        """The id the database holds for ``user_id``: itself, or its keyed hash on an
        encrypted store. For an integration's own tables (``attach``), which must
        scope their rows by the id the store's other tables use."""
        return self._uid(user_id)

    # -- writes -------------------------------------------------------------------

    def add(
        self,
        text: str,
        user_id: str,
        *,
        speaker: str | None = None,
        timestamp: Any = None,
        session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Store one memory and return its id."""
        user_id = self._uid(user_id)
        new = build_memory(
            text,
            speaker=speaker,
            timestamp=timestamp,
            session_id=session_id,
            metadata=metadata,
            max_text_chars=self.max_text_chars,
        )
        return self._insert(user_id, [new])[0].id

    def add_many(
        self,
        items: Iterable[Mapping[str, Any] | str],
        user_id: str,
        *,
        skip_blank: bool = False,
    ) -> Added:
        """Store many memories in one transaction (all or none); ids come back in order.

        One bad item refuses the batch, naming it. ``skip_blank=True`` leaves out the
        items whose text is blank (empty, whitespace or invisible characters only: a
        chat export's lone zero-width space) instead, and stores the rest; the
        returned list's ``skipped`` gives their positions. Any other problem of any
        item still refuses the whole batch."""
        user_id = self._uid(user_id)
        skip_blank = check_switch(skip_blank, "skip_blank")
        new, skipped = build_batch(items, self.max_text_chars, skip_blank=skip_blank)
        return Added([m.id for m in self._insert(user_id, new)] if new else [], skipped)

    def _insert(self, user_id: str, new: list) -> list[StoredMemory]:
        self._check_open()
        return self._writer.insert(user_id, new)

    def update(
        self,
        memory_id: str,
        user_id: str,
        *,
        text: str | None = None,
        metadata: dict[str, Any] | None = None,
        timestamp: Any = None,
    ) -> Hit:
        """Change a memory's text, metadata or time of saying (None: kept; metadata is
        replaced whole) and return it as it now is (score 1.0).

        The new version is embedded and indexed again, and every engine forgets what
        it derived from the old one in the same transaction, so no read ever returns
        the old text; :meth:`history` keeps both. The id stays, and so do the speaker
        and session; the memory then counts as the newest for order-dependent state
        (``writes.py`` ``Writer.update`` says what that means per engine). Values equal
        to the current ones change nothing and write no version. Raises
        :class:`~remem.errors.NotFoundError` when the user has no memory with that id
        (another user's id looks exactly the same), and
        :class:`~remem.errors.InvalidInputError` when nothing is given to change."""
        user_id = self._uid(user_id)
        memory_id = check_id(memory_id, "memory id")
        text, metadata, when = check_changes(text, metadata, timestamp, self.max_text_chars)
        self._check_open()
        row = self._writer.update(user_id, memory_id, text=text, metadata=metadata, timestamp=when)
        return self._recaller.events.hits(user_id, [row], [1.0])[0]

    def history(self, memory_id: str, user_id: str) -> list[Version]:
        """The memory's versions, oldest first: version 1 as added, then one per
        :meth:`update` that changed something, each with its text, metadata, time of
        saying, the fields it changed and when it was written (the last is the memory
        as it is now). Erased with the memory (:meth:`delete`, :meth:`delete_user`).
        :class:`~remem.errors.NotFoundError` as :meth:`update`."""
        user_id = self._uid(user_id)
        memory_id = check_id(memory_id, "memory id")
        self._check_open()
        return self._writer.history(user_id, memory_id)

    def delete(self, memory_id: str, user_id: str) -> bool:
        """Delete one memory; False when the user has no memory with that id.

        Like every erase it returns once the text is gone from the database files too,
        or raises :class:`~remem.errors.ErasureIncompleteError` (the memory is deleted,
        its bytes not yet: another connection holds an older snapshot; ``result`` is
        what this call would have returned, and :meth:`scrub` finishes the job). Only
        the user whose erase it is hears of it: a retry raises it again (``result``
        True, not False) until the scrub is done; any other delete that finds nothing
        returns False at once, so no user learns of another's erase."""
        user_id = self._uid(user_id)
        memory_id = check_id(memory_id, "memory id")
        self._check_open()
        try:
            return bool(self._writer.remove(user_id, [memory_id]))
        except ErasureIncompleteError as exc:
            exc.result = bool(exc.result)
            raise

    def delete_user(self, user_id: str) -> int:
        """Erase everything of the user (rows, vectors, indexes); returns memories
        removed. Raises :class:`~remem.errors.ErasureIncompleteError` as :meth:`delete`:
        a retry while the scrub is pending reports the erase's count, not the 0 it
        finds (and returns it if it finishes the scrub)."""
        return self._writer.erase_user(self._user(user_id))

    def scrub(self) -> None:
        """Finish scrubbing from the database files what earlier erases deleted (an
        erase that raised :class:`~remem.errors.ErasureIncompleteError`); raises it
        again while another connection still holds a snapshot from before. Any later
        write, erase or ``close`` also tries; with nothing pending this does nothing."""
        self._check_open()
        self._store.scrub()

    # -- reads --------------------------------------------------------------------

    def search(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        *,
        now: Any = None,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> list[Hit]:
        """The user's k most relevant memories for the query, best first. ``now`` is
        the moment the question is asked (default: the current time): a time the
        query names ("10 days ago", "last Saturday", "in May") is taken relative to
        it, and memories made then rank first among the relevant ones.

        ``filters`` are hard conditions (``remem.filters``: ``session_id``,
        ``speaker``, ``metadata``, ``after``/``before`` on the time of saying,
        ``event_after``/``event_before`` on the times a memory talks about), applied
        before ranking cuts, so k results come back whenever k memories pass; the
        same on recall, answer, trace and memories."""
        question, user_id, k = self._question(query, user_id, k, now, what="query")
        restrict = self._recaller.restriction(user_id, check_filters(filters))
        return self._recaller.hits(user_id, self._recaller.rank(user_id, question, k, restrict))

    def recall(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        *,
        now: Any = None,
        explain: bool = True,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> Recall:
        """Search plus the engine's confidence, refusal verdict and explanations.

        Engines without a confidence model (the baselines) report the top score as
        confidence and refuse only when nothing is recalled: with no hits at all (a
        user without memories) every engine refuses and says ``not_in_memory``.
        ILSTMA runs its per-question flow: the hits come from its cache on a hit
        (possibly fewer than k), ``cache_hit``, ``segments`` and ``timings`` are filled;
        ``now`` is its clock for days since last recall (default: the time of the
        user's newest memory, so a replayed history ages as it did live).
        ``explain=False`` skips tracing each hit's activation path (SYNAPSE), for
        callers that need only the verdict. ``filters``: as :meth:`search` (ILSTMA
        then skips its cache and leaves its short-term memory as it was).
        """
        return self._recall(query, user_id, k, now, explain=explain, filters=filters).recall

    def trace(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        *,
        now: Any = None,
        limit: int = 40,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> Trace:
        """:meth:`recall`, plus the part of the engine's graph the query activated
        (SYNAPSE): at most ``limit`` nodes (the hits first, then the most activated
        episodes and concepts) and the edges that carried activation between them,
        read from the very activation the recall ran. For the page that draws it
        (``remem ui``); an engine without a graph gives ``graph=False`` and no nodes."""
        ref = self._uid(user_id)  # _recall takes the user's own id
        limit = check_between(limit, "limit", 1, MAX_TRACE_NODES)
        recalled = self._recall(query, user_id, k, now, explain=True, filters=filters)
        return trace_view(recalled, self._store, ref, limit)

    def answer(
        self,
        question: str,
        user_id: str,
        k: int = 10,
        *,
        now: Any = None,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> Answer:
        """Answer from the user's memory, or refuse ("Not mentioned in the conversation").

        Recall runs the engine's own flow (SYNAPSE's confidence gate refuses without
        calling the LLM; ILSTMA answers from its cache on a hit), the evidence is fitted
        to the context budget, and the reader answers under the verification rule. With
        ``llm="none"`` (and the bundled model) the answer is the span of the evidence
        that answers, of the kind asked (``answer/typed.py``). ``filters``: as
        :meth:`search`; the answer reads only the memories that pass.
        """
        answers = self.answer_each({"": self._reader}, question, user_id, k, now, filters)
        return answers[""]

    def answer_each(
        self,
        readers: Mapping[str, Answerer],
        question: str,
        user_id: str,
        k: int = 10,
        now: Any = None,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> dict[str, Answer]:
        """One recall of ``question`` read by each of ``readers`` (name ->
        :class:`remem.answer.Answerer`), exactly as :meth:`answer` reads it (its notes,
        its flow's prepared answer, the reader's view of the user's memories): readers
        compared on the same evidence (the benchmark's readers side by side). Each
        answer's latency is the recall's plus its reader's own."""
        t0 = time.perf_counter()
        read, user_id, k = self._question(question, user_id, k, now, what="question")
        restrict = self._recaller.restriction(user_id, check_filters(filters))
        recalled = self._recaller.recall(user_id, read, k, explain=True, restrict=restrict)
        recall_s = time.perf_counter() - t0
        # the question's ranking taken deeper, as a search under the same filters: no
        # second recall, whose flow (ILSTMA's short-term memory) would count the
        # question twice
        around = replace(
            self._recaller.around(user_id),
            deeper=lambda n: self._recaller.hits(
                user_id, self._recaller.rank(user_id, read, n, restrict)
            ),
        )
        return {
            name: reader.answer(
                recalled.question,
                recalled.recall,
                notes=recalled.notes,
                prepared=recalled.prepared,
                extra_calls=recalled.llm_calls,
                started=time.perf_counter() - recall_s,
                around=around,
            )
            for name, reader in readers.items()
        }

    def context(
        self,
        query: str,
        user_id: str,
        *,
        k: int = 10,
        max_tokens: int = 1000,
        now: Any = None,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> str:
        """A prompt-ready block of the user's memory for an agent's next LLM call (a
        system message), at most ``max_tokens`` by :func:`remem.tokens.estimate_tokens`.

        The :meth:`recall` of ``query`` (``k``, ``now``, ``filters`` as there), its
        memories best first, each with its date and speaker; one the time stage found
        superseded says so, and the newer one is kept. Where the engine keeps a
        short-term memory (ILSTMA) its summary, profile and recent turns come first,
        under short headings. No LLM is called or loaded. An empty string when nothing
        is recalled (a user without memories). ``answer/context.py`` says how the block
        is fitted."""
        question, user_id, k = self._question(query, user_id, k, now, what="query")
        max_tokens = check_count(max_tokens, "max_tokens")
        restrict = self._recaller.restriction(user_id, check_filters(filters))
        recalled = self._recaller.recall(user_id, question, k, explain=False, restrict=restrict)
        return build_context(recalled.recall, max_tokens, lambda ids: self._rows(user_id, ids))

    def _rows(self, user_id: str, ids: list[str]) -> list[Hit]:
        """The user's memories of ``ids`` that exist, as hits (score 1.0)."""
        rows = self._store.get(user_id, ids) if ids else {}
        found = [rows[i] for i in ids if i in rows]
        return self._recaller.events.hits(user_id, found, [1.0] * len(found))

    def _question(
        self, query: Any, user_id: Any, k: Any, now: Any, *, what: str
    ) -> tuple[Question, str, int]:
        """Every argument of a read, validated once; the question read once."""
        query = check_text(query, self.max_text_chars, what=what)
        user_id = self._uid(user_id)
        k = check_k(k)
        when = None if now is None else parse_timestamp(now, what="now")
        self._check_open()
        return self._recaller.read(query, when), user_id, k

    def _recall(
        self,
        query: Any,
        user_id: Any,
        k: Any,
        now: Any,
        *,
        explain: bool,
        what: str = "query",
        filters: Any = None,
    ) -> Recalled:
        question, user_id, k = self._question(query, user_id, k, now, what=what)
        restrict = self._recaller.restriction(user_id, check_filters(filters))
        return self._recaller.recall(user_id, question, k, explain=explain, restrict=restrict)

    @cached_property
    def _reader(self) -> Answerer:
        """The answering layer, made on first use (it needs the LLM; two threads may
        each make one at first, alike: it holds only the LLM and the options)."""
        return Answerer(self._llm(), **self._answer_options)

    def short_term(self, user_id: str) -> dict[str, Any]:
        """The engine's short-term memory of the user (ILSTMA): its five segments, their
        estimated tokens, the questions seen and the buffered metadata writes."""
        return self._engine.short_term(self._user(user_id))

    @property
    def verdict_model(self) -> VerdictModel:
        """The "not in memory" verdict's model (``answer/verdict.py``): the one
        ``Memory(verdict=...)`` gave, else the one the engine declares
        (``Engine.verdict``), else the default family's; ``.family`` says which."""
        return self._recaller.verdict.model

    @property
    def engine_info(self) -> EngineInfo:
        """The engine's name, abilities (gate, flow, short-term memory) and settings."""
        engine = self._engine
        return EngineInfo(self.engine_name, engine.abilities, engine.config())

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        """Sizes for monitoring and benchmarks: ``index_bytes`` of this process's
        in-memory indexes (all users); with ``user_id`` also the user's ``memories``
        and the engine's own state of them (a graph's ``active_nodes``, ...)."""
        self._check_open()
        out: dict[str, Any] = {"index_bytes": self._indexes.nbytes()}
        if user_id is not None:
            user_id = self._uid(user_id)
            out["memories"] = self._store.count(user_id)
            out.update(self._engine.stats(user_id))
        return out

    def flush(self, user_id: str | None = None) -> None:
        """Write what the engine buffers in this process (ILSTMA's recall counts of
        cache hits, SYNAPSE's record of which nodes queries reached); ``close`` does
        it too. For one user, or all."""
        if user_id is not None:
            user_id = self._uid(user_id)
        self._check_open()
        self._engine.flush(user_id)

    def export_table(self, user_id: str, path: str | os.PathLike[str]) -> int:
        """Write the user's global memory table (ILSTMA's one-JSON-file shape, for any
        engine) to ``path``; returns the number of entries."""
        path = check_path(path)
        data = self.export_data(user_id)
        table.write_json(data, path)
        return len(data["entries"])

    def export_data(self, user_id: str) -> dict[str, Any]:
        """The user's global memory table as the JSON-ready dict ``export_table`` writes."""
        name = check_user_id(user_id)
        user_id = self._user(name)
        self._engine.flush(user_id)  # recall metadata buffered by cache hits
        data = table.export_rows(self._store, user_id, embedder_id(self._embedder))
        return {**data, "user_id": name}  # the user's own id, not the store's hash

    def import_table(
        self, path: str | os.PathLike[str], user_id: str, *, skip_blank: bool = False
    ) -> Added:
        """Add every entry of an exported table to ``user_id`` (all or nothing), keeping
        order, times and recall metadata; vectors are reused when the file was made with
        this embedder, else recomputed. Returns the new ids in table order.
        ``skip_blank=True`` leaves out entries whose text is blank, as ``add_many``
        does (``skipped``: their positions in table order)."""
        return self._import(table.read, check_path(path), user_id, skip_blank)

    def import_data(
        self, data: Mapping[str, Any], user_id: str, *, skip_blank: bool = False
    ) -> Added:
        """``import_table`` for a table already decoded from JSON (a request body)."""
        return self._import(table.parse, data, user_id, skip_blank)

    def _import(self, read: Callable[..., Any], source: Any, user_id: Any, skip: Any) -> Added:
        user_id = self._uid(user_id)
        skip = check_switch(skip, "skip_blank")
        self._check_open()
        dim, limit = self._embedder.dim, self.max_text_chars
        parsed = read(source, embedder_id(self._embedder), dim, limit, skip_blank=skip)
        return self._writer.import_parsed(parsed, user_id)

    def export_jsonl(
        self, user_id: str, target: str | os.PathLike[str] | IO[Any], *, vectors: bool = False
    ) -> int:
        """Write every memory of the user, with its id, times, session, speaker,
        metadata and history, as versioned JSONL (``remem.transfer`` says the format)
        to ``target``, a path (written atomically) or an open file; returns the number
        of memories. Streams: a page of memories at a time, whatever their number.
        ``vectors=True`` adds each memory's vector (an import by the same embedder
        then embeds nothing)."""
        if not isinstance(target, (str, os.PathLike)) and not hasattr(target, "write"):
            raise InvalidTypeError(
                f"target must be a path or an open file, not {type(target).__name__}"
            )
        return transfer.write(self.export_lines(user_id, vectors=vectors), target)

    def export_lines(
        self, user_id: str, *, vectors: bool = False, as_user: str | None = None
    ) -> Iterator[str]:
        """:meth:`export_jsonl`'s lines, each ending in a newline, as a lazy iterator
        (a server streams them as its answer). Arguments are checked now, the store
        read as the lines are. ``as_user``: the user id the file names (default
        ``user_id``; a server writes its tenant's own name, never the stored one)."""
        name = check_user_id(user_id) if as_user is None else check_id(as_user, "as_user")
        user_id = self._user(user_id)
        vectors = check_switch(vectors, "vectors")
        head = transfer.header(
            name, embedder_id(self._embedder), self._embedder.dim, self.engine_name, vectors
        )
        return transfer.export_lines(self._store, user_id, head)

    def import_jsonl(
        self, source: str | os.PathLike[str] | IO[Any], user_id: str, *, on_conflict: str = "error"
    ) -> int:
        """Add the memories of a JSONL export (:meth:`export_jsonl`; a path or an open
        file) to ``user_id``, keeping their ids, times, sessions, speakers, metadata and
        history; every engine derives its own state from them as from an ``add``.
        Returns the number added. Vectors in the file are used when its embedder is
        this Memory's, else the texts are embedded again.

        Every line is checked before anything is written when the source can be read
        twice (a path, a seekable file): a bad line (not JSON, a newer version, no
        text, a bad time, ...) is an :class:`~remem.errors.InvalidInputError` naming
        it, and nothing is imported. A pipe is read once: batches of
        ``transfer.BATCH`` memories are then each all or nothing, and those before a
        bad line stay. ``on_conflict``: ``"error"`` refuses a memory id the user has
        already (checked with the lines), ``"skip"`` leaves such lines out (so an
        interrupted import can run again). An id another user of this store holds
        gets a new id."""
        user_id = self._uid(user_id)
        skip = check_choice(on_conflict, "on_conflict", ("error", "skip")) == "skip"
        self._check_open()
        start = transfer.rewind(source)
        if start is not None:  # every line checked first: a bad one imports nothing
            for batch in self._import_batches(source):
                self._writer.check_batch(user_id, batch, skip)
            if not isinstance(source, (str, os.PathLike)):
                source.seek(start)
        return sum(
            self._writer.import_batch(user_id, batch, skip)
            for batch in self._import_batches(source)
        )

    def _import_batches(self, source: Any) -> Iterator[list[transfer.Record]]:
        embedder, dim, limit = embedder_id(self._embedder), self._embedder.dim, self.max_text_chars
        with transfer.opened(source) as fh:
            yield from transfer.batches(transfer.read(fh, embedder, dim, limit))

    def attach(self, extension: Extension) -> Tables:
        """Keep ``extension``'s own tables in this memory's database (the store's one
        extension hook, see ``remem.store.extension``): created or migrated now, erased
        with the users and memories they name. The servers' API keys live this way."""
        self._check_open()
        return self._store.attach(extension)

    def warm_up(self) -> None:
        """Load the embedding model now. It is otherwise loaded by the first
        embedding, so that a Memory that never embeds (``remem count``) never pays
        for it; a server calls this at start, so it answers its health check only
        when its first write or search will not wait for the model."""
        self._check_open()
        self._embedder.load()

    def ping(self) -> None:
        """Raise StoreError unless the store answers (health checks)."""
        self._check_open()
        self._store.get_meta("schema_version")

    def consolidate(self, user_id: str) -> int:
        """Run the engine's pending consolidation now; returns memories processed."""
        return int(self._engine.consolidate(self._user(user_id)))

    def get(self, memory_id: str, user_id: str) -> Hit | None:
        """One memory by id (score 1.0), or None; another user's id looks missing."""
        user_id = self._uid(user_id)
        memory_id = check_id(memory_id, "memory id")
        self._check_open()
        row = self._store.get(user_id, [memory_id]).get(memory_id)
        return self._recaller.events.hits(user_id, [row], [1.0])[0] if row else None

    def memories(
        self,
        user_id: str,
        *,
        limit: int | None = None,
        offset: int = 0,
        filters: Mapping[str, Any] | Filters | None = None,
    ) -> list[Hit]:
        """The user's memories in insertion order (score 1.0); ``limit`` and ``offset``
        page through them without reading the rest. With ``filters`` (as
        :meth:`search`) only the memories that pass are listed, and paged."""
        user_id = self._uid(user_id)
        if limit is not None:
            limit = check_count(limit, "limit")
        offset = check_count(offset, "offset", zero=True)
        checked = check_filters(filters)
        self._check_open()
        if checked is None:
            rows = self._store.load(user_id, with_embeddings=False, limit=limit, offset=offset)
        else:
            rows = self._passing_rows(user_id, checked, limit, offset)
        return self._recaller.events.hits(user_id, rows, [1.0] * len(rows))

    def _passing_rows(
        self, user_id: str, checked: Any, limit: int | None, offset: int
    ) -> list[StoredMemory]:
        """One page of the memories that pass a listing's filters, in insertion order
        (the mask over the user's index, then the page's rows by id)."""
        restrict = self._recaller.restriction(user_id, checked)
        assert restrict is not None
        with self._indexes.use(user_id) as idx:
            ids = [idx.ids[p] for p in restrict.positions(idx).tolist()]
        page = ids[offset : None if limit is None else offset + limit]
        rows = self._store.get(user_id, page)
        return [rows[i] for i in page if i in rows]

    def count(self, user_id: str) -> int:
        return self._store.count(self._user(user_id))

    def users(self) -> list[str]:
        self._check_open()
        return self._store.users()
