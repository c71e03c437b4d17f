"""The ILSTMA engine: global memory table, short-term memory, cache prefetch.

``search`` (the Hit contract) runs the index-checked retrieval of section 3.4 and
fills up to k with the global retriever's ranking. ``recall`` is the paper's
per-question flow (3.6.2), kept per user in the process:

1. hit judgment on the cached dialogues (the first question always misses);
2. hit: answer from the short-term memory - no retrieval, no query embedding with
   the lexical judge; the used dialogues' recall metadata is buffered (deferred
   write) until the cache is next overwritten, or the engine closes;
3. miss: flush the buffer, clear summary and cache, retrieve (index-checked), write
   the recalled entries' metadata, pick the summary closest to the question and the
   profile, then prefetch: score the table entries within ``offset`` positions of
   the recalled dialogue with Eq. 4 and cache the best ``cache_size``.

The paper scores entries once at creation and re-scores changed ones so it never
sorts the whole table; remem only ever scores the 2 * offset + 1 window, which is
cheaper still, so scores are computed when needed and never stored.

The two retrievers of 3.4 run concurrently: the global retriever (any remem engine,
``hybrid`` by default) in a worker thread, the cosine top-k in the caller's thread
on a snapshot of the vectors (numpy releases the GIL in the product). The paper
embeds "index + dialogue" for the cosine side so that a hit is tied to its index;
remem's vectors are the memories' own, tied to their index by position, so no
second embedding of every memory is needed.
"""

from __future__ import annotations

import json
import logging
import time
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from ...errors import LLMError
from ...index.cache import UserIndex
from ...index.dense import top_k
from ...index.restrict import Restriction
from ...llm import ask_json, prompts
from ...question import Question
from ...redact import failure
from ...store.base import delete_mark, timestamp_epoch
from ...tokens import clip_tokens
from ...types import StoredMemory
from ..base import (
    Abilities,
    Engine,
    EngineContext,
    Found,
    Scored,
    ShortTermFlow,
    UserLocks,
    restricted_search,
)
from ..retries import LLMFailures
from .config import IlstmaConfig
from .forgetting import prefetch_score
from .judge import EmbeddingJudge, HitJudge, LexicalJudge, LLMJudge, TypedJudge
from .stm import Dialogue, ShortTermMemory
from .storage import ILSTMA_TABLES, IlstmaStorage, NoteRow
from .summaries import (
    LLMSummariser,
    Piece,
    Summary,
    llm_traits,
    merge,
    render_profile,
    summarise_group,
    traits,
    update_profile,
)

DAY = 86_400.0
VERIFY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"relevant": {"type": "boolean"}},
    "required": ["relevant"],
}
log = logging.getLogger("remem.ilstma")
#: The reader's share of the short-term memory (estimated tokens): the summary and the
#: profile go beside the recalled memories, which keep the rest of its budget.
NOTE_TOKENS = {"summary": 120, "personality": 60}


@dataclass
class _Notes:
    key: tuple
    summarized_seq: int
    summaries: list[Summary]
    profile: dict[str, list[Piece]]
    profile_seq: int  # memories up to here are in the profile
    _matrix: np.ndarray | None = None

    def matrix(self) -> np.ndarray:
        """The summaries' vectors, stacked once per change (questions compare with all)."""
        if self._matrix is None or len(self._matrix) != len(self.summaries):
            self._matrix = np.stack([s.vec for s in self.summaries])
        return self._matrix


@dataclass
class _Summarised:
    """One batch of ``summarise``: how many groups were done, the summaries after
    them (``changed`` by sid: the ones to write), the profile and the trait notes the
    LLM found, and the LLM that found them (None: the profile is the offline one)."""

    groups: int
    summaries: list[Summary]
    changed: dict[int, Summary]
    profile: dict[str, list[Piece]]
    trait_rows: list[NoteRow]
    llm: Any


