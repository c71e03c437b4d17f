"""The typed reader's cost: pipeline load time and memory, and answer latency.

    python scripts/bench_reader.py [--rounds 5]

In one process, on the answer check's conversations (benchmarks/remem_bench/data/
answer_check.json, 30 questions), through the public API:

1. resident memory after ``search`` alone (no NLP pipeline is loaded by it);
2. the first ``answer``: it loads spaCy's pipeline (time and resident memory after);
3. then ``--rounds`` passes over every question, with the typed reader (the default
   without an LLM) and with the sentence reader (``mode="extract"``) on the same
   memories: answer latency p50 / p95 of each, and their ratio.

Resident memory is read from /proc/self/status (VmRSS, VmHWM), so Linux only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime, timedelta
from pathlib import Path

from remem import Memory

DATA = Path(__file__).resolve().parents[1] / "benchmarks/remem_bench/data/answer_check.json"


def rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) of this process in MB."""
    fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


def fill(mem: Memory, conv: dict) -> None:
    for s in conv["sessions"]:
        start = datetime.fromisoformat(s["date"])
        mem.add_many(
            [
                {
                    "text": t["text"],
                    "speaker": t["speaker"],
                    "timestamp": start + timedelta(minutes=i),
                    "session_id": s["date"],
                }
                for i, t in enumerate(s["turns"])
            ],
            conv["user_id"],
        )


def pct(values: list[float], p: int) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(p / 100 * (len(values) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    convs = json.loads(DATA.read_text())["conversations"]
    typed = Memory(":memory:", llm="none")
    sentence = Memory(":memory:", llm="none", answer_options={"mode": "extract"})
    for conv in convs:
        fill(typed, conv)
        fill(sentence, conv)
    asked = [(c["user_id"], q["question"]) for c in convs for q in c["questions"]]
    for user, q in asked:
        typed.search(q, user)
    out: dict[str, object] = {"rss_after_search_mb": round(rss_mb()[0], 1)}
    t0 = time.perf_counter()
    typed.answer(*reversed(asked[0]))
    out["first_answer_s"] = round(time.perf_counter() - t0, 2)
    out["rss_after_first_answer_mb"] = round(rss_mb()[0], 1)
    for name, mem in (("typed", typed), ("sentence", sentence)):
        times = []
        for _ in range(args.rounds):
            for user, q in asked:
                t = time.perf_counter()
                mem.answer(q, user)
                times.append(time.perf_counter() - t)
        out[f"{name}_p50_ms"] = round(1000 * statistics.median(times), 1)
        out[f"{name}_p95_ms"] = round(1000 * pct(times, 95), 1)
    out["p95_ratio_typed_over_sentence"] = round(
        out["typed_p95_ms"] / out["sentence_p95_ms"],  # type: ignore[operator]
        2,
    )
    out["peak_rss_mb"] = round(rss_mb()[1], 1)
    out["answers_per_reader"] = len(asked) * args.rounds
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
