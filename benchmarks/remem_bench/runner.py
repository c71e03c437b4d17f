"""Retrieval benchmarks (LoCoMo, MemoryBank): engines side by side, in one process.

For each conversation, every engine gets a fresh in-memory store, ingests the turns
session by session through the public API (``add_many``, timed, embedding included)
and answers the questions through ``Memory.search`` (timed, query embedding
included). Engines take turns conversation by conversation, so machine noise hits
them alike. Definitions: ../shared/notes/benchmarks.md in the project's workspace,
summarised in docs/benchmarks.md#retrieval-evidence-recall.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from remem import Memory
from remem.embed import Embedder, create_embedder

from .embedcache import MemoEmbedder
from .engines import open_engine
from .flow import FlowRun, run_flows, summarise_flows
from .locomo import (
    Conversation,
    Question,
    adversarial_questions,
    first_turns,
    load_locomo,
    retrieval_questions,
)
from .memorybank import load_memorybank, probing_questions
from .metrics import evidence_recall, mean, percentile
from .sysinfo import peak_rss_mb

LOW_SIM = (0.5, 0.3)
CATEGORIES = (1, 2, 3, 4)


@dataclass
class EngineRun:
    engine: str
    recalls: dict[int, list[float]] = field(default_factory=dict)  # k -> per question
    search_s: list[float] = field(default_factory=list)
    ingest_s: float = 0.0
    turns: int = 0
    index_mb: float = 0.0
    # confidence of the engine's gate per question: answerable (1-4) and adversarial (5)
    conf_answerable: list[float] = field(default_factory=list)
    conf_adversarial: list[float] = field(default_factory=list)


@dataclass
class QuestionInfo:
    conversation: str
    category: int
    best_evidence_cos: float


def subset_names(categories: Sequence[int] = CATEGORIES) -> list[str]:
    return [f"cat{c}" for c in categories] + ["all"] + [f"cos<{t}" for t in LOW_SIM]


def _in_subset(info: QuestionInfo, name: str) -> bool:
    if name == "all":
        return True
    if name.startswith("cat"):
        return info.category == int(name[3:])
    return info.best_evidence_cos < float(name[4:])


def run_locomo(
    data_path: str, engines: Sequence[str], ks=(5, 10, 20), turns: int | None = None, **kw: Any
) -> dict:
    """LoCoMo: raw categories 1-4 with evidence; category 5 feeds the gate sweep.
    ``turns``: only each conversation's first turns (and the questions they answer)."""
    convs = load_locomo(data_path)
    if turns is not None:
        convs = [first_turns(c, turns) for c in convs]
    result = run_retrieval(
        convs,
        engines,
        ks,
        questions_of=retrieval_questions,
        categories=CATEGORIES,
        **kw,
    )
    return {"benchmark": "locomo-retrieval", "data": str(data_path), "turns": turns, **result}


def run_memorybank(
    data_path: str, engines: Sequence[str], ks=(5, 10, 20), labels: str | None = None, **kw: Any
) -> dict:
    """MemoryBank's probing questions with remem's evidence labels (a non-LoCoMo check)."""
    result = run_retrieval(
        load_memorybank(data_path, labels),
        engines,
        ks,
        questions_of=probing_questions,
        categories=(),
        **kw,
    )
    return {"benchmark": "memorybank-retrieval", "data": str(data_path), **result}


