"""``remem demo``: a small original conversation, remembered, queried and answered.

The conversation (``conversation.json``, written for this project) spans six
sessions over seven weeks; its questions have known evidence turns, and two ask
about things never said. The demo ingests it through the public API, then for each
question shows the answer (the bundled local model, or extractive without one),
the evidence and how SYNAPSE reached it (an anchor or an activation path), whether
ILSTMA's short-term cache would have answered, and the refusals.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..memory import Memory

DATA = Path(__file__).parent / "conversation.json"


@dataclass(frozen=True)
class DemoQuestion:
    question: str
    answer: str | None
    evidence: tuple[str, ...]
    kind: str


def load_demo(
    path: Path = DATA,
) -> tuple[dict[str, Any], list[list[dict[str, Any]]], list[DemoQuestion]]:
    """The conversation as ``add_many`` items per session, plus its questions."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    sessions = []
    for s in raw["sessions"]:
        start = datetime.fromisoformat(s["date"])
        sessions.append(
            [
                {
                    "text": t["text"],
                    "speaker": t["speaker"],
                    "timestamp": start + timedelta(minutes=t["minutes"]),
                    "session_id": s["session_id"],
                    "metadata": {"dia_id": t["id"]},
                }
                for t in s["turns"]
            ]
        )
    questions = [
        DemoQuestion(q["question"], q["answer"], tuple(q["evidence"]), q["kind"])
        for q in raw["questions"]
    ]
    return raw, sessions, questions


def run_demo(engine: str = "synapse", k: int = 5, llm: str = "auto") -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    console = Console()
    raw, sessions, questions = load_demo()
    user = raw["user_id"]
    if engine == "hybrid":  # the CLI's global default: the demo shows the graph engine
        engine = "synapse"
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "demo.db")
        t0 = time.perf_counter()
        mem = Memory(db, engine=engine, llm=llm)
        # ILSTMA reads the same store: its cache verdict is shown beside each answer
        cache = Memory(db, engine="ilstma", llm="none")
        load_s = time.perf_counter() - t0
        try:
            console.print(
                f"[bold]remem demo[/bold] - {raw['title']}\n"
                f"engine {engine}, reader {mem.llm.name}, offline\n"
            )
            n = 0
            t0 = time.perf_counter()
            with Progress(console=console, transient=True) as bar:
                task = bar.add_task("remembering", total=sum(len(s) for s in sessions))
                for items in sessions:
                    n += len(mem.add_many(items, user_id=user))
                    bar.advance(task, len(items))
            ingest_s = time.perf_counter() - t0
            console.print(
                f"Remembered {n} turns from {len(sessions)} sessions in {ingest_s:.2f} s "
                f"(models loaded in {load_s:.2f} s).\n"
            )
            stats = _ask_all(console, Table, mem, cache, user, questions, k)
        finally:
            cache.close()
            mem.close()
    found, asked, refused_right, refusals = stats
    console.print(
        f"\nEvidence in the top {k} for {found} of {asked} answerable questions "
        f"([green]*[/green] marks an evidence turn); {refused_right} of {refusals} "
        "never-mentioned questions refused."
    )
    return 0


def _ask_all(console, Table, mem, cache, user, questions, k) -> tuple[int, int, int, int]:
    found = asked = refused_right = refusals = 0
    labels = {h.id: h.metadata.get("dia_id", h.id[:8]) for h in mem.memories(user)}

    def readable(why: str) -> str:  # memory ids -> the conversation's turn labels
        for memory_id, label in labels.items():
            if memory_id in why:
                why = why.replace(f"memory {memory_id}", label).replace(memory_id, label)
        return why

    for q in questions:
        a = mem.answer(q.question, user_id=user, k=k)
        flow = cache.recall(q.question, user_id=user, k=k)
        verdict = "[red]refused[/red]" if a.refused else "[green]answered[/green]"
        console.print(f"[bold cyan]Q ({q.kind}):[/bold cyan] {q.question}")
        console.print(
            f"   [bold]A:[/bold] {a.text}  [dim]({verdict}; {a.latency_s:.2f} s, "
            f"{a.context_tokens} context tokens, {a.llm_calls} LLM call(s); "
            f"ILSTMA cache {'hit' if flow.cache_hit else 'miss'})[/dim]"
        )
        if q.evidence:
            asked += 1
            got = {h.metadata.get("dia_id") for h in a.evidence} & set(q.evidence)
            found += bool(got)
            console.print(f"   expected: {q.answer}  (evidence {', '.join(q.evidence)})")
        else:
            refusals += 1
            refused_right += a.refused
            console.print("   never mentioned in the conversation: the right answer is a refusal")
        if not a.evidence:
            continue
        table = Table(show_header=True, header_style="bold", expand=True)
        table.add_column("#", width=3)
        table.add_column("turn", width=6)
        table.add_column("memory", ratio=3)
        table.add_column("reached by", ratio=2)
        for i, h in enumerate(a.evidence, 1):
            mark = "[green]*[/green]" if h.metadata.get("dia_id") in q.evidence else " "
            table.add_row(
                f"{i}{mark}",
                h.metadata.get("dia_id", ""),
                f"{h.speaker}: {h.text}",
                readable(a.explanations.get(h.id, "")),
            )
        console.print(table)
    return found, asked, refused_right, refusals
