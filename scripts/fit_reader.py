"""Fit the typed reader's ranking weights (src/remem/answer/rank.py) on LoCoMo.

    python scripts/fit_reader.py RUN.jsonl [--data ../shared/data/locomo/locomo10.json]
        [--train 5] [--out src/remem/answer/data/reader_weights.json]
        [--checks SET ...] [--checks-held SET ...] [--from shipped --pull 0.002]
        [--cache CANDIDATES.json]

RUN.jsonl is a LoCoMo answer run (``remem-bench locomo ... --answer --jsonl RUN.jsonl``):
each row's evidence (the recalled turns, best first) is read again here, so the
weights are fitted on what recall really gives, for every engine in the run. Only the
first ``--train`` conversations are read for the fit; the rest are reported as
held out, with the first-round weights (``rank.HAND``) beside the fitted ones on the
same candidates.

The model is a conditional logit: for each question of categories 1-4 with a typed
answer, the candidates of :func:`remem.answer.typed.typed_candidates` compete in one
softmax, and the fit raises the share of those holding the gold answer (a gain, three
quarters token F1 and a quarter containment, at least 0.8 of the best candidate's and
0.3). An L2
penalty pulls each weight towards its first-round value, so a feature that rarely
fires keeps its hand weight; a few stay at it (:data:`FIXED`). Each conversation is
one user: neighbours are the next turn of the session, nearness is MiniLM's cosine,
rarity is BM25's over its turns.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import cache
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from remem import Memory
from remem.answer import rank
from remem.answer.typed import Around, typed_candidates
from remem.answer.want import wanted
from remem.embed import create_embedder
from remem.index.bm25 import BM25Index
from remem.question import as_question, read_question
from remem.types import Hit
from remem_bench.answercheck import fill, load, says_value
from remem_bench.locomo import load_locomo
from remem_bench.qa_metrics import containment, locomo_f1

#: a candidate holds the answer when its gain is at least this share of the best
#: candidate's, and at least the floor
_SHARE, _FLOOR = 0.8, 0.3
#: the share of containment in a candidate's gain, beside the official F1: a phrase
#: that holds the whole gold answer with a few words more is better than a wrong
#: short one, which F1 alone undervalues; a quarter, so the official score leads
_CONTAINED = 0.25
#: a check-set candidate of at most this many words is the answer itself; a longer
#: one that holds it gains this share (:func:`check_gain`)
_SHORT, _LONG = 6, 0.6
#: the L2 pull towards the first-round weights (of 0.05, 0.01 and 0.002, the one
#: whose weights' top candidates gained most on conversations 6-10)
_PULL = 0.002
#: weights kept at their first-round values: how a reply inherits the asking turn's
#: fit, and what naming a speaker costs a person, which LoCoMo says little of (its
#: answers are seldom in the reply to a question) but the check conversations and the
#: demo turn on ("Who's teaching you?" -> "Her name is Ines Duarte"); fitted freely,
#: the inheritance sank and the demo's teacher became a studio. The
#: verb phrases of "What did X do?" too: fitted, a subordinate one ("Speaking of new
#: things") came to outweigh the clause's own verb. And what "be" ties to a question
#: word ("My partner Sam is a carpenter" to "What does my partner do?"): LoCoMo's such
#: attributes are mostly "It's a great way to relax", and fitted, the fact set's
#: carpenter and greyhound lost to the names beside them. And what a building costs
#: a place, which LoCoMo rarely asks ("Where does Ana live?": "Porto", not "Hospital
#: Sao Joao", where she works); and a place's label, which only the filters read. With
#: the check sets in the fit (``--checks``), whose answers are often replies, what a
#: reply inherits and what naming a speaker costs may be fitted too (``--free``)
FIXED = frozenset(
    {"inherited", "speaker", "o_doing", "o_doing_sub", "a_attr", "facility", "place_entity"}
)


def conversations(path: str) -> dict[str, dict]:
    """Per conversation: its turns as hits, their order, and its BM25 index."""
    out = {}
    for conv in load_locomo(path):
        hits = [
            Hit(t.dia_id, t.text, 0.0, t.speaker, t.timestamp, t.session_id, {"dia_id": t.dia_id})
            for t in conv.turns
        ]
        bm25 = BM25Index()
        bm25.add([h.text for h in hits])
        out[conv.sample_id] = {
            "hits": hits,
            "at": {h.id: i for i, h in enumerate(hits)},
            "bm25": bm25,
        }
    return out


@cache
def _vector(text: str) -> np.ndarray:
    v = _embedder().embed([text])[0]
    return v / (np.linalg.norm(v) or 1.0)


@cache
def _embedder():  # noqa: ANN202
    return create_embedder("minilm")


def around(conv: dict) -> Around:
    """The reader's neighbours, nearness and rarity over one conversation."""
    hits, at = conv["hits"], conv["at"]

    def neighbours(some):  # noqa: ANN001, ANN202
        out = {}
        for h in some:
            i = at[h.id]
            if i + 1 < len(hits) and hits[i + 1].session_id == h.session_id:
                out[h.id] = hits[i + 1]
        return out

    def nearness(words, some):  # noqa: ANN001, ANN202
        return {h.id: float(_vector(words) @ _vector(h.text)) for h in some}

    def similar(words, texts):  # noqa: ANN001, ANN202
        return [float(_vector(words) @ _vector(t)) for t in texts]

    return Around(neighbours, nearness, conv["bm25"].rarity, similar=similar)


