"""Whose name a name is, as the typed reader reads it when a question asks the name of
a noun ("What is the name of Emeka's brother?", "What is my gecko called?"): a name
beside the noun or across "be", "called" or "named" is its name; one given to
someone else's noun, or to a noun across the person line ("a boy from his class
called Alfie" is no gecko), is not. Read from spaCy's parse (``answer/nlp.py``)."""

from __future__ import annotations

import re
from typing import Any

from ..question import Question
from ..types import Hit
from .kinds import is_a
from .spans import PERSON_WORDS


def of_another(span: Any, noun: str, hit: Hit, question: Question) -> bool:
    """Whether the name is given to someone else's ``noun``: "her brother Chidi" (or
    "my brother", said by another) asked the name of Emeka's brother."""
    owners = bare_names(question)
    if not owners:
        return False
    for t in span.sent:
        if t.lemma_.lower() != noun or not near_in_parse(span.root, t):
            continue
        for c in t.children:
            if c.dep_ != "poss":
                continue
            if c.lower_ in ("his", "her", "their"):
                return True
            if c.lower_ == "my" and (hit.speaker or "").lower() not in owners:
                return True
    return False


def bare_names(question: Question) -> set[str]:
    """The names the question writes, lower-cased, without a possessive ("Omar's")."""
    return {re.sub(r"['’]s$", "", n).lower() for n in question.names}


def tied(span: Any, noun: str) -> bool:
    """Whether a name candidate is the name of ``noun`` where its sentence says the
    noun: beside it ("my neighbour Oksana"), or across "be", "called" or "named" ("My
    manager there is a guy called Elliot"); not one doing something to it ("Ingrid
    coached my cousin" names no cousin), or right after it ("My second snake Seraphim
    did it", which the parser hangs apart). A sentence without the noun ties
    nothing."""
    said = [t for t in span.sent if t.lemma_.lower() == noun]
    return not said or any(t.i + 1 == span.start or near_in_parse(span.root, t) for t in said)


def called_other(span: Any, noun: str) -> bool:
    """Whether a name given to a noun, with "called" or "named" or beside it, names
    one that cannot be the asked ``noun``: a person for an animal or a thing, or the
    other way round ("a boy from his class called Alfie", "Lucia's friend Bronagh"
    are no gecko; "a guy called Ravi Menon" may be a physiotherapist, "a rescue
    named Biscuit" a dog)."""
    doc = span.doc
    called = doc[span.start - 1] if span.start >= 1 else None
    if called is not None and called.lower_ in ("called", "named") and called.head is not called:
        head = called.head
        while head.dep_ == "pobj" and head.head.dep_ == "prep" and head.head.head.pos_ == "NOUN":
            head = head.head.head  # "a boy from his class called Alfie": the boy
    elif span.root.dep_ == "appos" or (called is not None and called.pos_ == "NOUN"):
        head = span.root.head if span.root.dep_ == "appos" else called  # "her friend Bronagh"
    else:
        return False
    other = head.lemma_.lower()
    if head.pos_ != "NOUN" or other == noun:
        return False
    return a_person(other) != a_person(noun)


def a_person(noun: str) -> bool:
    """Whether a noun names a kind of person in its most frequent sense (WordNet, and
    the plain words for one): "boy", "physiotherapist"; not "dog" (a person only in
    a rarer sense)."""
    return noun in PERSON_WORDS or is_a(noun, "person", senses=1)


#: the words a path from a name to its noun may pass through besides nouns ("of" of
#: "Dungeons of the Dragon")
_NAMING = frozenset({"be", "call", "name", "of"})


def near_in_parse(a: Any, b: Any) -> bool:
    """Whether tokens ``a`` and ``b`` are joined in the parse by at most three tokens,
    each a noun or a word of naming (:data:`_NAMING`)."""
    up_a, up_b = [a, *a.ancestors], [b, *b.ancestors]
    common = next((t for t in up_a if t in up_b), None)
    if common is None:
        return False
    path = up_a[: up_a.index(common) + 1] + up_b[: up_b.index(common)]
    inner = [t for t in path if t.i not in (a.i, b.i)]
    return len(inner) <= 3 and all(
        t.pos_ in ("NOUN", "PROPN") or t.lemma_.lower() in _NAMING for t in inner
    )
