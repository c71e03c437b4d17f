"""``remem-bench ingest``: long texts against short ones, side by side in one process.

An agent's history with an assistant is long turns (LongMemEval's assistant answers:
a median of 2,200 characters, about 500 word pieces); a chat between two people is
short turns (LoCoMo: about 37). This benchmark ingests ``turns`` turns of each kind
with one ``add_many`` into a fresh memory, engine by engine, the kinds taking turns
for ``rounds`` rounds so machine noise hits both alike, and reports:

* ingest rate in turns/s and in MiniLM word pieces/s (untruncated: every piece is
  embedded, long memories as passages), and the long/short ratio of the latter;
* the first search right after that write, and later searches (p50 / p95 over
  rounds and queries), to show whether index or graph work waits for the first query;
* the peak RSS of a fresh process that loads the model and ingests the long turns
  (each engine in its own subprocess, so one measurement is not another's leftover).

Turns come from the data sets' own files (never shipped): LoCoMo's first
conversations in order, and one LongMemEval haystack (its sessions in date order,
pooled as ``bench longmemeval`` does for an oracle file).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from remem import Memory
from remem.embed import create_embedder
from remem.time.current import read_slots
from remem.time.events import event_times

from .embedcache import said_text, word_pieces
from .locomo import load_locomo
from .longmemeval import is_oracle, load_longmemeval, pooled
from .metrics import percentile
from .sysinfo import peak_rss_mb

QUERIES = 5


def short_items(path: str, turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for conv in load_locomo(path):
        out += [t.as_item() for t in conv.turns]
        if len(out) >= turns:
            break
    return out[:turns]


def long_items(path: str, turns: int, seed: int = 0) -> tuple[list[dict[str, Any]], list[str]]:
    """One haystack's turns (the first question whose haystack has enough) and the
    questions asked of it (its own first, then others of the file)."""
    questions = load_longmemeval(path)
    if is_oracle(questions):
        questions = pooled(questions, 45, seed)
    for q in questions:
        if len(q.turns) >= turns:
            items = [t.as_item() for t in q.turns][:turns]
            asked = [q.question] + [o.question for o in questions if o is not q][: QUERIES - 1]
            return items, asked
    raise ValueError(f"no haystack in {path} has {turns} turns")


def _reading_seconds(items: list[dict[str, Any]], read: Callable[[str, datetime], object]) -> float:
    """Seconds ``read`` takes over every item's text and time of saying: the readings
    the time issue added at ingest (event times, ``time/events.py``; slots,
    ``time/current.py``), reported as shares of each engine's ingest."""
    now = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    for item in items:  # the loaders' timestamps are datetimes already
        read(item["text"], item.get("timestamp") or now)
    return time.perf_counter() - t0


def _slots(text: str, _said: datetime) -> object:
    return read_slots(text)


def _pieces(items: list[dict[str, Any]]) -> int:
    return word_pieces([said_text(i["text"], i.get("speaker")) for i in items])


def run_ingest(
    short_path: str,
    long_path: str,
    engines: Sequence[str],
    *,
    turns: int = 500,
    rounds: int = 3,
    rss: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    embedder = create_embedder("minilm")
    short = short_items(short_path, turns)
    long, asked = long_items(long_path, turns)
    chat = [c.question for c in load_locomo(short_path)[0].questions[:QUERIES]]
    kinds = {"short": (short, chat, _pieces(short)), "long": (long, asked, _pieces(long))}

    def fastest(read: Callable[[str, datetime], object]) -> dict[str, float]:
        return {k: min(_reading_seconds(i, read) for _ in range(3)) for k, (i, *_) in kinds.items()}

    events, slots = fastest(event_times), fastest(_slots)
    embedder.embed(["warm the sessions up"] * 4)
    runs: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in range(rounds):
        for kind, (items, queries, _) in kinds.items():
            for name in engines:
                if progress:
                    progress(f"round {r + 1}/{rounds}: {name}, {len(items)} {kind} turns")
                run = runs.setdefault((kind, name), {"ingest": [], "first": [], "later": []})
                with Memory(":memory:", engine=name, embedder=embedder, llm="none") as mem:
                    t0 = time.perf_counter()
                    mem.add_many(items, user_id="u")
                    run["ingest"].append(time.perf_counter() - t0)
                    t0 = time.perf_counter()
                    mem.search(queries[0], user_id="u", k=10)
                    run["first"].append(time.perf_counter() - t0)
                    for q in queries:
                        t0 = time.perf_counter()
                        mem.search(q, user_id="u", k=10)
                        run["later"].append(time.perf_counter() - t0)
    rows: list[dict[str, Any]] = []
    for (kind, name), run in runs.items():
        items, _, pieces = kinds[kind]
        secs = sum(run["ingest"]) / len(run["ingest"])
        rows.append(
            {
                "engine": name,
                "kind": kind,
                "turns": len(items),
                "word_pieces": pieces,
                "turns_per_s": len(items) / secs,
                "pieces_per_s": pieces / secs,
                "event_times_share": events[kind] / secs,
                "slots_share": slots[kind] / secs,
                "first_search_ms_p50": 1000 * percentile(run["first"], 50),
                "first_search_ms_p95": 1000 * percentile(run["first"], 95),
                "later_search_ms_p50": 1000 * percentile(run["later"], 50),
                "later_search_ms_p95": 1000 * percentile(run["later"], 95),
            }
        )
    rate = {(r["engine"], r["kind"]): float(r["pieces_per_s"]) for r in rows}
    ratios = {name: rate[(name, "long")] / rate[(name, "short")] for name in engines}
    peaks = {}
    if rss:
        for name in engines:
            if progress:
                progress(f"peak RSS: {name} ingesting {turns} long turns in a fresh process")
            peaks[name] = _peak_rss(long_path, name, turns)
    return {
        "benchmark": "ingest",
        "turns": turns,
        "rounds": rounds,
        "rows": rows,
        "long_short_ratio": ratios,
        "fresh_process_peak_rss_mb": peaks,
        "peak_rss_mb": peak_rss_mb(),
    }


def _peak_rss(long_path: str, engine: str, turns: int) -> float:
    """Peak RSS (MB) of a fresh interpreter that loads the model and ingests ``turns``
    long turns with one add_many (the model included, as a user's process has it)."""
    code = (
        "import json, sys\n"
        "from remem import Memory\n"
        "from remem_bench.ingest import long_items\n"
        "from remem_bench.sysinfo import peak_rss_mb\n"
        "items, _ = long_items(sys.argv[1], int(sys.argv[3]))\n"
        "with Memory(':memory:', engine=sys.argv[2], llm='none') as mem:\n"
        "    mem.add_many(items, user_id='u')\n"
        "    mem.search('what did I say?', user_id='u')\n"
        "print(json.dumps(peak_rss_mb()))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, long_path, engine, str(turns)],
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))
