"""The "not in memory" verdict: whether the recalled evidence can answer the question.

An engine's own confidence (SYNAPSE's top activation, a fusion score) barely tells an
answerable question from one memory cannot answer: on questions about what was never
said it sits in the same range as on answerable ones
(docs/notes/benchmark-history.md#the-verdict).
Category-5 questions are
mostly false premises, a question about one person built from what memory says of
another ("What did Caroline realize after her charity race?" when Melanie ran it).
So the verdict reads the evidence itself, sentence by sentence:

- ``own``: the best share of the question's content words (IDF-weighted, names
  aside) that one evidence sentence about the person the question names covers;
  whose a sentence is comes from its pronouns as :func:`remem.answer.settle`'s premise
  check reads them (first person: the speaker's; second person between two people:
  the other one's), else from its memory as a whole;
- ``other``: the same for sentences about someone else;
- ``coverage``: the best share any sentence of the top three memories covers
  (``reach``: of any memory recalled, read by the ``small`` rule only);
- ``unseen``: the IDF-weighted share of the question's words that no memory of the
  user holds (a question about a university when none was ever mentioned);
- ``missed``: the share of the question's words that some memory holds but the
  best-covering sentence of the top three does not ("How old is my cat?" answered
  from "My dog is a three-year-old greyhound": "cat" is in memory, elsewhere).

A logistic model of these five gives ``score``, the probability that memory does not
hold the answer; ``not_in_memory`` is ``score`` above a threshold. The model and its
threshold are per engine family (the signals read the hits, and engines rank
differently), and fitted, not chosen: ``scripts/calibrate_verdict.py`` fits them on
half a chat benchmark's conversations and ``remem-bench verdict`` reports them on the
other half, which played no part in fitting
(docs/notes/benchmark-history.md#the-verdict). Which model an engine gets is what it
declares (``Engine.verdict``: a family of :data:`FAMILIES` or its own :class:`VerdictModel`),
never its name; an engine declaring nothing gets :data:`DEFAULT_FAMILY`'s, and
``Memory(verdict=...)`` overrides either (:func:`verdict_model`). Measured and left out:
the engine's confidence and the agreement of the lexical and dense channels' top hits
(both near chance on the unanswerable questions, and the confidence's scale differs
per engine).

Questions come in four kinds (``regime``), each read its own way:

- ``named``: the question names one of the evidence's speakers ("What did Caroline
  realize...?"), a chat between people's kind; the model above, fitted on such chats;
- ``self``: a first-person question naming no speaker ("Where do I work?",
  "What is the name of my hamster?"), an assistant's memory of its one user, where
  ``own``/``other`` say nothing; ``coverage``, ``unseen`` and ``missed`` decide, in a
  model fitted on long assistant histories (``scripts/calibrate_verdict.py --lme``):
  each question asked on its own history (answerable) and, as never said, on the
  history of another question whose sessions it does not hold, plus the benchmark's
  own abstention questions; half the questions fit it, the other half report it
  (``remem-bench verdict --lme``). Fitted on the chats, these three signals separated
  nothing, because chats between people have no such questions;
- ``small``: a ``self`` question of a user holding fewer memories than the ``self``
  model was fitted on (:data:`SELF_MIN_MEMORIES`); its ``score`` is that model's, but
  it is refused only when none of its words any recalled memory holds (``reach`` 0:
  "Where did I go to university?" of someone who never spoke of one; the top three
  alone missed "I've joined the Eastfield Beekeepers' Association", tenth, of "Which
  beekeeping club did I join?") or memory does
  not hold what it takes for granted (:func:`premises`: "What is my favourite film?"
  of someone who only named a band);
- ``other``: neither (a third-person question naming nobody, or two people), or a
  ``named`` one of a user holding fewer memories than the ``named`` model was fitted
  on (:data:`NAMED_MIN_MEMORIES`): no fitted signal speaks to it, so its ``score`` is
  the ``named`` model's but the verdict does not refuse it.

Words that ask ("what", "where", "when"...) are not counted: they say what kind of
answer is wanted, and in a memory of ten facts, none of which says "where", they made
every "where" question look unanswerable.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engines.verdict import (
    CALIBRATED,
    DEFAULT_FAMILY,
    FAMILIES,
    FEATURES,
    VerdictModel,
    verdict_model,
)
from ..errors import InvalidTypeError
from ..index.tokenize import sentences, tokenize
from ..question import Question, as_question
from ..time.current import ended, relations
from ..types import Hit
from ..words import ASKING, EVERYONE_HAS, PERSONAL, content_keys, possessed, word_key
from .kinds import country, is_a, synonyms
from .settle import about

__all__ = [
    "CALIBRATED",
    "DEFAULT_FAMILY",
    "FAMILIES",
    "FEATURES",
    "PREMISES",
    "REGIMES",
    "Verdict",
    "VerdictModel",
    "judge",
    "possessed",
    "premises",
    "regime",
    "signals",
    "verdict_model",
]


#: the least cosine between a thing a question says the user has and the recalled
#: memories for them to speak of it without naming it. Chosen on the calibration half
#: of an assistant-history benchmark: the largest value before answerable questions
#: are refused more, while the things of never-said questions sit well under it
#: (docs/notes/benchmark-history.md#the-premise-check-questions-a-small-memory-cannot-answer)
RELATED_MIN = 0.3


#: what a question takes for granted, read by the ``small`` regime (:func:`premises`)
PREMISES = ("premise", "stranger")

#: the kinds of question, each read its own way (see the module's docstring)
REGIMES = ("named", "self", "small", "other")

#: the fewest memories the ``self`` model is used with: the smallest history it was
#: fitted on (496 turns: docs/notes/benchmark-history.md#the-verdict). In
#: a smaller memory every word is rarer and ``unseen`` fires on answerable questions
#: (a ten-fact memory never says "instrument" for "I play the cello")
SELF_MIN_MEMORIES = 496
#: the fewest memories the ``named`` model is used with, for the same reason: the
#: smallest history it was fitted on (LoCoMo's conv-30, 369 turns; its first five
#: conversations: ``scripts/calibrate_verdict.py``). A question naming a speaker of a
#: smaller history is ``other``, not refused by the verdict: on the answer-check
#: conversations (60-85 turns) the model refused 18 answerable questions for 16
#: never-said ones (docs/results/stop57/NOTE.md)
NAMED_MIN_MEMORIES = 369


@dataclass(frozen=True)
class Verdict:
    """``score``: the probability that memory does not hold the answer;
    ``not_in_memory``: ``score`` above the calibrated threshold."""

    score: float
    not_in_memory: bool
    signals: dict[str, float] = field(default_factory=dict)
    regime: str = "named"


def signals(
    question: Question | str,
    hits: Sequence[Hit],
    idf: Callable[[str], float],
    known: Callable[[str], bool],
    memories: int = 0,
    related: Callable[[str], float] | None = None,
) -> dict[str, float]:
    """The verdict's inputs (see the module's docstring) for ``question`` over its
    ``hits``, best first. ``idf`` weighs a question word (the user's lexical index's
    IDF); ``known`` says whether any memory of the user holds it; ``memories`` is how
    many the user holds (which model applies: :func:`regime`); ``related`` how near
    in meaning a word comes to the hits (:func:`premises`). ``question`` is read once
    at the pipeline's entrance (``question.read_question``); a str is read here."""
    q = as_question(question)
    speakers = {h.speaker for h in hits if h.speaker}
    named = [p for p in speakers if re.search(rf"\b{re.escape(p)}\b", q.text, re.I)]
    names = {word_key(t) for p in speakers for t in tokenize(p)}
    weight: dict[str, float] = {}
    held: set[str] = set()  # keys some memory of the user holds
    for t, k in q.content:
        if k in names:
            continue
        weight[k] = max(weight.get(k, 0.0), idf(t))
        if known(t):
            held.add(k)
    left = _left_keys(q, hits)  # "Which company did I leave?": a value memory says ended
    held |= left & set(weight)
    unseen = sum(w for k, w in weight.items() if k not in held)
    total = sum(weight.values())
    person = named[0] if len(named) == 1 else None
    kind = {
        "named": float(person is not None),
        "first_person": float(not named and q.first_person),
        "memories": float(memories),
    }
    if not total:
        return {**dict.fromkeys(FEATURES, 0.0), **kind}
    own = other = coverage = reach = 0.0
    missed = sum(weight[k] for k in held)
    said: set[str] = set()  # keys the hits hold, for the premises
    for rank, h in enumerate(hits):
        whole = about(h.speaker, h.text, speakers)
        for sentence in sentences(h.text):
            keys = content_keys(sentence)
            ends = bool(left) and bool(ended(sentence))
            if ends:  # covers the question wherever it ranks
                keys = keys | left
            said |= keys
            share = sum(weight[k] for k in keys if k in weight) / total
            reach = max(reach, share)
            if (rank < 3 or ends) and share > coverage:
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
        "reach": reach,
        **kind,
        **_premises(q, said, known, related),
    }


