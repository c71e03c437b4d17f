"""Whether a candidate can be of the kind a question asks: a length of time counted
in units, a named place or organisation, a number counting what is asked, a thing
that is no person. The typed reader (``typed.py``) reads these as hard rules, not
as the ranking's features: a "how long" is never answered by "the national park
lot", a town never by "my windowsill", a "how many listeners" never by "one" of
"in one piece" (docs/results/stop57/NOTE.md)."""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import words
from . import nlp
from .candidate import Span
from .kinds import is_a, named_by
from .spans import built
from .want import TIME_UNITS, Want


def a_name(span: Span) -> bool:
    """Whether the tagger, reading the memory, calls every word of a candidate a
    person's ("Marisol" is no vet practice; "Muddy Paws", whose "Paws" it calls
    one, may be a company)."""
    at = span.hit.text.find(span.text)
    if at < 0:
        return False
    said = nlp.parse(span.hit.text).char_span(at, at + len(span.text), alignment_mode="expand")
    return said is not None and all(t.ent_type_ == "PERSON" for t in said)


def of_other_kind(span: Span) -> bool:
    """Whether the tagger labels a candidate, the whole of it, as what no
    organisation is: a people or a language ("Spanish"), a time, a number ("Muddy
    Paws", whose "Paws" it calls a person, may be one)."""
    return any(
        e.label_ not in ("ORG", "FAC", "PRODUCT") and e.text == span.text
        for e in nlp.parse(span.text).ents
    )


@cache
def named_place(noun: str) -> bool:
    """Whether a place asked by ``noun`` has a name of its own, which a phrase
    naming none does not answer: a town, a country, a region, a hotel ("Which town
    does Marnie live in?": not "my windowsill"); not a "place" or a "spot"."""
    if not noun or noun in _ANY_PLACE:
        return False
    return is_a(noun, "geographical area") or is_a(noun, "administrative district") or built(noun)


#: the nouns asking for any place, named or not (WordNet files "place" under
#: geographical areas too)
_ANY_PLACE = frozenset({"place", "spot", "location", "area", "venue", "site", "somewhere"})


#: the units a length of time or way is counted in, beyond a clock's ("six
#: weekends", "a couple of fortnights", "three laps")
_UNITS = TIME_UNITS | frozenset(
    {"weekend", "fortnight", "decade", "century", "season", "term", "semester", "lap"}
)


def in_units(text: str) -> bool:
    """Whether a phrase counts in units of time or of a measure ("six weekends",
    "42 km"), which a "how long" asks: not "the national park lot"."""
    doc = nlp.parse(text)
    return any(t.lemma_.lower() in _UNITS for t in doc) or any(
        e.label_ in ("QUANTITY", "TIME") for e in doc.ents
    )


def counts_other(root: Any, counted: str) -> bool:
    """Whether a number (the token ``root``) counts a noun other than the one a "how
    many" question asks of (``counted``: its words, :func:`now.counted_words`): "one"
    of "in one piece" is no count of listeners; "three people" and "three callers"
    count them (people both), "4 hens" chickens ("How many chickens...?")."""
    if not counted or root.dep_ != "nummod" or root.head.i < root.i or root.head.pos_ != "NOUN":
        return False
    noun = root.head.lemma_.lower()
    said = [t for t in nlp.parse(counted) if t.dep_ == "ROOT" and t.pos_ in ("NOUN", "PROPN")]
    if not said:
        return False  # no noun read of the question: nothing to tell it from
    asked = said[0].lemma_.lower()
    if noun == asked or is_a(noun, asked) or is_a(asked, noun):
        return False
    if named_by(asked, noun) or named_by(noun, asked):
        return False  # "38 steps" of "How many stairs...?"
    if noun in _ANY_COUNTED and root.head.tag_ == "NNS":
        return False  # "38 pieces" of "How many pots...?"; not "in one piece"
    if noun in _YOUNG and is_a(asked, "animal"):
        return False  # "64 hatchlings" of "How many baby cuttlefish...?"
    done = times_done(root)
    if done is not None and words.word_key(done.lemma_.lower()) == words.word_key(asked):
        return False  # "She raced 52 times": 52 races
    return not (people(noun) and people(asked))


#: nouns that count whatever was asked ("I crammed 38 pieces in" of pots)
_ANY_COUNTED = frozenset({"piece", "item", "thing", "one", "bit"})
#: nouns of an animal's young, which count any animal
_YOUNG = frozenset(
    {"hatchling", "baby", "chick", "cub", "puppy", "pup", "kitten", "foal", "lamb", "calf",
     "duckling", "fry", "juvenile", "youngster", "offspring"}
)  # fmt: skip


def times_done(root: Any) -> Any | None:
    """The verb a number of times counts ("She raced 52 times": "raced", which a "How
    many races...?" asks), or None for a number that counts no times."""
    times = root.head
    return times.head if root.dep_ == "nummod" and times.lemma_ == "time" else None


@cache
def people(noun: str) -> bool:
    """Whether ``noun`` (a lemma) names people: "callers", "guests", "people"."""
    return noun in ("people", "folk", "folks") or is_a(noun, "person")


def someone_done_to(want: Want, span: Any) -> bool:
    """Whether a thing asked as what was done ("What did Felix plant?", "What did I
    give Tobias?") is answered by a person's name, the whole phrase one: people are
    not planted or given. Not when the verb names ("What did she name her dog?") or
    the question names the kind, which the tagger may call a person ("Which Disney
    movie...?")."""
    return (
        want.kind == "thing"
        and not want.head
        and want.role[1] == "object"
        and want.role[0] not in _NAMING_VERBS
        and all(t.ent_type_ == "PERSON" for t in span)
    )


#: the keys of verbs whose object is a name ("What did she name her dog?")
_NAMING_VERBS = frozenset(words.content_keys("name named call called"))
