"""The recall pipeline: engine candidates -> stages -> extras -> verdict -> result.

``Memory`` builds one :class:`Recaller` and sends every read through it. The engine
only ranks; the pipeline runs what follows for every engine alike, so an engine
cannot forget a step and a step is added, replaced or switched off in one place
(``stages.py``):

1. **The question, read once** (``question.read_question``): its words, the time it
   names relative to the moment it is asked, its identifiers.
2. **Candidates**: the engine's ranking, as deep as the stages ask
   (``Stage.depth``): its ``search``, or, for an engine with the optional
   :class:`~remem.engines.base.Recalls` protocol (found once, here), its
   ``candidates`` with a gate and extras.
3. **Stages**, in order (``stages.default_stages``): the time window and the newer
   version first (``time/stage.py``), then exact identifiers; cut to ``k``.
4. **Extras**: what the engine offers beyond hits, each by kind
   (:class:`~remem.engines.base.Activation`: concepts, activation paths, the graph
   trace; :class:`~remem.engines.base.ShortTermFlow`: cache, segments, the reader's
   notes and a prepared answer).
5. **Verdict** (``verdict.py``): does memory hold the answer at all, read from the
   hits, or, where the engine weighed its ranking by something the verdict was not
   fitted on, from its ranking without it (``Found.unweighted``), staged alike.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import partial

import numpy as np

from ..answer.typed import Around, best_span, fit_share
from ..answer.verdict import VerdictModel
from ..engines.base import (
    Activation,
    Engine,
    EngineContext,
    Found,
    FoundSpan,
    GraphTrace,
    Recalls,
    Scored,
    ShortTermFlow,
    restricted_search,
)
from ..engines.exact import ExactConfig
from ..filters import Checked
from ..index.restrict import Restriction
from ..question import Question, read_question
from ..time import StoredEvents, TimeStage
from ..time.arrange import ArrangeConfig
from ..types import Hit, Recall
from .stages import Stage, default_stages
from .verdict import VerdictStage


@dataclass
class Recalled:
    """One recall as the pipeline ends it: what ``Memory.recall`` returns, and what
    the reader and ``Memory.trace`` take from the engine's extras."""

    recall: Recall
    question: Question
    #: text for the reader beside the memories (ILSTMA's summary and profile)
    notes: list[str] = field(default_factory=list)
    #: an answer the engine already has (ILSTMA's judge on a cache hit)
    prepared: str | None = None
    #: LLM calls the engine made for it
    llm_calls: int = 0
    #: the query's lit-up neighbourhood in the engine's graph (SYNAPSE), on demand
    trace: Callable[[int], GraphTrace] | None = None


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


#: how many recently embedded texts a Recaller keeps (:meth:`Recaller._embed`)
_RECENT = 16
#: how many recently embedded sentences it keeps for the typed reader
#: (:meth:`Recaller._embed_many`): a few questions' worth of evidence sentences
_SENTENCES = 1024