#: a question about a value someone left, and the noun it asks by ("Which company
#: did I leave?", "Which band did Rosa quit?")
_LEFT = re.compile(
    r"^\W*(?:which|what)\s+((?:[a-z]+\s+)??[a-z]+)\s+(?:did|does|do|has|have|had)\b"
    r".*\b(?:leave|left|quit)\b",
    re.I,
)


def _left_keys(question: Question, hits: Sequence[Hit]) -> set[str]:
    """For a question about what someone left, when a hit says a value ended ("I
    finally handed in my notice at Pellridge Analytics", ``time.current.ended``): the
    keys of the leaving and of the noun asked by, which that value stands for though
    the memory says neither word. Empty otherwise."""
    m = _LEFT.search(question.text)
    if m is None or not any(ended(h.text) for h in hits):
        return set()
    words = ("leave", "left", "quit", *m.group(1).split())
    return {word_key(w) for w in words} & {k for _, k in question.content}


def premises(
    question: Question | str,
    hits: Sequence[Hit],
    known: Callable[[str], bool],
    related: Callable[[str], float] | None = None,
) -> dict[str, float]:
    """Two things a question takes for granted, each 1.0 when memory does not hold it:

    - ``premise``: a thing the question says the user has (:func:`possessed`: "my
      favourite film") that no memory of the user names (``known``) and none of the
      recalled memories comes near in meaning: ``related(word)``, the word's best
      cosine to the recalled memories' vectors, is under :data:`RELATED_MIN` ("my
      dog" of "I adopted a greyhound": 0.40; "my favourite film" of "My favourite
      band is Khruangbin": 0.19);
    - ``stranger``: a name in the question (a capitalised word inside it, days and
      months aside) that no memory of the user holds, as written or, in the recalled
      memories, by its stem.

    Read by the ``small`` regime's rule (:func:`judge`); measured on small assistant
    histories
    (docs/notes/benchmark-history.md#the-premise-check-questions-a-small-memory-cannot-answer)."""
    said = set().union(*(content_keys(h.text) for h in hits))
    return _premises(as_question(question), said, known, related)


