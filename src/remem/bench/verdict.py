"""The "not in memory" verdict measured on LoCoMo, retrieval only (no reader).

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

from ..embed import create_embedder
from ..embed.base import MemoEmbedder
from ..memory import Memory
from .locomo import load_locomo
from .metrics import mean

#: the conversations the verdict was fitted on (LoCoMo's first five)
CALIBRATION = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")


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
) -> dict[str, Any]:
    """Per engine, the verdict's and the gate's refusal rates on the calibration half
    and on the held-out half of the conversations."""
    embedder = MemoEmbedder(create_embedder("minilm"))
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
    return {"benchmark": "locomo-verdict", "data": str(data_path), "k": k, "engines": out}
