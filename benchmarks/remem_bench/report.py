"""Rendering benchmark results: rich tables on the terminal, Markdown for docs/."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _fmt(x: float, digits: int = 3) -> str:
    return "-" if x != x else f"{x:.{digits}f}"  # NaN-safe


#: a rendered table: (title, header, rows)
Table = tuple[str, list[str], list[list[str]]]


def locomo_tables(result: dict[str, Any]) -> list[Table]:
    """(title, header, rows) for the recall table and the efficiency table, then the
    confidence gate sweep and the ILSTMA question flow where the run has them."""
    return (
        [_locomo_recall(result), _locomo_efficiency(result)]
        + _gate_sweep(result)
        + _flow_table(result)
    )


def _locomo_recall(result: dict[str, Any]) -> Table:
    """Evidence recall@k per engine and k, one column per question subset."""
    sizes = result["subset_sizes"]
    subsets = list(sizes)
    header = ["engine", "k"] + subsets
    rows = []
    for k in result["ks"]:
        for name, e in result["engines"].items():
            rec = e["recall"][str(k)]
            rows.append([name, str(k)] + [_fmt(rec[s]) for s in subsets])
    return (
        (
            f"Evidence recall@k on LoCoMo, {result['questions']} questions of raw categories 1-4 "
            if result["benchmark"].startswith("locomo")
            else f"Evidence recall@k on MemoryBank (en), {result['questions']} probing "
            "questions, k counted in memories (a pair is two) "
        )
        + "(n: "
        + ", ".join(f"{s} {sizes[s]}" for s in subsets)
        + ")",
        header,
        rows,
    )


def _locomo_efficiency(result: dict[str, Any]) -> Table:
    """Ingest rate, search latency and index size per engine."""
    eff_header = ["engine", "ingest turns/s", "search p50 ms", "search p95 ms", "index MB"]
    eff = [
        [
            name,
            _fmt(e["ingest_turns_per_s"], 0),
            _fmt(e["search_ms_p50"], 1),
            _fmt(e["search_ms_p95"], 1),
            _fmt(e["index_mb"], 1),
        ]
        for name, e in result["engines"].items()
    ]
    return (
        (
            "Efficiency (same run, --reuse-embeddings: every turn and question is "
            "embedded once, so only the first engine's ingest includes embedding and "
            "no search time includes the query embedding; "
            if result.get("reuse_embeddings")
            else "Efficiency (same run; "
        )
        + f"peak RSS {result['peak_rss_mb']:.0f} MB, "
        f"wall {result['wall_s']:.0f} s)",
        eff_header,
        eff,
    )


def _gate_sweep(result: dict[str, Any]) -> list[Table]:
    """The confidence gate sweep of the engines that have a gate (none: no table)."""
    gates = [
        [name, _fmt(g["tau"], 2), _fmt(g["false_refusal"]), _fmt(g["cat5_refusal"])]
        for name, e in result["engines"].items()
        for g in e.get("gate", [])
    ]
    if not gates:
        return []
    return [
        (
            "Confidence gate sweep: false refusals on raw categories 1-4 vs refusals on "
            "raw category 5",
            ["engine", "tau", "false refusal 1-4", "refusal cat5"],
            gates,
        )
    ]


def _flow_table(result: dict[str, Any]) -> list[Table]:
    """ILSTMA's question flow, cache on against off (no flows in the run: no table)."""
    flows = result.get("flows") or []
    if not flows:
        return []
    header = [
        "engine",
        "order",
        "questions",
        "near previous",
        "cache held evidence",
        "hit rate",
        "hit precision",
        "miss recall",
        "hybrid top-n",
        "n",
        "on mean/p95 ms",
        "off mean/p95 ms",
        "on/off",
    ]
    rows = [
        [
            f["engine"],
            f["order"],
            str(f["questions"]),
            _fmt(f["locality_bound"]),
            _fmt(f["cache_held"]),
            _fmt(f["hit_rate"]),
            _fmt(f["hit_precision"]),
            _fmt(f["miss_recall"]),
            _fmt(f["miss_baseline_recall"]),
            _fmt(f["miss_recalled_mean"], 2),
            f"{_fmt(f['on_ms_mean'], 1)} / {_fmt(f['on_ms_p95'], 1)}",
            f"{_fmt(f['off_ms_mean'], 1)} / {_fmt(f['off_ms_p95'], 1)}",
            _fmt(f["time_ratio"], 2),
        ]
        for f in flows
    ]
    return [
        (
            "ILSTMA question flow (cache on vs off in the same run; near previous = share of "
            "questions with evidence within one turn of the previous question's; cache held "
            "evidence = asked while a cached dialogue was evidence; a hit is "
            "correct when a cached dialogue is evidence; miss recall = evidence recall of "
            "the recalled dialogues vs hybrid's top-n at the same n)",
            header,
            rows,
        )
    ]


