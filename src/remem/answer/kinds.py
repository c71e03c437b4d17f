"""Whether a noun names a kind of another ("fern" of "plant", "greyhound" of "animal"),
and whether two verbs name one doing ("baking" is a way of "making"): WordNet 3.0's
noun and verb hierarchies, shipped as ``data/noun_hypernyms.tsv.gz`` and
``data/verb_hypernyms.tsv.gz``
(``scripts/build_hypernyms.py`` made it from Princeton's release; its licence heads
the file), with each word's senses in WordNet's order of frequency.

The typed reader asks it of a "what" question's noun: "What plant did I put in my
aquarium?" is answered by "a Java fern", which shares no word with it. Loaded on the
answer path only, on first use (about 80,000 synsets, a fraction of a second);
``search`` never reads it.
"""

from __future__ import annotations

import gzip
import unicodedata
from array import array
from functools import cache
from importlib import resources
from typing import Any

from . import nlp

#: how many steps up the hierarchy a kind is looked for ("greyhound" is an animal
#: eight steps up; WordNet's deepest nouns sit under 20)
DEPTH = 20

#: how many of a noun's senses are read, the most frequent first: "toaster" is first
#: someone who proposes a toast, then the appliance; past the second, senses are rare
#: enough to mislead ("part" as a voice in music)
SENSES = 2

#: nouns too general to say what an answer is: every noun is a kind of "thing"
GENERAL = frozenset(
    {"thing", "things", "stuff", "item", "object", "one", "kind", "type", "sort", "part",
     "piece", "way", "entity", "something", "name", "lot"}
)  # fmt: skip


@cache
def _hierarchy(
    pos: str = "noun",
) -> tuple[dict[str, int | tuple[int, ...]], array[int], array[int]]:
    """(lemma -> its synset, or its synsets the most frequent first; each synset's
    first hypernym's place in the flat list of hypernyms; that list), read once and
    kept compact (a tuple only for a lemma of several senses, the hypernyms in two
    arrays): the hierarchy costs tens of megabytes as plain lists."""
    senses: dict[str, int | tuple[int, ...]] = {}
    ranked: dict[str, tuple[int, ...]] = {}
    starts, flat = array("i", [0]), array("i")
    path = resources.files("remem.answer").joinpath("data").joinpath(f"{pos}_hypernyms.tsv.gz")
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            lemmas, ids = line.rstrip("\n").split("\t")
            if lemmas.startswith("="):  # a lemma's senses, the most frequent first
                ranked[lemmas[1:]] = tuple(int(i) for i in ids.split(","))
                continue
            synset = len(starts) - 1
            for lemma in lemmas.split(","):
                senses.setdefault(lemma, synset)
            flat.extend(int(i) for i in ids.split(",") if i)
            starts.append(len(flat))
    senses.update(ranked)
    return senses, starts, flat


def _unaccented(word: str) -> str:
    """``word`` without its accents ("fiancée" -> "fiancee")."""
    return unicodedata.normalize("NFKD", word).encode("ascii", "ignore").decode()


def _senses(lemma: str, pos: str = "noun") -> tuple[int, ...]:
    """The synsets of ``lemma`` (a noun, or a verb), the most frequent first; a word
    with an accent as WordNet spells it without ("fiancée", "café")."""
    held = _hierarchy(pos)[0]
    found = held.get(lemma, ()) or held.get(_unaccented(lemma), ())
    return found if isinstance(found, tuple) else (found,)


def known_noun(noun: str) -> bool:
    """Whether WordNet holds ``noun`` (a lemma), so that what it is not is known."""
    return bool(_senses(noun.lower().strip()))


def is_a(noun: str, kind: str, senses: int = SENSES, kind_senses: int | None = None) -> bool:
    """Whether one of the most frequent senses of ``noun`` (a lemma: "fern") is a
    kind of some sense of ``kind`` ("plant"), up to :data:`DEPTH` steps; False for a word
    WordNet does not hold, for ``noun`` == ``kind`` or a synonym of it ("wheel" is a
    "bike" in one sense, no kind of one), and for a :data:`GENERAL` kind.
    ``kind_senses``: only the most frequent senses of ``kind`` (a "unit" of
    measurement, not the "whole" a garage is one of)."""
    noun, kind = noun.lower().strip(), kind.lower().strip()
    if not noun or noun == kind or kind in GENERAL:
        return False
    _, starts, flat = _hierarchy()
    targets = set(_senses(kind)[:kind_senses])
    # the noun's most frequent senses (:data:`SENSES`); a synonym ("wheel" of
    # "bike") is no kind
    seen = set(_senses(noun)[:senses]) - targets
    frontier = seen
    for _ in range(DEPTH):
        frontier = {p for s in frontier for p in flat[starts[s] : starts[s + 1]]} - seen
        if not frontier or not targets:
            return False
        if frontier & targets:
            return True
        seen |= frontier
    return False


