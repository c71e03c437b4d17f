"""All 10 conversations from the two halves' flow rows: counts summed (hits = rate x
questions, right hits = precision x hits), times weighted by questions.

    python docs/results/stop47/judge/combine.py PREFIX   # "sweep-" or ""
"""
import json, sys
prefix = sys.argv[1] if len(sys.argv) > 1 else ""
out = {}
for part in ("conv1-5", "conv6-10"):
    for f in json.load(open(f"docs/results/stop47/judge/{prefix}{part}.json"))["flows"]:
        key = (f["engine"], f["order"])
        n = f["questions"]; hits = round(f["hit_rate"] * n)
        right = round(f["hit_precision"] * hits) if hits else 0
        rec = f["hit_evidence_recall"] * hits if hits else 0.0
        o = out.setdefault(key, {"questions": 0, "hits": 0, "right": 0, "rec": 0.0, "on": 0.0, "off": 0.0, "held": 0.0})
        o["questions"] += n; o["hits"] += hits; o["right"] += right; o["rec"] += rec
        o["on"] += f["on_ms_mean"] * n; o["off"] += f["off_ms_mean"] * n; o["held"] += f["cache_held"] * n
rows = []
for (engine, order), o in out.items():
    n = o["questions"]
    rows.append({"engine": engine, "order": order, "questions": n, "cache_held": o["held"] / n,
                 "hits": o["hits"], "hit_rate": o["hits"] / n,
                 "hit_precision": o["right"] / o["hits"] if o["hits"] else None,
                 "hit_evidence_recall": o["rec"] / o["hits"] if o["hits"] else None,
                 "on_ms_mean": o["on"] / n, "off_ms_mean": o["off"] / n})
json.dump(rows, open(f"docs/results/stop47/judge/{prefix}all10.json", "w"), indent=1)
lines = ["| engine | order | questions | cache held evidence | hits | hit rate | hit precision | hit evidence recall | on mean ms | off mean ms |", "|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    lines.append(f"| {r['engine']} | {r['order']} | {r['questions']} | {r['cache_held']:.3f} | {r['hits']} | {r['hit_rate']:.3f} | {r['hit_precision']:.3f} | {r['hit_evidence_recall']:.3f} | {r['on_ms_mean']:.1f} | {r['off_ms_mean']:.1f} |")
open(f"docs/results/stop47/judge/{prefix}all10.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
