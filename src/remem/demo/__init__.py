"""``remem demo``: a small original conversation, remembered, queried and answered.

The conversation (``conversation.json``, written for this project) spans six
sessions over seven weeks; its questions have known evidence turns, and two ask
about things never said. The demo ingests it through the public API, then for each
question shows the answer (the bundled local model, or extractive without one)
and whether it matches the expected answer (LoCoMo's token F1: right at 0.5 or
more, partly right above 0, else wrong), the rank at which the evidence came back,
the evidence and how SYNAPSE reached it (an anchor or an activation path), whether
ILSTMA's short-term cache would have answered, and what was refused and whether it
should have been. Nothing here is tuned to the reader: the questions, expected
answers and verdict rules are fixed, and a wrong answer is shown as wrong.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..answer.settle import date_forms, named_day
from ..bench.qa_metrics import token_f1
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
    console.print(
        f"\nAnswers to the {stats.asked} answerable questions: {stats.right} right, "
        f"{stats.partly} partly right, {stats.wrong} wrong, {stats.refused_wrongly} "
        f"refused although the conversation says it.\n"
        f"Evidence in the top {k} for {stats.found} of {stats.asked} answerable questions "
        f"(ranked first for {stats.first}; [green]*[/green] marks an evidence turn); "
        f"{stats.refused_right} of {stats.refusals} never-mentioned questions refused."
    )
    return 0


@dataclass
class DemoStats:
    """What the demo's closing lines count."""

    asked: int = 0  # answerable questions
    found: int = 0  # evidence in the top k
    first: int = 0  # evidence ranked first
    right: int = 0
    partly: int = 0
    wrong: int = 0
    refused_wrongly: int = 0  # answerable, yet refused
    refusals: int = 0  # never-mentioned questions
    refused_right: int = 0


def grade(answer: str, refused: bool, expected: str | None) -> tuple[str, float | None]:
    """The demo's verdict on one answer: ``right``, ``partly``, ``wrong`` or
    ``refused`` for an answerable question (by LoCoMo's token F1 against the expected
    answer, returned with it), and ``right`` or ``wrong`` for a never-mentioned one
    (only a refusal is right). An expected day is graded by content: the answer must
    write that day ("Saturday 8 March 2025", "March 8, 2025"); the right month alone
    is partly right, any other date wrong, however many words it shares."""
    if expected is None:
        return ("right" if refused else "wrong"), None
    if refused:
        return "refused", 0.0
    f1 = token_f1(answer, expected)
    day = named_day(expected)
    if day is not None:
        low = answer.lower()
        if any(form.lower() in low for form in date_forms(day)):
            return "right", f1
        said = named_day(answer)
        month = said is None and day.strftime("%B %Y").lower() in low
        return ("partly" if month else "wrong"), f1
    return ("right" if f1 >= 0.5 else "partly" if f1 > 0 else "wrong"), f1


def evidence_rank(evidence_ids: list[str | None], expected: tuple[str, ...]) -> int | None:
    """1-based rank of the first evidence turn among the hits, or None."""
    for i, turn in enumerate(evidence_ids, 1):
        if turn in expected:
            return i
    return None


_VERDICT = {
    "right": "[green]RIGHT[/green]",
    "partly": "[yellow]PARTLY RIGHT[/yellow]",
    "wrong": "[red]WRONG[/red]",
    "refused": "[red]REFUSED[/red] although the conversation says it",
}


def _ask_all(console, Table, mem, cache, user, questions, k) -> DemoStats:
    stats = DemoStats()
    labels = {h.id: h.metadata.get("dia_id", h.id[:8]) for h in mem.memories(user)}

    def readable(why: str) -> str:  # memory ids -> the conversation's turn labels
        for memory_id, label in labels.items():
            if memory_id in why:
                why = why.replace(f"memory {memory_id}", label).replace(memory_id, label)
        return why

    for q in questions:
        a = mem.answer(q.question, user_id=user, k=k)
        flow = cache.recall(q.question, user_id=user, k=k)
        shown = "[red]refused[/red]" if a.refused else "answered"
        console.print(f"[bold cyan]Q ({q.kind}):[/bold cyan] {q.question}")
        console.print(
            f"   [bold]A:[/bold] {a.text}  [dim]({shown}; {a.latency_s:.2f} s, "
            f"{a.context_tokens} context tokens, {a.llm_calls} LLM call(s); "
            f"ILSTMA cache {'hit' if flow.cache_hit else 'miss'})[/dim]"
        )
        verdict, f1 = grade(a.text, a.refused, q.answer)
        if q.evidence:
            stats.asked += 1
            if verdict == "refused":
                stats.refused_wrongly += 1
            else:
                setattr(stats, verdict, getattr(stats, verdict) + 1)
            rank = evidence_rank([h.metadata.get("dia_id") for h in a.evidence], q.evidence)
            stats.found += rank is not None
            stats.first += rank == 1
            where = f"ranked {rank} of {len(a.evidence)}" if rank else f"not in the top {k}"
            score = f" (F1 {f1:.2f})" if verdict != "refused" else ""
            console.print(
                f"   {_VERDICT[verdict]}{score}; expected: {q.answer}; "
                f"evidence {', '.join(q.evidence)} {where}"
            )
        else:
            stats.refusals += 1
            stats.refused_right += verdict == "right"
            console.print(
                "   never mentioned in the conversation: only a refusal is right -> "
                + (
                    "[green]RIGHT[/green] (refused)"
                    if verdict == "right"
                    else "[red]WRONG[/red] (answered)"
                )
            )
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
    return stats