def concrete(noun: str) -> bool:
    """Whether ``noun``'s most frequent sense is a physical thing ("tool", "bird",
    "cheese"), not an abstraction ("activity", "goal", "advice"), whose kinds in
    WordNet include the vaguest words ("fun" is an activity, "purpose" a goal)."""
    return is_a(noun, "physical entity", senses=1)


@cache
def country(name: str) -> bool:
    """Whether ``name`` is a country's, as WordNet holds its instances ("Germany",
    "UK", "Ireland"; not "Wales", a region, nor "Galway", a city): no answer to
    "Which town...?"."""
    # the first two senses of "country" (a nation, its land): a farther sense, "an
    # area of indefinite boundary", holds every city ("Paris")
    return is_a(name.lower().strip(), "country", kind_senses=2)


def names_a_kind(word: str, kind: str) -> bool:
    """Whether ``word`` is a kind of ``kind`` (:func:`is_a`) or the first word of one
    WordNet names with more ("labrador" of "labrador retriever", a dog): a breed said
    short."""
    word = word.lower().strip()
    if is_a(word, kind):
        return True
    return any(is_a(longer, kind) for longer in _by_first_word().get(word, ()))


@cache
def _by_first_word() -> dict[str, tuple[str, ...]]:
    """first word -> the lemmas of two or three words it opens, built once."""
    out: dict[str, list[str]] = {}
    for lemma in _hierarchy()[0]:
        parts = lemma.split()
        if 2 <= len(parts) <= 3:
            out.setdefault(parts[0], []).append(lemma)
    return {k: tuple(v) for k, v in out.items()}


def synonyms(noun: str) -> frozenset[str]:
    """The other lemmas of ``noun``'s most frequent senses (:data:`SENSES`), each
    lemma's words joined by a space: "instructor" of "teacher"."""
    noun = noun.lower().strip()
    members = _members()
    found = {m for s in _senses(noun)[:SENSES] for m in members.get(s, ())}
    return frozenset(found - {noun})


@cache
def _members() -> dict[int, tuple[str, ...]]:
    """synset -> its lemmas, built once from the hierarchy's lemma -> synsets."""
    out: dict[int, list[str]] = {}
    for lemma, found in _hierarchy()[0].items():
        for s in found if isinstance(found, tuple) else (found,):
            out.setdefault(s, []).append(lemma)
    return {s: tuple(v) for s, v in out.items()}


def alike(noun: str, other: str) -> bool:
    """Whether two nouns (lemmas) name one thing in one of their most frequent senses
    (:data:`SENSES`): WordNet puts them in one synset ("teacher" and "instructor",
    "physician" and "doctor"). False for a word WordNet does not hold."""
    noun, other = noun.lower().strip(), other.lower().strip()
    if not noun or not other:
        return False
    if noun == other:
        return True
    return bool(set(_senses(noun)[:SENSES]) & set(_senses(other)[:SENSES]))


def named_by(noun: str, other: str) -> bool:
    """Whether ``other`` (a lemma) names what ``noun`` most often means, in any of its
    senses: "step" names a "stair" (WordNet's only sense of "stair" is the fourth of
    "step"), though neither's first senses meet (:func:`alike`)."""
    noun, other = noun.lower().strip(), other.lower().strip()
    return bool(noun and other) and bool(set(_senses(noun)[:1]) & set(_senses(other)))


#: how many steps up the verb hierarchy one verb is looked for in another's: "bake"
#: is "cook" one step up and "make" two; further up lie "change" and "move"
VERB_DEPTH = 2

#: verbs too general to tie two others: nearly every doing is a kind of one; and
#: "look", whose sense rests on the word after it ("looks after my tortoise" is no
#: "glaring at me")
GENERAL_VERBS = frozenset(
    {"be", "have", "do", "get", "go", "move", "change", "alter", "modify", "take", "act",
     "become", "turn", "travel", "displace", "locomote", "put", "set", "cause", "let", "look"}
)  # fmt: skip


