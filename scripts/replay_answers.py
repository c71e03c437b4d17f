"""Saved LoCoMo answer runs read again by remem's own answer code, without a reader call.

    python scripts/replay_answers.py replay --data locomo10.json --jsonl RUN.jsonl --out NOW.jsonl
    python scripts/replay_answers.py grounding --data locomo10.json --jsonl RUN.jsonl
    python scripts/replay_answers.py readers-replay --data locomo10.json --jsonl RUN.jsonl

RUN.jsonl is a saved ``remem-bench locomo ... --answer --jsonl RUN.jsonl`` run (a
``.jsonl.gz`` of docs/results/ is read as it is). Greedy decoding makes a reader's draft
independent of what is done with it afterwards, so a change of the answer rules (or of
the "not in memory" verdict) is measured on the saved drafts and the saved evidence
exactly as a rerun would measure it, without calling the reader again:

- ``replay``: each draft settled again by today's rules (:func:`remem.answer.settle`);
- ``grounding``: the same at several thresholds of the grounding check;
- ``readers-replay``: the saved recall read again by the readers that need no model
  call (``local``'s saved drafts, ``none``, ``routed``), with the verdict.

These replays measure remem's internals (the rules, the reader's routing, the verdict
read from saved hits), so they live here beside scripts/fit_reader.py and
scripts/qa_halves.py, not in the harness, which uses remem's public API only
(benchmarks/tests/test_public_api.py). What they share with the harness (the LoCoMo
loader, the graders, the tables, the command convention and exit statuses) is imported
from ``remem_bench``. Each prints its tables and writes ``--json``/``--markdown`` as a
``remem-bench`` command does.
"""

from __future__ import annotations

import inspect
import json
import sys
from collections.abc import Sequence
from typing import Any

import click

from remem import Answer, Hit, Recall, create_llm
from remem.answer import REFUSAL, Answerer, degenerate, extractive, settle
from remem.answer.reader import routed_to_sentence
from remem.answer.verdict import judge, signals
from remem.engines.verdict import VerdictModel
from remem.index.bm25 import BM25Index
from remem_bench.cli import DATA, main
from remem_bench.command import benchmark, option_list
from remem_bench.embedcache import said_text
from remem_bench.locomo import load_locomo
from remem_bench.metrics import mean
from remem_bench.qa import FULL_CONTEXT, paired_differences, read_rows, scores, summarise
from remem_bench.report import Table, grounding_tables, qa_tables
from remem_bench.verdict import engine_verdict

Result = tuple[dict[str, Any], list[Table]]
PROG = "python scripts/replay_answers.py"


@click.group(help=__doc__.split("\n\n")[0])
def replays() -> None:
    """The three replays, each a ``remem-bench``-style command."""


SWEEP = (0.0, 0.25, 0.34, 0.5, 0.67, 0.75)