def gain(text: str, gold: object, category: int) -> float:
    """The official F1, and a share of containment (:data:`_CONTAINED`)."""
    held = containment(text, gold, category) or 0.0
    return (1 - _CONTAINED) * locomo_f1(text, gold, category) + _CONTAINED * held


def collect(run: str, convs: dict[str, dict]) -> list[dict]:
    """One group per question of categories 1-4 that the typed reader answers: its
    candidates' features and gains."""
    groups = []
    for line in Path(run).read_text().splitlines():
        row = json.loads(line)
        if row["category"] == 5 or row.get("refused") or "@" in row["engine"]:
            continue
        conv = convs[row["conversation"]]
        question = as_question(row["question"])
        want = wanted(question)
        if not want.kind:
            continue
        hits = [conv["hits"][conv["at"][e]] for e in row["evidence"] if e in conv["at"]]
        found = typed_candidates(question, want, hits, around(conv))
        if not found:
            continue
        gains = [gain(s.text, row["gold"], row["category"]) for s in found]
        groups.append(
            {
                "conversation": row["conversation"],
                "feats": [s.features for s in found],
                "gains": gains,
            }
        )
    return groups


def check_gain(question: dict, text: str) -> float:
    """A check-set candidate's gain: 1 when it says the expected value and no stale
    one (the check's own grade), a share of it when it says more than a short phrase
    does (a whole sentence holds the word, but is not the answer a person wants)."""
    if not says_value(question, text):
        return 0.0
    return 1.0 if len(text.split()) <= _SHORT else _LONG


def collect_checks(paths: list[str], engines: list[str]) -> list[dict]:
    """One group per typed question of the answer-check sets (``paths``; not the
    "when" or never-said ones), read as ``Memory.answer`` reads it on each engine:
    the evidence it recalls and the reader's view of the user's memories."""
    groups = []
    for path in paths:
        for conv in load(path):
            user = conv["user_id"]
            for engine in engines:
                with Memory(":memory:", engine=engine, embedder=_embedder(), llm="none") as mem:
                    now = fill(mem, user, conv["sessions"])
                    view = mem._recaller.around(user)  # the reader's own view
                    for q in conv["questions"]:
                        if q["kind"] == "never" or "date" in q:
                            continue
                        question = read_question(q["question"], now)
                        want = wanted(question)
                        if not want.kind:
                            continue
                        evidence = mem.answer(q["question"], user, now=now).evidence
                        found = typed_candidates(question, want, evidence, view)
                        if found:
                            groups.append(
                                {
                                    "conversation": f"{Path(path).stem}/{user}",
                                    "feats": [s.features for s in found],
                                    "gains": [check_gain(q, s.text) for s in found],
                                }
                            )
    return groups