def run_retrieval(
    convs: list[Conversation],
    engines: Sequence[str],
    ks: Sequence[int] = (5, 10, 20),
    *,
    questions_of: Callable[[Conversation], list[Question]],
    categories: Sequence[int] = CATEGORIES,
    conversations: Sequence[str] | None = None,
    limit: int | None = None,
    embedder: Embedder | None = None,
    engine_options: dict[str, dict[str, Any]] | None = None,
    progress: Callable[[str], None] | None = None,
    reuse_embeddings: bool = False,
) -> dict[str, Any]:
    embedder = embedder or create_embedder("minilm")
    if reuse_embeddings:
        embedder = MemoEmbedder(embedder)
    if conversations:
        wanted = set(conversations)
        convs = [c for c in convs if c.sample_id in wanted]
    runs = {name: EngineRun(name) for name in engines}
    flow_engines: list[str] = []
    flow_runs: dict[tuple[str, str], FlowRun] = {}
    infos: list[QuestionInfo] = []
    max_k = max(ks)
    started = time.time()
    for ci, conv in enumerate(convs):
        questions = questions_of(conv)
        if limit is not None:
            questions = questions[:limit]
        if progress:
            progress(
                f"[{ci + 1}/{len(convs)}] {conv.sample_id}: {len(conv.turns)} turns, "
                f"{len(questions)} questions"
            )
        vectors: dict[str, list[np.ndarray]] | None = None
        for name in engines:
            opts = (engine_options or {}).get(name, {})
            with open_engine(name, embedder, **opts) as mem:
                run = runs[name]
                gate = mem.engine_info.abilities.gate
                _ingest(mem, conv, run)
                if vectors is None:
                    vectors = _turn_vectors(mem, conv.sample_id)
                    infos.extend(_question_infos(conv, questions, vectors, embedder))
                for q in questions:
                    t0 = time.perf_counter()
                    if gate:  # the same ranking, with the gate's confidence
                        rec = mem.recall(q.question, user_id=conv.sample_id, k=max_k, explain=False)
                        hits = rec.hits
                    else:
                        hits = mem.search(q.question, user_id=conv.sample_id, k=max_k)
                    run.search_s.append(time.perf_counter() - t0)
                    got = [h.metadata.get("dia_id") for h in hits]
                    for k in ks:
                        run.recalls.setdefault(k, []).append(evidence_recall(q.evidence, got, k))
                    if gate:
                        run.conf_answerable.append(rec.confidence)
                if gate:
                    for q in adversarial_questions(conv)[: limit if limit is not None else None]:
                        recall = mem.recall(
                            q.question, user_id=conv.sample_id, k=max_k, explain=False
                        )
                        run.conf_adversarial.append(recall.confidence)
                run.index_mb = max(run.index_mb, mem.stats()["index_bytes"] / 2**20)
                if mem.engine_info.abilities.flow and name not in flow_engines:
                    flow_engines.append(name)
        if flow_engines:
            if progress:
                progress(f"    question flow: {', '.join(flow_engines)}")
            run_flows(conv, questions, flow_engines, embedder, flow_runs, max_k)
    result = _summarise(
        runs, infos, ks, categories, len(convs), time.time() - started, reuse_embeddings
    )
    result["flows"] = summarise_flows(flow_runs)
    return result


def _ingest(mem: Memory, conv: Conversation, run: EngineRun) -> None:
    for session in conv.sessions:
        items = [t.as_item() for t in session]
        t0 = time.perf_counter()
        mem.add_many(items, user_id=conv.sample_id)
        run.ingest_s += time.perf_counter() - t0
        run.turns += len(items)


def _turn_vectors(mem: Memory, user_id: str) -> dict[str, list[np.ndarray]]:
    """Each turn's stored vector by dia_id (from the exported memory table)."""
    out: dict[str, list[np.ndarray]] = {}
    for e in mem.export_data(user_id)["entries"]:
        if e["embedding"] is not None:
            vec = np.asarray(e["embedding"], dtype=np.float32)
            out.setdefault(e["metadata"]["dia_id"], []).append(vec)
    return out


def _question_infos(conv, questions, vectors, embedder) -> list[QuestionInfo]:
    if not questions:
        return []
    qv = embedder.embed([q.question for q in questions])
    out = []
    for q, v in zip(questions, qv, strict=True):
        best = max(float(vec @ v) for e in q.evidence for vec in vectors[e])
        out.append(QuestionInfo(conv.sample_id, q.category, best))
    return out


def _summarise(runs, infos, ks, categories, n_convs, wall_s, reuse_embeddings) -> dict[str, Any]:
    subsets = subset_names(categories)
    counts = {s: sum(_in_subset(i, s) for i in infos) for s in subsets}
    engines = {}
    for name, run in runs.items():
        recall = {
            str(k): {
                s: mean(r for r, i in zip(run.recalls[k], infos, strict=True) if _in_subset(i, s))
                for s in subsets
            }
            for k in ks
        }
        engines[name] = {
            "recall": recall,
            "gate": gate_sweep(run.conf_answerable, run.conf_adversarial),
            "ingest_turns_per_s": run.turns / run.ingest_s if run.ingest_s else float("nan"),
            "search_ms_p50": 1000 * percentile(run.search_s, 50),
            "search_ms_p95": 1000 * percentile(run.search_s, 95),
            "index_mb": run.index_mb,
        }
    return {
        "conversations": n_convs,
        "questions": len(infos),
        "subset_sizes": counts,
        "ks": list(ks),
        "engines": engines,
        "peak_rss_mb": peak_rss_mb(),
        "wall_s": wall_s,
        "reuse_embeddings": reuse_embeddings,
    }


GATE_TAUS = (0.0, 0.02, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2, 0.25, 0.3)


def gate_sweep(answerable: list[float], adversarial: list[float]) -> list[dict[str, float]]:
    """Refusal rate on category 5 against false refusals on categories 1-4, per tau."""
    if not answerable:
        return []
    ans = np.asarray(answerable)
    adv = np.asarray(adversarial) if adversarial else np.zeros(0)
    return [
        {
            "tau": tau,
            "false_refusal": float((ans < tau).mean()),
            "cat5_refusal": float((adv < tau).mean()) if len(adv) else float("nan"),
        }
        for tau in GATE_TAUS
    ]