def replay_rows(
    data_path: str,
    rows: list[dict[str, Any]],
    grounding: float,
    options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """``rows`` of a saved run with each reader draft settled again by the current
    answer rules (:func:`remem.answer.settle`) at ``grounding``: new prediction,
    refusal and F1, all else kept. Greedy decoding makes a draft independent of what
    is done with it afterwards, so this gives exactly what a rerun would, without
    calling the reader. The evidence is rebuilt from the data by turn id; ILSTMA's
    notes (summary, profile) are not, so for its rows the check sees the memories only.
    ``options`` are :func:`remem.answer.settle`'s switches (``premise=False``, ...)."""
    known = set(inspect.signature(settle).parameters) - {
        "draft",
        "question",
        "context",
        "grounding",
        "lines",
    }
    unknown = set(options or {}) - known
    if unknown:
        raise ValueError(f"unknown replay options {sorted(unknown)}; known: {sorted(known)}")

    turns = {
        (c.sample_id, t.dia_id): (t.speaker, t.text)
        for c in load_locomo(data_path)
        for t in c.turns
    }
    out = []
    for r in rows:
        if not r["draft"]:  # no reader call (a gate refusal, an extractive answer)
            out.append(dict(r))
            continue
        lines = [turns[k] for e in r["evidence"] if (k := (r["conversation"], e)) in turns]
        context = "\n".join(f"{who}: {text}" for who, text in lines)
        if degenerate(r["draft"], r["question"]):  # as the reader does: the evidence speaks
            pred = extractive(r["question"], [text for _, text in lines])
            refused = pred == REFUSAL
        else:
            pred, refused = settle(
                r["draft"], r["question"], context, grounding, lines=lines, **(options or {})
            )
        gold = None if r["category"] == 5 else r["gold"]
        new = dict(
            r,
            prediction=pred,
            refused=refused,
            **scores(pred, gold, r["category"]),
        )
        if "judge" in r and pred != r["prediction"]:
            new["judge"] = None  # the judge saw another prediction: no score
        out.append(new)
    return out


def replay_run(
    data_path: str,
    jsonl: str,
    out: str,
    grounding: float = 0.0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """:func:`replay_rows` over a saved JSONL, written to ``out``, and its summary."""
    rows = replay_rows(data_path, read_rows(jsonl), grounding, options)
    with open(out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    return {
        "benchmark": "locomo-qa-replay",
        "data": str(data_path),
        "jsonl": jsonl,
        "replayed": out,
        "grounding": grounding,
        "answer_options": dict(options or {}),
        "engines": summarise(rows, engines),
        "paired": paired_differences(rows, engines),
    }


def grounding_sweep(
    data_path: str, jsonl: str, thresholds: Sequence[float] = SWEEP
) -> dict[str, Any]:
    """The grounding check's trade-off: a saved run replayed (:func:`replay_rows`) at
    each threshold, best from a run made with ``--grounding 0`` (any run works: the
    drafts are kept whatever the check decided)."""
    rows = read_rows(jsonl)
    out: dict[str, list[dict[str, float]]] = {}
    for t in thresholds:
        replayed = replay_rows(data_path, rows, t)
        for name in dict.fromkeys(r["engine"] for r in replayed):
            ans = [r for r in replayed if r["engine"] == name and r["category"] != 5]
            adv = [r for r in replayed if r["engine"] == name and r["category"] == 5]
            out.setdefault(name, []).append(
                {
                    "threshold": t,
                    "f1_1to4": mean(r["f1"] for r in ans),
                    "cat5_refusal": mean(float(r["refused"]) for r in adv),
                    "false_refusal": mean(float(r["refused"]) for r in ans),
                }
            )
    return {"benchmark": "locomo-qa-grounding", "jsonl": jsonl, "engines": out}


#: the readers a saved run is read again by (:func:`readers_replay_rows`)
REPLAY_READERS = ("saved", "local", "none", "routed")


def readers_replay_rows(
    data_path: str, jsonl: str, *, verdict: bool = True, grounding: float = 0.0
) -> tuple[list[dict[str, Any]], list[str]]:
    """A saved ``--answer`` run (made with ``local``) read again, over its own saved
    retrieval, by the readers that need no model call, so every reader sees the same
    evidence on every question of the full run:

    - ``saved``: the rows as they were saved (the reader and rules of that commit);
    - ``local``: the saved drafts settled by today's rules at ``grounding``, a
      degenerate draft replaced by the extractive answer as the reader now does;
    - ``none``: the extractive answer (:class:`remem.answer.Answerer` with
      ``llm="none"``), a date question answered with its memory's day;
    - ``routed``: ``none``'s answer where its sentence holds the question's words
      or the question asks for a date (:func:`remem.answer.reader.routed_to_sentence`),
      else ``local``'s, as the ``routed`` reader
      answers (greedy decoding: the draft it would get is the saved one).

    With ``verdict``, the "not in memory" verdict (:mod:`remem.answer.verdict`, the
    model the row's engine declares: :func:`remem_bench.verdict.engine_verdict`) is read
    from the saved evidence and refuses for ``local`` and ``none`` as ``Memory.answer``
    would; its IDF and known words come from a lexical index of the whole conversation,
    as the live index would hold them. The evidence is what the reader saw (the fitted
    top-k, best first), rebuilt from the data by turn id. ``full-context`` rows (no
    retrieval) are left out. Returns the rows, labelled ``<engine>/<reader>``, and the
    labels in order."""
    convs = {c.sample_id: c for c in load_locomo(data_path)}
    lexical: dict[str, BM25Index] = {}
    for cid, c in convs.items():
        lexical[cid] = BM25Index()
        lexical[cid].add([said_text(t.text, t.speaker) for t in c.turns])
    turns = {(cid, t.dia_id): t for cid, c in convs.items() for t in c.turns}
    saved = [r for r in read_rows(jsonl) if r["engine"] != FULL_CONTEXT]
    settled = {
        id(r): s for r, s in zip(saved, replay_rows(data_path, saved, grounding), strict=True)
    }
    extract = Answerer(create_llm("none"), verdict=False)
    out: list[dict[str, Any]] = []
    labels: list[str] = []
    models: dict[str, VerdictModel] = {}  # each saved engine's, as it declares it
    for r in saved:
        cid = r["conversation"]
        hits = [
            Hit(e, t.text, 0.0, t.speaker, t.timestamp, t.session_id, {"dia_id": e})
            for e in r["evidence"]
            if (t := turns.get((cid, e))) is not None
        ]
        if r["engine"] not in models:
            models[r["engine"]] = engine_verdict(r["engine"])
        readings, none = _replay_readers(
            r, hits, lexical[cid], models[r["engine"]], extract, settled[id(r)], verdict
        )
        for reader, pred, refused, extracted in readings:
            label = f"{r['engine']}/{reader}"
            if label not in labels:
                labels.append(label)
            out.append(_replayed(r, label, pred, refused, extracted, none.latency_s))
    return out, labels


def _replay_readers(
    r: dict[str, Any],
    hits: list[Hit],
    idx: BM25Index,
    model: VerdictModel,
    extract: Answerer,
    settled: dict[str, Any],
    verdict: bool,
) -> tuple[list[tuple[str, str, bool, bool]], Answer]:
    """(each reader's (name, prediction, refused, whether it is the extractive answer)
    on one saved row, ``none``'s answer):
    the verdict is read from the evidence ``hits`` against the conversation's lexical
    index ``idx`` (the words it knows, their IDF) and, with ``verdict``, refuses for
    ``local`` and ``none``."""

    def known(word: str) -> bool:
        return idx.df(word) > 0

    values = signals(r["question"], hits, idx.idf, known, len(idx))
    absent = judge(values, model).not_in_memory
    refused_by_verdict = verdict and absent
    none = extract.answer(r["question"], Recall(hits, 1.0, refused_by_verdict))
    local = dict(settled)
    if refused_by_verdict:
        local.update(prediction=REFUSAL, refused=True)
    routed = (none.text, none.refused) if routed_to_sentence(r["question"], hits) else None
    readings = [
        ("saved", r["prediction"], r["refused"]),
        ("local", local["prediction"], local["refused"]),
        ("none", none.text, none.refused),
        ("routed", *(routed or (local["prediction"], local["refused"]))),
    ]
    return [
        (reader, pred, refused, reader == "none" or (reader == "routed" and routed is not None))
        for reader, pred, refused in readings
    ], none


def _replayed(
    r: dict[str, Any], label: str, pred: str, refused: bool, extracted: bool, own_s: float
) -> dict[str, Any]:
    """Saved row ``r`` as reader ``label`` answered it, scored against its gold answer
    (none for an adversarial question); an extractive answer costs no LLM call and
    takes its own reading time ``own_s``, without the saved run's recall."""
    gold = None if r["category"] == 5 else r["gold"]
    return dict(
        r,
        engine=label,
        prediction=pred,
        refused=refused,
        **scores(pred, gold, r["category"]),
        llm_calls=0 if extracted else r["llm_calls"],
        # none: its own reading time, without the saved run's recall
        latency_s=own_s if extracted else r["latency_s"],
    )


@benchmark(
    "readers-replay",
    group=replays,
    help="a saved --answer run's recall read again by today's local rules and by none",
)
@DATA
@click.option("--jsonl", required=True, help="rows of a saved --answer run (made with local)")
@click.option("--no-verdict", is_flag=True, help="leave out the 'not in memory' verdict")
@click.option(
    "--grounding",
    type=float,
    default=0.0,
    help="the answer-grounding check for the local drafts (0, the default, is off)",
)
def _readers_replay(data: str, jsonl: str, no_verdict: bool, grounding: float) -> Result:
    rows, labels = readers_replay_rows(data, jsonl, verdict=not no_verdict, grounding=grounding)
    result = {
        "benchmark": "locomo-qa-readers-replay",
        "data": data,
        "jsonl": jsonl,
        "replayed": jsonl,
        "grounding": grounding,
        "answer_options": {"verdict": not no_verdict},
        "engines": summarise(rows, labels),
        "paired": paired_differences(rows, labels, base=labels[0]) if labels else {},
    }
    return result, qa_tables(result)


@benchmark(
    "grounding",
    group=replays,
    help="the answer-grounding check replayed at several thresholds on a saved QA run",
)
@DATA
@click.option(
    "--jsonl", required=True, help="rows of a saved --answer run (best made with --grounding 0)"
)
def _grounding(data: str, jsonl: str) -> Result:
    result = grounding_sweep(data, jsonl)
    return result, grounding_tables(result)


@benchmark(
    "replay",
    help="a saved --answer run's drafts settled again by the current answer rules",
    group=replays,
)
@DATA
@click.option("--jsonl", required=True, help="rows of a saved --answer run")
@click.option("--out", required=True, help="the replayed rows go here (JSONL)")
@click.option("--grounding", type=float, default=0.0, help="grounding check threshold (0: off)")
@option_list("--answer-option", "a switch of the answer rules (premise=false, date_answers=false)")
def _replay(data: str, jsonl: str, out: str, grounding: float, answer_option: dict) -> Result:
    result = replay_run(data, jsonl, out, grounding=grounding, options=answer_option)
    return result, qa_tables(result)


if __name__ == "__main__":
    sys.exit(main(group=replays, prog=PROG))