class IlstmaEngine(Engine):
    name = "ilstma"
    # a cache hit answers without the query embedding (with the lexical judge)
    needs_query_vector = False
    abilities = Abilities(flow=True, short_term=True)
    filters = True
    tables = (ILSTMA_TABLES,)
    config_class = IlstmaConfig
    # no verdict model was fitted on ILSTMA's recalls (a cache hit's short-term memory,
    # else its global retriever's ranking): the default family (answer/verdict.py)
    verdict = None

    def __init__(self, ctx: EngineContext, *, variant: str = "ilstma", **options: Any):
        super().__init__(ctx)
        self.name = variant  # type: ignore[misc]
        self.cfg = IlstmaConfig.for_engine(variant, options)
        self.db = IlstmaStorage(ctx.store.attach(ILSTMA_TABLES))
        from .. import create_engine

        self.retriever = create_engine(self.cfg.global_retriever, ctx)
        self._stm: dict[str, ShortTermMemory] = {}
        self._notes: dict[str, _Notes] = {}
        self._locks = UserLocks()
        self._llm_failures = LLMFailures(
            "LLM summary", "extractive fallback", self.cfg.llm_attempts, log
        )
        self._pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="remem-ilstma")
        self._warned_typed = False

    def config(self) -> dict[str, Any]:
        return asdict(self.cfg)

    # -- writes -------------------------------------------------------------------

    def on_add(self, user_id: str, memories: list[StoredMemory]) -> None:
        self.retriever.on_add(user_id, memories)
        with self._locks(user_id):
            stm = self._stm_for(user_id)
            for m in memories:
                stm.push_turn(m.id, m.index_text)
        self.summarise(user_id)

    def on_delete(self, user_id: str, ids: list[str]) -> None:
        self.retriever.on_delete(user_id, ids)
        super().on_delete(user_id, ids)
        with self._locks(user_id):
            self._notes.pop(user_id, None)  # summaries and profile quote memories
            stm = self._stm.get(user_id)
            if stm is not None:
                gone = set(ids)
                stm.forget(gone.__contains__)

    def on_delete_user(self, user_id: str) -> None:
        self.retriever.on_delete_user(user_id)
        super().on_delete_user(user_id)
        with self._locks(user_id):
            self._notes.pop(user_id, None)
            self._stm.pop(user_id, None)

    def close(self) -> None:
        """Write every buffered recall-metadata update (nothing is lost on a clean close)."""
        self.flush()
        self._pool.shutdown(wait=True)
        self.retriever.close()

    def flush(self, user_id: str | None = None) -> None:
        for user in [user_id] if user_id is not None else list(self._stm):
            with self._locks(user):
                self._flush(user)

    def _flush(self, user_id: str) -> None:
        stm = self._stm.get(user_id)
        if stm is not None and stm.deferred:
            rows = [(m, n, t) for m, (n, t) in stm.pending.items()]
            self.db.table_meta_bump(user_id, rows)
            # the cache stays: its dialogues now carry the counts just written
            stm.cache = [
                replace(d, recall_times=stm.deferred[d.memory_id][0])
                if d.memory_id in stm.deferred
                else d
                for d in stm.cache
            ]
            stm.deferred.clear()
            stm.pending.clear()

    # -- summaries and profile ----------------------------------------------------

    def summarise(self, user_id: str) -> int:
        """Summarise every complete group of ``summary_group`` new memories (3.5)."""
        cfg = self.cfg
        done = 0
        with self._locks(user_id):
            for _attempt in range(3):
                notes = self._load_notes(user_id, profile=False)
                # one load serves the profile and the summaries: both lag by a few rows
                start = min(notes.summarized_seq, notes.profile_seq)
                fresh = self.ctx.store.load(user_id, after_seq=start)
                if cfg.personality == "extractive":
                    self._update_profile(notes, [r for r in fresh if r.seq > notes.profile_seq])
                rows = [r for r in fresh if r.seq > notes.summarized_seq]
                groups = len(rows) // cfg.summary_group
                if groups == 0:
                    return done
                rows = rows[: groups * cfg.summary_group]
                batch = self._summarise_groups(user_id, notes, rows, groups)
                if batch.groups == 0:
                    return done
                rows = rows[: batch.groups * cfg.summary_group]
                out = [_summary_row(s) for s in batch.changed.values()]
                out += batch.trait_rows
                ok = self.db.notes_save(user_id, out, rows[-1].seq, notes.summarized_seq)
                if not ok:  # another process summarised meanwhile: reload, redo
                    self._notes.pop(user_id, None)
                    continue
                if batch.llm is not None:
                    notes.profile = batch.profile
                notes.summaries = batch.summaries
                notes._matrix = None
                notes.summarized_seq = rows[-1].seq
                return len(rows)
        return done

    def _summarise_groups(
        self, user_id: str, notes: _Notes, rows: list[StoredMemory], groups: int
    ) -> _Summarised:
        """Summarise ``groups`` groups of ``rows`` in order, each merged into the
        latest summary, with the LLM where configured (:meth:`_summarise_with_llm`),
        else or on its failure the offline method. An LLM failure that is queued stops
        the batch: that group and the rest wait for the next add."""
        cfg = self.cfg
        summaries = list(notes.summaries)
        changed: dict[int, Summary] = {}
        summariser = self._llm_summariser()
        llm = self._llm(cfg.personality)
        profile = {k: list(v) for k, v in notes.profile.items()}
        trait_rows: list[NoteRow] = []
        for g in range(groups):
            group = rows[g * cfg.summary_group : (g + 1) * cfg.summary_group]
            latest = summaries[-1] if summaries else None
            sid = latest.sid + 1 if latest else 0
            written: list[Summary] = []  # the LLM's summary, kept even if its traits fail
            try:
                self._summarise_with_llm(
                    summariser, llm, latest, group, sid, profile, trait_rows, written
                )
                self._llm_failures.succeeded(user_id)
            except LLMError as exc:
                if self._llm_failures.queue(user_id, exc):
                    groups = g  # this group and the rest wait for the next add
                    break
            s = written[0] if written else None
            if s is None:
                s = merge(
                    latest,
                    summarise_group(group, cfg.summary_pieces),
                    sid,
                    cfg.summary_merge,
                    cfg.summary_max_pieces,
                    span=(group[0].seq, group[-1].seq),
                )
            if latest is not None and s.sid == latest.sid:
                summaries[-1] = s
            else:
                summaries.append(s)
            changed[s.sid] = s
        return _Summarised(groups, summaries, changed, profile, trait_rows, llm)

    def _summarise_with_llm(
        self,
        summariser: LLMSummariser | None,
        llm: Any,
        latest: Summary | None,
        group: list[StoredMemory],
        sid: int,
        profile: dict[str, list[Piece]],
        trait_rows: list[NoteRow],
        written: list[Summary],
    ) -> None:
        """The LLM's part of one group: its summary (appended to ``written`` as soon as
        it exists) and each speaker's traits, applied to ``profile`` and
        ``trait_rows`` only once every speaker's call succeeded. Raises LLMError."""
        cfg = self.cfg
        if summariser is not None:
            written.append(summariser.summarise(latest, group, sid, cfg.summary_merge))
        group_traits = []  # applied only once the whole group succeeded
        if llm is not None:
            for speaker in dict.fromkeys(m.speaker or "user" for m in group):
                mine = [m for m in group if (m.speaker or "user") == speaker]
                found = llm_traits(
                    llm,
                    self.ctx.embedder.embed_one,
                    speaker,
                    mine,
                    cfg.personality_traits,
                )
                group_traits.append((speaker, found))
        for speaker, found in group_traits:
            update_profile(profile, [(speaker, p) for p in found], cfg.personality_traits)
            trait_rows.append(_trait_row(speaker, group, found))

    def _llm(self, setting: str) -> Any:
        """The Memory's LLM when ``setting`` asks for it and it generates (llm="none"
        will never summarise: then the offline method, with no queueing)."""
        if setting != "llm":
            return None
        llm = self.ctx.llm()
        return llm if llm.generates else None

    def _llm_summariser(self) -> LLMSummariser | None:
        llm = self._llm(self.cfg.summariser)
        if llm is None:
            return None
        return LLMSummariser(llm, self.ctx.embedder.embed_one)

    def _load_notes(self, user_id: str, *, profile: bool = True) -> _Notes:
        """The user's summaries (stored) and profile, kept current incrementally.

        The offline profile is cheap to derive, so it is computed from the memories
        instead of stored: deleting a memory then removes its traits with no
        bookkeeping. (An LLM profile, which is not cheap, will be stored as a note.)
        """
        state = self.ctx.store.user_state(user_id)
        key = delete_mark(state) or ("", 0)
        notes = self._notes.get(user_id)
        if notes is None or notes.key != key:
            notes = _Notes(key, -2, [], {}, -1)
            self._notes[user_id] = notes
        seq = self.db.notes_state(user_id)
        if seq != notes.summarized_seq:
            seq, rows = self.db.notes_load(user_id)
            with self.ctx.indexes.use(user_id) as idx:

                def piece(p: dict) -> Piece | None:
                    if "vec" in p:  # an LLM-written piece carries its own embedding
                        vec = np.asarray(p["vec"], dtype=np.float32)
                        return Piece(p["text"], vec, p["seq"], "")
                    pos = idx.pos.get(p["memory_id"])
                    if pos is None:
                        return None
                    vec = np.array(idx.dense.vector(pos))
                    return Piece(p["text"], vec, p["seq"], p["memory_id"])

                summaries = []
                stored_traits: dict[str, list[Piece]] = {}
                for r in sorted(rows, key=lambda r: (r.first_seq, r.kind)):
                    pieces = [x for x in (piece(p) for p in json.loads(r.pieces)) if x]
                    if r.kind == "summary" and pieces:
                        summaries.append(Summary(r.nid, r.first_seq, r.last_seq, pieces))
                    elif r.kind == "trait":  # replayed in order: newer traits overwrite
                        found = [(r.speaker or "user", p) for p in pieces]
                        update_profile(stored_traits, found, self.cfg.personality_traits)
                if self.cfg.personality == "llm":
                    notes.profile = stored_traits
            notes.summaries = sorted(summaries, key=lambda s: s.sid)
            notes._matrix = None
            notes.summarized_seq = seq
        if profile and self.cfg.personality == "extractive":
            new = self.ctx.store.load(user_id, after_seq=notes.profile_seq)
            self._update_profile(notes, new)
        return notes

    def _update_profile(self, notes: _Notes, new: list[StoredMemory]) -> None:
        if new:
            update_profile(notes.profile, traits(new), self.cfg.personality_traits)
            notes.profile_seq = new[-1].seq

    # -- retrieval (3.4) ----------------------------------------------------------

    def search(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        *,
        restrict: Restriction | None = None,
    ) -> list[Scored]:
        with self._locks(user_id):
            self._current(user_id)  # forget what another process deleted meanwhile
        if query_vec is None:
            query_vec = self.ctx.embedder.embed_one(query)
        recalled, ranking = self._retrieve(user_id, query, query_vec, k, restrict)
        return _fill(recalled, ranking, k)

    def _retrieve(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        restrict: Restriction | None = None,
    ) -> tuple[list[Scored], list[Scored]]:
        """(recalled dialogues, the global retriever's top-k): index-checked retrieval,
        both retrievers ranking only what a read's filters let through."""
        if query_vec is None:
            return [], []
        future = self._pool.submit(
            restricted_search,
            self.retriever,
            self.ctx,
            user_id,
            query,
            query_vec,
            max(k, 1),
            restrict,
        )
        idx = self.ctx.indexes.get(user_id)
        with idx.lock:
            cos = idx.similarity(query_vec)
            if restrict is not None:
                cos[~restrict.mask(idx)] = -np.inf
        top = top_k(cos, self.cfg.top_k_cosine)
        cosine = [Scored(idx.ids[p], float(cos[p]), "cosine") for p in top]
        ranking = future.result()
        if not ranking:
            return cosine, ranking
        candidate = ranking[0]
        verdict = None
        if not any(c.id == candidate.id for c in cosine) and self.cfg.verify == "llm":
            verdict = self._verify(user_id, query, candidate.id)
        if any(c.id == candidate.id for c in cosine):
            recalled = [replace(candidate, why="recalled: global candidate, confirmed by cosine")]
        elif verdict is True:
            recalled = [replace(candidate, why="recalled: global candidate, confirmed by the LLM")]
        elif verdict is False or self.cfg.on_disagreement == "cosine":
            recalled = [replace(c, why="recalled: cosine top-k") for c in cosine]
        else:
            recalled = [replace(candidate, why="recalled: global candidate")] + [
                replace(c, why="recalled: cosine top-1") for c in cosine[:1] if c.id != candidate.id
            ]
        ranked = [replace(r, why=f"global retriever rank {i + 1}") for i, r in enumerate(ranking)]
        return recalled, ranked

    def _verify(self, user_id: str, query: str, memory_id: str) -> bool | None:
        """The LLM's check of the global candidate; None when it cannot be asked."""
        llm = self.ctx.llm()
        texts = self._texts(user_id, [memory_id])
        if not llm.generates or memory_id not in texts:
            return None
        text, seq = texts[memory_id]
        try:
            return ask_json(
                llm,
                prompts.render("verify_candidate", question=query, index=seq, dialogue=text),
                VERIFY_SCHEMA,
                lambda v: bool(v["relevant"]),
                task="verify_candidate",
                retries=1,
                max_tokens=24,
            )
        except LLMError as exc:
            log.warning("LLM check of the global candidate failed (%s)", failure(exc))
            return None

    # -- the per-question flow (3.6.2) --------------------------------------------------

    def candidates(
        self,
        user_id: str,
        question: Question,
        query_vec: np.ndarray | None,
        k: int,
        depth: int,
        *,
        restrict: Restriction | None = None,
    ) -> Found:
        """The question through the per-question flow (the ``Recalls`` protocol): its
        cache answers with what it holds, else index-checked retrieval takes the
        paper's top ``k`` (the flow has its own cut, so ``depth`` is not used).

        A filtered question (``restrict``) is a look into part of the memory, not a
        turn of the conversation: it skips the cache (filled for unfiltered turns,
        it could hold fewer than ``k`` passing dialogues) and runs index-checked
        retrieval among the passing memories, leaving the short-term memory and the
        recall counts as they were."""
        if restrict is not None:
            return self._filtered(user_id, question.text, query_vec, k, restrict)
        return self._flow(user_id, question, query_vec, k)

    def _filtered(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        restrict: Restriction,
    ) -> Found:
        """:meth:`candidates` under a read's filters (its notes): a read-only miss."""
        t0 = time.perf_counter()
        with self._locks(user_id):
            stm = self._stm_for(user_id, self.ctx.indexes.get(user_id))
            segments = stm.segments()
        if query_vec is None:
            query_vec = self.ctx.embedder.embed_one(query)
        recalled, ranking = self._retrieve(user_id, query, query_vec, k, restrict)
        timings = {"total_s": time.perf_counter() - t0}
        return _outcome(
            _fill(recalled, ranking, k),
            False,
            segments,
            timings,
            recalled=[r.id for r in recalled],
            ranking=[r.id for r in ranking],
        )

    def _flow(
        self, user_id: str, question: Question, query_vec: np.ndarray | None, k: int
    ) -> Found:
        """The question through the flow (module notes): the hits come from the cache
        on a hit (possibly fewer than k, :meth:`_cache_hit`), else from index-checked
        retrieval (:meth:`_cache_miss`); a hit's score is its rank's reciprocal, the
        top one the confidence. The question's ``now`` is the clock for days since
        last recall (default: the time of the user's newest memory, so a replayed
        history ages as it did live)."""
        query, now = question.text, question.now
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        vec: list[np.ndarray] = [] if query_vec is None else [query_vec]

        def lazy_vec() -> np.ndarray:
            if not vec:
                t = time.perf_counter()
                vec.append(self.ctx.embedder.embed_one(query))
                timings["embed_s"] = time.perf_counter() - t
            return vec[0]

        with self._locks(user_id):
            idx = self.ctx.indexes.get(user_id)
            stm = self._stm_for(user_id, idx)
            stm.questions += 1
            if len(idx) == 0:
                return _outcome([], False, stm.segments(), {"total_s": 0.0})
            now_s = timestamp_epoch(now) if now is not None else max(idx.times)
            used: list[Dialogue] = []
            judge: Any = None
            if self.cfg.cache and stm.cache:
                t = time.perf_counter()
                judge = self._judge(user_id, stm, question)
                used = judge.judge(query, stm.cache, lazy_vec)
                timings["judge_s"] = time.perf_counter() - t
            calls = getattr(judge, "calls", 0)
            if used:
                hits = self._cache_hit(stm, used, k, now_s)
                timings["total_s"] = time.perf_counter() - t0
                return _outcome(
                    hits,
                    True,
                    stm.segments(),
                    timings,
                    answer=getattr(judge, "answer", None),
                    llm_calls=calls,
                )
            recalled, ranking = self._cache_miss(user_id, stm, query, lazy_vec, k, now_s, timings)
            hits = _fill(recalled, ranking, k)
            timings["total_s"] = time.perf_counter() - t0
            return _outcome(
                hits,
                False,
                stm.segments(),
                timings,
                recalled=[r.id for r in recalled],
                ranking=[r.id for r in ranking],
                llm_calls=calls,
            )

    def _cache_hit(
        self, stm: ShortTermMemory, used: list[Dialogue], k: int, now_s: float
    ) -> list[Scored]:
        """A cache hit: the judge's dialogues first, then the rest of the cache. Their
        recall metadata is only buffered (the deferred write of 3.6.2), written when
        the cache is next overwritten or the engine closes."""
        for d in used:
            n = stm.deferred.get(d.memory_id, (d.recall_times, 0.0))[0]
            stm.deferred[d.memory_id] = (n + 1, now_s)
            inc = stm.pending.get(d.memory_id, (0, 0.0))[0]
            stm.pending[d.memory_id] = (inc + 1, now_s)
        rest = [d for d in stm.cache if d not in used]
        return [
            Scored(d.memory_id, 1.0 / (1 + i), "cache") for i, d in enumerate((used + rest)[:k])
        ]

    def _cache_miss(
        self,
        user_id: str,
        stm: ShortTermMemory,
        query: str,
        query_vec: Callable[[], np.ndarray],
        k: int,
        now_s: float,
        timings: dict[str, float],
    ) -> tuple[list[Scored], list[Scored]]:
        """A cache miss: flush the buffered metadata, clear summary and cache, run the
        index-checked retrieval, write the recalled entries' metadata, then refill the
        short-term memory (:meth:`_refill`). Returns (recalled, global ranking)."""
        cfg = self.cfg
        self._flush(user_id)
        stm.summary, stm.cache = "", []
        qv = query_vec()  # embedded now, if the judge did not need it
        t = time.perf_counter()
        recalled, ranking = self._retrieve(user_id, query, qv, k)
        timings["retrieve_s"] = time.perf_counter() - t
        # one metadata read and one text read serve the recalled dialogues and the
        # prefetch window around the first of them
        centres = recalled if cfg.prefetch_around == "all" else recalled[:1]
        window = self._window(user_id, [r.id for r in centres]) if cfg.cache else []
        wanted = list(dict.fromkeys([r.id for r in recalled] + [w[0] for w in window]))
        texts = self._texts(user_id, wanted)
        meta = self.db.table_meta(user_id, wanted)
        stm.relevant = [
            Dialogue(r.id, texts[r.id][1], texts[r.id][0], r.score)
            for r in recalled
            if r.id in texts
        ]
        updates = [(r.id, meta.get(r.id, (1, 0.0))[0] + 1, now_s) for r in recalled]
        self.db.table_meta_bump(user_id, [(r.id, 1, now_s) for r in recalled])
        meta.update({m: (n, t) for m, n, t in updates})
        self._refill(user_id, stm, qv, window, meta, texts, now_s, timings)
        return recalled, ranking

    def _refill(
        self,
        user_id: str,
        stm: ShortTermMemory,
        qv: np.ndarray,
        window: list[tuple[str, int, float, int]],
        meta: dict[str, tuple[int, float]],
        texts: dict[str, tuple[str, int]],
        now_s: float,
        timings: dict[str, float],
    ) -> None:
        """The short-term memory after a miss: the summary closest to the question,
        the profile, and the cache prefetched from the window (Eq. 4)."""
        t = time.perf_counter()
        notes = self._load_notes(user_id)
        if notes.summaries:
            sims = notes.matrix() @ qv
            stm.summary = notes.summaries[int(np.argmax(sims))].text
        stm.personality = render_profile(notes.profile)
        timings["summary_s"] = time.perf_counter() - t
        if window:
            t = time.perf_counter()
            stm.cache = self._prefetch(stm, window, meta, texts, now_s)
            timings["prefetch_s"] = time.perf_counter() - t

    def _window(self, user_id: str, centre_ids: list[str]) -> list[tuple[str, int, float, int]]:
        """(id, distance, created, seq) of the live entries within ``offset`` table
        positions of a recalled dialogue (the centres themselves at distance 0); with
        several centres an entry's distance is to the nearest."""
        idx = self.ctx.indexes.get(user_id)
        with idx.lock:
            best: dict[int, int] = {}
            for centre_id in centre_ids:
                c = idx.pos.get(centre_id)
                if c is None:
                    continue
                best[c] = 0
                for step in (-1, 1):
                    p, found = c + step, 0
                    while 0 <= p < idx.dense.size and found < self.cfg.offset:
                        if idx.dense.is_alive(p):
                            found += 1
                            best[p] = min(best.get(p, found), found)
                        p += step
            return [(idx.ids[p], d, idx.times[p], idx.seqs[p]) for p, d in sorted(best.items())]

    def _prefetch(
        self,
        stm: ShortTermMemory,
        window: list[tuple[str, int, float, int]],
        meta: dict[str, tuple[int, float]],
        texts: dict[str, tuple[str, int]],
        now_s: float,
    ) -> list[Dialogue]:
        """Score the window's entries (Eq. 4) and keep the best ``cache_size``."""
        cfg = self.cfg
        n = len(window)
        times, last, dis = np.empty(n), np.empty(n), np.empty(n)
        for i, (memory_id, d, created, _seq) in enumerate(window):
            times[i], last[i] = stm.deferred.get(memory_id) or meta.get(memory_id, (1, created))
            dis[i] = d
        days = np.floor(np.maximum(now_s - last, 0.0) / DAY)
        score = np.asarray(
            prefetch_score(
                days, times, dis, cfg.spatial, beta=cfg.beta, alpha=cfg.alpha, xi=cfg.xi, mu=cfg.mu
            )
        )
        order = sorted(range(n), key=lambda i: (-score[i], dis[i], window[i][3]))
        return [
            Dialogue(
                window[i][0], window[i][3], texts[window[i][0]][0], float(score[i]), int(times[i])
            )
            for i in order[: cfg.cache_size]
            if window[i][0] in texts
        ]

    def _texts(self, user_id: str, ids: list[str]) -> dict[str, tuple[str, int]]:
        rows = self.ctx.store.get(user_id, ids)
        return {i: (m.index_text, m.seq) for i, m in rows.items()}

    def _judge(self, user_id: str, stm: ShortTermMemory, question: Question) -> HitJudge:
        cfg = self.cfg
        idx = self.ctx.indexes.get(user_id)
        if cfg.judge == "typed":
            return self._typed_judge(user_id, question, idx)
        if cfg.judge == "llm":
            llm = self.ctx.llm()
            offline = LexicalJudge(idx.bm25.idf, cfg.hit_threshold)
            if not llm.generates:
                return offline
            notes = "\n".join(
                x
                for x in (
                    f"Summary: {stm.summary}" if stm.summary else "",
                    f"About them: {stm.personality}" if stm.personality else "",
                )
                if x
            )
            return LLMJudge(llm, notes, offline)
        if cfg.judge == "lexical":
            return LexicalJudge(idx.bm25.idf, cfg.hit_threshold)

        def vectors(cache: list[Dialogue]) -> np.ndarray:
            with idx.lock:
                return np.stack(
                    [
                        idx.dense.vector(idx.pos[d.memory_id])
                        for d in cache
                        if d.memory_id in idx.pos
                    ]
                )

        return EmbeddingJudge(vectors, cfg.hit_threshold)

    def _typed_judge(self, user_id: str, question: Question, idx: UserIndex) -> HitJudge:
        """The typed reader over the cache (:class:`TypedJudge`), handed down by the
        facade (``ctx.spans``); without it (no spaCy pipeline) the lexical judge,
        with a warning once."""
        spans = self.ctx.spans
        if spans is None:
            if not self._warned_typed:
                self._warned_typed = True
                log.warning("the typed hit judge needs spaCy; judging lexically")
            return LexicalJudge(idx.bm25.idf, self.cfg.hit_threshold)
        cfg = self.cfg
        return TypedJudge(partial(spans, user_id, question), cfg.typed_threshold, cfg.typed_share)

    # -- inspection -----------------------------------------------------------------

    def _stm_for(self, user_id: str, idx: UserIndex | None = None) -> ShortTermMemory:
        """The user's short-term memory (made on first use), current (:meth:`_current`)."""
        stm = self._current(user_id, idx)
        if stm is None:
            stm = ShortTermMemory(self.cfg.history_turns, self.cfg.segment_tokens)
            stm.seen = delete_mark((idx or self.ctx.indexes.get(user_id)).state)
            self._stm[user_id] = stm
        return stm

    def _current(self, user_id: str, idx: UserIndex | None = None) -> ShortTermMemory | None:
        """The user's short-term memory, first made to forget what was deleted since it
        last looked, by any process: the user's fingerprint in ``idx`` (current, see
        ``index/cache.py``) shows a new delete revision (forget what the index no longer
        holds) or a new epoch (erased and recreated: a fresh session). None when there
        is none. The notes (summaries, profile) are dropped too; they reload."""
        stm = self._stm.get(user_id)
        if stm is None:
            return None
        if idx is None:
            idx = self.ctx.indexes.get(user_id)
        seen = delete_mark(idx.state)
        if stm.seen == seen:
            return stm
        self._notes.pop(user_id, None)
        if stm.seen is not None and (seen is None or seen[0] != stm.seen[0]):
            del self._stm[user_id]
            return None
        with idx.lock:
            stm.forget(lambda memory_id: memory_id not in idx.pos)
        stm.seen = seen
        return stm

    def short_term(self, user_id: str) -> dict[str, Any]:
        with self._locks(user_id):
            stm = self._current(user_id) or ShortTermMemory(
                self.cfg.history_turns, self.cfg.segment_tokens
            )
            return {
                **stm.segments(),
                "tokens": stm.tokens(),
                "questions": stm.questions,
                "deferred_writes": len(stm.deferred),
                "cache_ids": [d.memory_id for d in stm.cache],
            }


