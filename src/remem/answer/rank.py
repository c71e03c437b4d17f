"""How the typed reader ranks its candidate phrases: named features, one weight each.

A candidate (:class:`remem.answer.typed.Span`) is described by a few numbers: how
well its sentence speaks to the question and what it inherits (from the sentence
before it, or the turn that asked), its nearness in the parse to the question's
words, the rank of its memory, where it stands in time for a question about now, the
question's own words in it, its length, whether it names one of those talking, how
rare its words are among the user's memories, what made it a candidate (its origin,
``spans.FITS``), and what it is in its sentence's parse. The score is the weighted
sum.

Two sets of weights: :data:`HAND`, the reader's first round, set by reading its
mistakes (a wanted kind and a role > a governed phrase > any noun phrase), and the
weights fitted by ``scripts/fit_reader.py`` (a conditional logit: the phrase that
holds the gold answer against the other candidates of its question) on half a chat
benchmark's conversations only, kept in ``data/reader_weights.json`` with the command
that made them. The fitted ones are used when that file is there; the other half, the
check conversations and the demo are what they are measured on
(docs/benchmarks.md#answers-a-person-reads-the-typed-reader-issue-37).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from .spans import FITS, LOCATIVE, written_as_name

#: candidates longer than this many words count the log of the extra words in ``long``
SHORT = 4

#: the reader's first-round weights, by hand (the origins' are ``spans.FITS``)
HAND: dict[str, float] = {
    "fit": 1.0,
    "inherited": 1.0,
    "near": 1.0,
    "rank": -0.05,
    "later": 1.0,
    "asked": -0.7,
    "long": -0.3,
    "speaker": -1.5,
    "facility": -0.5,
    # names a kind of the noun asked for ("fern" of "What plant?", ``kinds.is_a``):
    # set by hand, as strong as an entity of the kind asked
    "isa": 1.5,
    **{f"o_{k}": v for k, v in FITS.items()},
    "o_sentence": -5.0,  # the first round never answered with a whole sentence
}

#: features set by hand whatever was fitted, which the fit has not seen yet:
#: a reply that is only the phrase, to a turn that asked what the question asks
#: ("Where are you off to?" / "Ljubljana."), answers it as surely as a phrase of the
#: sentence holding the question's words: as strong as a kind of the noun asked (``isa``)
#: (``bare``); and a named place or organisation asked for as a thing without a kind
#: noun (``a_named``, stop 64: the fit had no such feature; -1 by hand, a little more
#: than a word of the question in the phrase costs, ``asked`` -0.63 as fitted); and a
#: physical thing asked as what was given, lost or found (``physical``, stop 65: +1 by
#: hand, two thirds of ``isa``; thing questions 65 -> 72 right of 169 on the development
#: check sets, synapse, none lost once "leave" was left out)
#: and the noun asked, described in the question's own words (``echo``, stop 68: -1 by
#: hand, as ``a_named``); a phrase of a sentence read only because recall ranked its
#: memory first (``trusted``, stop 68: -1 by hand, so it wins only where the phrases of
#: the memories that share the question's words are weak, about 1 below it)
HAND_ONLY: dict[str, float] = {
    "bare": 1.5,
    "a_named": -1.0,
    "physical": 1.0,
    "echo": -1.0,
    "trusted": -1.0,
    # asked what was chosen in the end: a phrase of a sentence telling a choice made
    # ("We went with Fellside in the end"), as strong as a kind of the noun asked less
    # a half; an option turned down ("Not the Citroen", "we gave up on Larkspur"),
    # twice that against (stop 69)
    "chosen": 1.0,
    "turned_down": -2.0,
    # and one named as an option elsewhere in its memory or the turns before it, half
    # of that (stop 72: "the Flemish single", not "one manual" said after it)
    "weighed": 0.5,
    # and the phrase the choice is made of, right after its verb ("so I went with
    # bottle green", not "Navy is what everyone in my lab does" before it): the
    # choice itself, stronger than a name's tag (stop 73)
    "picked": 3.0,
}
#: the origins of an entity asked by its kind ("Her name is Ines Duarte": an
#: attribute in the parse, a person all the same)
_ENTITY = ("kind", "named", "proper", "pattern")
#: the origins that tie a phrase to the question's words through the parse
_ANCHORED = frozenset(
    {"copula", "role", "governed_verb", "governed_noun", "doing", "doing_sub", "because", "purpose"}
)
#: the file of fitted weights, beside this module
_FITTED = "reader_weights.json"


def features(span: Any, origins: list[str], cues: Mapping[str, float]) -> dict[str, float]:
    """The candidate's features: ``cues`` (the numbers the reader measured: fit,
    inherited, near, rank, later, asked, words, speaker, rarity), its best origin as
    a one-hot (the best by :data:`spans.FITS`: the first round's rule of taking the
    best of a phrase's origins) with how many more it has, and its root's part in
    the sentence's parse."""
    best = max(origins, key=lambda o: FITS[o])
    root = span.root
    sent = span.sent
    out = dict(cues)
    n = out.pop("words")
    entity = best.startswith(_ENTITY)
    if not entity:  # a short name is no vaguer than a long one; a short phrase often is
        out["short"] = min(n, SHORT) / SHORT  # bounded: a fitted weight per word
        out["one_word"] = float(n == 1)
    out["long"] = math.log1p(max(0.0, n - SHORT))  # would reward pasting the evidence
    # a building or street is less of a place than a town ("Where does Ana live?":
    # "Porto", not "Hospital Sao Joao", where she works), as a kind's share
    out["facility"] = float(entity and span.label_ == "FAC")
    out[f"o_{best}"] = 1.0
    out["origins"] = float(len(set(origins)) - 1)
    # an entity of the kind asked, a phrase found by its tie to the question's words
    # (across "be", a role, a governed object), and any other phrase weigh their
    # parse role apart: "Her name is Ines Duarte" and "My partner Sam is a carpenter"
    # answer, "It's a great way to relax" seldom does
    role = "e" if entity else "a" if best in _ANCHORED else "d"
    out[f"{role}_dobj"] = float(root.dep_ == "dobj")
    out[f"{role}_place"] = float(root.dep_ == "pobj" and root.head.lower_ in LOCATIVE)
    out[f"{role}_subject"] = float(root.dep_ in ("nsubj", "nsubjpass"))
    out[f"{role}_attr"] = float(root.dep_ in ("attr", "acomp"))
    out["proper"] = float(root.pos_ == "PROPN" and written_as_name(root))
    out["entity"] = float(bool(root.ent_type_))
    # a place by its label: no weight of its own, read by the reader's filters
    out["place_entity"] = float(root.ent_type_ in ("GPE", "LOC", "FAC"))
    out["late"] = (span.start - sent.start) / max(1, len(sent))
    return out


def score(feats: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The weighted sum of ``feats``; a feature without a weight counts nothing."""
    return sum(weights.get(k, 0.0) * v for k, v in feats.items())


@cache
def weights() -> Mapping[str, float]:
    """The fitted weights when ``data/reader_weights.json`` is installed, else
    :data:`HAND`."""
    try:
        text = resources.files("remem.answer").joinpath("data").joinpath(_FITTED).read_text()
    except (FileNotFoundError, OSError):
        return {**HAND_ONLY, **HAND}
    return {**HAND_ONLY, **json.loads(text)["weights"]}