def _premises(
    question: Question,
    held: set[str],
    known: Callable[[str], bool],
    related: Callable[[str], float] | None,
) -> dict[str, float]:
    """:func:`premises` given the keys the hits hold (``held``: :func:`signals` has
    them from its pass over the hits' sentences, and does not tokenize the hits twice)."""
    # a thing any memory of the user names is held, recalled or not ("my sister" of
    # "My sister Philippa turned up with a dehumidifier", which "What did my sister
    # bring round?" did not recall)
    missing = [
        w
        for w in question.possessed
        if word_key(w) not in held
        and not known(w)
        and w not in _MEASURED_BY
        and w not in EVERYONE_HAS
    ]
    premise = any(
        (related is None or related(w) < RELATED_MIN)
        and not _synonym_held(w, held)
        and not _kind_held(w, held)
        for w in missing
    )
    stranger = False
    for name in question.names:
        toks = tokenize(name)
        if toks and toks[0] not in PERSONAL and word_key(toks[0]) not in ASKING:
            unknown = not (known(toks[0]) or word_key(toks[0]) in held)
            stranger = stranger or (unknown and not _land(toks[0]))
    return dict(zip(PREMISES, (float(premise), float(stranger)), strict=True))


#: the kinds of land a place talked of lies in, which the talk need not name ("the
#: club rally in Wales" of a rally "near Llandovery"; "the shop in Canada")
_LANDS = ("state", "principality", "continent")


