"""LoCoMo answer figures by half: the conversations a reader was fitted on, and the rest.

    python scripts/qa_halves.py RUN.jsonl [--data ../shared/data/locomo/locomo10.json]
        [--train 5]

RUN.jsonl is a LoCoMo answer run (``remem-bench locomo ... --answer --jsonl``). The
typed reader's weights were fitted on the first ``--train`` conversations of the file
(``scripts/fit_reader.py``); the figures of the others are held out. Per engine (and
reader, when the run has several) and half: F1 and containment over categories 1-4,
category-5 refusal and false refusal.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from statistics import mean

from remem_bench.locomo import load_locomo


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run")
    p.add_argument("--data", default="../shared/data/locomo/locomo10.json")
    p.add_argument("--train", type=int, default=5)
    args = p.parse_args()
    fitted = {c.sample_id for c in load_locomo(args.data)[: args.train]}
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in Path(args.run).read_text().splitlines():
        row = json.loads(line)
        half = "fitted on" if row["conversation"] in fitted else "held out"
        groups[(row["engine"], half)].append(row)
    print("| engine | conversations | F1 1-4 | containment 1-4 | cat5 refusal | false refusal |")
    print("|---|---|---|---|---|---|")
    for (engine, half), rows in sorted(groups.items()):
        answerable = [r for r in rows if r["category"] != 5]
        adversarial = [r for r in rows if r["category"] == 5]
        f1 = mean(r["f1"] for r in answerable)
        ct = mean(r["containment"] or 0.0 for r in answerable)
        c5 = mean(float(r["refused"]) for r in adversarial)
        fr = mean(float(r["refused"]) for r in answerable)
        print(f"| {engine} | {half} | {f1:.3f} | {ct:.3f} | {c5:.3f} | {fr:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
