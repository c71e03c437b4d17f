"""``remem demo``: a small original conversation, remembered, queried and answered.

The conversation (``conversation.json``, written for this project) spans six
sessions over seven weeks; its questions have known evidence turns, and two ask
about things never said. The demo ingests it through the public API, then for each
question shows the answer (the bundled local model, or extractive without one)
and whether it is right (by content: every key word of the expected answer in it as
a whole word, an expected day named by its day and month; a refusal of something
the conversation says is wrong), the rank at which the evidence came back, the
evidence and how SYNAPSE reached it (an anchor or an activation path), whether
ILSTMA's short-term cache would have answered, and what was refused and whether it
should have been. Nothing here is tuned to the reader: the questions, expected
answers and verdict rules are fixed, and a wrong answer is shown as wrong.
"""

from __future__ import annotations

import json
import re
import secrets
import tempfile
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
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
    #: the words a right answer holds, all of them (or one of ``alternatives``)
    keys: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()
    #: the day a right answer names, for a "when" question
    day: date | None = None


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
        DemoQuestion(
            q["question"],
            q["answer"],
            tuple(q["evidence"]),
            q["kind"],
            tuple(q.get("keys", ())),
            tuple(q.get("any", ())),
            date.fromisoformat(q["date"]) if "date" in q else None,
        )
        for q in raw["questions"]
    ]
    return raw, sessions, questions


def run_demo(
    engine: str = "synapse", k: int = 5, llm: str = "auto", encrypted: bool = False
) -> int:
    """Remember the bundled conversation and answer its questions; ``encrypted``: in
    an encrypted file (a key made for the run), and show that none of its words are
    in the file's bytes."""
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
        key = secrets.token_urlsafe(24) if encrypted else None
        mem = Memory(db, engine=engine, llm=llm, key=key)
        # ILSTMA reads the same store: its cache verdict is shown beside each answer
        cache = Memory(db, engine="ilstma", llm="none", key=key)
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
            if encrypted:
                console.print(_encrypted_note(db, sessions))
            stats = _ask_all(console, Table, mem, cache, user, questions, k)
        finally:
            cache.close()
            mem.close()
    console.print(
        f"\n{stats.right} of {stats.asked} right ({stats.refused_wrongly} of the wrong "
        f"refused although the conversation says it), {stats.refused_right} of "
        f"{stats.refusals} never-mentioned questions refused.\n"
        f"Evidence in the top {k} for {stats.found} of {stats.asked} answerable questions "
        f"(ranked first for {stats.first}; [green]*[/green] marks an evidence turn)."
    )
    return 0


