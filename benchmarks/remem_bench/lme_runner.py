"""``remem-bench longmemeval``: retrieval over long assistant histories, engines side
by side in one process.

Per question, every engine gets a fresh in-memory store and ingests the question's
whole haystack with one ``add_many`` (about 500 turns in the S setting; timed,
embedding included unless ``--reuse-embeddings``), then answers the question through
the public API: the first search right after that write (timed on its own: work an
engine leaves for its first query shows here), then the same search again
(``repeats`` times, the later-search latency). Engines take turns question by
question, so machine noise hits them alike.

Metrics, per question type and overall (abstention questions, whose answer is not in
the history, have no evidence and are left out of them):

* evidence recall@k: the share of the question's ``has_answer`` turns in the top k
  (LoCoMo's definition);
* LongMemEval's recall_any@k and recall_all@k at turn level and at session level (the
  ranked turns' sessions in order of first appearance), and turn-level NDCG@k;
* the "not in memory" verdict's refusal rate on the abstention questions (``_abs``)
  beside its false refusals on the rest (recall at k=10, as the verdict was
  calibrated), and the same for an engine's confidence gate where it has one;
* ingest turns/s and MiniLM word pieces/s (untruncated: the embedding work), first-
  and later-search latency, the process's peak RSS and each engine's RSS growth.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from remem import Hit, create_llm
from remem.answer import Answerer
from remem.embed import Embedder, create_embedder

from .embedcache import DiskCachedEmbedder, MemoEmbedder, said_text, word_pieces
from .engines import open_engine, passage_setting
from .longmemeval import Question
from .metrics import evidence_recall, first_seen, mean, ndcg, percentile, recall_all, recall_any
from .qa_metrics import containment, token_f1
from .sysinfo import peak_rss_mb, rss_mb

METRICS = ("evidence", "any_turn", "all_turn", "any_session", "all_session", "ndcg")

#: a gold answer of at most this many words is a short one (readers' containment on
#: them is reported apart: a long gold answer is seldom contained word for word)
SHORT_ANSWER_WORDS = 4


class _Reading(NamedTuple):
    """One reader's answer to one question."""

    abstention: bool
    refused: bool
    containment: float
    f1: float
    seconds: float
    #: the gold answer has at most SHORT_ANSWER_WORDS words
    short: bool


@dataclass
class _Run:
    engine: str
    #: (question type, metric, k) -> per-question values
    values: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    ingest_s: float = 0.0
    turns: int = 0
    pieces: int = 0
    first_s: list[float] = field(default_factory=list)
    later_s: list[float] = field(default_factory=list)
    rss_growth_mb: list[float] = field(default_factory=list)
    refused_abs: list[bool] = field(default_factory=list)
    refused_other: list[bool] = field(default_factory=list)
    #: the "not in memory" verdict (Recall.not_in_memory) on each kind of question
    verdict_abs: list[bool] = field(default_factory=list)
    verdict_other: list[bool] = field(default_factory=list)
    #: reader spec -> one reading per question
    answers: dict[str, list[_Reading]] = field(default_factory=dict)
    #: per question type: whether the newest evidence turn ranked above the oldest
    #: (questions with evidence in two or more sessions, both in the ranking)
    newest_first: dict[str, list[bool]] = field(default_factory=dict)


