"""Whose name a name is, as the typed reader reads it when a question asks the name of
a noun ("What is the name of Emeka's brother?", "What is my gecko called?"): a name
beside the noun or across "be", "called" or "named" is its name; one given to
someone else's noun, or to a noun across the person line ("a boy from his class
called Alfie" is no gecko), is not. Read from spaCy's parse (``answer/nlp.py``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..question import Question
from ..time.current import relations
from ..types import Hit
from . import nlp
from .kinds import is_a
from .spans import CALLING, PERSON_WORDS


def of_another(span: Any, noun: str, hit: Hit, question: Question) -> bool:
    """Whether the name is given to someone else's ``noun``: "her brother Chidi" (or
    "my brother", said by another) asked the name of Emeka's brother; "my wife Odile"
    asked the name of the captain's wife."""
    # a nationality or a language describes the noun, owns none ("my Portuguese tutor")
    described = {t.lower_ for t in nlp.parse(question.text) if t.ent_type_ in ("NORP", "LANGUAGE")}
    owners = bare_names(question) - described
    if not owners:  # "my wife Odile" is no tower captain's wife, asked by the user
        return bool(owner_noun(question, noun)) and _mine(span, noun)
    return _owned_by_other(span, noun, hit, owners)


def _mine(span: Any, noun: str) -> bool:
    """Whether the sentence gives the name to the speaker's ``noun`` ("my wife
    Odile")."""
    return any(
        t.lemma_.lower() == noun
        and near_in_parse(span.root, t)
        and any(c.dep_ == "poss" and c.lower_ in ("my", "our") for c in t.children)
        for t in span.sent
    )


def _owned_by_other(span: Any, noun: str, hit: Hit, owners: set[str]) -> bool:
    """Whether the name's ``noun`` is his, hers, theirs, or "my" said by someone not
    among the question's ``owners``; "his" or "her" is an owner's own when the owner
    is a relation of that sex ("Her physical therapist is Marguerite Lindqvist" of
    the therapist Mom nicknamed)."""
    for t in span.sent:
        if t.lemma_.lower() != noun or not near_in_parse(span.root, t):
            continue
        for c in t.children:
            if c.dep_ != "poss":
                continue
            if c.lower_ in ("his", "her", "their"):
                if any(_SEX_OF.get(c.lower_) == _sex(o) for o in owners):
                    continue  # "her physical therapist", asked of Mom's: hers
                return True
            if c.lower_ == "my" and (hit.speaker or "").lower() not in owners:
                return True
    return False


def owner_noun(question: Question, noun: str) -> str:
    """The common noun that owns the noun whose name is asked: "captain" of "What's
    the name of the tower captain's wife?"; "" when a name or "my" owns it."""
    for t in nlp.parse(question.text):
        if t.lemma_.lower() != noun:
            continue
        for c in t.children:
            if c.dep_ == "poss" and c.pos_ == "NOUN":
                return str(c.lemma_.lower())
    return ""


def is_the_owner(span: Any, owner: str) -> bool:
    """Whether the sentence says the name is the owner's own, asked the name of the
    owner's relation ("Reginald Pocklington, who's been tower captain since 1986", of
    the captain's wife): a clause or an apposition of the name says the owner's noun,
    the name stands beside it ("our captain, Reginald"), or "be" joins them."""
    if not owner:
        return False
    root = span.root
    for c in root.children:
        if c.dep_ in ("relcl", "appos") and any(t.lemma_.lower() == owner for t in c.subtree):
            return True
    if root.dep_ == "appos" and root.head.lemma_.lower() == owner:
        return True
    head = root.head
    return (
        root.dep_ == "nsubj"
        and head.lemma_ == "be"
        and any(c.dep_ == "attr" and c.lemma_.lower() == owner for c in head.children)
    )