def _encrypted_note(db: str, sessions: list[list[dict[str, Any]]]) -> str:
    """What the bytes of the encrypted database show of the conversation: the
    longest words of its turns, looked for in the file, its WAL and the WAL's index."""
    raw = b"".join(
        p.read_bytes() for p in (Path(db), Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()
    )
    words = {w for items in sessions for it in items for w in re.findall(r"\w{7,}", it["text"])}
    found = sorted(w for w in words if w.encode() in raw)
    shown = f"{len(found)} of them appear: {', '.join(found[:5])}" if found else "none appear"
    return (
        f"The database is encrypted (ChaCha20-Poly1305, a key made for this run): of the "
        f"{len(words)} words of seven letters or more in the conversation, {shown} in "
        f"its {len(raw):,} bytes on disk.\n"
    )


@dataclass
class DemoStats:
    """What the demo's closing lines count."""

    asked: int = 0  # answerable questions
    found: int = 0  # evidence in the top k
    first: int = 0  # evidence ranked first
    right: int = 0
    refused_wrongly: int = 0  # answerable, yet refused (wrong)
    refusals: int = 0  # never-mentioned questions
    refused_right: int = 0


def grade(answer: str, refused: bool, q: DemoQuestion) -> bool:
    """Whether the answer is right, by what it says: a never-mentioned question only
    when refused; an answerable one never when refused, else when it names the
    expected day (its day and month; a year it writes must be the right one) or holds
    every key word, or one of the alternatives, as a whole word."""
    if q.answer is None:
        return refused
    if refused:
        return False
    if q.day is not None:
        return names_day(answer, q.day)
    held = bool(q.keys) and all(has_word(w, answer) for w in q.keys)
    return held or any(has_word(w, answer) for w in q.alternatives)


def has_word(word: str, text: str) -> bool:
    """Whether ``text`` holds ``word`` as a whole word (a plural or possessive too:
    "Halden's" holds "Halden", "17:58" does not hold "7:58"), case aside; a number
    also after a currency's letters ("R1,200" holds "1,200", "12,001" not "2,001")."""
    before = r"(?<![\d.,])" if word[:1].isdigit() else r"(?<!\w)"
    return re.search(rf"{before}{re.escape(word)}(?:'?s)?(?!\w)", text, re.I) is not None


def names_day(answer: str, day: date) -> bool:
    """Whether ``answer`` names ``day``: "8 March", "March 8th, 2025", "2025-03-08"."""
    if day.isoformat() in answer:
        return True
    n, month = rf"0?{day.day}(?:st|nd|rd|th)?", day.strftime("%B")
    year = r"(?:,?\s+(?P<year>\d{4}))?"
    for form in (rf"(?<!\d){n}\s+(?:of\s+)?{month}\b{year}", rf"\b{month}\s+{n}(?!\d){year}"):
        if any(m["year"] in (None, str(day.year)) for m in re.finditer(form, answer, re.I)):
            return True
    return False


def evidence_rank(evidence_ids: list[str | None], expected: tuple[str, ...]) -> int | None:
    """1-based rank of the first evidence turn among the hits, or None."""
    for i, turn in enumerate(evidence_ids, 1):
        if turn in expected:
            return i
    return None


def _ask_all(console, Table, mem, cache, user, questions, k) -> DemoStats:
    stats = DemoStats()
    labels = {h.id: h.metadata.get("dia_id", h.id[:8]) for h in mem.memories(user)}

    def readable(why: str) -> str:  # memory ids -> the conversation's turn labels
        for memory_id, label in labels.items():
            if memory_id in why:
                why = why.replace(f"memory {memory_id}", label).replace(memory_id, label)
        return why

    for q in questions:
        # answered as Memory.answer answers by default (its own depth); the table
        # shows the first k of the evidence it read
        a = mem.answer(q.question, user_id=user)
        shown = a.evidence[:k]
        flow = cache.recall(q.question, user_id=user, k=k)
        said = "[red]refused[/red]" if a.refused else "answered"
        console.print(f"[bold cyan]Q ({q.kind}):[/bold cyan] {q.question}")
        console.print(
            f"   [bold]A:[/bold] {a.text}  [dim]({said}; {a.latency_s:.2f} s, "
            f"{a.context_tokens} context tokens, {a.llm_calls} LLM call(s); "
            f"ILSTMA cache {'hit' if flow.cache_hit else 'miss'})[/dim]"
        )
        right = grade(a.text, a.refused, q)
        verdict = "[green]RIGHT[/green]" if right else "[red]WRONG[/red]"
        if q.evidence:
            stats.asked += 1
            stats.right += right
            stats.refused_wrongly += a.refused
            rank = evidence_rank([h.metadata.get("dia_id") for h in shown], q.evidence)
            stats.found += rank is not None
            stats.first += rank == 1
            where = f"ranked {rank} of {len(shown)}" if rank else f"not in the top {k}"
            why = " (refused although the conversation says it)" if a.refused else ""
            console.print(
                f"   {verdict}{why}; expected: {q.answer}; evidence {', '.join(q.evidence)} {where}"
            )
        else:
            stats.refusals += 1
            stats.refused_right += right
            console.print(
                "   never mentioned in the conversation: only a refusal is right -> "
                + verdict
                + (" (refused)" if a.refused else " (answered)")
            )
        if not shown:
            continue
        table = Table(show_header=True, header_style="bold", expand=True)
        table.add_column("#", width=3)
        table.add_column("turn", width=6)
        table.add_column("memory", ratio=3)
        table.add_column("reached by", ratio=2)
        for i, h in enumerate(shown, 1):
            mark = "[green]*[/green]" if h.metadata.get("dia_id") in q.evidence else " "
            table.add_row(
                f"{i}{mark}",
                h.metadata.get("dia_id", ""),
                f"{h.speaker}: {h.text}",
                readable(a.explanations.get(h.id, "")),
            )
        console.print(table)
    return stats
