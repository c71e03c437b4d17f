"""LoCoMo's official QA score, reimplemented from its published rules
(../shared/data/README.md summarises them; no code was copied).

- normalise: drop commas, lowercase, strip ASCII punctuation, drop the words
  a/an/the/and, collapse whitespace; then Porter-stem every token (NLTK's stemmer,
  as the official scorer uses);
- token F1 over the stemmed multisets;
- raw category 1 (multi-answer): split prediction and gold on commas, best F1 of
  each gold part over the predicted parts, averaged over gold parts;
- raw categories 2 and 4: plain F1; category 3: gold cut at its first ";";
- raw category 5: 1 when the prediction says "not mentioned" or "no information
  available", else 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import cache

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")


@cache
def _stemmer():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def normalize_answer(text: object) -> str:
    s = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def tokens(text: object) -> list[str]:
    stem = _stemmer().stem
    return [stem(w) for w in normalize_answer(text).split()]


def token_f1(prediction: object, gold: object) -> float:
    p, g = tokens(prediction), tokens(gold)
    common = Counter(p) & Counter(g)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def multi_answer_f1(prediction: object, gold: object) -> float:
    preds = str(prediction).split(",")
    golds = str(gold).split(",")
    return sum(max(token_f1(p, g) for p in preds) for g in golds) / len(golds)


def is_refusal_text(prediction: object) -> bool:
    low = str(prediction).lower()
    return "no information available" in low or "not mentioned" in low


def locomo_f1(prediction: object, gold: object, category: int) -> float:
    """The official per-question score for a raw LoCoMo category."""
    if category == 5:
        return 1.0 if is_refusal_text(prediction) else 0.0
    if gold is None:
        raise ValueError(f"category {category} needs a gold answer")
    if category == 1:
        return multi_answer_f1(prediction, gold)
    if category == 3:
        gold = str(gold).split(";")[0]
    return token_f1(prediction, gold)


def containment(prediction: object, gold: object, category: int) -> float | None:
    """Share of the gold answer's normalised (stemmed) tokens found in the prediction:
    1.0 for "Ana moved to Paris on 8 May 2023" against the gold "8 May 2023", which
    token F1 scores 0.55 for its extra words. Not an official LoCoMo score; it does
    not punish length, so a reply that pastes all the evidence scores well too (read
    it beside reply length and F1). Category 3's gold is cut at its first ";" as the
    official scorer does; category 5 has no gold answer (None)."""
    if category == 5 or gold is None:
        return None
    if category == 3:
        gold = str(gold).split(";")[0]
    want = tokens(gold)
    if not want:
        return None
    have = Counter(tokens(prediction))
    need = Counter(want)
    return sum(min(n, have[t]) for t, n in need.items()) / len(want)
