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
  user holds (a question about a university when none was ever mentioned).

A logistic model of these four gives ``score``, the probability that memory does not
hold the answer; ``not_in_memory`` is ``score > THRESHOLD``. The constants below are
fitted, not chosen: ``scripts/calibrate_verdict.py`` fits them on LoCoMo
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

__all__ = ["FEATURES", "THRESHOLD", "WEIGHTS", "Verdict", "judge", "signals"]

_SENTENCE = re.compile(r"(?<=[.!?])\s+")

#: the model's inputs, in the order of ``WEIGHTS``
FEATURES = ("own", "other", "coverage", "unseen")

# Fitted by scripts/calibrate_verdict.py (L2-regularised logistic regression, 1e-2)
# on LoCoMo conversations conv-26, conv-30, conv-41, conv-42, conv-43 (999 questions,
# 237 of category 5, the positives), engine hybrid, k=10; THRESHOLD is the score at
# which those conversations' false refusal on categories 1-4 is 0.09 (there: cat-5
# refusal 0.616, false refusal 0.089). Held out: `remem bench verdict`.
BIAS = -1.0533
WEIGHTS = (-1.6351, 2.0151, -0.1382, 0.0539)
THRESHOLD = 0.2887


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
    unseen = 0.0
    for t in tokenize(question):
        k = word_key(t)
        if k in names or k not in content_keys(t):
            continue
        w = idf(t)
        weight[k] = max(weight.get(k, 0.0), w)
        if not known(t):
            unseen += w
    total = sum(weight.values())
    if not total:
        return dict.fromkeys(FEATURES, 0.0)
    person = named[0] if len(named) == 1 else None
    own = other = coverage = 0.0
    for rank, h in enumerate(hits):
        whole = about(h.speaker, h.text, speakers)
        for sentence in _SENTENCE.split(h.text):
            share = sum(weight[k] for k in content_keys(sentence) if k in weight) / total
            if rank < 3:
                coverage = max(coverage, share)
            if person is None:
                continue
            owner = about(h.speaker, sentence, speakers) or whole
            if owner == person:
                own = max(own, share)
            elif owner is not None:
                other = max(other, share)
    return {"own": own, "other": other, "coverage": coverage, "unseen": unseen / total}


def judge(
    values: dict[str, float],
    *,
    bias: float = BIAS,
    weights: Sequence[float] = WEIGHTS,
    threshold: float = THRESHOLD,
) -> Verdict:
    """The calibrated verdict from :func:`signals`' values (the constants can be
    passed in: the calibration script scores candidates this way)."""
    z = bias + sum(w * values.get(f, 0.0) for w, f in zip(weights, FEATURES, strict=True))
    score = 1.0 / (1.0 + math.exp(-z))
    return Verdict(score, score > threshold, dict(values))
