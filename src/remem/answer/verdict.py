"""The "not in memory" verdict: whether the recalled evidence can answer the question.

An engine's own confidence (SYNAPSE's top activation, a fusion score) barely tells an
answerable question from one memory cannot answer: on LoCoMo's category 5 it sits in
the same range as on categories 1-4 (docs/benchmarks.md). Category-5 questions are
mostly false premises, a question about one person built from what memory says of
another ("What did Caroline realize after her charity race?" when Melanie ran it).
So the verdict reads the evidence itself, sentence by sentence:

- ``own``: the best share of the question's content words (IDF-weighted, names
  aside) that one evidence sentence about the person the question names covers;
  whose a sentence is comes from its pronouns as :func:`remem.answer.settle`'s premise
  check reads them (first person: the speaker's; second person between two people:
  the other one's), else from its memory as a whole;
- ``other``: the same for sentences about someone else;
- ``coverage``: the best share any sentence of the top three memories covers;
- ``unseen``: the IDF-weighted share of the question's words that no memory of the
  user holds (a question about a university when none was ever mentioned);
- ``missed``: the share of the question's words that some memory holds but the
  best-covering sentence of the top three does not ("How old is my cat?" answered
  from "My dog is a three-year-old greyhound": "cat" is in memory, elsewhere).

A logistic model of these five gives ``score``, the probability that memory does not
hold the answer; ``not_in_memory`` is ``score`` above a threshold. The model and its
threshold are per engine (the signals read the hits, and engines rank differently),
and fitted, not chosen: ``scripts/calibrate_verdict.py`` fits them on LoCoMo
conversations 1-5 and ``remem bench verdict`` reports them on conversations 6-10,
which played no part in fitting. Measured and left out: the engine's confidence and
the agreement of the lexical and dense channels' top hits (both near chance on
LoCoMo's category 5, and the confidence's scale differs per engine).

A question that names none of the speakers (a single-user memory of "I" and "my")
has no ``own``/``other`` signal; there ``coverage`` and ``unseen`` decide, and they
separate far less on LoCoMo, so the verdict refuses such questions rarely.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..index.tokenize import tokenize
from ..types import Hit
from .settle import about, content_keys, word_key

__all__ = ["CALIBRATED", "FEATURES", "Verdict", "judge", "signals"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")

#: the model's inputs, in the order of ``WEIGHTS``
FEATURES = ("own", "other", "coverage", "unseen", "missed")

# Fitted by scripts/calibrate_verdict.py, one engine at a time (L2-regularised logistic
# regression, 1e-2) on LoCoMo conversations conv-26, conv-30, conv-41, conv-42 and
# conv-43 (999 questions, 237 of category 5, the positives), k=10: (bias, weights in
# the order of FEATURES, threshold), the threshold being the score at which those
# conversations' false refusal on categories 1-4 is 0.09. Held out: `remem bench
# verdict`. Engines without their own fit use hybrid's.
CALIBRATED: dict[str, tuple[float, tuple[float, ...], float]] = {
    # there: cat-5 refusal 0.629, false refusal 0.089
    "hybrid": (-1.0869, (-1.6327, 2.0178, -0.1249, 0.0744, 0.0562), 0.2875),
    # there: cat-5 refusal 0.616, false refusal 0.089
    "synapse": (-1.1382, (-1.6078, 2.0751, -0.0109, 0.0948, -0.0839), 0.2974),
}
BIAS, WEIGHTS, THRESHOLD = CALIBRATED["hybrid"]


@dataclass(frozen=True)
class Verdict:
    """``score``: the probability that memory does not hold the answer;
    ``not_in_memory``: ``score`` above the calibrated threshold."""

    score: float
    not_in_memory: bool
    signals: dict[str, float] = field(default_factory=dict)


def signals(
    question: str,
    hits: Sequence[Hit],
    idf: Callable[[str], float],
    known: Callable[[str], bool],
) -> dict[str, float]:
    """The verdict's inputs (see the module's docstring) for ``question`` over its
    ``hits``, best first. ``idf`` weighs a question word (the user's lexical index's
    IDF); ``known`` says whether any memory of the user holds it."""
    speakers = {h.speaker for h in hits if h.speaker}
    named = [p for p in speakers if re.search(rf"\b{re.escape(p)}\b", question, re.I)]
    names = {word_key(t) for p in speakers for t in tokenize(p)}
    weight: dict[str, float] = {}
    held: set[str] = set()  # keys some memory of the user holds
    for t in tokenize(question):
        k = word_key(t)
        if k in names or k not in content_keys(t):
            continue
        weight[k] = max(weight.get(k, 0.0), idf(t))
        if known(t):
            held.add(k)
    unseen = sum(w for k, w in weight.items() if k not in held)
    total = sum(weight.values())
    if not total:
        return dict.fromkeys(FEATURES, 0.0)
    person = named[0] if len(named) == 1 else None
    own = other = coverage = 0.0
    missed = sum(weight[k] for k in held)
    for rank, h in enumerate(hits):
        whole = about(h.speaker, h.text, speakers)
        for sentence in _SENTENCE.split(h.text):
            keys = content_keys(sentence)
            share = sum(weight[k] for k in keys if k in weight) / total
            if rank < 3 and share > coverage:
                coverage = share
                missed = sum(weight[k] for k in held - keys)
            if person is None:
                continue
            owner = about(h.speaker, sentence, speakers) or whole
            if owner == person:
                own = max(own, share)
            elif owner is not None:
                other = max(other, share)
    return {
        "own": own,
        "other": other,
        "coverage": coverage,
        "unseen": unseen / total,
        "missed": missed / total,
    }


def judge(
    values: dict[str, float],
    engine: str = "hybrid",
    *,
    bias: float | None = None,
    weights: Sequence[float] | None = None,
    threshold: float | None = None,
) -> Verdict:
    """The calibrated verdict from :func:`signals`' values with ``engine``'s constants
    (hybrid's for an engine without its own); the calibration script passes its
    candidates' constants instead."""
    fitted = CALIBRATED.get(engine, CALIBRATED["hybrid"])
    bias = fitted[0] if bias is None else bias
    weights = fitted[1] if weights is None else weights
    threshold = fitted[2] if threshold is None else threshold
    z = bias + sum(w * values.get(f, 0.0) for w, f in zip(weights, FEATURES, strict=True))
    score = 1.0 / (1.0 + math.exp(-z))
    return Verdict(score, score > threshold, dict(values))
