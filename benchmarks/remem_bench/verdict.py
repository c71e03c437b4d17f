"""The "not in memory" verdict measured on LoCoMo and LongMemEval, retrieval only.

Every question is recalled through the public ``Memory.recall``; its
``not_in_memory`` verdict (:mod:`remem.answer.verdict`) is the refusal. Category 5
(adversarial: unanswerable from the conversation) should be refused, categories 1-4
should not. The verdict's constants were fitted on the first five conversations
(``scripts/calibrate_verdict.py`` calls :func:`verdict_rows` and fits on its rows), so
the report splits the figures: the calibration half, and the held-out half that
played no part in fitting, which is the one to quote. The confidence gate's own
refusal (``Recall.refuse``, SYNAPSE) is reported beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from remem import Memory
from remem.embed import create_embedder
from remem.engines.verdict import VerdictModel, verdict_model

from .embedcache import DiskCachedEmbedder, MemoEmbedder
from .locomo import load_locomo
from .metrics import mean

#: the conversations the verdict was fitted on (LoCoMo's first five)
CALIBRATION = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")


def engine_verdict(engine: str, embedder: Any = None) -> VerdictModel:
    """The verdict model engine ``engine`` (a registered name) declares, as a
    ``Memory`` of it gets without an override: read from the engine made, never from
    its name; the default family's for a name nobody registered here (a saved row of
    an engine this process does not load)."""
    from remem.engines import engine_names

    if engine not in engine_names():
        return verdict_model(None)
    embedder = embedder or MemoEmbedder(create_embedder("minilm"))
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        return mem.verdict_model


def verdict_rows(
    data_path: str,
    engine: str,
    *,
    k: int = 10,
    conversations: Sequence[str] | None = None,
    embedder: Any = None,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """One row per question: conversation, category, the verdict's signals and
    score, its refusal, and the engine's confidence and gate refusal."""
    convs = load_locomo(data_path)
    if conversations:
        wanted = set(conversations)
        convs = [c for c in convs if c.sample_id in wanted]
    embedder = embedder or MemoEmbedder(create_embedder("minilm"))
    rows: list[dict[str, Any]] = []
    for i, conv in enumerate(convs):
        if progress:
            progress(f"[{i + 1}/{len(convs)}] {engine} {conv.sample_id}")
        with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
            for session in conv.sessions:
                mem.add_many([t.as_item() for t in session], user_id=conv.sample_id)
            for q in conv.questions:
                rec = mem.recall(q.question, conv.sample_id, k, explain=False)
                rows.append(
                    {
                        "engine": engine,
                        "conversation": conv.sample_id,
                        "category": q.category,
                        "question": q.question,
                        "signals": rec.details.get("verdict", {}),
                        "absent": rec.absent,
                        "not_in_memory": rec.not_in_memory,
                        "confidence": rec.confidence,
                        "gate_refuse": rec.refuse,
                    }
                )
    return rows


