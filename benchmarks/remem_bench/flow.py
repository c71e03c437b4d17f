"""The ILSTMA question flow on a retrieval data set: cache hits, their precision,
recall of the dialogues recalled on misses, and time per question with the cache on
and off, side by side.

Per conversation and question order, every flow engine gets a fresh memory with the
cache on and one with its own configuration and the cache off (variants differing
only in the prefetch's spatial form share that one: the off path never prefetches).
Questions go to all of them in turn, so machine noise hits each alike. Times are
``Memory.recall`` wall time: everything the flow does (hit judgment, query embedding,
retrieval, metadata writes, summary selection, prefetch), but no LLM.

Orders: ``file`` (the data set's order) and ``evidence`` (by each question's first
evidence turn, so consecutive questions tend to concern nearby dialogue, the
locality the cache is built for).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from remem import Memory
from remem.embed import Embedder

from .embedcache import MemoEmbedder
from .engines import open_engine
from .locomo import Conversation, Question
from .metrics import evidence_recall, mean, percentile

ORDERS = ("file", "evidence")


@dataclass
class FlowRun:
    questions: int = 0
    hits: int = 0
    correct_hits: int = 0
    hit_recall: list[float] = field(default_factory=list)
    miss_recall: list[float] = field(default_factory=list)
    miss_baseline: list[float] = field(default_factory=list)  # hybrid top-n, same n
    recalled_n: list[int] = field(default_factory=list)
    on_s: list[float] = field(default_factory=list)
    off_s: list[float] = field(default_factory=list)
    near_previous: int = 0  # questions whose evidence is within 1 turn of the previous one's
    cache_held: int = 0  # questions asked while the cache held one of their evidence turns


def ordered(conv: Conversation, questions: list[Question], order: str) -> list[Question]:
    if order == "file":
        return list(questions)
    rank = {t.dia_id: i for i, t in enumerate(conv.turns)}
    return sorted(questions, key=lambda q: min(rank[e] for e in q.evidence))


class _Switch(Embedder):
    """Ingest through the (possibly memoising) benchmark embedder, then embed every
    question for real, so flow times include the query embedding a miss pays for."""

    def __init__(self, ingest: Embedder):
        self.ingest = ingest
        self.live_embedder = ingest.inner if isinstance(ingest, MemoEmbedder) else ingest
        self.name, self.dim = ingest.name, ingest.dim
        self.max_pieces = ingest.max_pieces
        self.live = False

    def count_pieces(self, text: str) -> int:
        return self.ingest.count_pieces(text)

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        return self.ingest.piece_starts(texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return (self.live_embedder if self.live else self.ingest).embed(texts)


def near_previous(conv: Conversation, questions: list[Question]) -> int:
    """Questions (in the given order) with an evidence turn within one turn of the
    previous question's first evidence turn: the hits a 3-dialogue cache centred on
    perfectly retrieved evidence could have."""
    rank = {t.dia_id: i for i, t in enumerate(conv.turns)}
    count, prev = 0, None
    for q in questions:
        ev = [rank[e] for e in q.evidence]
        if prev is not None and any(abs(e - prev) <= 1 for e in ev):
            count += 1
        prev = min(ev)
    return count


def run_flows(
    conv: Conversation,
    questions: list[Question],
    engines: Sequence[str],
    embedder: Embedder,
    runs: dict[tuple[str, str], FlowRun],
    k: int,
) -> None:
    items = [[t.as_item() for t in s] for s in conv.sessions]
    baseline = Memory(":memory:", engine="hybrid", embedder=embedder)
    for session in items:
        baseline.add_many(session, user_id=conv.sample_id)
    try:
        for order in ORDERS:
            _run_order(conv, questions, engines, embedder, runs, k, items, order, baseline)
    finally:
        baseline.close()


def _run_order(
    conv: Conversation,
    questions: list[Question],
    engines: Sequence[str],
    embedder: Embedder,
    runs: dict[tuple[str, str], FlowRun],
    k: int,
    items: list[list[dict[str, Any]]],
    order: str,
    baseline: Memory,
) -> None:
    switch = _Switch(embedder)
    mems = {name: open_engine(name, switch) for name in engines}
    # each engine's own configuration with the cache off (the off path ignores the
    # spatial form, so variants that differ only there share one)
    offs: dict[str, Memory] = {}
    off_of: dict[str, Memory] = {}
    for name, mem in mems.items():
        key = repr(sorted({**mem.engine_info.config, "spatial": "intent"}.items()))
        if key not in offs:
            offs[key] = open_engine(name, switch, cache=False)
        off_of[name] = offs[key]
    user = conv.sample_id
    try:
        for mem in [*mems.values(), *offs.values()]:
            for session in items:
                mem.add_many(session, user_id=user)
        switch.live = True
        stream = ordered(conv, questions, order)
        for name in mems:
            runs.setdefault((name, order), FlowRun()).near_previous += near_previous(conv, stream)
        for q in stream:
            off_s: dict[int, float] = {}
            for off in offs.values():
                t0 = time.perf_counter()
                off.recall(q.question, user_id=user, k=k)
                off_s[id(off)] = time.perf_counter() - t0
            for name, mem in mems.items():
                run = runs.setdefault((name, order), FlowRun())
                cached = mem.short_term(user)["cache_ids"]
                run.cache_held += bool(set(_dia_ids(mem, user, cached).values()) & set(q.evidence))
                t0 = time.perf_counter()
                r = mem.recall(q.question, user_id=user, k=k)
                run.on_s.append(time.perf_counter() - t0)
                run.off_s.append(off_s[id(off_of[name])])
                run.questions += 1
                got = [h.metadata.get("dia_id") for h in r.hits]
                if r.cache_hit:
                    run.hits += 1
                    run.correct_hits += bool(set(got) & set(q.evidence))
                    run.hit_recall.append(evidence_recall(q.evidence, got, len(got)))
                    continue
                ids = r.details["recalled"]
                n = len(ids)
                dia = _dia_ids(mem, user, ids)
                recalled = [dia.get(i) for i in ids]
                hyb = baseline.search(q.question, user_id=user, k=max(n, 1))
                run.recalled_n.append(n)
                run.miss_recall.append(evidence_recall(q.evidence, recalled, n))
                run.miss_baseline.append(
                    evidence_recall(q.evidence, [h.metadata.get("dia_id") for h in hyb], n)
                )
    finally:
        for mem in [*mems.values(), *offs.values()]:
            mem.close()


def _dia_ids(mem: Memory, user: str, ids: list[str]) -> dict[str, Any]:
    hits = {i: mem.get(i, user_id=user) for i in dict.fromkeys(ids)}
    return {i: h.metadata.get("dia_id") for i, h in hits.items() if h is not None}


def summarise_flows(runs: dict[tuple[str, str], FlowRun]) -> list[dict[str, Any]]:
    out = []
    for (name, order), r in runs.items():
        on, off = mean(r.on_s), mean(r.off_s)
        out.append(
            {
                "engine": name,
                "order": order,
                "questions": r.questions,
                "hit_rate": r.hits / r.questions if r.questions else float("nan"),
                "hit_precision": r.correct_hits / r.hits if r.hits else float("nan"),
                "hit_evidence_recall": mean(r.hit_recall),
                "locality_bound": r.near_previous / r.questions if r.questions else float("nan"),
                "cache_held": r.cache_held / r.questions if r.questions else float("nan"),
                "miss_recall": mean(r.miss_recall),
                "miss_baseline_recall": mean(r.miss_baseline),
                "miss_recalled_mean": float(np.mean(r.recalled_n)) if r.recalled_n else 0.0,
                "on_ms_mean": 1000 * on,
                "on_ms_p95": 1000 * percentile(r.on_s, 95),
                "off_ms_mean": 1000 * off,
                "off_ms_p95": 1000 * percentile(r.off_s, 95),
                "time_ratio": on / off if off else float("nan"),
            }
        )
    return out