def _land(name: str) -> bool:
    """Whether ``name`` (lower case) is a country, a state or a continent by WordNet's
    nouns: a question may name the land a place lies in where the talk named only the
    place, so its absence from memory tells nothing missing. A city is no such land."""
    return country(name) or any(is_a(name, kind) for kind in _LANDS)


def _synonym_held(word: str, held: set[str]) -> bool:
    """Whether the hits say ``word`` by another of its names, all of whose words they
    hold ("my pottery teacher" told of as "the instructor": :func:`kinds.synonyms`,
    WordNet's, loaded only when a premise would otherwise be missing)."""
    return any(all(word_key(t) in held for t in s.split()) for s in synonyms(word.split()[-1]))


def _kind_held(word: str, held: set[str]) -> bool:
    """Whether the hits say ``word`` by a kind of it ("my dog" told of as "my
    whippet", "my father" as "Dad": :func:`kinds.is_a`, WordNet's noun hierarchy, read
    only when a premise would otherwise be missing; a key of three letters only when
    it is a relation's word)."""
    noun = word.split()[-1]
    return any((len(k) > 3 or k in relations()) and is_a(k, noun) for k in held)


#: what "my" has that is a measure of something done, not a thing owned ("What was my
#: time in the Bristol half marathon?": the race is the premise, "time" is asked)
_MEASURED_BY = frozenset({"time", "score", "result", "record", "pace", "rank", "position"})


def regime(values: dict[str, float]) -> str:
    """Which of :data:`REGIMES` the question of :func:`signals`' ``values`` is."""
    if values.get("named"):
        return "named" if values.get("memories", 0.0) >= NAMED_MIN_MEMORIES else "other"
    if not values.get("first_person"):
        return "other"
    return "self" if values.get("memories", 0.0) >= SELF_MIN_MEMORIES else "small"


def judge(
    values: dict[str, float],
    model: VerdictModel | None = None,
    *,
    bias: float | None = None,
    weights: Sequence[float] | None = None,
    threshold: float | None = None,
) -> Verdict:
    """The calibrated verdict from :func:`signals`' values with ``model``'s constants
    (None: :data:`DEFAULT_FAMILY`'s; :func:`verdict_model` makes one from a family
    name) for the question's :func:`regime` (an ``other`` question is scored by the
    ``named`` model and never refused); ``bias``, ``weights`` and ``threshold``, when
    given, replace the model's."""
    if model is None:
        model = FAMILIES[DEFAULT_FAMILY]
    elif not isinstance(model, VerdictModel):  # an engine's name says nothing of its model
        raise InvalidTypeError(
            f"judge takes a VerdictModel (verdict_model(...)), not {type(model).__name__}"
        )
    kind = regime(values)
    fitted = model.models["self" if kind in ("self", "small") else "named"]
    bias = fitted[0] if bias is None else bias
    weights = fitted[1] if weights is None else weights
    threshold = fitted[2] if threshold is None else threshold
    z = bias + sum(w * values.get(f, 0.0) for w, f in zip(weights, FEATURES, strict=True))
    score = 1.0 / (1.0 + math.exp(-z))
    if kind == "small":  # outside the fitted range: a question nothing speaks to (a
        # question without a content word has every signal 0 and is not refused), or
        # one whose premise memory does not hold
        reach = values.get("reach", values.get("coverage", 0.0))  # older values: the top's
        silent = reach == 0.0 and any(values.get(f) for f in FEATURES)
        absent = silent or bool(values.get("premise")) or bool(values.get("stranger"))
    else:
        absent = kind != "other" and score > threshold
    return Verdict(score, absent, dict(values), kind)