def verbs_kin(verb: str, other: str) -> bool:
    """Whether two verbs (lemmas) name one doing: one of the most frequent senses
    (:data:`SENSES`) of one is a sense of the other, or a kind of one up to
    :data:`VERB_DEPTH` steps ("cook" and "make" of "I'm making my grandmother's
    goulash", asked "What did Tomas cook?"; "bake" and "cook"). False for a
    :data:`GENERAL_VERBS` one and for a word WordNet does not hold."""
    verb, other = verb.lower().strip(), other.lower().strip()
    if not verb or not other or verb in GENERAL_VERBS or other in GENERAL_VERBS:
        return False
    if verb == other:
        return True
    # the one more specific by its most frequent senses, the other by any
    return bool(_up(verb) & set(_senses(other, "verb"))) or bool(
        _up(other) & set(_senses(verb, "verb"))
    )


@cache
def _up(verb: str) -> frozenset[int]:
    """The synsets of ``verb``'s most frequent senses and of their hypernyms up to
    :data:`VERB_DEPTH` steps."""
    _, starts, flat = _hierarchy("verb")
    seen = set(_senses(verb, "verb")[:SENSES])
    frontier = set(seen)
    for _ in range(VERB_DEPTH):
        frontier = {p for s in frontier for p in flat[starts[s] : starts[s + 1]]} - seen
        seen |= frontier
    return frozenset(seen)


def main_verbs(text: str) -> frozenset[str]:
    """The lemmas of a question's main verb and those joined to it ("When did I pick
    up the bike I'm restoring?": "pick", not "restore", which says which bike); not
    an auxiliary, nor a verb too general to name a doing (:data:`GENERAL_VERBS`).
    With a particle WordNet holds as one verb, that one too ("turn up", where "turn"
    alone is too general). Asked of a plan ("When was Gordon due to collect the
    dog?"), the doing planned: the main verb is "be"."""
    doc = nlp.parse(text)
    main = [t for t in doc if t.dep_ == "ROOT"]
    main += [t for t in doc if t.dep_ == "conj" and t.head in main]
    main += [t for t in doc if _planned_by(t, main)]
    return frozenset(
        lemma
        for t in main
        if t.pos_ == "VERB"
        for lemma in verb_lemmas(t)
        if lemma not in GENERAL_VERBS
    )


def doer_of(text: str) -> str:
    """Whom a question asks the doing of, by name, lower case ("gordon" of "When was
    Gordon due to collect the dog?"), "i" for the one asking ("When did I pass my
    test?", "we" too); "" when its subject is neither."""
    for t in nlp.parse(text):
        if t.dep_ == "ROOT":
            subject = [c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")]
            if subject and subject[0].lower_ in ("i", "we"):
                return "i"
            return subject[0].lower_ if subject and subject[0].pos_ == "PROPN" else ""
    return ""


#: what "be ... to" says of a doing planned ("due to", "supposed to", "meant to")
_PLANNED = frozenset({"due", "supposed", "meant", "scheduled", "set", "booked", "going"})
#: the main verbs whose infinitive is the doing planned
_PLANS = frozenset({"be", "go", "suppose", "mean", "schedule"})


def _planned_by(verb: Any, main: list[Any]) -> bool:
    """Whether ``verb`` is an infinitive that a main "be" or "go" plans ("was due to
    collect", "is going to start", "was supposed to ring"): the doing asked of."""
    if not any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children):
        return False
    head = verb.head
    if head.lower_ in _PLANNED and head not in main:
        head = head.head  # "due" under "was"
    return head in main and head.lemma_ in _PLANS and verb != head


def verb_lemmas(token: Any) -> tuple[str, ...]:
    """A verb's lemma, and with its particle the phrasal verb when WordNet holds it
    ("pick up" of "picking her up"): what :func:`verbs_kin` compares."""
    lemma = token.lemma_.lower()
    particles = [c.lower_ for c in token.children if c.dep_ == "prt"]
    adverbs = [c for c in token.children if c.dep_ == "advmod"]
    said = {
        *particles,
        *(a.lower_ for a in adverbs),
        *(g.lower_ for a in adverbs for g in a.children),
    }
    if lemma in _GOING and "back" in said:  # "came back", "get back home": a return
        return (lemma, "return")
    phrasal = f"{lemma} {particles[0]}" if particles else ""
    return (lemma, phrasal) if phrasal and _senses(phrasal, "verb") else (lemma,)


#: verbs of going that "back" makes a return ("she came back", "when did Mom get
#: back home?"), which WordNet holds as no phrasal verb of their own
_GOING = frozenset({"come", "get", "go", "head", "fly", "drive", "move"})