def scale_tables(result: dict[str, Any]) -> list[Table]:
    header = [
        "engine",
        "memories",
        "ingest/s",
        "search p50 ms",
        "search p95 ms",
        "mixed add p50/p95 ms",
        "mixed search p95 ms",
        "graph active/archived",
        "top-k = exact",
        "RSS growth MB",
    ]
    rows = [
        [
            r["engine"],
            f"{r['memories']:,}",
            _fmt(r["ingest_per_s"], 0),
            _fmt(r["search_ms_p50"], 1),
            _fmt(r["search_ms_p95"], 1),
            f"{_fmt(r['mixed_add_ms_p50'], 1)} / {_fmt(r['mixed_add_ms_p95'], 1)}",
            _fmt(r["mixed_search_ms_p95"], 1),
            "-"
            if r.get("graph_active_nodes") is None
            else f"{r['graph_active_nodes']:,} / {r['graph_archived_nodes']:,}",
            "exact"
            if r.get("exact_top_k_agreement") is None
            else _fmt(r["exact_top_k_agreement"], 3),
            _fmt(r["rss_growth_mb"], 0),
        ]
        for r in result["rows"]
    ]
    tables = [
        (
            f"Synthetic history, one user, k={result['k']}, {result['queries']} distinct "
            f"queries, then {result['mixed']} rounds of add + search "
            f"(peak RSS {result['peak_rss_mb']:.0f} MB)",
            header,
            rows,
        )
    ]
    if result.get("growth"):
        tables.append(
            (
                "Growth of search p95 from the smallest to the largest size",
                ["engine", "from", "to", "search p95 ratio", "mixed search p95 ratio"],
                [
                    [
                        g["engine"],
                        f"{g['from']:,}",
                        f"{g['to']:,}",
                        _fmt(g["p95_ratio"], 2),
                        _fmt(g["mixed_p95_ratio"], 2),
                    ]
                    for g in result["growth"]
                ],
            )
        )
    return tables


def print_tables(tables: list[Table]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 120))
    for title, header, rows in tables:
        table = Table(title=title, title_justify="left")
        for i, h in enumerate(header):
            table.add_column(h, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)


