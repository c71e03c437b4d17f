"""Closed classes a candidate must belong to, whatever it scores: a colour asked for
is a colour ("What colour is my hallway?" is not "Ninja one"), a breed is a kind of
the animal asked or a name before it ("What breed of rabbit is Turnip?" is not
"laptop charger"), and an organisation asked by its kind is not one of another kind
("Ashcombe Academy" answers no "Which airline...?"). The typed reader
(:mod:`remem.answer.typed`) keeps the candidates of the class and refuses when none
is left: a class never given is not in memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from ..question import Question
from . import nlp
from .candidate import Span
from .kinds import alike, is_a, names_a_kind
from .want import BUSINESS_NOUNS, COLOUR_NOUNS, ORG_NOUNS, Want

S = TypeVar("S", bound=Span)

#: the colours, a closed class (asked by ``want.COLOUR_NOUNS``): "What colour is my
#: new blender?" is not answered by "Ninja one" when no colour was said
_COLOUR_WORDS = (
    "red orange yellow green blue purple violet pink brown black white grey gray silver "
    "gold golden beige navy teal turquoise maroon cream ivory lilac lavender crimson "
    "scarlet olive mint terracotta sage magnolia mustard charcoal ochre coral taupe khaki "
    "burgundy mauve indigo cobalt emerald aqua magenta fuchsia"
)  # not "rust", "plum", "amber", "tan"...: more often a thing than its colour
COLOURS = frozenset(_COLOUR_WORDS.split())


def narrowed(question: Question, want: Want, found: Sequence[S]) -> tuple[list[S], bool]:
    """The candidates of the class the question asks, if it asks one, and whether it
    does (then none left means never given): a colour, a breed; for an organisation
    asked by its kind, the candidates not naming another kind."""
    kept = list(found)
    if want.kind == "org" and want.head:
        kept = [s for s in kept if not another_org(s.text, want.head)]
    if want.head in COLOUR_NOUNS:
        return [s for s in kept if coloured(s.text)], True
    if want.head == "breed":
        animal = bred(question)
        return [s for s in kept if kind_named(s.text, animal)], True
    return kept, False


def bred(question: Question) -> str:
    """The animal whose breed is asked ("rabbit" of "What breed of rabbit is Turnip?",
    "cat" of "What breed is Henrik's cat?"): the question's first noun other than
    "breed" that WordNet files under animal; "" when none is."""
    for t in nlp.parse(question.text):
        lemma = t.lemma_.lower()
        if t.pos_ == "NOUN" and lemma != "breed" and is_a(lemma, "animal"):
            return lemma
    return ""


def kind_named(text: str, noun: str) -> bool:
    """Whether a phrase names a kind of ``noun``: it ends in one ("a retired racing
    greyhound" of "dog"), by its last word or two, singular or not; it is one said by
    the first word of its name ("Labrador"); or it ends in the noun itself or one it
    is a kind of, after a capitalised name ("Buckfast bees" of "honeybee", "Holland Lop
    rabbit"). False without a noun."""
    raw = [w.strip(".,;:!?'\"()") for w in text.split()]
    said = [w.lower() for w in raw if w]
    if not noun or not said:
        return False
    last = said[-1]
    single = last[:-1] if last.endswith("s") else last
    if any(is_a(n, noun) for n in {" ".join(said[-2:]), last, single}):
        return True
    if len(said) == 1 and raw[0][:1].isupper() and names_a_kind(single, noun):
        return True  # "Labrador", of "labrador retriever"
    before = raw[-2] if len(raw) >= 2 else ""
    same = single == noun or last == noun or is_a(noun, single)
    return same and before[:1].isupper()


def another_org(text: str, head: str) -> bool:
    """Whether a name ends in a noun of another kind of organisation than the one asked
    ("Ashcombe Academy" to "Which airline...?"; not "Velotrail" or "Kestrel FM")."""
    last = text.lower().split()[-1].strip(".,;:!?'\"()") if text.split() else ""
    last = last[:-1] if last.endswith("s") and last[:-1] in _ORG_KINDS else last
    if head in _ANY_ORG or last not in _ORG_KINDS or last == head or alike(last, head):
        return False
    return not (last in _GATHERINGS and head in _GATHERINGS)


#: the nouns that end an organisation's name and say its kind ("... Academy")
_ORG_KINDS = ORG_NOUNS | BUSINESS_NOUNS | {"academy", "airways", "university"}
#: nouns asking for any organisation, a form rather than a kind: a company may be a
#: bakery, a charity a hospital ("Hollin Wildlife Hospital")
_ANY_ORG = frozenset(
    {"company", "employer", "firm", "business", "organisation", "organization", "startup",
     "charity", "agency", "practice", "place"}
)  # fmt: skip
#: nouns of people gathering, one another's kind ("a club" may be "the ... Society")
_GATHERINGS = frozenset({"club", "society", "association", "group", "team"})


def coloured(text: str) -> bool:
    """Whether a phrase names a colour: one of the closed class's common words, or a
    word WordNet files under colour ("teal", "ochre")."""
    said = {w.strip(".,;:!?'\"()") for w in text.lower().split()}
    return bool(COLOURS & said) or any(is_a(w, "color") for w in said if w.isalpha())