#: nouns English says only of a man or only of a woman (a closed set of kin words
#: and titles: a name given by "her" or "she" is no husband's)
_HE_NOUNS = frozenset(
    {
        "husband", "boyfriend", "brother", "father", "dad", "daddy", "son", "uncle", "nephew",
        "grandfather", "grandpa", "grandson", "fiance", "stepfather", "stepson", "stepbrother",
        "widower", "groom", "bridegroom",
    }
)  # fmt: skip
_SHE_NOUNS = frozenset(
    {
        "wife", "girlfriend", "sister", "mother", "mum", "mom", "mummy", "mommy", "daughter",
        "aunt", "niece", "grandmother", "grandma", "granny", "gran", "nan", "granddaughter",
        "fiancee", "stepmother", "stepdaughter", "stepsister", "widow", "bride",
    }
)  # fmt: skip
#: the pronouns a name is given by, by the sex they say
_SEX_OF = {"she": "f", "her": "f", "he": "m", "his": "m", "him": "m"}


def _sex(noun: str) -> str:
    """ "m" or "f" for a relation's word of one sex ("dad", "mum"), else ""."""
    return "m" if noun in _HE_NOUNS else "f" if noun in _SHE_NOUNS else ""


def other_sex(span: Any, noun: str) -> bool:
    """Whether the name is given by a pronoun of the other sex than ``noun`` says ("Her
    name's Rosalind Achterberg" names no husband; "He's called Tom" no sister): the
    pronoun that owns the word "name" or is the subject of the verb the name hangs
    on, before it in its sentence."""
    sex = _sex(noun)
    if not sex:
        return False
    for t in reversed(span.doc[span.sent.start : span.start]):
        said = _SEX_OF.get(t.lower_)
        owner = t.dep_ == "poss" and t.head.lemma_.lower() == "name"
        if said and (owner or (t.dep_ in ("nsubj", "nsubjpass") and t.head == span.root.head)):
            return said != sex
    return False


def bare_names(question: Question) -> set[str]:
    """The names the question writes, lower-cased, without a possessive ("Omar's")."""
    return {re.sub(r"['’]s$", "", n).lower() for n in question.names}


def tied(span: Any, noun: str) -> bool | None:
    """Whether a name candidate is the name of ``noun`` where its sentence says the
    noun: beside it ("my neighbour Oksana"), or across "be", "called" or "named" ("My
    manager there is a guy called Elliot"); not one doing something to it ("Ingrid
    coached my cousin" names no cousin), or right after it ("My second snake Seraphim
    did it", which the parser hangs apart), nor one joined to it by "and" ("Tadhg and
    my girlfriend ran the truck": two people). None for a sentence without the noun:
    what it says of the question decides (:func:`given`). A relation's word that is
    a kind of the noun says it ("Dad" of "father": "Leif and the twins, me, Dad"
    names no father)."""
    said = [
        t
        for t in span.sent
        if (t.lemma_.lower() == noun or kin_word(t.lower_, noun))
        # others of the kind, not one named: "Her name's Dr Priya Rangan, and she didn't
        # talk over him the way some of the hospital doctors did"
        and not (t.tag_ == "NNS" and not near_in_parse(span.root, t))
    ]
    if not said:
        return None
    return any(
        (t.i + 1 == span.start or near_in_parse(span.root, t)) and not _joined(span.root, t)
        for t in said
    )


def kin_word(word: str, noun: str) -> bool:
    """Whether ``word`` is a relation's word ("dad", "mum") that is a kind of
    ``noun`` ("father")."""
    return word != noun and word in relations() and is_a(word, noun)


def _joined(a: Any, b: Any) -> bool:
    """Whether tokens ``a`` and ``b`` are conjuncts of one another ("Tadhg and my
    girlfriend")."""
    return (a.dep_ == "conj" and a.head.i == b.i) or (b.dep_ == "conj" and b.head.i == a.i)


#: the most tokens a reply that is a name may say besides it ("Oh, Anouk.")
_FRAGMENT = 3