def matrices(
    groups: list[dict], names: list[str]
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per group: features (candidates x names), gains, and which hold the answer."""
    out = []
    for g in groups:
        x = np.array([[f.get(n, 0.0) for n in names] for f in g["feats"]])
        y = np.array(g["gains"])
        best = y.max()
        out.append((x, y, (y >= max(_FLOOR, _SHARE * best)) & (best >= _FLOOR)))
    return out


def fit(
    data: list,
    names: list[str],
    fixed: frozenset[str] = FIXED,
    start: dict[str, float] | None = None,
    pull: float = _PULL,
) -> np.ndarray:
    """The weights maximising the answers' share of each softmax, pulled to ``start``
    (HAND when None; ``--from shipped``: the installed weights, so a refit moves
    only what the new data asks)."""
    w0 = np.array([(rank.HAND if start is None else start).get(n, 0.0) for n in names])
    usable = [(x, pos) for x, _, pos in data if pos.any()]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for x, pos in usable:
            s = x @ w
            s -= s.max()
            p = np.exp(s)
            p /= p.sum()
            q = p * pos
            total -= np.log(q.sum())
            grad -= x.T @ (q / q.sum() - p)
        d = w - w0
        return total / len(usable) + pull * d @ d, grad / len(usable) + 2 * pull * d

    bounds = [(w0[i], w0[i]) if n in fixed else (None, None) for i, n in enumerate(names)]
    return minimize(loss, w0, jac=True, method="L-BFGS-B", bounds=bounds).x


def report(label: str, data: list, w: np.ndarray) -> str:
    """Mean gain of the top candidate, and how often it holds the answer."""
    top = [(y[int(np.argmax(x @ w))], pos[int(np.argmax(x @ w))]) for x, y, pos in data]
    gains, holds = np.mean([t[0] for t in top]), np.mean([t[1] for t in top])
    reach = np.mean([pos.any() for _, _, pos in data])
    return f"{label}: {len(top)} questions, top gain {gains:.3f}, holds {holds:.3f} of {reach:.3f}"


def read_all(args: argparse.Namespace, convs: dict[str, dict]) -> tuple[list, list, list]:
    """The candidate groups of LoCoMo's run, the check sets fitted on and those held
    out; read once and kept in ``--cache`` (reading them all takes a quarter of an
    hour: every check conversation is added and asked on each engine), which a
    later fit with other settings reads instead."""
    if args.cache and Path(args.cache).exists():
        cached = json.loads(Path(args.cache).read_text())
        return cached["locomo"], cached["checks"], cached["held"]
    engines = args.engines.split(",")
    groups = collect(args.run, convs)
    checks = collect_checks(args.checks, engines)
    held = collect_checks(args.checks_held, engines)
    if args.cache:
        body = {"locomo": groups, "checks": checks, "held": held}
        Path(args.cache).write_text(json.dumps(body))
    return groups, checks, held


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("run")
    p.add_argument("--data", default="../shared/data/locomo/locomo10.json")
    p.add_argument("--train", type=int, default=5, help="the first N conversations fit")
    p.add_argument("--checks", nargs="*", default=[], help="answer-check sets that fit too")
    p.add_argument("--checks-held", nargs="*", default=[], help="answer-check sets reported")
    p.add_argument("--engines", default="hybrid,synapse", help="engines the checks recall on")
    p.add_argument("--free", nargs="*", default=[], help="FIXED weights fitted all the same")
    p.add_argument("--out", default=None, help="write the weights here (JSON)")
    p.add_argument("--from", dest="start", choices=("hand", "shipped"), default="hand")
    p.add_argument("--pull", type=float, default=_PULL, help="the L2 pull towards --from")
    p.add_argument("--cache", default=None, help="the candidates read, kept here (JSON)")
    args = p.parse_args()
    convs = conversations(args.data)
    train_ids = list(convs)[: args.train]
    groups, checks, held = read_all(args, convs)
    every = groups + checks + held
    names = sorted({n for g in every for f in g["feats"] for n in f} | set(rank.HAND) | FIXED)
    train = matrices([g for g in groups if g["conversation"] in train_ids], names)
    test = matrices([g for g in groups if g["conversation"] not in train_ids], names)
    fixed = FIXED - set(args.free)
    start = dict(rank.weights()) if args.start == "shipped" else None
    w = fit(train + matrices(checks, names), names, fixed, start, args.pull)
    hand = np.array([rank.HAND.get(n, 0.0) for n in names])
    shipped = np.array([rank.weights().get(n, 0.0) for n in names])
    parts = (("LoCoMo train", train), ("LoCoMo held out", test))
    parts += (("checks train", matrices(checks, names)), ("checks held out", matrices(held, names)))
    for label, data in parts:
        if data:
            for name, ws in (("hand", hand), ("shipped", shipped), ("fitted", w)):
                print(report(f"{label}, {name}", data, ws))
    if args.out:
        weights = {n: round(float(v), 4) for n, v in zip(names, w, strict=True)}
        body = {
            "command": "python scripts/fit_reader.py " + " ".join(sys.argv[1:]),
            "trained_on": train_ids + [Path(c).stem for c in args.checks],
            "free": sorted(set(args.free) & FIXED),
            "from": args.start,
            "pull": args.pull,
            "weights": weights,
        }
        Path(args.out).write_text(json.dumps(body, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