def markdown(tables: list[Table], command: str) -> str:
    out = [f"Command: `{command}`", ""]
    for title, header, rows in tables:
        out += [f"**{title}**", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        out += ["| " + " | ".join(row) + " |" for row in rows]
        out.append("")
    return "\n".join(out)


def qa_tables(result: dict[str, Any]) -> list[Table]:
    """F1 per raw category and the cost of each answer, engines side by side: F1,
    containment, cost, then the paired F1 differences where the run has them."""
    tables = [_qa_f1(result), _qa_containment(result), _qa_cost(result)]
    tables += _qa_paired(result)
    return tables


_QA_CATS = ["1", "2", "3", "4"]


def _qa_f1(result: dict[str, Any]) -> Table:
    """Official F1 per raw category 1-4, their weighted mean, the refusals, and the
    LLM judge's accuracy where the run had a judge."""
    cats = _QA_CATS
    engines = result["engines"]
    f1_rows = [
        [name]
        + [_fmt(e["f1"][c]) for c in cats]
        + [_fmt(e["f1_1to4"]), _fmt(e["cat5_refusal"]), _fmt(e["false_refusal"])]
        + ([_fmt(e["judge_accuracy"])] if e.get("judge_accuracy") is not None else [])
        for name, e in engines.items()
    ]
    any_judge = any(e.get("judge_accuracy") is not None for e in engines.values())
    counts = next(iter(engines.values()))["counts"] if engines else {}
    header = (
        ["engine"]
        + [f"cat{c} F1 (n={counts.get(c, 0)})" for c in cats]
        + ["F1 1-4 (weighted)", f"cat5 refusal (n={counts.get('5', 0)})", "false refusal 1-4"]
        + (["LLM judge"] if any_judge else [])
    )
    options = "".join(f", {k}={v}" for k, v in (result.get("answer_options") or {}).items())
    return (
        (
            f"LoCoMo QA, official F1 by raw category (reader {result['reader']}"
            + ("" if result.get("reader_seed") is None else f" seed {result['reader_seed']}")
            + ", "
            f"k={result['k']}, context budget {result['max_context_tokens']} tokens, "
            f"grounding check {result.get('grounding', 0.5)}{options})"
        )
        if "replayed" not in result
        else (
            f"LoCoMo QA replayed from {result['jsonl']}: the saved reader drafts settled "
            f"by the current answer rules, grounding check {result['grounding']}{options}"
        ),
        header,
        f1_rows,
    )


def _qa_containment(result: dict[str, Any]) -> Table:
    """Gold-answer containment per raw category beside F1, reply length and refusals."""
    cats = _QA_CATS
    return (
        "Gold-answer containment by raw category (share of the gold answer's normalised "
        "tokens found in the reply; not an official score: it does not punish length, "
        "so read it beside the answers' length), category 2 graded by the time the answer "
        "states (inside the gold's interval; golds the rules cannot read are not graded) "
        "and refusals",
        ["engine"]
        + [f"cat{c} containment" for c in cats]
        + [
            "cat2 date right (graded)",
            "containment 1-4",
            "F1 1-4",
            "reply tokens (answers 1-4)",
            "answers with invented words",
            "cat5 refusal",
            "false refusal 1-4",
            "latency p50 s",
        ],
        [
            [name]
            + [_fmt(e.get("containment", {}).get(c, float("nan"))) for c in cats]
            + [
                f"{_fmt(e.get('date_right_cat2', float('nan')))} ({e.get('date_graded_cat2', 0)})",
                _fmt(e.get("containment_1to4", float("nan"))),
                _fmt(e["f1_1to4"]),
                _fmt(e.get("reply_tokens_mean", float("nan")), 1),
                _fmt(e.get("invented_rate", float("nan"))),
                _fmt(e["cat5_refusal"]),
                _fmt(e["false_refusal"]),
                _fmt(e["latency_p50_s"], 2),
            ]
            for name, e in result["engines"].items()
        ],
    )


def _qa_cost(result: dict[str, Any]) -> Table:
    """Context size, LLM calls, latency, evidence in context and cache hits."""
    cost = [
        [
            name,
            _fmt(e["context_tokens_p50"], 0),
            _fmt(e["context_tokens_mean"], 0),
            _fmt(e["llm_calls_mean"], 2),
            _fmt(e["latency_p50_s"], 2),
            _fmt(e["latency_p95_s"], 2),
            _fmt(e["evidence_recall"]),
            "-" if e.get("cache_hit_rate") is None else _fmt(e["cache_hit_rate"]),
        ]
        for name, e in result["engines"].items()
    ]
    return (
        "Cost per question",
        [
            "engine",
            "context tokens p50",
            "context tokens mean",
            "LLM calls",
            "latency p50 s",
            "latency p95 s",
            "evidence recall in context",
            "cache hit rate",
        ],
        cost,
    )


def _qa_paired(result: dict[str, Any]) -> list[Table]:
    """The paired bootstrap of F1 differences on the same questions (none: no table)."""
    paired = [
        [
            name,
            p["minus"],
            _fmt(p["diff"]),
            f"[{_fmt(p['ci95'][0])}, {_fmt(p['ci95'][1])}]",
            str(p["questions"]),
            _spread(p.get("per_conversation")),
            f"{p.get('conversations_better', '-')} / {p.get('conversations_worse', '-')}",
        ]
        for name, p in (result.get("paired") or {}).items()
    ]
    if not paired:
        return []
    return [
        (
            "F1 1-4 difference on the same questions (95% paired bootstrap)",
            [
                "engine",
                "minus",
                "diff",
                "ci95",
                "questions",
                "per conversation min / median / max",
                "conversations better / worse",
            ],
            paired,
        )
    ]


def _spread(per_conv: dict[str, float] | None) -> str:
    if not per_conv:
        return "-"
    v = sorted(per_conv.values())
    mid = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
    return f"{_fmt(v[0])} / {_fmt(mid)} / {_fmt(v[-1])}"


def short_history_tables(
    result: dict[str, Any],
) -> list[Table]:
    """Evidence recall (raw categories 1-4) when each conversation is cut to its first
    turns: one row per (turns, engine)."""
    runs = result["runs"]
    ks = runs[0]["ks"] if runs else []
    rows = [
        [str(r["turns"]), str(r["subset_sizes"]["all"]), name]
        + [_fmt(e["recall"][str(k)]["all"]) for k in ks]
        for r in runs
        for name, e in r["engines"].items()
    ]
    return [
        (
            "Short histories: evidence recall on the questions the first N turns answer "
            "(raw categories 1-4)",
            ["turns", "questions", "engine"] + [f"recall@{k}" for k in ks],
            rows,
        )
    ]


def compare_tables(result: dict[str, Any]) -> list[Table]:
    rows = [
        [
            name,
            str(e["questions"]),
            str(e["identical_predictions"]),
            str(e["identical_evidence"]),
            str(e.get("identical_drafts", "-")),
            _fmt(e["f1_1to4_a"]),
            _fmt(e["f1_1to4_b"]),
            _fmt(e["diff"]),
            f"[{_fmt(e['ci95'][0])}, {_fmt(e['ci95'][1])}]",
        ]
        for name, e in result["engines"].items()
    ]
    return [
        (
            f"Two QA runs question by question: A = {result['a']}, B = {result['b']}"
            + (
                f", without the questions of {', '.join(result['exclude'])}"
                if result.get("exclude")
                else ""
            ),
            [
                "engine",
                "questions in both",
                "identical predictions",
                "identical evidence",
                "identical reader drafts",
                "F1 1-4 A",
                "F1 1-4 B",
                "B - A",
                "ci95",
            ],
            rows,
        )
    ]


def grounding_tables(result: dict[str, Any]) -> list[Table]:
    rows = [
        [
            name,
            _fmt(r["threshold"], 2),
            _fmt(r["f1_1to4"]),
            _fmt(r["cat5_refusal"]),
            _fmt(r["false_refusal"]),
        ]
        for name, sweep in result["engines"].items()
        for r in sweep
    ]
    return [
        (
            "Grounding check replayed on saved drafts (no reader calls): threshold vs F1 "
            "1-4, refusal on raw category 5 and false refusal on 1-4",
            ["engine", "threshold", "F1 1-4", "cat5 refusal", "false refusal 1-4"],
            rows,
        )
    ]


def verdict_tables(result: dict[str, Any]) -> list[Table]:
    """The "not in memory" verdict beside the confidence gate, per half."""
    rows = []
    for engine, halves in result["engines"].items():
        for half, parts in halves.items():
            for who in ("verdict", "gate"):
                r = parts[who]
                rows.append(
                    [
                        engine,
                        half,
                        who,
                        str(r["questions"]),
                        str(r["cat5"]),
                        _fmt(r["cat5_refusal"]),
                        _fmt(r["false_refusal"]),
                    ]
                )
    head = ["engine", "conversations", "refusal by", "questions", "cat 5", "cat-5 refusal"]
    tables = [
        (
            f"LoCoMo 'not in memory' verdict (k={result['k']}; fitted on the calibration half)",
            [*head, "false refusal 1-4"],
            rows,
        )
    ]
    lme = [
        [
            engine,
            half,
            *(f"{_fmt(r[f'{kind}_refusal'])} ({r[kind]})" for kind in ("own", "swap", "abs")),
        ]
        for engine, halves in result.get("lme_engines", {}).items()
        for half, r in halves.items()
    ]
    if lme:
        tables.append(
            (
                f"LongMemEval 'not in memory' verdict ({result['lme']}, pooled with "
                f"{result.get('lme_pool', 45)} sessions; refusal of each kind of question, "
                "n in brackets; 'own' is false refusal, 'swap' another question's "
                "never-said question, 'abs' LongMemEval's abstention questions)",
                ["engine", "questions", "own (false refusal)", "swap (never said)", "abs"],
                lme,
            )
        )
    return tables


def load_tables(result: dict[str, Any]) -> list[Table]:
    s = result
    title = (
        f"Load test: {s['clients']} concurrent clients for {s['duration_s']:.0f} s against "
        f"remem serve --workers {s['workers']} ({s['engine']}, answers by the "
        f"{s['llm']!r} reader) over {s['backend']}; {s['requests']:,} requests, "
        f"{s['requests_per_s']:.1f}/s, {s['errors']} errors; writes acknowledged "
        f"{s['writes_acknowledged']:,}, found afterwards {s['writes_found']:,}, lost "
        f"{s['writes_lost']}, phantom {s['writes_phantom']}"
    )
    header = ["operation", "requests", "per s", "p50 ms", "p95 ms", "p99 ms", "errors"]
    rows = [
        [
            op,
            f"{o['n']:,}",
            _fmt(o["per_s"], 1),
            _fmt(o["p50_ms"], 1),
            _fmt(o["p95_ms"], 1),
            _fmt(o["p99_ms"], 1),
            str(o["errors"]),
        ]
        for op, o in s["ops"].items()
    ]
    return [(title, header, rows)]


def spread_tables(result: dict[str, Any]) -> list[Table]:
    """Each run, then mean ± sd [min, max] over the runs, then the paired differences."""
    engines = list(result["summary"])
    paired = result["paired"]
    per_run = [
        [Path(r["run"]).name]
        + [_fmt(r["engines"][e]["f1_1to4"]) for e in engines]
        + [_fmt(r["paired"][e]["diff"]) for e in paired]
        for r in result["runs"]
    ]

    def ms(s: dict[str, float]) -> str:
        return f"{_fmt(s['mean'])} ± {_fmt(s['sd'])} [{_fmt(s['min'])}, {_fmt(s['max'])}]"

    over = [
        [
            e,
            str(result["questions"][e]),
            ms(result["summary"][e]["f1_1to4"]),
            ms(result["summary"][e]["cat5_refusal"]),
            ms(result["summary"][e]["false_refusal"]),
            _fmt(result["identical_drafts_share"][e]),
        ]
        for e in engines
    ]
    diffs = [
        [
            e,
            p["minus"],
            _fmt(p["mean"]),
            _fmt(p["sd"]),
            _fmt(p["min"]),
            _fmt(p["max"]),
            f"{p['runs_better']} / {p['runs_worse']}",
        ]
        for e, p in paired.items()
    ]
    n = len(result["runs"])
    return [
        (
            "Each run: F1 1-4 (weighted) and the paired differences",
            ["run"]
            + [f"{e} F1 1-4" for e in engines]
            + [f"{e} - {p['minus']}" for e, p in paired.items()],
            per_run,
        ),
        (
            f"Over {n} runs: mean ± sd [min, max]",
            [
                "engine",
                "questions",
                "F1 1-4",
                "cat5 refusal",
                "false refusal 1-4",
                "drafts identical in every run",
            ],
            over,
        ),
        (
            f"F1 1-4 difference over {n} runs",
            ["engine", "minus", "mean", "sd", "min", "max", "runs better / worse"],
            diffs,
        ),
    ]


_LME_METRICS = {
    "evidence": "evidence recall",
    "any_turn": "any turn",
    "all_turn": "all turns",
    "any_session": "any session",
    "all_session": "all sessions",
    "ndcg": "NDCG",
}


def longmemeval_tables(result: dict[str, Any]) -> list[Table]:
    """Evidence recall per question type; LongMemEval's own metrics; efficiency; then
    the readers and the newest-evidence-first order where the run has them."""
    return [
        _lme_by_type(result),
        _lme_metrics(result),
        _lme_efficiency(result),
        *_lme_readers(result),
        *_lme_newest_first(result),
    ]


def _rate(x: float | None) -> str:
    return "-" if x is None else _fmt(x, 2)


def _lme_by_type(result: dict[str, Any]) -> Table:
    """Evidence recall@k per engine and k, one column per question type."""
    sizes = result["type_sizes"]
    kinds = list(sizes)
    where = (
        f"{result['questions']} questions ({result['abstention']} abstention), "
        f"{_fmt(result['sessions_mean'], 1)} sessions and {_fmt(result['turns_mean'], 0)} "
        f"turns per haystack, pool {result.get('pool', 0)} (seed {result.get('seed', 0)})"
    )
    n = ", ".join(f"{k} {v}" for k, v in sizes.items())
    by_type = [
        [name, str(k)] + [_fmt(e["recall"][str(k)]["evidence"][t]) for t in kinds]
        for k in result["ks"]
        for name, e in result["engines"].items()
    ]
    return (
        f"Evidence recall@k on LongMemEval by question type: {where} (n: {n})",
        ["engine", "k", *kinds],
        by_type,
    )


def _lme_metrics(result: dict[str, Any]) -> Table:
    """LongMemEval's own retrieval metrics over all answerable questions."""
    metrics = [
        [name, str(k)] + [_fmt(e["recall"][str(k)][m]["all"]) for m in _LME_METRICS]
        for k in result["ks"]
        for name, e in result["engines"].items()
    ]
    return (
        "LongMemEval's retrieval metrics, all answerable questions (turn level; "
        "sessions ranked by their first retrieved turn)",
        ["engine", "k", *_LME_METRICS.values()],
        metrics,
    )


def _lme_efficiency(result: dict[str, Any]) -> Table:
    """Ingest rates, first and later search latency, RSS growth and the refusals of
    the gate and the verdict (abstention questions against the others)."""
    eff = [
        [
            name,
            _fmt(e["ingest_turns_per_s"], 1),
            _fmt(e["ingest_pieces_per_s"], 0),
            f"{_fmt(e['first_search_ms_p50'], 1)} / {_fmt(e['first_search_ms_p95'], 1)}",
            f"{_fmt(e['later_search_ms_p50'], 1)} / {_fmt(e['later_search_ms_p95'], 1)}",
            _fmt(e["rss_growth_mb_max"], 0),
            f"{_rate(e['gate_refusal_abstention'])} / {_rate(e['gate_false_refusal'])}",
            f"{_rate(e.get('verdict_refusal_abstention'))} / "
            f"{_rate(e.get('verdict_false_refusal'))}",
        ]
        for name, e in result["engines"].items()
    ]
    embedded = (
        "each text embedded once for all engines: ingest rates exclude embedding but the "
        "first engine's"
        if result.get("reuse_embeddings")
        else "ingest includes embedding"
    )
    return (
        f"Efficiency (one add_many of each haystack, {embedded}; search times "
        f"include the query embedding unless reused; later = the same search "
        f"{result.get('repeats', 3)} more times; peak RSS of the process "
        f"{_fmt(result['peak_rss_mb'], 0)} MB, wall {_fmt(result['wall_s'], 0)} s)",
        [
            "engine",
            "ingest turns/s",
            "word pieces/s",
            "first search p50/p95 ms",
            "later search p50/p95 ms",
            "RSS growth MB (max)",
            "gate refusal: abstention / others",
            "not-in-memory verdict: abstention / others",
        ],
        eff,
    )


def _lme_readers(result: dict[str, Any]) -> list[Table]:
    """The readers side by side over the same recall (no readers run: no table)."""
    words = result.get("short_answer_words", 4)
    answers = [
        [
            name,
            spec,
            _fmt(r["containment"]),
            _short_containment(r),
            _fmt(r["f1"]),
            _fmt(r["false_refusal"], 2),
            _rate(r["abstention_refusal"]),
            _fmt(r["latency_p50_s"], 2),
        ]
        for name, e in result["engines"].items()
        for spec, r in e.get("readers", {}).items()
    ]
    if not answers:
        return []
    return [
        (
            "Readers side by side over the same recall (k=10): gold-answer containment "
            "and token F1 on the answerable questions (a refusal scores 0; not "
            "LongMemEval's LLM-judged accuracy), containment also on those whose gold "
            f"answer has at most {words} words (n of them), false refusal, refusal of "
            "the abstention questions, reading latency",
            [
                "engine",
                "reader",
                "containment",
                f"containment, short answers (≤{words} words)",
                "F1",
                "false refusal",
                "abstention refused",
                "latency p50 s",
            ],
            answers,
        )
    ]


def _short_containment(reader: dict[str, Any]) -> str:
    """A reader's containment on the short gold answers, with their count."""
    value = reader.get("containment_short")
    n = reader.get("short_answers", 0)
    return f"{_fmt(value)} (n={n})" if value is not None else "-"


def _lme_newest_first(result: dict[str, Any]) -> list[Table]:
    """How often the newest evidence ranks above the oldest, per question type (no
    question with evidence in two sessions: no table)."""
    orders = sorted(
        {kind for e in result["engines"].values() for kind in e.get("newest_first", {})}
    )
    if not orders:
        return []
    newest = [
        [name]
        + [
            f"{_fmt(e['newest_first'][kind]['rate'], 2)} ({e['newest_first'][kind]['n']})"
            if kind in e.get("newest_first", {})
            else "-"
            for kind in orders
        ]
        for name, e in result["engines"].items()
    ]
    return [
        (
            "Newest evidence first: share of questions with evidence in two or more "
            "sessions (both retrieved, n in brackets) whose newest evidence turn ranks "
            "above the oldest",
            ["engine", *orders],
            newest,
        )
    ]


def _pct(share: float | None) -> str:
    """A share as a percentage; "-" for a run made before it was measured."""
    return "-" if share is None else f"{100 * share:.1f}"


def ingest_tables(result: dict[str, Any]) -> list[Table]:
    rows = [
        [
            r["engine"],
            r["kind"],
            f"{r['turns']:,}",
            f"{r['word_pieces']:,}",
            _fmt(r["turns_per_s"], 1),
            _fmt(r["pieces_per_s"], 0),
            f"{_fmt(r['first_search_ms_p50'], 1)} / {_fmt(r['first_search_ms_p95'], 1)}",
            f"{_fmt(r['later_search_ms_p50'], 1)} / {_fmt(r['later_search_ms_p95'], 1)}",
            _pct(r.get("event_times_share")),
            _pct(r.get("slots_share")),
        ]
        for r in result["rows"]
    ]
    summary = [
        [
            name,
            _fmt(ratio, 2),
            _fmt(result["fresh_process_peak_rss_mb"].get(name, float("nan")), 0),
        ]
        for name, ratio in result["long_short_ratio"].items()
    ]
    return [
        (
            f"Ingest of {result['turns']} turns with one add_many, short (LoCoMo) and "
            f"long (LongMemEval) in alternation, {result['rounds']} rounds; first search "
            "right after the write, later = the next searches (p50 / p95 ms)",
            [
                "engine",
                "turns",
                "n",
                "word pieces",
                "turns/s",
                "word pieces/s",
                "first search ms",
                "later search ms",
                "event times % of ingest",
                "slots % of ingest",
            ],
            rows,
        ),
        (
            "Long against short: word pieces/s ratio, and the peak RSS of a fresh process "
            "loading the model and ingesting the long turns",
            ["engine", "long / short word pieces/s", "peak RSS MB"],
            summary,
        ),
    ]