def _outcome(
    hits: list[Scored],
    cache_hit: bool,
    segments: dict[str, Any],
    timings: dict[str, float],
    *,
    answer: str | None = None,
    llm_calls: int = 0,
    recalled: list[str] | None = None,
    ranking: list[str] | None = None,
) -> Found:
    """One question through the flow as ``Memory`` reports it: the top hit's score
    as confidence (ILSTMA has no gate), the summary and profile as the reader's
    notes, and (on a miss) the ids recalled and the global retriever's top-k."""
    notes = [
        f"{label}: {clip_tokens(segments[seg], NOTE_TOKENS[seg])}"
        for seg, label in (("summary", "Summary"), ("personality", "About them"))
        if segments.get(seg)
    ]
    return Found(
        hits,
        hits[0].score if hits else 0.0,
        extras=[ShortTermFlow(cache_hit, segments, notes, answer, llm_calls)],
        timings=timings,
        details={"recalled": recalled or [], "ranking": ranking or []},
    )


def _fill(recalled: list[Scored], ranking: list[Scored], k: int) -> list[Scored]:
    """Recalled dialogues first, then the global ranking. The two retrievers' scores are
    on different scales, so a hit's score is its rank's reciprocal (1, 1/2, ...)."""
    seen = {r.id for r in recalled}
    merged = (list(recalled) + [r for r in ranking if r.id not in seen])[:k]
    return [Scored(r.id, 1.0 / (1 + i), r.why) for i, r in enumerate(merged)]


def _piece_json(p: Piece) -> dict[str, Any]:
    """A piece as stored: by memory id when it quotes a memory (its vector is the
    memory's), else with its own vector (LLM-written text)."""
    if p.memory_id:
        return {"text": p.text, "seq": p.seq, "memory_id": p.memory_id}
    return {"text": p.text, "seq": p.seq, "vec": [round(float(x), 6) for x in p.vec]}


def _trait_row(speaker: str, group: list[StoredMemory], pieces: list[Piece]) -> NoteRow:
    """The LLM's traits of one speaker from one group, spanning the group: deleting any
    of its memories drops them, and re-summarising derives them again."""
    nid = zlib.crc32(f"{speaker}\x00{group[0].seq}".encode()) & 0x7FFFFFFF
    body = json.dumps([_piece_json(p) for p in pieces])
    return NoteRow("trait", nid, speaker, group[0].seq, group[-1].seq, body)


def _summary_row(s: Summary) -> NoteRow:
    pieces = [_piece_json(p) for p in s.pieces]
    return NoteRow("summary", s.sid, None, s.first_seq, s.last_seq, json.dumps(pieces))