def run_longmemeval(
    questions: list[Question],
    engines: Sequence[str],
    ks: Sequence[int] = (5, 10, 20),
    *,
    embedder: Embedder | None = None,
    reuse_embeddings: bool = False,
    repeats: int = 3,
    passages: Sequence[str] | None = None,
    embed_cache: str | None = None,
    clock: bool = True,
    time_options: dict[str, Any] | None = None,
    exact_options: dict[str, Any] | None = None,
    readers: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """``passages``: passage settings (``MAX/OVERLAP`` or ``off``, see
    ``engines.passage_setting``) to compare; each engine runs under each, named
    ``engine[setting]`` (one setting, or none: the default, under the engine's name).
    ``clock``: ask each question at its own date (``now``; else at the current time,
    where no window the question names holds any memory); ``time_options`` and
    ``exact_options`` go to every Memory. ``readers`` (``none``, ``local``,
    ``local@span``...) each answer every question from the same recall (k=10):
    gold-answer containment and token F1 on the answerable questions, refusal on the
    abstention ones, and latency."""
    answerers = _answerers(readers)
    embedder, cache, reuse_embeddings = _embedder_for(
        embedder or create_embedder("minilm"), reuse_embeddings, embed_cache
    )
    if reuse_embeddings:
        # no timed search should pay for a question's embedding in one engine only
        embedder.embed([q.question for q in questions])
    settings: list[str | None] = [*passages] if passages else [None]
    variants = {
        (f"{name}[{p}]" if len(settings) > 1 else name): (name, p)
        for name in engines
        for p in settings
    }
    runs = {label: _Run(label) for label in variants}
    started = time.time()
    for qi, q in enumerate(questions):
        items = [t.as_item() for t in q.turns]
        pieces = word_pieces([said_text(t.text, t.role) for t in q.turns])
        if progress:
            progress(
                f"[{qi + 1}/{len(questions)}] {q.question_id} ({q.question_type}): "
                f"{len(q.sessions)} sessions, {len(items)} turns, {pieces:,} word pieces"
            )
        for label, (name, setting) in variants.items():
            memory_options: dict[str, Any] = {
                "time_options": time_options,
                "exact_options": exact_options,
            }
            if setting is not None:
                memory_options["passage_options"] = passage_setting(setting)
            now = q.question_date if clock else None
            ask = _Asking(q, items, now, max(ks), repeats, pieces)
            hits = _ask(runs[label], name, embedder, memory_options, ask, answerers)
            if not (q.abstention or not q.evidence):
                _score_ranking(runs[label], q, hits, ks)
        if cache is not None and qi % 10 == 9:
            cache.save()
    if cache is not None:
        cache.save()
    return _summarise(questions, runs, ks, time.time() - started, reuse_embeddings, repeats)


def _embedder_for(
    embedder: Embedder, reuse_embeddings: bool, embed_cache: str | None
) -> tuple[Embedder, DiskCachedEmbedder | None, bool]:
    """(the embedder to run with, its disk cache, whether embeddings are reused): a
    disk cache (``embed_cache``) reuses them across runs, ``reuse_embeddings`` within
    this one (a memo), so ingest times then leave the embedding out."""
    if embed_cache:
        cache = DiskCachedEmbedder(embedder, embed_cache)
        return cache, cache, True
    if reuse_embeddings:
        return MemoEmbedder(embedder), None, True
    return embedder, None, False


@dataclass(frozen=True)
class _Asking:
    """One question as every engine is asked it: its haystack's ``items`` stored, then
    asked at ``now`` and searched to ``depth`` (then ``repeats`` more times, for the
    later-search latency); ``pieces`` are the haystack's word pieces (the embedding
    work of its ingest)."""

    question: Question
    items: list[dict[str, Any]]
    now: datetime | None
    depth: int
    repeats: int
    pieces: int


def _ask(
    run: _Run,
    name: str,
    embedder: Embedder,
    memory_options: dict[str, Any],
    ask: _Asking,
    answerers: dict[str, Answerer],
) -> list[Hit]:
    """One engine on one question in a fresh store: the timed ingest, the first and
    later searches, the RSS growth, the verdict, each reader's answer and the gate's
    refusal, recorded in ``run``. Returns the first search's hits."""
    q, items, now, depth = ask.question, ask.items, ask.now, ask.depth
    rss0 = rss_mb()
    with open_engine(name, embedder, memory_options=memory_options) as mem:
        gate = mem.engine_info.abilities.gate
        t0 = time.perf_counter()
        mem.add_many(items, user_id=q.question_id)
        run.ingest_s += time.perf_counter() - t0
        run.turns += len(items)
        run.pieces += ask.pieces
        t0 = time.perf_counter()
        hits = mem.search(q.question, user_id=q.question_id, k=depth, now=now)
        run.first_s.append(time.perf_counter() - t0)
        for _ in range(ask.repeats):
            t0 = time.perf_counter()
            mem.search(q.question, user_id=q.question_id, k=depth, now=now)
            run.later_s.append(time.perf_counter() - t0)
        run.rss_growth_mb.append(rss_mb() - rss0)
        # the "not in memory" verdict as Memory.answer reads it (k=10, as
        # calibrated), and the confidence gate's own refusal where there is one
        rec = mem.recall(q.question, user_id=q.question_id, k=10, now=now, explain=False)
        (run.verdict_abs if q.abstention else run.verdict_other).append(rec.not_in_memory)
        # every reader reads one recall as Memory.answer reads it
        read = mem.answer_each(answerers, q.question, q.question_id, 10, now)
        for spec, a in read.items():
            run.answers.setdefault(spec, []).append(
                _Reading(
                    q.abstention,
                    a.refused,
                    containment(a.text, q.answer, 4) or 0.0,
                    token_f1(a.text, q.answer),
                    a.latency_s,
                    len(q.answer.split()) <= SHORT_ANSWER_WORDS,
                )
            )
        if gate:
            (run.refused_abs if q.abstention else run.refused_other).append(rec.refuse)
    return hits


def _score_ranking(run: _Run, q: Question, hits: list[Hit], ks: Sequence[int]) -> None:
    """The ranking metrics of one answerable question at each k, per question type and
    overall, and whether its newest evidence ranked above its oldest."""
    turns = [h.metadata.get("turn") for h in hits]
    sessions = first_seen([h.session_id for h in hits])
    order = _newest_first(q, turns)
    if order is not None:
        for kind in (q.question_type, "all"):
            run.newest_first.setdefault(kind, []).append(order)
    for k in ks:
        for metric, value in _scores(q, turns, sessions, k).items():
            for kind in (q.question_type, "all"):
                run.values.setdefault((kind, metric, k), []).append(value)


def _answerers(readers: Sequence[str]) -> dict[str, Answerer]:
    """One Answerer per reader spec (``name`` or ``name@mode``), one LLM per name."""
    llms: dict[str, Any] = {}
    out = {}
    for spec in readers:
        name, _, mode = spec.partition("@")
        if name not in llms:
            llms[name] = create_llm(name)
        out[spec] = Answerer(llms[name], mode=mode or "auto")
    return out


def _reader_summary(rows: list[_Reading]) -> dict[str, Any]:
    """A reader's scores; a refused answerable question scores 0 on both metrics.
    ``containment_short`` is containment on the answerable questions whose gold answer
    has at most SHORT_ANSWER_WORDS words (``short_answers`` of them; None if none)."""
    answerable = [r for r in rows if not r.abstention]
    abstention = [r for r in rows if r.abstention]
    short = [r for r in answerable if r.short]
    return {
        "containment": mean(0.0 if r.refused else r.containment for r in answerable),
        "containment_short": (
            mean(0.0 if r.refused else r.containment for r in short) if short else None
        ),
        "short_answers": len(short),
        "f1": mean(0.0 if r.refused else r.f1 for r in answerable),
        "false_refusal": mean(float(r.refused) for r in answerable),
        "abstention_refusal": mean(float(r.refused) for r in abstention) if abstention else None,
        "latency_p50_s": percentile([r.seconds for r in rows], 50),
        "answers": len(rows),
    }


def _newest_first(q: Question, turns: list[str | None]) -> bool | None:
    """Whether the question's newest evidence turn ranks above its oldest (None when
    its evidence is in one session, or either is not in the ranking)."""
    when = {t.turn_id: (t.timestamp, t.session_id) for t in q.turns}
    ev = sorted(when[e] + (e,) for e in q.evidence if e in when)
    if len({s for _, s, _ in ev}) < 2:
        return None
    oldest, newest = ev[0][2], ev[-1][2]
    if oldest not in turns or newest not in turns:
        return None
    return turns.index(newest) < turns.index(oldest)


def _scores(
    q: Question, turns: list[str | None], sessions: list[str | None], k: int
) -> dict[str, float]:
    return {
        "evidence": evidence_recall(q.evidence, turns, k),
        "any_turn": recall_any(q.evidence, turns, k),
        "all_turn": recall_all(q.evidence, turns, k),
        "any_session": recall_any(q.evidence_sessions, sessions, k),
        "all_session": recall_all(q.evidence_sessions, sessions, k),
        "ndcg": ndcg(q.evidence, turns, k),
    }


def _summarise(
    questions: list[Question],
    runs: dict[str, _Run],
    ks: Sequence[int],
    wall_s: float,
    reuse: bool,
    repeats: int,
) -> dict[str, Any]:
    answerable = [q for q in questions if not q.abstention and q.evidence]
    types = sorted({q.question_type for q in answerable})
    counts = {t: sum(q.question_type == t for q in answerable) for t in types}
    counts["all"] = len(answerable)
    engines = {}
    for name, run in runs.items():
        engines[name] = {
            "recall": {
                str(k): {
                    metric: {kind: mean(run.values.get((kind, metric, k), [])) for kind in counts}
                    for metric in METRICS
                }
                for k in ks
            },
            "ingest_turns_per_s": run.turns / run.ingest_s if run.ingest_s else float("nan"),
            "ingest_pieces_per_s": run.pieces / run.ingest_s if run.ingest_s else float("nan"),
            "first_search_ms_p50": 1000 * percentile(run.first_s, 50),
            "first_search_ms_p95": 1000 * percentile(run.first_s, 95),
            "later_search_ms_p50": 1000 * percentile(run.later_s, 50),
            "later_search_ms_p95": 1000 * percentile(run.later_s, 95),
            "rss_growth_mb_max": max(run.rss_growth_mb, default=float("nan")),
            "gate_refusal_abstention": mean(run.refused_abs) if run.refused_abs else None,
            "gate_false_refusal": mean(run.refused_other) if run.refused_other else None,
            "verdict_refusal_abstention": mean(run.verdict_abs) if run.verdict_abs else None,
            "verdict_false_refusal": mean(run.verdict_other) if run.verdict_other else None,
            "newest_first": {
                kind: {"rate": mean(v), "n": len(v)} for kind, v in sorted(run.newest_first.items())
            },
            "readers": {spec: _reader_summary(rows) for spec, rows in run.answers.items()},
        }
    return {
        "benchmark": "longmemeval-retrieval",
        "questions": len(questions),
        "abstention": sum(q.abstention for q in questions),
        "type_sizes": counts,
        "turns_mean": mean(len(q.turns) for q in questions),
        "sessions_mean": mean(len(q.sessions) for q in questions),
        "ks": list(ks),
        "engines": engines,
        "peak_rss_mb": peak_rss_mb(),
        "wall_s": wall_s,
        "reuse_embeddings": reuse,
        "repeats": repeats,
        "short_answer_words": SHORT_ANSWER_WORDS,
    }