def given(span: Any) -> bool:
    """Whether a name is given as a name where its sentence does not say the noun it
    names: after "called", "named" or "name is", across "be" ("She's Anouk"), beside
    a noun, or as nearly the whole sentence (a reply: "Ines Duarte."); not one a verb
    does something to or with ("She wants Split", "She's marrying Fintan"), which
    names the noun only where the sentence speaks of the question's other words ("I
    had to say goodbye to Max", asked the name of the pet John said goodbye to)."""
    doc = span.doc
    before = [t.lower_ for t in doc[max(span.sent.start, span.start - 2) : span.start]]
    if before[-1:] and before[-1] in CALLING:
        return True
    if before[-2:] in (["name", "is"], ["name", "'s"], ["name", "was"]):
        return True
    if span.root.dep_ in ("attr", "appos") or (before and doc[span.start - 1].pos_ == "NOUN"):
        return True
    rest = [t for t in span.sent if not t.is_punct and not (span.start <= t.i < span.end)]
    return len(rest) <= _FRAGMENT


def someone_called(span: Any) -> bool:
    """Whether a name is given to someone said only as a man or a woman ("the engine
    needs a man called Gideon Sparkes"): it may name whoever the question asks."""
    doc = span.doc
    if span.start < 2 or doc[span.start - 1].lower_ not in CALLING:
        return False
    return doc[span.start - 2].lemma_.lower() in PERSON_WORDS


def called_other(span: Any, noun: str) -> bool:
    """Whether a name given to a noun, with "called" or "named" or beside it, names
    one that cannot be the asked ``noun``: a person for an animal or a thing, or the
    other way round ("a boy from his class called Alfie", "Lucia's friend Bronagh"
    are no gecko; "a guy called Ravi Menon" may be a physiotherapist, "a rescue
    named Biscuit" a dog)."""
    doc = span.doc
    called = doc[span.start - 1] if span.start >= 1 else None
    if called is not None and called.lower_ in CALLING and called.head != called:
        head = called.head
        while head.dep_ == "pobj" and head.head.dep_ == "prep" and head.head.head.pos_ == "NOUN":
            head = head.head.head  # "a boy from his class called Alfie": the boy
    elif called is not None and called.lower_ in CALLING and called.dep_ == "ROOT":
        # "a Welshman called Gethin Pryce", which the parser reads as a clause
        subjects = [c for c in called.children if c.dep_ == "nsubj" and c.i < span.start]
        if not subjects:
            return False
        head = subjects[0]
    elif span.root.dep_ == "appos" or (called is not None and called.pos_ == "NOUN"):
        head = span.root.head if span.root.dep_ == "appos" else called  # "her friend Bronagh"
    else:
        return False
    if head.dep_ == "appos" and head.head.pos_ == "NOUN" and head.lemma_.lower() in PERSON_WORDS:
        head = head.head  # "her key worker, a young woman called Anouk": the key worker
    other = head.lemma_.lower()
    if head.pos_ not in ("NOUN", "PROPN") or other == noun:
        return False
    if a_person(other) != a_person(noun):
        return True
    # someone of another standing: "his neighbour Hattie" is no brother; "a guy
    # called Elliot" may be a manager, "my teacher Ines" an instructor
    return (
        a_person(noun)
        and other not in PERSON_WORDS | _GENERIC
        and not is_a(other, noun)
        and not is_a(noun, other)
    )


def named_other_kind(span: Any, noun: str) -> bool:
    """Whether an organisation's name is given, with "called" or "named", to a noun
    that is no ``noun`` nor a kind of one, nor one of which ``noun`` is a kind: "a
    local firm called Pellow & Sons" is no choir; "a studio called The Kiln Room"
    and "a place called Forge" may be the studio and the gym asked."""
    doc = span.doc
    called = doc[span.start - 1] if span.start >= 1 else None
    if called is None or called.lower_ not in CALLING or called.head.i == called.i:
        return False
    head = called.head
    other = head.lemma_.lower()
    if head.pos_ != "NOUN" or other == noun or other in _ANY_BODY:
        return False
    return not is_a(other, noun) and not is_a(noun, other)


