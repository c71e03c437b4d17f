"""``remem demo``: a small original conversation, remembered and queried.

The conversation (``conversation.json``, written for this project) spans six
sessions over seven weeks; its questions have known evidence turns, and two ask
about things never said. The demo ingests it through the public API and shows, for
each question, what memory surfaces and whether the evidence is among it.
"""

from __future__ import annotations

import json
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


def run_demo(engine: str = "hybrid", k: int = 3, path: str = ":memory:") -> int:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    raw, sessions, questions = load_demo()
    user = raw["user_id"]
    console.print(f"[bold]remem demo[/bold] - {raw['title']} (engine: {engine})")
    t0 = time.perf_counter()
    with Memory(path, engine=engine) as mem:
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        n = 0
        for items in sessions:
            n += len(mem.add_many(items, user_id=user))
        ingest_s = time.perf_counter() - t0
        console.print(
            f"Remembered {n} turns from {len(sessions)} sessions in {ingest_s:.2f} s "
            f"(model load {load_s:.2f} s), offline.\n"
        )
        found = asked = 0
        for q in questions:
            t0 = time.perf_counter()
            hits = mem.search(q.question, user_id=user, k=k)
            ms = 1000 * (time.perf_counter() - t0)
            table = Table(show_header=True, header_style="bold", expand=True)
            table.add_column("#", width=2)
            table.add_column("turn", width=6)
            table.add_column("memory", ratio=1)
            table.add_column("score", width=7, justify="right")
            for i, h in enumerate(hits, 1):
                mark = "[green]*[/green]" if h.metadata.get("dia_id") in q.evidence else " "
                table.add_row(
                    f"{i}{mark}",
                    h.metadata.get("dia_id", ""),
                    f"{h.speaker}: {h.text}",
                    f"{h.score:.3f}",
                )
            console.print(
                f"[bold cyan]Q ({q.kind}):[/bold cyan] {q.question}  [dim]{ms:.0f} ms[/dim]"
            )
            if q.evidence:
                asked += 1
                got = {h.metadata.get("dia_id") for h in hits} & set(q.evidence)
                found += bool(got)
                console.print(f"   expected answer: {q.answer}  (evidence {', '.join(q.evidence)})")
            else:
                console.print(
                    "   never mentioned in the conversation: an answering layer must refuse"
                )
            console.print(table)
        console.print(
            f"\nEvidence in the top {k} for {found} of {asked} answerable questions "
            "([green]*[/green] marks an evidence turn)."
        )
    return 0