def lme_verdict_rows(
    data_path: str,
    engine: str,
    *,
    k: int = 10,
    pool: int = 45,
    seed: int = 0,
    questions: int | None = None,
    embedder: Any = None,
    progress: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """The verdict on LongMemEval histories (one user asking about themself). Each
    question's pooled history (:func:`remem_bench.longmemeval.pooled`) is remembered
    once and asked, at the question's date, its own question (``kind`` "own", or
    "abs" for LongMemEval's abstention questions) and, as never said, the question of
    another that history holds no session of (``kind`` "swap": the next such question
    37 places on in the file; like LongMemEval's abstention questions, a real question
    asked of a history that cannot answer it). ``half`` is "calibration" for questions
    at even positions of the file, "held_out" for odd ones."""
    from .longmemeval import load_longmemeval, pooled, spread

    everything = pooled(load_longmemeval(data_path), pool, seed)
    position = {q.question_id: i for i, q in enumerate(everything)}
    embedder = embedder or MemoEmbedder(create_embedder("minilm"))
    rows: list[dict[str, Any]] = []
    chosen = spread(everything, questions)
    for n, q in enumerate(chosen):
        if progress:
            progress(f"[{n + 1}/{len(chosen)}] {engine} {q.question_id}")
        held = {s.session_id for s in q.sessions}
        i = position[q.question_id]
        swap = next(
            (
                c
                for d in range(1, len(everything))
                if not (c := everything[(i + 37 * d) % len(everything)]).abstention
                and c.evidence
                and not set(c.own_sessions) & held
            ),
            None,
        )
        asks = [("abs" if q.abstention else "own", q.question)]
        if swap is not None:
            asks.append(("swap", swap.question))
        with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
            mem.add_many([t.as_item() for t in q.turns], user_id="u")
            for kind, question in asks:
                rec = mem.recall(question, "u", k, now=q.question_date, explain=False)
                rows.append(
                    {
                        "engine": engine,
                        "question_id": q.question_id,
                        "half": "calibration" if i % 2 == 0 else "held_out",
                        "kind": kind,
                        "question": question,
                        "signals": rec.details.get("verdict", {}),
                        "absent": rec.absent,
                        "not_in_memory": rec.not_in_memory,
                    }
                )
    return rows


def lme_refusal_rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The verdict's refusal of each kind of LongMemEval question."""
    out: dict[str, Any] = {"questions": len(rows)}
    for kind in ("own", "swap", "abs"):
        part = [r for r in rows if r["kind"] == kind]
        out[kind] = len(part)
        out[f"{kind}_refusal"] = mean(float(r["not_in_memory"]) for r in part)
    return out


def refusal_rates(rows: list[dict[str, Any]], key: str = "not_in_memory") -> dict[str, Any]:
    """Category-5 refusal beside false refusal on categories 1-4, for ``key``."""
    adv = [r for r in rows if r["category"] == 5]
    ans = [r for r in rows if r["category"] != 5]
    return {
        "questions": len(rows),
        "cat5": len(adv),
        "cat5_refusal": mean(float(r[key]) for r in adv),
        "false_refusal": mean(float(r[key]) for r in ans),
    }


def run_verdict(
    data_path: str,
    engines: Sequence[str],
    *,
    k: int = 10,
    conversations: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
    lme: str | None = None,
    lme_questions: int | None = None,
    lme_pool: int = 45,
    embed_cache: str | None = None,
) -> dict[str, Any]:
    """Per engine, the verdict's and the gate's refusal rates on the calibration half
    and on the held-out half of the conversations; with ``lme`` (a LongMemEval file)
    also its refusal of each kind of question there (:func:`lme_verdict_rows`), per
    half, each history pooled with ``lme_pool`` sessions of other questions (0 with the
    oracle file: each question's own sessions only, a small memory). ``embed_cache``:
    keep every vector in this .npz across runs (a LongMemEval history is long to
    embed; the verdict is the same either way)."""
    minilm = create_embedder("minilm")
    embedder = DiskCachedEmbedder(minilm, embed_cache) if embed_cache else MemoEmbedder(minilm)
    out: dict[str, Any] = {}
    for engine in engines:
        rows = verdict_rows(
            data_path,
            engine,
            k=k,
            conversations=conversations,
            embedder=embedder,
            progress=progress,
        )
        halves = {
            "calibration": [r for r in rows if r["conversation"] in CALIBRATION],
            "held_out": [r for r in rows if r["conversation"] not in CALIBRATION],
        }
        out[engine] = {
            name: {
                "verdict": refusal_rates(part),
                "gate": refusal_rates(part, "gate_refuse"),
            }
            for name, part in halves.items()
            if part
        }
    result: dict[str, Any] = {
        "benchmark": "locomo-verdict",
        "data": str(data_path),
        "k": k,
        "engines": out,
    }
    if lme:
        result["lme"] = str(lme)
        result["lme_pool"] = lme_pool
        result["lme_engines"] = {}
        for engine in engines:
            rows = lme_verdict_rows(
                lme,
                engine,
                k=k,
                pool=lme_pool,
                questions=lme_questions,
                embedder=embedder,
                progress=progress,
            )
            result["lme_engines"][engine] = {
                half: lme_refusal_rates([r for r in rows if r["half"] == half])
                for half in ("calibration", "held_out")
            }
    if isinstance(embedder, DiskCachedEmbedder):
        embedder.save()
    return result