#: nouns that may stand for any organisation or place
_ANY_BODY = frozenset({"place", "group", "one", "thing", "outfit", "lot", "bunch", "crowd"})
#: nouns of a person that say nothing of their standing, besides :data:`PERSON_WORDS`
_GENERIC = frozenset({"lad", "chap", "fellow", "fella", "person", "someone"})


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


#: the words a greeting or thanks addresses someone with ("Hey Andrew!", "Congrats
#: Evan!", "Thanks, Melanie!")
_GREETINGS = frozenset(
    {"hey", "hi", "hello", "thanks", "thank", "congrats", "congratulations", "cheers", "dear"}
)
#: the marks a name spoken to stands before
_CLOSING = frozenset({",", "!", "?", "."})


def addressed(span: Any) -> bool:
    """Whether a name is spoken to, not of ("That's brilliant, Niamh,
    congratulations!", "Hey Andrew!", "Congrats Evan!"): the one it names is one of
    those talking, the listener, as a speaker's name is. After a greeting, or after
    an exclamation and a comma, with a mark after; not a name beside a noun ("a
    retired bloke, Wiktor Zielinski, fenced for Poland", "Callum Pemberton, my new
    weekend guy") nor a reply that is only the name ("Ines Duarte.")."""
    if span[0].lower_ in _GREETINGS:
        return True
    doc, sent = span.doc, span.sent
    if span.start == sent.start or span.end == sent.end:
        return False
    before, after = doc[span.start - 1], doc[span.end]
    if after.text not in _CLOSING:
        return False
    if after.text == "," and not _goes_on_speaking(doc, span.end + 1, sent.end):
        return False
    if before.lower_ in _GREETINGS or before.pos_ == "INTJ":
        return True
    ahead = doc[span.start - 2] if span.start - 2 >= sent.start else None
    return before.text == "," and ahead is not None and _exclaims(ahead)


def _exclaims(token: Any) -> bool:
    """Whether a word before a comma is an exclamation one speaks to someone after
    ("brilliant,", "thanks,", "oh,"), not a noun the name stands beside."""
    return token.lower_ in _GREETINGS or token.pos_ in ("INTJ", "ADJ")


def _goes_on_speaking(doc: Any, at: int, end: int) -> bool:
    """Whether what follows a name and a comma goes on speaking to them
    ("congratulations!", "did you see it?"), not a noun phrase the name is
    ("my new weekend guy")."""
    if at >= end:
        return False
    token = doc[at]
    if token.lower_ in _GREETINGS or token.pos_ == "INTJ":
        return True
    if token.lower_ in _RELATIVE:
        return False  # "Yes, Hamish Ardley, who runs the hardware shop": said of him
    return token.pos_ in ("AUX", "VERB") or (token.pos_ == "PRON" and token.dep_ != "poss")


#: the words a clause about the name just said opens with
_RELATIVE = frozenset({"who", "whom", "whose", "which"})


def in_full(name: str, hits: Sequence[Hit]) -> str:
    """A first name answered ("Malcolm", of "Malcolm says he's staying on as stage
    manager") as the memories give it in full ("A man called Malcolm Greaves is taking
    over"): the one longer person's name of ``hits`` that starts with it. The name as
    it is when none does, or several ("Malcolm Greaves" and "Malcolm Reid")."""
    if not re.fullmatch(r"[A-Z][\w'-]+", name):
        return name
    full = {
        e.text
        for h in hits
        if name in h.text
        for e in nlp.parse(h.text).ents
        if e.label_ == "PERSON" and re.fullmatch(rf"{name}(?:\s+[A-Z][\w'-]+){{1,2}}", e.text)
    }
    return full.pop() if len(full) == 1 else name