class Recaller:
    """Runs every read of one ``Memory``: ``rank`` for search, ``recall`` for recall,
    answer and trace (module notes)."""

    def __init__(
        self,
        engine: Engine,
        ctx: EngineContext,
        *,
        time: ArrangeConfig,
        exact: ExactConfig,
        verdict: VerdictModel,
        stages: list[Stage] | None = None,
    ):
        self.engine = engine
        self._ctx = ctx
        self._store, self._embedder = ctx.store, ctx.embedder
        # the optional protocol, found once: an engine without it recalls by search
        self._candidates = engine.candidates if isinstance(engine, Recalls) else None
        self.stages = (
            stages
            if stages is not None
            else default_stages(time, exact, ctx.store, ctx.indexes, ctx.embedder)
        )
        # the stored event times the hits carry (the time stage's reader when it has one)
        timed = next((s for s in self.stages if isinstance(s, TimeStage)), None)
        self.events = timed.events if timed is not None else StoredEvents(ctx.store)
        self._names = exact.names
        self._identifiers = exact.lift
        self.verdict = VerdictStage(verdict, ctx.embedder, ctx.indexes)
        self._recent: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._recent_lock = threading.Lock()
        self._sentences: OrderedDict[bytes, np.ndarray] = OrderedDict()

    def read(self, text: str, now: datetime | None) -> Question:
        """The question read once (``question.read_question``)."""
        return read_question(text, now, identifiers=self._identifiers, names=self._names)

    def placed(self, user_id: str, question: Question) -> Question:
        """``question`` with a window that names a month or day without a year moved
        to the last such time ``user_id``'s memories reach (``TimeWindow.placed``):
        which year is meant depends on what the memories cover, so it is read here,
        where the user is known, once for every stage and the reader."""
        window = question.window
        if window is None or not window.yearless:
            return question
        with self._ctx.indexes.use(user_id) as idx:
            latest = max(idx.times, default=None)
        if latest is None:
            return question
        zone = window.start.tzinfo
        try:  # from the epoch by addition: fromtimestamp fails before 1970 on some platforms
            when = _EPOCH + timedelta(seconds=latest)
            when = when.astimezone(zone) if zone else when.replace(tzinfo=None)
        except OverflowError:  # a memory at the very ends of the datetime range
            return question
        moved = window.placed(when)
        return question if moved is window else replace(question, window=moved)

    def restriction(self, user_id: str, filters: Checked | None) -> Restriction | None:
        """A read's checked filters as its per-call :class:`Restriction`: the
        event-time condition read from the store once here (``time/stored.py``),
        the rest from the index by whoever ranks."""
        if filters is None:
            return None
        events = None
        if filters.on_events:
            events = self.events.overlapping(user_id, filters.event_after, filters.event_before)
        return Restriction(filters, events)

    def rank(
        self, user_id: str, question: Question, k: int, restrict: Restriction | None = None
    ) -> list[Scored]:
        """The engine's search with the stages applied (``Memory.search``), among the
        memories a read's filters let through (``restrict``)."""
        question = self.placed(user_id, question)
        vec = self._query_vec(question)
        depth = self._depth(question, k)
        hits = self._searched(user_id, question, vec, (k, depth), restrict)
        return self._staged(user_id, question, hits, k, restrict)

    def recall(
        self,
        user_id: str,
        question: Question,
        k: int,
        *,
        explain: bool,
        restrict: Restriction | None = None,
    ) -> Recalled:
        """Everything known about one question (``Memory.recall``/``answer``/``trace``);
        ``explain`` traces each hit's activation path where the engine has one;
        ``restrict``: a read's hard filters."""
        question = self.placed(user_id, question)
        found = self._found(user_id, question, k, restrict)
        ranked = self._staged(user_id, question, found.hits, k, restrict)
        if found.confidence is None:  # no gate: the top score, refusing only on nothing
            ranked = [h if h.why else replace(h, why=self.engine.name) for h in ranked]
            found.confidence = ranked[0].score if ranked else 0.0
        hits = self.hits(user_id, ranked)
        activation = found.extra(Activation) or Activation()
        flow = found.extra(ShortTermFlow) or ShortTermFlow()
        why = _explanations(ranked, activation, explain)
        verdict = self.verdict(
            user_id, question, self._verdict_hits(user_id, question, found, hits, k, restrict)
        )
        rec = Recall(
            hits,
            found.confidence if found.confidence is not None else 0.0,
            found.refuse or not hits,  # no evidence at all: memory cannot hold the answer
            activation.concepts,
            {h.id: why.get(h.id, "") for h in hits},
            flow.cache_hit,
            flow.segments,
            found.timings,
            {**found.details, "verdict": verdict.signals},
            verdict.score,
            verdict.not_in_memory,
        )
        return Recalled(rec, question, flow.notes, flow.answer, flow.llm_calls, activation.trace)

    def _verdict_hits(
        self,
        user_id: str,
        question: Question,
        found: Found,
        hits: list[Hit],
        k: int,
        restrict: Restriction | None,
    ) -> list[Hit]:
        """What the verdict reads: ``hits``, unless the engine weighed its ranking
        by something the verdict's model was not fitted on (``Found.unweighted``):
        then that ranking without it, through the same stages. The verdict's
        signals are features of a ranking (whose sentences cover the question), and
        its constants hold only for rankings like those it was fitted on."""
        if found.unweighted is None:
            return hits
        return self.hits(user_id, self._staged(user_id, question, found.unweighted, k, restrict))

    def hits(self, user_id: str, ranked: list[Scored]) -> list[Hit]:
        """The ranked ids as Hits with their event times, in order (a row deleted
        meanwhile is skipped)."""
        rows = self._store.get(user_id, [r.id for r in ranked])
        kept = [r for r in ranked if r.id in rows]
        hits = self.events.hits(user_id, [rows[r.id] for r in kept], [r.score for r in kept])
        return [
            h if r.superseded_by is None else replace(h, superseded_by=r.superseded_by)
            for h, r in zip(hits, kept, strict=True)
        ]

    def next_turns(self, user_id: str, hits: Sequence[Hit], step: int = 1) -> dict[str, Hit]:
        """Each hit's id -> the memory said next in its session (``step`` -1: the one
        said before), as a hit (score 0), for those that have one
        (``UserIndex.beside_in_session``)."""
        with self._ctx.indexes.use(user_id) as idx:
            nexts = {h.id: n for h in hits if (n := idx.beside_in_session(h.id, step)) is not None}
        rows = self._store.get(user_id, list(set(nexts.values()))) if nexts else {}
        found = {i: rows[n] for i, n in nexts.items() if n in rows}
        made = self.events.hits(user_id, list(found.values()), [0.0] * len(found))
        return dict(zip(found, made, strict=True))

    def nearness(self, user_id: str, words: str, hits: Sequence[Hit]) -> dict[str, float]:
        """The cosine of ``words`` to each hit's vector (hits no longer indexed left
        out): how near in meaning a memory comes to what a question asks of, as the
        verdict's premise check reads it (``answer.verdict.premises``)."""
        vec = self._embed(words)
        with self._ctx.indexes.use(user_id) as idx:
            kept = [h.id for h in hits if h.id in idx.pos]
            at = np.array([idx.pos[i] for i in kept], dtype=np.int64)
            cos = idx.dense.cosines(at, vec) if kept else np.zeros(0)
        return {i: float(c) for i, c in zip(kept, cos, strict=True)}

    def rarity(self, user_id: str, text: str) -> float:
        """How rare the rarest word of ``text`` is among the user's memories, 0 to 1
        (``BM25Index.rarity``): what the typed reader weighs a candidate's words by."""
        with self._ctx.indexes.use(user_id) as idx:
            return idx.bm25.rarity(text)

    def around(self, user_id: str) -> Around:
        """What the typed reader may ask of the user's memories beyond the evidence:
        the turns said next and before (:meth:`next_turns`), nearness in meaning
        (:meth:`nearness`) and the rarity of words (:meth:`rarity`)."""
        return Around(
            partial(self.next_turns, user_id),
            partial(self.nearness, user_id),
            partial(self.rarity, user_id),
            partial(self.next_turns, user_id, step=-1),
            self.similar,
        )

    def similar(self, words: str, texts: Sequence[str]) -> list[float]:
        """The cosine of ``words`` to each of ``texts``, embedded here (no index holds
        a memory's sentences): how near in meaning the question comes to each sentence
        the typed reader reads."""
        if not texts:
            return []
        vecs = self._embed_many(texts)
        return [float(c) for c in vecs @ self._embed(words)]

    def best_span(self, user_id: str, question: Question, ids: Sequence[str]) -> FoundSpan | None:
        """The typed reader's best span in the memories ``ids`` alone, best first (the
        engines' :data:`~remem.engines.base.SpanFinder`: ILSTMA's "typed" judge asks
        whether its cache answers). A reply inherits the fit of the turn that asked
        it only when both are among ``ids``: nothing outside them is read."""
        hits = self.hits(user_id, [Scored(i, 0.0) for i in ids])
        within = {h.id for h in hits}

        def beside(step: int, asking: Sequence[Hit]) -> dict[str, Hit]:
            found = self.next_turns(user_id, asking, step)
            return {i: n for i, n in found.items() if n.id in within}

        around = replace(
            self.around(user_id), neighbours=partial(beside, 1), before=partial(beside, -1)
        )
        span = best_span(question, hits, around)
        if span is None:
            return None
        return FoundSpan(span.text, span.score, span.hit.id, fit_share(question, span))

    def forget(self, user_id: str, ids: list[str]) -> None:
        """Memories deleted in this process: every stage drops what it kept of them."""
        for stage in self.stages:
            stage.forget(user_id, ids)

    def forget_user(self, user_id: str) -> None:
        for stage in self.stages:
            stage.forget_user(user_id)
        self.events.forget_user(user_id)

    def _found(
        self, user_id: str, question: Question, k: int, restrict: Restriction | None
    ) -> Found:
        vec = self._query_vec(question)
        depth = self._depth(question, k)
        if self._candidates is not None:
            if restrict is None:
                return self._candidates(user_id, question, vec, k, depth)
            if self.engine.filters:
                return self._candidates(user_id, question, vec, k, depth, restrict=restrict)  # type: ignore[call-arg]
            # a third-party engine with a flow of its own that cannot filter: its gate
            # and extras are of a ranking over everything, so its search answers instead
        return Found(self._searched(user_id, question, vec, (k, depth), restrict))

    def _searched(
        self,
        user_id: str,
        question: Question,
        vec: np.ndarray | None,
        sizes: tuple[int, int],
        restrict: Restriction | None,
    ) -> list[Scored]:
        """The engine's search ``depth`` deep (``sizes``: the ranks shown, the depth
        the stages read), under a read's filters (:func:`restricted_search`)."""
        shown, depth = sizes
        return restricted_search(
            self.engine, self._ctx, user_id, question.text, vec, depth, restrict, shown=shown
        )

    def _depth(self, question: Question, k: int) -> int:
        return max(stage.depth(question, k) for stage in self.stages) if self.stages else k

    def _staged(
        self,
        user_id: str,
        question: Question,
        hits: list[Scored],
        k: int,
        restrict: Restriction | None = None,
    ) -> list[Scored]:
        """The stages in order, cut to ``k``. Under a read's filters a stage that
        brings in a memory (the exact stage lifts from the whole index, the time stage
        a current value) never brings in a masked one: its output keeps what passes
        and is filled back to ``k`` from what it was handed, in order. A stage marked
        ``deep`` (the events stage) is handed the earlier stages' output followed by
        the rest of the engine's candidates, so it can reach below their cut."""
        candidates = hits
        for stage in self.stages:
            if getattr(stage, "deep", False):
                kept = {h.id for h in hits}
                hits = hits + [h for h in candidates if h.id not in kept]
            staged = stage(user_id, question, hits, k)
            if restrict is not None:
                staged = self._passing(user_id, restrict, staged, hits, k)
            hits = staged
        return hits[:k]

    def _passing(
        self,
        user_id: str,
        restrict: Restriction,
        staged: list[Scored],
        handed: list[Scored],
        k: int,
    ) -> list[Scored]:
        """``staged`` without masked memories, filled to ``k`` from ``handed``."""
        with self._ctx.indexes.use(user_id) as idx:
            ok = restrict.passing(idx, [h.id for h in staged])
        kept = [h for h in staged if h.id in ok]
        if len(kept) < k:
            seen = {h.id for h in kept}
            kept += [h for h in handed if h.id not in seen][: k - len(kept)]
        return kept

    def _query_vec(self, question: Question) -> np.ndarray | None:
        """The query's embedding, unless the engine embeds only when it must."""
        if not self.engine.needs_query_vector:
            return None
        return self._embed(question.text)

    def _embed(self, text: str) -> np.ndarray:
        """``text``'s vector, kept for the next :data:`_RECENT` texts: an answer asks
        how near the question it just recalled by comes to each memory (the typed
        reader's meaning), which need not cost a second embedding. Read-only, as
        shared; kept by a digest of the text, so no text outlives a delete here."""
        key = _digest(text)
        with self._recent_lock:
            vec = self._recent.get(key)
            if vec is not None:
                self._recent.move_to_end(key)
                return vec
        vec = self._embedder.embed_one(text)
        vec.setflags(write=False)
        with self._recent_lock:
            self._recent[key] = vec
            while len(self._recent) > _RECENT:
                self._recent.popitem(last=False)
        return vec

    def _embed_many(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of ``texts``, those embedded for the last :data:`_SENTENCES`
        sentences kept: the typed reader reads the same sentences twice when recall's
        first memory may be read (``typed.typed_candidates``), and a question's
        candidates again for each of their meanings. Kept by digest, as :meth:`_embed`."""
        keys = [_digest(t) for t in texts]
        with self._recent_lock:
            found = {k: v for k in keys if (v := self._sentences.get(k)) is not None}
            for k in found:
                self._sentences.move_to_end(k)
        missing = {k: t for t, k in zip(texts, keys, strict=True) if k not in found}
        if missing:
            fresh = self._embedder.embed(list(missing.values()))
            with self._recent_lock:
                for k, v in zip(missing, fresh, strict=True):
                    v.setflags(write=False)
                    found[k] = self._sentences[k] = v
                while len(self._sentences) > _SENTENCES:
                    self._sentences.popitem(last=False)
        return np.stack([found[k] for k in keys])


def _explanations(ranked: list[Scored], activation: Activation, traced: bool) -> dict[str, str]:
    """Hit id -> how it was reached (the traced activation path when there is one),
    and what a stage did to it."""
    paths = activation.explain() if traced and activation.explain is not None else {}
    return {h.id: "; ".join(x for x in (paths.get(h.id) or h.why, h.note) if x) for h in ranked}


def _digest(text: str) -> bytes:
    """A short digest of ``text``, the recent-vector cache's key. hashlib is imported
    at the first search, not with the module: it loads OpenSSL (3.5 MB resident),
    which commands that never search (``remem count``) need not carry."""
    import hashlib

    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()
