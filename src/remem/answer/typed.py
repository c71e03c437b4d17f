"""The typed extractive reader: the span of the evidence that answers, of the kind asked.

Asked "Who's teaching you?" the answer is "Ines Duarte", not the sentence "Her name
is Ines Duarte", and when that sentence is the reply to the question turn ranked
first, the reader must look at the reply. So, for a question that wants a typed
answer (:func:`remem.answer.want.wanted`):

1. **Where to look**: the sentences of the top evidence that share a word with the
   question, and their dialogue neighbours: the turn after a turn that asks ("Who's
   teaching you?" -> "Her name is Ines Duarte") inherits the asking turn's fit.
2. **Candidates**: the named entities of the wanted kind (spaCy's labels,
   ``want.LABELS``); for a thing, also the noun phrases and the phrases a verb of the
   question governs ("What did Maria donate?": "my old car" in "I donated my old car
   to a homeless shelter"). A candidate must hold a content word the question does
   not (the question's own words are never its answer).
3. **Fit**: the sentence's fit to the question (shared words, the asked person
   speaking of themself, the asking turn before it), the candidate's nearness in the
   parse to the question's words in the sentence, its kind, and who it names: a
   person answer that is the name of a speaker of the evidence counts less, one the
   question names is never the answer.

Every word of the answer is a word of a memory: nothing is written, only cut. A
question that asks for a name or an age when no sentence about its subject holds one
gets :data:`NEVER` and the reader refuses: the attribute was never given ("What is my
landlord's name?" when only the rent was mentioned).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

from .. import words
from ..index.tokenize import sentences
from ..question import Question
from ..speakers import ASSISTANT, asks_assistant, asks_reminder, party
from ..store.base import timestamp_epoch
from ..time.current import not_employers, relations, roles, sets_asked
from ..time.events import event_times
from ..types import Hit
from . import classes, naming, nlp, now
from .candidate import ALONE, NEVER, Around, Nearness, Rarity, Source, Span
from .kindcheck import (
    a_name,
    counts_other,
    in_units,
    named_place,
    of_other_kind,
    people,
    someone_done_to,
    times_done,
)
from .kinds import alike, concrete, country, is_a, known_noun, main_verbs, named_by, verbs_kin
from .rank import features as rank_features
from .rank import score as rank_score
from .rank import weights as rank_weights
from .spans import (
    CALLING,
    CURRENCIES,
    FITS,
    LOCATIVE,
    NAMED_THINGS,
    NUMBER_WORDS,
    PERSON_WORDS,
    SETTLEMENTS,
    TITLES,
    ago,
    all_it_says,
    gives_name,
    named_other,
    names_a_thing,
    near,
    phrases,
    priced_noun,
    stopwatch,
    thing,
    timed_result,
    trim,
    written_as_name,
)
from .spans import TIME_KEYS as _TIME_KEYS
from .told import in_window, told_by_asked
from .verdict import RELATED_MIN
from .want import (
    BRAND_NOUNS,
    BUSINESS_NOUNS,
    NUMBER_NOUNS,
    ORG_NOUNS,
    PERCENT_NOUNS,
    STRICT,
    Want,
    asks_called,
    named_noun_of,
    possessions,
    wanted,
)

#: the memories read (best first) for candidates. 8 since stop 54 (6 before): the
#: answer often sits in the 7th or 8th ("We've booked through a company called
#: Velotrail"); LoCoMo hybrid F1 0.264 -> 0.268, synapse unchanged, the check sets
#: +3 right in all (docs/results/stop54/NOTE.md)
DEPTH = 8
#: what the turn after an asking turn inherits of the asking turn's fit
REPLY_SHARE = 0.8
#: the least fit of a sentence read for candidates: half a shared word, so what a
#: reply inherits of the turn that asked, faded over two sentences, reads no more
#: ("Does Ines want you practising daily?" ... "I'm thinking Kyoto in late April"
#: tells no hometown of hers)
_READ_MIN = 0.5
#: the memories recall ranks first, whose sentences are read at the least fit
#: (:data:`_READ_MIN`) when they share no word with the question: recall found them
#: nearest in meaning ("Who is the former sailor among Dad's carers?": "a lovely man
#: called Tomasz Wierzbicki, who used to be a merchant seaman"). Only once other
#: memories speak to the question: alone, they would answer what was never said
_TRUSTED = 1
#: what a sentence inherits of the fit of the one before it in the same memory
#: ("Last Fri I took my kids to a pottery workshop. We all made our own pots")
_NEXT_SHARE = 0.5
#: the keys of the words that ask for the current or the first value
_ORDER_KEYS = frozenset(
    words.content_keys("current currently now latest recent recently nowadays still anymore")
    | words.content_keys("initially originally first formerly")
)
#: a list answer keeps candidates within this of the best score, at most this many
_LIST_SLACK = 1.0
_LIST_MAX = 4
#: kinds asked as an attribute of something, refused when never given ("How much did
#: the Brompton cost?" is not answered by a phrase that is no price; a count is
#: not: a chat's "how many" answers are counted over memories, not said in one)
_ATTRIBUTES = frozenset({"age", "money"})
#: the nouns that ask for someone's employer (:func:`_not_fitting`)
_EMPLOYERS = frozenset({"company", "employer", "firm", "workplace"})
#: the nouns of an organisation that has a name: an employer, a place of business
_NAMED_ORGS = _EMPLOYERS | BUSINESS_NOUNS | frozenset(BRAND_NOUNS)
#: kinds asked of someone the user talks about, told only where they are named
#: (:func:`_strangers`)
_OF_SOMEONE = frozenset({"place", "org", "workplace"})
#: the parse roles of the one a question asks about ("Oksana" of "Where does Oksana
#: come from?", of "Oksana's town")
_WHOSE = frozenset({"nsubj", "nsubjpass", "poss", "compound"})
#: words that say what kind of answer is asked, not whose
_KIND_WORDS = frozenset(
    {
        "name", "names", "named", "called", "call", "old", "age", "many", "much", "long",
        "often", "far", "time", "number",
    }
)  # fmt: skip
_KIND_KEYS = frozenset(words.content_keys(" ".join(_KIND_WORDS)))


@cache
def _kind_keys(text: str) -> frozenset[str]:
    """The keys of the words of ``text`` that say what kind of answer is asked
    (:data:`_KIND_WORDS`), as said: "called" asks a name, "a call" does not ("How
    much does the town pay us per call?": the stipend's memory says "a call")."""
    said = {w for w in re.findall(r"[a-z]+", text.lower()) if w in _KIND_WORDS}
    if "call" in said and not re.search(r"\b(?:what|who)\b[^?]*\bcall\b", text, re.I):
        said.discard("call")  # "What do I call her?" asks a name; "per call" does not
    return frozenset(words.content_keys(" ".join(said)))


def typed_answer(
    question: Question,
    evidence: Sequence[Hit],
    around: Around = ALONE,
    stale: Collection[str] = (),
) -> tuple[str, Hit] | None:
    """The best span of the wanted kind and the memory it is from; None when the
    question wants no typed answer or none of its kind is found; :data:`NEVER` when
    memory never gave what it asks (a name or an age of its subject, a thing it
    presupposes).
    ``around`` holds what else the reader may ask of the memories (:class:`Around`):
    nearness tells how near in meaning each memory is to what the question asks of
    (:func:`_about_subject`). ``stale``: ids of memories whose value a newer one
    replaced, for a question about it (the time stage's notes: "I live in Lisbon"
    when "I moved to Porto" is in the evidence); they are not read (a question about
    before reads them: no such notes then)."""
    want = wanted(question)
    if not want.kind:
        return None
    found = typed_candidates(question, want, evidence, around, stale)
    if found is None:
        return NEVER
    if not found:
        return None
    best = found[0]
    if not want.many:
        if want.kind == "person" and not _FIRST_NAME.search(question.text):
            # "Malcolm" as the memories name him: "Malcolm Greaves"
            return naming.in_full(best.text, evidence), best.hit
        return best.text, best.hit
    kept: list[str] = []
    for s in found:
        if s.score < best.score - _LIST_SLACK or len(kept) >= _LIST_MAX:
            break
        if not any(s.text.lower() in k.lower() or k.lower() in s.text.lower() for k in kept):
            kept.append(s.text)
    return ", ".join(kept), best.hit


#: a question asking a first name only
_FIRST_NAME = re.compile(r"\b(?:first|given|christian|nick)\s*names?\b", re.I)


def best_span(
    question: Question,
    evidence: Sequence[Hit],
    around: Around = ALONE,
) -> Span | None:
    """The best candidate span of the wanted kind with its score, or None when the
    question wants no typed answer, memory never gave what it asks, or no span of
    the kind is there: what a judge of whether ``evidence`` answers the question
    reads (ILSTMA's "typed" hit judge weighs the score; :func:`typed_answer` keeps
    only the words and the memory)."""
    want = wanted(question)
    if not want.kind:
        return None
    found = typed_candidates(question, want, evidence, around)
    return found[0] if found else None


def fit_share(question: Question, span: Span) -> float:
    """The share of what the question asks about (:func:`_asked`) that ``span``'s
    sentence speaks to, with what it inherits (the asking turn before a reply):
    its fit over the number of asked words. The score ranks a question's candidates
    against each other (the weights are a conditional logit's), so it does not say
    whether the sentence is about the question at all; this does. At most 1: the
    fit counts more than shared words (a reply to the same "who" adds one,
    :func:`_asks_alike`)."""
    asked = len(_asked(question))
    fit = span.features.get("fit", 0.0) + span.features.get("inherited", 0.0)
    return min(1.0, fit / asked) if asked else 0.0


def typed_candidates(
    question: Question,
    want: Want,
    evidence: Sequence[Hit],
    around: Around,
    stale: Collection[str] = (),
) -> list[Span] | None:
    """Every candidate span of the wanted kind, best first (:func:`typed_answer`'s
    arguments); None when memory never gave what the question asks.
    ``scripts/fit_reader.py`` fits the ranking's weights over these."""
    nearness = around.nearness
    current = [h for h in evidence if h.id not in stale]
    sources = _sources(question, current, around)
    if _unheld(question, want, sources, around):
        return None
    strangers = _strangers(question, want, sources)
    sources = _narrowed(question, want, sources, strangers, nearness)
    meaning = _meaning(question, sources, nearness)
    weighing = (around, meaning)
    # where memory speaks to it, recall's first is read too (:data:`_TRUSTED`); not
    # for a noun's name, given beside it: one pass, read with it, and nothing when
    # every phrase found is of a sentence read only for its rank
    trust = _TRUSTED if want.head != "name" and not asks_called(question) else 0
    found = _candidates(question, want, sources, weighing, trust)
    if trust and all(s.features.get("trusted") for s in found):
        found = []
    if not found and want.kind in STRICT - _ATTRIBUTES and want.head != "name" and not strangers:
        found = _weaker(question, want, sources, weighing)
    if not found and want.kind in STRICT and len(evidence) > DEPTH and not now.asks_left(question):
        # none of the kind nor a phrase of a weaker kind in the memories read first:
        # the rest of the evidence ("the landlord in Ulverston's already said I can
        # stay on", ninth, of "Which town does Marnie live in?")
        sources = _sources(question, current, around, depth=len(current))
        sources = _narrowed(question, want, sources, strangers, nearness)
        found = _candidates(
            question, want, sources, (around, _meaning(question, sources, nearness))
        )
    if want.kind == "person":  # "Oundle", where the user lives, is no one
        placed = _no_ones(sources)
        found = [s for s in found if s.text.lower() not in placed and not _a_firm(s)]
    elif want.kind == "thing" and asks_called(question):
        # no dog is "Bracken & Beck Cottages"; a business or a venue may be
        noun = named_noun_of(question) or want.head
        found = found if _may_be_place(noun) else [s for s in found if not _a_site(s)]
    found = _own_words_first(question, want, found)
    found, closed = classes.narrowed(question, want, found)  # a colour, a breed...
    found = _kinds_first(want, found, closed)
    found = _objects_first(question, want, found)
    # and is never given without one; a name asked of a thing is a name or nothing
    named = closed or want.head in _NAMED_ORGS or (want.kind == "thing" and asks_called(question))
    found = now.left_asked(question, found, current)
    if not found and (_refusing(want) or strangers or want.occupation or named):
        return None
    # a place too, unless the time layer says a value was replaced: then the sentence
    # the replacing memory says answers ("I moved to Porto" of "Where do I live?")
    never = ("time", "person", "rank") if stale else ("time", "person", "place", "rank")
    if not found and (want.kind in never or want.head in (*NUMBER_NOUNS, *PERCENT_NOUNS)):
        return None  # a time of day, a name, a place, a rank, a number asked by its noun
    found = now.not_dropped(question, now.not_left(question, found, evidence), evidence)
    if want.kind == "person" and question.order == "newest" and found:
        found = now.not_gone(found, _read_around(found, evidence, around))
    found = now.newest_value(question, want, found, _asking_texts(sources))
    if any(s.features.get("counts") for s in found):  # "200 copies at 18 euro a copy"
        found = [s for s in found if s.features.get("counts")]
    offered = _offered(question)
    if offered:  # "..., the left or the right?": one of them, or memory never said
        found = [s for s in found if any(o & words.content_keys(s.text) for o in offered)]
        if not found:
            return None
    return sorted(found, key=lambda s: -s.score)


def _asking_texts(sources: list[Source]) -> dict[str, str]:
    """The words of the turn that asked each reply among ``sources``, by the reply's
    id (:func:`_asker`)."""
    texts = {h.id: h.text for h, _, _ in sources}
    out = {}
    for hit, inherited, _ in sources:
        asker = _asker(hit, sources) if inherited > 0 else None
        if asker:
            out[hit.id] = texts[asker]
    return out


#: two answers the question offers after a pause ("Which hip, the left or the
#: right?", "Which pet did Jolene adopt first - Susie or Seraphim?")
_OPTIONS = re.compile(
    r"(?:[:,\u2013\u2014]|\s-)\s*(?:(?:the|a|an)\s+)?(?P<a>[^,:?]+?)\s+or\s+"
    r"(?:(?:the|a|an)\s+)?(?P<b>[^,:?]+?)\s*\?\s*$",
    re.I,
)


def _offered(question: Question) -> list[frozenset[str]]:
    """The content keys of each answer the question offers (:data:`_OPTIONS`); none
    when it offers none, or an offer says nothing of its own."""
    m = _OPTIONS.search(question.text)
    if m is None:
        return []
    options = [frozenset(words.content_keys(m[x])) for x in ("a", "b")]
    return options if all(options) else []


def _own_words_first(question: Question, want: Want, found: list[Span]) -> list[Span]:
    """A thing asked of the person's own life ("What did I pick out for my grandad's
    90th?") is one the person said: the assistant's turns restate it or offer ("a 90th
    is a big milestone, so let me know if you want ideas for a present"), so their
    candidates go when the person's own turns give one (``speakers``: the retrieval's
    speaker prior, read here of the candidates). Only for a thing: a day or a name
    the assistant restates is often the only telling read ("So your show moves to
    Sunday mornings"), and dropping those lost one of the check sets' answers. Not
    when the question asks what the assistant said ("the hostel you recommended") or
    to be reminded of something said."""
    if want.kind != "thing" or not question.first_person:
        return found
    if asks_assistant(question.text) or asks_reminder(question.text):
        return found
    own = [s for s in found if party(s.hit.speaker) != ASSISTANT]
    return own or found


#: nouns of a thing handed over, which WordNet files as possessions, not objects
_KEEPSAKES = frozenset({"present", "gift", "heirloom", "keepsake", "memento", "souvenir"})


def _objects_first(question: Question, want: Want, found: list[Span]) -> list[Span]:
    """A name asked of a thing ("What's my cat called?") is a proper name or one
    given. A physical thing asked ("What container did I catch the swarm in?", "What
    leaving present did the class make me?") or one handled with no noun ("What did
    Odile bring Fergus?", ``_HANDLED``) is no place named as one: "from Olomouc", "in
    St Columb" go when any other candidate is left. Not a noun whose things have names
    of their own ("Which boat...?", "Which book...?")."""
    if want.kind != "thing" or want.kind_of:
        return found
    if asks_called(question):  # "What's my cat called?" asks a name: "Pimenta", not "cats"
        names = [  # a proper name, but no place's unless given ("the vet on Holloway Road")
            s
            for s in found
            if now.given_name(s)
            or (s.features.get("proper") or s.features.get("o_quoted"))
            and not s.features.get("place_entity")
        ]
        return names  # none: memory never gave it a name (:func:`typed_candidates`)
    head = want.head
    if head:
        if head in NAMED_THINGS or head in _NAMED_ORGS:
            return found
        if head not in _KEEPSAKES and not concrete(head):
            return found
    elif _role_verb(question, want) not in _HANDLED:
        return found
    # a place said as one ("from Olomouc"): the tagger calls many a product a place
    # or a person ("a little silver Yaris", "a Brompton", "Halloumi")
    keep = [s for s in found if not (s.features.get("place_entity") and _said_as_place(s))]
    return keep or found


def _said_as_place(span: Span) -> bool:
    """Whether a candidate stands where a place does: the object of "in", "at",
    "from"... (``rank.features``' ``*_place``)."""
    return any(span.features.get(f"{role}_place") for role in ("e", "a", "d"))


def _kinds_first(want: Want, found: list[Span], closed: bool) -> list[Span]:
    """A thing asked by its noun ("What tool did Ambrose borrow?") is no name of
    something else where a sentence speaking to the question says a kind of the noun
    (by its most frequent sense, WordNet's hierarchy): then a named candidate that is
    no kind of it is dropped ("jigsaw", not the running club "Millford Striders"
    named in a sentence sharing the question's names; "jackdaws", not "New Year"),
    but for a reply that is only the name ("Halloumi." to "What was the first cheese
    you made?"). Only for a physical thing asked, no person (:func:`kinds.concrete`:
    "What activity...?" has "fun" for a kind), and not for a class read by its own
    words (``closed``: a colour, a breed). Common nouns stay: LoCoMo's gold answers
    are often a phrase more specific than WordNet's kinds ("pizzas" of "What kind of
    meal?", where "dinner" is the kind), and F1 fell by 0.005-0.012 when they went."""
    head = want.head
    if want.kind != "thing" or not head or closed or not concrete(head) or _a_person_noun(head):
        return found
    kinds = [s for s in found if _told_kind(s, head)]
    if not kinds:
        return found
    return [s for s in found if s in kinds or s.features.get("bare") or not _named(s)]


def _named(s: Span) -> bool:
    """Whether candidate ``s`` is a name or a named entity (a club, a date, a place)."""
    return bool(s.features.get("proper") or s.features.get("entity"))


def _told_kind(s: Span, head: str) -> bool:
    """Whether candidate ``s`` is a kind of ``head`` in its most frequent sense, in a
    sentence that speaks to the question (its fit, own or inherited)."""
    f = s.features
    if not f.get("isa") or not f.get("fit", 0.0) + f.get("inherited", 0.0):
        return False
    return _of_kind(nlp.parse(s.text)[:], head, kind_senses=1)


def _narrowed(
    question: Question,
    want: Want,
    sources: list[Source],
    strangers: frozenset[str],
    nearness: Nearness | None,
) -> list[Source]:
    """The sources a question may be answered from: those naming someone talked
    about whom the question asks of (:func:`_strangers`), and for a name or a
    relation those about its subject ("the name of Leila's husband": Leila's twins
    are no husband)."""
    if strangers:
        sources = _mentioning(strangers, sources)
    if _refusing(want):
        sources = _about_subject(question, sources, nearness)
    return sources


#: what the reader may ask of the memories (:class:`Around`) and each source's
#: nearness in meaning to the question (:func:`_meaning`)
Weighing = tuple[Around, Mapping[str, float]]


def _weaker(
    question: Question,
    want: Want,
    sources: list[Source],
    weighing: Weighing,
) -> list[Span]:
    """No entity of the kind: the phrase in the asked role ("Where did they meet?"
    -> "at a festival"), for a place one after "in", "at", "on"...; a name asked
    for and never given stays unanswered, and so does what is asked of someone
    talked about (:func:`_strangers`: "neighbour" is not Oksana's company)."""
    found = _candidates(question, replace(want, kind="thing"), sources, weighing)
    if want.kind == "place":  # after "in", "at"...; a town has a name: not "windowsill"
        named = named_place(want.head)
        return [
            s
            for s in found
            if s.features.get("d_place")
            and (not named or s.features.get("proper") or _of_kind(nlp.parse(s.text)[:], want.head))
            and not (want.head in SETTLEMENTS and country(s.text))  # no town is "Germany"
        ]
    if want.kind in ("duration", "length"):  # a count of a unit: not "national park lot"
        found = [s for s in found if _COUNTING.search(s.text) and in_units(s.text)]
        return [s for s in found if not timed_result(want) or stopwatch(s.text)]
    if want.kind == "person":  # "her mom", names, "a local organization"; not "choir"
        return [
            s
            for s in found
            if (s.features.get("proper") and not _a_thing_by_name(s)) or _a_person_noun(s.text)
        ]
    if want.kind in ("time", "weekday", "rank"):  # a time of day, a weekday, a rank or nothing
        return []
    if want.kind == "number":  # a count said some way: not "Moor Lane"; a number
        # asked by its noun is one that names it ("Plot 14": :func:`spans.phrases`)
        counted = now.counted_words(question.text)
        return [
            s
            for s in found
            if _COUNTING.search(s.text)
            and not s.features.get("o_sentence")
            and want.head not in NUMBER_NOUNS
            and (now.measured(question) or not _a_measure(s))
            and not any(counts_other(t, counted) for t in nlp.parse(s.text))
        ]  # "Little 13cm holes" counts no hedgehogs, "one piece" no people
    if want.kind == "org" or want.head in _NAMED_ORGS:  # has a name: not "improving"
        return [
            s
            for s in found
            if s.features.get("proper")
            and not _a_place(s)
            and not a_name(s)
            and not of_other_kind(s)
            and s.text.lower() not in relations()  # "Mam" is someone's mother
        ]
    return found


#: a "how long" asked until now ("How long has John been surfing?"), which "I
#: started surfing five years ago" answers
_UNTIL_NOW = re.compile(r"^\W*how\s+long\s+(?:has|have|had)\b", re.I)
#: what says how many, other than a number's entity ("a couple", "both", "dozens")
_COUNTING = re.compile(
    rf"\d|\b(?:{NUMBER_WORDS}|hundreds?|thousands?|dozens?|couple|both|few|several|none|no)\b",
    re.I,
)


def _a_measure(span: Span) -> bool:
    """Whether a candidate holds a measure ("13cm", "42 km"), by the tagger's label."""
    return any(e.label_ == "QUANTITY" for e in nlp.parse(span.text).ents)


def _a_thing_by_name(span: Span) -> bool:
    """Whether a name is said after "the" in its memory, as a thing's is ("The
    Fiesta's heater packed in"), not a person's."""
    return bool(re.search(rf"\bthe\s+{re.escape(span.text)}\b", span.hit.text, re.I))


def _a_firm(span: Span) -> bool:
    """Whether a candidate is an organisation by its name: labelled one, and ending in
    a common noun's plural or a trade ("Savi Ceramics", "Bracken & Beck Cottages",
    "Hollis & Daughters Plumbing"), which no person's or pet's name does."""
    last = _name_end(span.text)
    if not last:
        return False
    doc = nlp.parse(span.hit.text)
    label = next((e.label_ for e in doc.ents if e.text == span.text), "")
    plural = last.endswith("s") and known_noun(last[:-1]) and not is_a(last[:-1], "person")
    return label == "ORG" and (plural or last in _TRADES)


def _a_site(span: Span) -> bool:
    """Whether a name is a firm's (:func:`_a_firm`) or names a building, a place or a
    body by its last word ("Curlew Barn", "Heron Lodge"): no pet's or boat's name."""
    if _a_firm(span):
        return True
    last = _name_end(span.text)
    return bool(last) and known_noun(last) and any(is_a(last, k) for k in _SITES)


#: the kinds a name's last word makes it a site of
_SITES = ("structure", "organization", "location")


def _name_end(text: str) -> str:
    """The last word of a name of two words or more, lower-cased, when it is a
    capitalised word ("Ceramics" of "Savi Ceramics"); "" otherwise."""
    parts = text.split()
    if len(parts) < 2 or not parts[-1].isalpha() or not parts[-1][0].isupper():
        return ""
    return parts[-1].lower()


#: the trades a firm's name ends in
_TRADES = frozenset(
    {"plumbing", "joinery", "roofing", "catering", "removals", "ceramics", "electrical",
     "builders", "motors", "recovery", "restoration", "kitchens", "studios", "events"}
)  # fmt: skip


def _no_ones(sources: list[Source]) -> frozenset[str]:
    """The names the sources give no one, in one pass over their parses: a name put
    after "in" ("my flat in Oundle"), a place whatever else a sentence seems to make
    of it (not a place's label: "Liverpool", whom James supports, is a team); a name
    given to a thing ("It's called Heron Lodge", "The truck's called Jollof Junction":
    :func:`spans.names_a_thing`); and a people the tagger reads ("Ghanaian")."""
    out: set[str] = set()
    for hit, _, _ in sources:
        doc = nlp.parse(hit.text)
        out |= {
            t.lower_
            for t in doc
            if t.pos_ == "PROPN" and t.dep_ == "pobj" and t.head.lower_ == "in"
        }
        for e in doc.ents:
            if e.label_ == "NORP" or names_a_thing(e):
                # the tagger's span may run on ("Jollof Junction - mostly Ghanaian"):
                # its opening proper nouns are the name
                run = [t.text for t in itertools.takewhile(lambda t: t.pos_ == "PROPN", e)]
                out |= {e.text.lower(), " ".join(run).lower()} - {""}
    return frozenset(out)


#: nouns of a person, or of people acting as one, besides someone's people and
#: occupations ("a local organization" LoCoMo asks "Who did John work with?" of)
_PERSON_NOUNS = PERSON_WORDS | {"person"} | ORG_NOUNS


def _named_as_someone(span: Any) -> bool:
    """Whether a proper noun is the name of a person noun it stands beside ("My niece
    Cosima designed the poster"), whatever the tagger says of it."""
    root = span.root
    return (
        root.pos_ == "PROPN"
        and root.dep_ in ("appos", "compound")
        and root.head.pos_ == "NOUN"
        and (is_a(root.head.lemma_.lower(), "person") or root.head.lower_ in relations())
    )


def _a_person_noun(text: str) -> bool:
    """Whether a phrase ends in a noun of a person or of people acting as one ("her
    mom", "a retired teacher", "a local organization"), as a "Who...?" answered without
    a name may be; a whole sentence never is."""
    said = text.lower().split()
    last = said[-1].strip(".,;:!?'\"") if said and len(said) <= 6 else ""
    nouns = _person_nouns()
    return bool(last) and (last in nouns or last.rstrip("s") in nouns)


@cache
def _person_nouns() -> frozenset[str]:
    """:func:`_a_person_noun`'s nouns, gathered once."""
    return relations() | _occupations() | _PERSON_NOUNS


def _counts_noun(span: Any, counted: frozenset[str]) -> bool:
    """Whether a number counts the noun a "how many" question asks of ("200 copies"
    to "How many copies...?", not "18 euro a copy")."""
    root = span.root
    if root.dep_ == "nummod" and root.head.i > root.i:
        done = times_done(root)
        if done is not None and _key_of(done) in counted:
            return True  # "She raced 52 times": 52 races
        return _key_of(root.head) in counted
    # "nine of us" counts people asked as "people", "guests", "players"...; "3 of
    # them" counts whatever the question does ("How many of my pieces broke?")
    of = next((c for c in root.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    said = {c.lower_ for c in of.children} if of is not None else set()
    return bool(said & {"them", "those"}) or bool(said & {"us", "you"} and counted & _PEOPLE_KEYS)


#: the keys of nouns of people that "of us" or "of them" counts
_PEOPLE_KEYS = frozenset(
    words.content_keys("people person guests players members friends volunteers kids children")
)


def _a_place(span: Span) -> bool:
    """Whether a candidate is a place, as the tagger labels it ("Alfama" is no
    airline)."""
    return bool(span.features.get("place_entity"))


def _refusing(want: Want) -> bool:
    """Whether a question of ``want`` asks for a name or an age ("What is my
    landlord's name?", "How old is my cat?") or a time one made ("What was my
    finishing time?"): then finding none in what memory says of its subject means it
    was never given."""
    return want.head == "name" or want.kind in _ATTRIBUTES or timed_result(want)


def _strangers(question: Question, want: Want, sources: list[Source]) -> frozenset[str]:
    """For a question asking where someone is or which organisation they are with,
    the keys of the name it asks about (the subject or owner in its parse: the
    tagger's entity labels are unreliable on a short question) when that one says
    none of the memories read: someone the user talks about ("Where does Oksana come
    from?" when Dana said "My neighbour Oksana waters my plants"). Their place or
    company is told in a memory that names them, never in one about someone else
    (Dana's "I sing alto in the choir"). Empty for the people talking, whose own
    turns tell of them without their names."""
    if want.kind not in _OF_SOMEONE and want.head != "name":
        return frozenset()
    speakers = {k for h, _, _ in sources if h.speaker for k in words.content_keys(h.speaker)}
    subjects = [t for t in nlp.parse(question.text) if t.pos_ == "PROPN" and _whose(t)]
    keys = {words.word_key(t.lower_) for t in subjects}
    return frozenset() if keys & speakers else frozenset(keys)


def _whose(token: Any) -> bool:
    """Whether ``token`` stands for the one a question asks about: its subject or an
    owner, or part of such a name ("Dana" of "Dana Brook's town"); not part of a
    name the question's verb governs ("Halvorsen" of "to join Halvorsen
    Structures")."""
    if token.dep_ == "compound":
        return token.head.dep_ in _WHOSE - {"compound"}
    return token.dep_ in _WHOSE


def _mentioning(keys: frozenset[str], sources: list[Source]) -> list[Source]:
    """The sources that name someone of ``keys``, and the reply to one that does."""
    return _standing(sources, lambda hit: bool(keys & words.content_keys(hit.text)))


def _standing(sources: list[Source], own: Callable[[Hit], bool]) -> list[Source]:
    """The sources that ``own`` keeps, and a reply to a kept one, which inherits its
    asking turn's standing: the asker, not whatever source is ranked just before the
    reply ("Her name is Pimienta", the reply to "What did you name her?", tells
    nothing of Joaquín, named in the source ranked above it)."""
    kept = {h.id for h, _, _ in sources if own(h)}
    kept |= {  # a follow-up naming nothing stands as what it follows
        h.id
        for h, _, _ in sources
        if asks(h.text) and follow_up(h.text)
        and _asker(h, sources, asking=False) in kept
    }  # fmt: skip
    return [
        (hit, inherited, rank)
        for hit, inherited, rank in sources
        if hit.id in kept or (inherited > 0 and _asker(hit, sources) in kept)
    ]


def _asker(reply: Hit, sources: list[Source], *, asking: bool = True) -> str | None:
    """The id of the source that asked what ``reply`` answers: the last turn of its
    session before it that asks (a reply is read with its asker, :func:`_sources`),
    at its end or inside it ("Remind me who's teaching it? You did say."); ``asking``
    False: the last turn before it, whatever it says."""
    said = timestamp_epoch(reply.timestamp)
    before = [
        h
        for h, _, _ in sources
        if h.id != reply.id and h.session_id == reply.session_id
        and (not asking or asks(_last_question(h.text)[0]))
        and timestamp_epoch(h.timestamp) <= said
    ]  # fmt: skip
    return max(before, key=lambda h: timestamp_epoch(h.timestamp)).id if before else None


def _sources(
    question: Question, evidence: Sequence[Hit], around: Around, depth: int = DEPTH
) -> list[Source]:
    """(memory, inherited fit, rank) to read: the top evidence, and the turn after
    each of them that asks, carrying that turn's fit (:func:`_replied`), whether it
    was ranked itself or not. A turn asking a follow-up that names nothing ("How
    much?", "How old, 40?") asks about the turn before it: that turn is read too, at
    the asking turn's rank, and its fit is what the reply inherits."""
    # what was left is often named only in an older memory that shares little with
    # the question ("Tomorrow is my last day at my current company" / "... shipment
    # reports to finish at Halden Logistics"): all the evidence is read
    top = list(evidence if now.asks_left(question) else evidence[:depth])
    found: dict[str, Source] = {h.id: (h, 0.0, rank) for rank, h in enumerate(top)}
    asking = [h for h in top if asks(h.text)]
    neighbours, before = around.neighbours, around.before
    after = neighbours(asking) if neighbours is not None and asking else {}
    bare = [h for h in asking if h.id in after and follow_up(h.text)]
    context = before(bare) if before is not None and bare else {}
    for rank, h in enumerate(top):
        n = after.get(h.id)
        if n is not None and n.speaker != h.speaker:  # the other one replies
            asked = context.get(h.id)
            if asked is not None and asked.speaker == n.speaker:
                _carry(found, asked, 0.0, rank)
            # a bare follow-up asks of the turn before it, and of what else it says
            # ("Your sister? No way! Who to?")
            inherited = _replied(question, h, n, bare=asked is not None)
            if asked is not None:
                inherited = max(inherited, _replied(question, asked, n))
            _carry(found, n, inherited, rank)
    _read_replies(question, top, around, found)
    _read_asked_back(question, top, around, found)
    return sorted(found.values(), key=lambda s: s[2])


def _read_asked_back(
    question: Question, top: list[Hit], around: Around, found: dict[str, Source]
) -> None:
    """Add to ``found`` the reply to each reply read that itself asks ("Piano update,
    if you want one?" / "Always. Have you found someone to look at the insides?" /
    "Yeah, an old fella called Bartholomew Quennell."): it inherits the fit of the
    question it answers, as the reply to an asking turn of the evidence does."""
    have = {h.id for h in top}
    asking = [h for h, _, _ in found.values() if h.id not in have and asks(h.text)]
    neighbours = around.neighbours
    if neighbours is None or not asking:
        return
    after = neighbours(asking)
    for h in asking:
        n = after.get(h.id)
        if n is not None and n.speaker != h.speaker:
            inherited = _replied(question, h, n)
            if inherited:
                _carry(found, n, inherited, found[h.id][2])


def _read_replies(
    question: Question, top: list[Hit], around: Around, found: dict[str, Source]
) -> None:
    """Add to ``found`` the replies the evidence reaches through a question the
    other speaker asked of what was told (:func:`_asked_before`,
    :func:`_asked_after`), with what they inherit of it."""
    keys = _asked(question)
    for reply, _, asked in _asked_before(top, around):
        inherited = REPLY_SHARE * _fit(question, keys, nlp.parse(asked.text), asked)
        if inherited:
            _carry(found, reply, inherited, found[reply.id][2])
    for reply, asking in _asked_of_it(question, top, around):
        asked = nlp.parse(_last_question(asking.text)[0])
        inherited = REPLY_SHARE * _fit(question, keys - _kind_keys(question.text), asked, asking)
        if inherited:  # the asking turn is read too: the reply stands as what it asks
            _carry(found, asking, 0.0, found[reply.id][2])
            _carry(found, reply, inherited, found[reply.id][2])
    for reply, asker, told in _asked_after(top, around):
        if not (follow_up(asker.text) or keys & _last_question(asker.text)[1]):
            continue  # "Who's teaching you?" asks of another thing than the question
        said = nlp.parse(f"{told.text} {asker.text}")
        # the asking turn's words of the kind asked ("old" of "How old is she?") tell
        # of what it asks about, no other one's
        inherited = REPLY_SHARE * _fit(question, keys - _kind_keys(question.text), said, told)
        if inherited:
            _carry(found, reply, inherited, found[told.id][2])


def _asked_after(top: list[Hit], around: Around) -> list[tuple[Hit, Hit, Hit]]:
    """(reply, the turn that asks, what was told) for each memory of ``top`` that
    does not ask, when the other speaker asks of it next and its speaker replies
    ("I went to the car boot sale at the racecourse." / "Find any treasure?" / "A
    brass barometer, the old ship's kind."): the reply tells what the told and the
    asking turn ask together, though it shares words with neither, whether the
    evidence holds the two or not. The mirror of :func:`_asked_before`, read from the
    told side."""
    neighbours = around.neighbours
    if neighbours is None:
        return []
    plain = [h for h in top if not asks(h.text)]
    nxt = neighbours(plain) if plain else {}
    asking = {
        h.id: a
        for h in plain
        if (a := nxt.get(h.id)) is not None and a.speaker != h.speaker and asks(a.text)
    }
    replies = neighbours(list(asking.values())) if asking else {}
    out = []
    for h in plain:
        a = asking.get(h.id)
        r = replies.get(a.id) if a is not None else None
        if a is not None and r is not None and r.speaker == h.speaker:
            out.append((r, a, h))
    return out


def _asked_of_it(question: Question, top: list[Hit], around: Around) -> list[tuple[Hit, Hit]]:
    """(reply, the turn before it that asks) for each memory of ``top`` that does not
    ask and follows the other speaker's question the evidence does not hold, or holds
    inside a turn that ends otherwise ("Remind me who's teaching it? You did say."), when
    that question names a word of what this question asks about, or of its family,
    itself ("Remind me who's teaching it?" / "Keiko Tanabe." of "What's the name of
    Thaddeus's Japanese teacher?"; "Was adopting her expensive?" / "£75, which covered
    her jabs" of "How much was the adoption fee?"): the reply answers it, though it
    shares no word with the question. The word must be one of the question's nouns,
    unless the turn asks for the kind of answer wanted ("Who's teaching it?" of "Who
    taught the class?"): a verb's family is wider ("Are the hours leaving you enough
    room for training?" asks nothing of "Which company did Priya leave?"). A question
    naming nothing of its own is read by :func:`_asked_before`."""
    have = {h.id for h in top}
    plain = [h for h in top if not asks(h.text)]
    prior = said_before(plain, around)
    keys = _asked(question) - _kind_keys(question.text)
    nouns = keys & _noun_keys(question.text)
    kind = _KIND_ASKED.get(wanted(question).kind)
    out = []
    for h in plain:
        a = prior.get(h.id)
        if a is None or (a.id in have and asks(a.text)):
            continue  # an asking turn of the evidence is read by :func:`_sources`
        last, said = _last_question(a.text)
        alike = kind is not None and kind.search(last) is not None
        if asks(last) and said and _any_kin(keys if alike else nouns, said):
            out.append((h, a))
    return out


#: how a turn asks for each kind of answer ("Who's teaching it?" asks a person)
_KIND_ASKED = {
    "person": re.compile(r"\b(?:who|whom|whose)\b", re.I),
    "place": re.compile(r"\bwhere\b", re.I),
    "number": re.compile(r"\bhow\s+many\b", re.I),
    "money": re.compile(r"\bhow\s+much\b|\b(?:cost|price|expensive|cheap|pay)\b", re.I),
    "duration": re.compile(r"\bhow\s+long\b", re.I),
}


def _asked_before(top: list[Hit], around: Around) -> list[tuple[Hit, Hit, Hit]]:
    """(reply, the turn before it that asks, what that turn asks about) for each
    memory of ``top`` that does not ask and follows another's question the evidence
    does not hold, when that question names nothing of its own but asks of what the
    replier said just before: "At the cricket club in Harrogate" after "Where are you
    having it?", itself after "we're planning a party for her" (:func:`_sources`
    reads replies from the other side). What it inherits is the fit of what was
    asked about alone: that the person asked about replies to something is no sign
    it speaks to the question (most turns of a chat reply to one). A reply to a
    question that names its own words is not read so: on a chat benchmark more such
    replies were read wrong than right (docs/results/stop53/NOTE.md)."""
    before = around.before
    have = {h.id for h in top}
    plain = [h for h in top if not asks(h.text)]
    asked = {
        i: a for i, a in said_before(plain, around).items() if a.id not in have and asks(a.text)
    }
    bare = [a for a in asked.values() if asks_of_told(a.text)]
    context = before(bare) if before is not None and bare else {}
    out = []
    for h in plain:
        c = context.get(asked[h.id].id) if h.id in asked else None
        if c is not None and c.speaker == h.speaker:
            out.append((h, asked[h.id], c))
    return out


def said_before(hits: Sequence[Hit], around: Around) -> dict[str, Hit]:
    """Each memory of ``hits`` -> the turn said just before it, when the other speaker
    said that turn (the question a reply replies to, when it asks), whether recall
    brought it or not (empty without ``around.before``)."""
    before = around.before
    prior = before(list(hits)) if before is not None and hits else {}
    return {h.id: a for h in hits if (a := prior.get(h.id)) is not None and a.speaker != h.speaker}


def asks(text: str) -> bool:
    """Whether a turn asks something: it ends with "?". A question inside a turn
    ("Where exactly is the place again? You said somewhere near the coast.") is too
    often not the one the next turn answers (LoCoMo: more replies read wrong than
    right, docs/results/stop52/NOTE.md)."""
    return text.rstrip().endswith("?")


def follow_up(text: str) -> bool:
    """Whether the last question of ``text`` names nothing of its own ("How much?",
    "Who with?", "How old, 40?", "What did you get her?"): no content word but the
    asking ones, numbers and the verbs of any doing (:data:`_LIGHT_KEYS`)."""
    _, keys = _last_question(text)
    return not {k for k in keys if not k.isdigit() and k not in _LIGHT_KEYS}


#: the keys of the verbs that name no doing of their own and of the particles that
#: go with them ("What did you get her?", "Where are you off to?"); not "go": "How did
#: yours go?" asks how the speech went, not what the course was
_LIGHT_KEYS = frozenset(words.content_keys("get got gotten do did done have had off up out"))


_PRONOUN_OBJECT = re.compile(r"\b(?:it|that|them|this|there|they)\b", re.I)


def asks_of_told(text: str) -> bool:
    """Whether the last question of ``text`` asks of what was said before it: it
    names nothing of its own (:func:`follow_up`: "How much?") or one thing and a
    pronoun (:func:`_of_it`: "When did they arrive?", "Who runs it?")."""
    return follow_up(text) or _of_it(text)


def _of_it(text: str) -> bool:
    """Whether the last question of ``text`` asks one thing of what was said before
    ("Where are you having it?", "Who runs it?"): one content word and a pronoun."""
    last, keys = _last_question(text)
    return len(keys) <= 1 and bool(_PRONOUN_OBJECT.search(last))


def _last_question(text: str) -> tuple[str, set[str]]:
    """The last sentence of ``text`` that asks (the whole text when none does) and
    its content keys, the words that ask and say what kind of answer aside."""
    parts = sentences(text)
    at = _last_asking(parts)
    last = parts[at] if at is not None else text
    return last, words.content_keys(last) - words.ASKING - _kind_keys(last)


def _asking_part(text: str) -> str:
    """What a reply answers of the turn that asked: its last sentence that asks and
    the one before it ("A van?! When did you get it?"), not the rest of a long turn
    ("Hey Calvin, how's the tour? I was pondering our chat about fame ...")."""
    parts = sentences(text)
    at = _last_asking(parts)
    return text if at is None else " ".join(parts[max(0, at - 1) : at + 1])


def _last_asking(parts: list[str]) -> int | None:
    """The index of the last of ``parts`` (a turn's sentences) that asks, if any."""
    return next((i for i in range(len(parts) - 1, -1, -1) if asks(parts[i])), None)


def _carry(found: dict[str, Source], hit: Hit, inherited: float, rank: int) -> None:
    """Read ``hit`` with what it inherits (the more of two), at the better rank."""
    _, before, at = found.get(hit.id, (hit, 0.0, rank))
    found[hit.id] = (hit, max(before, inherited), min(at, rank))


def _asked(question: Question) -> frozenset[str]:
    """The keys of what the question asks about: its content words, the words that
    ask and the words that ask for the current value ("now", "these days") aside,
    which a sentence need not hold ("I moved to Porto" answers "Where do I live
    now?", "I now work at Hospital Sao Joao" does not), and when it names a time,
    the words naming it (the window is read by time: "the battery barely lasts"
    says nothing of "last Sunday")."""
    keys = question.keys - words.ASKING - _ORDER_KEYS - _PARTICLE_KEYS
    return keys - _TIME_KEYS if question.window is not None else keys


#: the keys of a phrasal verb's particle, which say nothing of what is asked about
#: ("sort out" of a piano shares nothing with "find out" of a medal)
_PARTICLE_KEYS = frozenset(words.content_keys("off up out"))


def _replied(question: Question, asking: Hit, reply: Hit, bare: bool = False) -> float:
    """What a reply inherits of the turn that asked it: part of that turn's fit, and
    one more when the one replying is the person the question asks about and the
    turn asked of the question's words or asked alike (Remy's "Who's teaching you?"
    answered by Priya tells "Who teaches Priya?", as her own "I" would; it tells
    nothing of what Priya drives). ``bare``: the turn asks a follow-up of the one
    before, and only its words of what is asked about count ("sister" of "Your
    sister? No way! Who to?"), not those of the kind asked ("old" of "How old is
    she?", which tells no one's age but hers)."""
    keys = _asked(question) - (_kind_keys(question.text) if bare else frozenset())
    fit = REPLY_SHARE * _fit(question, keys, nlp.parse(_asking_part(asking.text)), asking)
    alike = _asks_alike(question, asking)
    own = bool(reply.speaker and keys & words.content_keys(reply.speaker))
    return fit + (own and (fit > 0 or alike)) + (fit > 0 and alike)


#: the openings that ask one kind of answer: "who", "where", "how much"... ("what"
#: and "which" ask any)
_ASKS_KIND = re.compile(r"\b(who|whom|where|how\s+(?:much|many|long|old|often|far))\b", re.I)


def _asks_alike(question: Question, asking: Hit) -> bool:
    """Whether the turn asked what the question asks, by the same opening, of
    something the question names ("Who's in charge of organising everyone on the
    day?" for "Who organises the Saturday volunteers?"): then its reply is that
    answer, as much as a sentence holding one more of the question's words."""
    mine = _opening(_ASKS_KIND.match(question.text.lstrip()))
    return bool(mine) and mine == _opening(_ASKS_KIND.search(_last_question(asking.text)[0]))


def _opening(m: re.Match[str] | None) -> str:
    """The asking words matched, spaced and cased one way ("how  Much" -> "how much",
    "whom" -> "who"); "" for no match."""
    return " ".join(m.group(1).lower().split()).replace("whom", "who") if m else ""


def _fit(question: Question, keys: frozenset[str], sentence: Any, hit: Hit) -> float:
    """How well ``sentence`` of ``hit`` speaks to the question: shared content words,
    a verb naming the doing asked as one (:func:`kinds.verbs_kin`: "making" of "What
    did Tomas cook?"), one more when the asked person speaks of themself, one more
    when it tells of a time inside the window the question names ("What was Sam
    doing on 4 December?":
    "I attended a Weight Watchers meeting yesterday", said on the 5th), as the
    extractive reader counts them (``told.py``); half as much when it tells only of
    times outside that window. ``keys``: :func:`_asked`'s; ``sentence``:
    parsed (a spaCy ``Span`` or ``Doc``)."""
    text = sentence.text
    said = words.content_keys(text) | _lemma_keys(sentence)
    shared = sum(_kin(k, said) for k in keys)
    shared += _kinds_said(question, keys, sentence, said)
    shared += _counted_said(question, keys, sentence, said)
    done = {t.lemma_.lower() for t in sentence if t.pos_ == "VERB"}
    shared += sum(
        1
        for verb, key in _verbs(question.text)
        if key in keys and not _kin(key, said) and any(verbs_kin(verb, d) for d in done)
    )  # another verb of the doing asked: "making my grandmother's goulash" of "cook"
    times = event_times(text, hit.timestamp) if question.window is not None else []
    window = in_window(times, question)
    owned = _owners(question.text)
    mine = words.content_keys(text) if owned else set()
    others = {k for k, whose in owned if whose not in mine}
    fit = shared + told_by_asked(text, hit, keys - others) + window
    # a time of its own outside the window asked tells of another time: "Priya went to
    # Zagreb last year" is not where I am going with her in June
    return fit / 2 if times and not window else fit


@cache
def _owners(question: str) -> frozenset[tuple[str, str]]:
    """(key of a name, key of the person noun it owns) for each name a question names
    only as someone's own ("Tobias", "nan" of "Which city does Tobias's nan live
    in?"): Tobias speaking of himself tells of him, not of his nan, unless the
    sentence says her noun ("my nan"; :func:`told.told_by_asked`); read by memory,
    "My grandmother cried at the map ... Tariq's chefs did a biryani" named her
    Tariq (set 8). "Mirela's birthday" is still Mirela's."""
    doc = nlp.parse(question)
    subjects = {t.lower_ for t in doc if t.dep_ != "poss"}
    return frozenset(
        (key, owned)
        for t in doc
        if t.dep_ == "poss"
        and t.pos_ == "PROPN"
        and t.lower_ not in subjects
        and people(t.head.lemma_.lower())
        for key in words.content_keys(t.text)
        for owned in words.content_keys(t.head.lemma_)
    )


@cache
def _verbs(question: str) -> tuple[tuple[str, str], ...]:
    """(lemma, key) of each verb of the question, as the parse reads it."""
    return tuple((t.lemma_.lower(), _key_of(t)) for t in nlp.parse(question) if t.pos_ == "VERB")


def _kinds_said(question: Question, keys: frozenset[str], sentence: Any, said: set[str]) -> int:
    """How many of the things the question says someone has (:func:`possessions`)
    the sentence says by a relation's word that is a kind of it, not by their own
    ("Dad's 87" of "How old is my father?"; ``said``: the sentence's keys). Only a
    relation's word: "coach" is a kind of "instructor" too, yet Rafael's daughter's
    coach is no one's woodturning instructor."""
    kin = {t.lower_ for t in sentence if t.lower_ in relations()}
    if not kin:  # most sentences: the question is not parsed again for them
        return 0
    asked = [
        n
        for n in possessions(question)
        if words.word_key(n) in keys and not _kin(words.word_key(n), said)
    ]
    return sum(1 for n in asked if any(naming.kin_word(m, n) for m in kin))


def _counted_said(question: Question, keys: frozenset[str], sentence: Any, said: set[str]) -> int:
    """For a "how many" question, the words of the thing counted (``now.counted``) that
    the sentence does not share but says by another name WordNet gives it ("fourteen
    washers" of "How many washing machines...?", "38 steps" of "stairs"): each counts
    as said."""
    counted = now.counted(question) & keys
    missing = counted - said
    if not missing:
        return 0
    phrase = now.counted_words(question.text).lower()
    lemma = " ".join(t.lemma_.lower() for t in nlp.parse(phrase))
    nouns = {t.lemma_.lower() for t in sentence if t.pos_ == "NOUN"}
    return len(missing) if any(named_by(lemma, n) or named_by(n, lemma) for n in nouns) else 0


def _lemma_keys(tokens: Any) -> set[str]:
    """The keys of the verbs of parsed ``tokens`` by their lemmas (:func:`_key_of`): an
    irregular past the shared word list leaves out for being another word too ("left",
    "felt", "made", "saw") meets its verb in a question ("Which band did Rosa leave?":
    "I left The Lowtides"), as the parse reads it; the reader reads the sentence, not
    the index."""
    return {_key_of(t) for t in tokens if t.pos_ == "VERB"}


def _meaning(
    question: Question, sources: list[Source], nearness: Nearness | None
) -> dict[str, float]:
    """Each source's nearness in meaning to the whole question (its cosine), less the
    nearest source's: 0 for the nearest, below for the others; empty without
    ``nearness``."""
    if nearness is None or not sources:
        return {}
    near = nearness(question.text, [h for h, _, _ in sources])
    return dict(zip(near, _below_best(list(near.values())), strict=True))


def _in_context(hit: Hit, sent: Any, fits: tuple[float, float], sources: list[Source]) -> str:
    """A sentence read as it speaks to the question: with what it takes its fit from
    when it shares less than it inherits (the sentence before it in its memory, else
    the last sentence of the turn it replies to: "I finished my first watercolour
    yesterday! A heron standing in the canal" is a painted heron)."""
    own, fit = fits
    if fit <= own:
        return str(sent.text)
    before = [s for s in sent.doc.sents if s.end <= sent.start]
    if before:
        return f"{before[-1].text} {sent.text}"
    asker = _asker(hit, sources)
    asked = next((h.text for h, _, _ in sources if h.id == asker), "")
    return f"{sentences(asked)[-1] if asked else ''} {sent.text}".strip()


def _below_best(near: Sequence[float]) -> list[float]:
    """Each nearness less the best one: 0 for the nearest, below for the others."""
    top = max(near, default=0.0)
    return [v - top for v in near]


def _sentence_meaning(question: Question, texts: list[str], around: Around) -> list[float]:
    """Each sentence's nearness in meaning to the question (its cosine; a sentence in
    its context, :func:`_in_context`), less the nearest one's: 0 for the nearest,
    below for the others; all 0 without ``around.similar``."""
    if around.similar is None or not texts:
        return [0.0] * len(texts)
    return _below_best(around.similar(question.text, texts))


def _type_meaning(want: Want, texts: list[str], around: Around) -> list[float]:
    """Each candidate's nearness in meaning to the noun the question asks a kind of
    ("jackdaws" to "bird", "Vintage highlife" to "music"), less the nearest one's:
    what the word hierarchy (:func:`_of_kind`) does not hold; all 0 without a noun
    asked or ``around.similar``."""
    if not want.head or want.kind != "thing" or around.similar is None or not texts:
        return [0.0] * len(texts)
    return _below_best(around.similar(want.head, texts))


def _governor(span: Any) -> Any:
    """The verb a phrase is the object or subject of, through a preposition ("dug up
    an old horseshoe", "covered in puffins"); None when no verb governs it."""
    token = span.root
    for _ in range(3):
        token = token.head
        if token.pos_ in ("VERB", "AUX"):
            return token
        if token.dep_ == "ROOT":
            break
    return None


def _verb_meaning(question: Question, want: Want, spans: list[Any], around: Around) -> list[float]:
    """Each candidate's governing verb's nearness in meaning to the question's verb
    (the one of the asked role, else its main verb: "carved" to "make", "grew up in
    Braga" before "moved to Lisbon" asked where one grew up), what the verb hierarchy
    does not hold; 0 without a verb asked, a governing verb or ``around.similar``."""
    verb = _role_verb(question, want) or " ".join(sorted(main_verbs(question.text)))
    out = [0.0] * len(spans)
    if not verb or around.similar is None:
        return out
    governing = [_governor(s) for s in spans]
    lemmas = sorted({g.lemma_.lower() for g in governing if g is not None})
    near = dict(zip(lemmas, around.similar(verb, lemmas), strict=True)) if lemmas else {}
    return [near.get(g.lemma_.lower(), 0.0) if g is not None else 0.0 for g in governing]


#: the entity labels of what is no thing done to or had, asked without a kind noun
#: ("What did the cat knock off the windowsill?": not "Hollyhock Cat Rescue"): places,
#: organisations, groups, events (``a_named``; products and works stay things)
_NOT_THINGS = frozenset({"GPE", "LOC", "FAC", "ORG", "NORP", "EVENT", "LANGUAGE", "LAW"})


#: the entity labels of a named place, which a kind noun that is no place, group or
#: journey does not ask for ("What natural disaster hit my old area?": not "West
#: County"; "What dish...?": not "Shibuya")
_PLACES = frozenset({"GPE", "LOC", "FAC"})
#: the kinds whose members a place's name may stand for: a venue, a body, an event,
#: a trip ("Which holiday?": "Crete")
_PLACE_LIKE = (
    "location", "structure", "organization", "group", "social event", "journey",
    "vacation", "geological formation", "body of water", "land", "way",
)  # fmt: skip


#: nouns of where one goes or works, which a place's name answers as often as not
#: ("Which holiday?": "Crete"; "What hike?": "Snowdon"; "Which job?": "Heathrow")
_WHERE_ONE_GOES = frozenset(
    {"place", "spot", "event", "holiday", "festival", "show", "walk", "hike", "job", "outing"}
)


@cache
def _may_be_place(head: str) -> bool:
    """Whether a thing asked by its noun may be answered by a place's name
    (:data:`_PLACE_LIKE`), or the noun is one WordNet does not hold."""
    if named_place(head) or head in _PLACE_LIKE or head in _WHERE_ONE_GOES:
        return True
    # a made thing's make may be a place's name, as the tagger reads it ("a little
    # silver Yaris", "a folding Brompton")
    return not known_noun(head) or any(is_a(head, k) for k in (*_PLACE_LIKE, "artifact"))


#: the verbs whose object is a thing one can hold ("What did I lose to the lake?":
#: "sunglasses", not "gust"; "What did my sister give me?": "an hourglass"); not "leave",
#: which asks what club or job was left as often as what was left behind
_HANDLED = frozenset(
    {
        "give", "get", "buy", "lose", "find", "bring", "send", "lend", "loan", "break",
        "chew", "order", "build", "pick", "dig", "forget", "hand", "drop",
        "knock", "steal", "borrow", "carry", "wear", "bake", "make", "present", "gift",
    }
)  # fmt: skip


def _physical(span: Any) -> bool:
    """Whether a phrase's head is a common noun of a physical thing (:func:`concrete`):
    what one gives, loses or finds, not "big plans" or "a gust", nor someone ("Ngozi's
    aunt")."""
    root = span.root
    lemma = root.lemma_.lower()
    return (
        root.pos_ == "NOUN" and not root.ent_type_ and concrete(lemma) and not is_a(lemma, "person")
    )


def _role_verb(question: Question, want: Want) -> str:
    """The word of the question the asked role hangs on, as a word ("give"), not its
    index key (``Want.role``'s "giv", which the embedder reads as no word at all):
    the lemma of the first token whose key it is; "" without a role."""
    if not want.role[0]:
        return ""
    for t in nlp.parse(question.text):
        lemma = t.lemma_.lower()
        if words.word_key(lemma) == want.role[0]:
            return lemma
    return want.role[0]


def _candidates(
    question: Question,
    want: Want,
    sources: list[Source],
    weighing: Weighing,
    trusted: int = 0,
) -> list[Span]:
    """Every candidate phrase of every source sentence that speaks to the question,
    scored (:mod:`remem.answer.rank`); a phrase found by several rules is one
    candidate with all its origins. ``weighing``: what the reader may ask of the
    memories (:class:`Around`: the rarity of words) and each source's nearness in
    meaning to the question (:func:`_meaning`). ``trusted``: how many of the first
    sources are read whatever words they share (:func:`_sentences`)."""
    around, meaning = weighing
    keys = _asked(question)
    named = {_bare_name(n) for n in question.names} | _owner_names(question, sources)
    named_noun = named_noun_of(question) if want.head == "name" or asks_called(question) else ""
    speakers = {h.speaker.lower() for h, _, _ in sources if h.speaker}
    later = now.later(question, sources)
    counted = now.counted(question) if want.kind == "number" else frozenset()
    counted_said = now.counted_words(question.text) if counted else ""
    weights = rank_weights()
    found: dict[tuple[str, int, int], tuple[Any, str, Hit, dict[str, float], list[str]]] = {}
    raised: set[tuple[str, int]] = set()
    read = list(_sentences(question, keys, sources, want.head, (trusted, raised)))
    context = _talk_before(sources, around) if named_noun or now.asks_choice(question) else {}
    unnamed = bool(named_noun) and _said_unnamed(named_noun, sources)
    said = [_in_context(hit, sent, fits, sources) for hit, sent, fits, _ in read]
    near_sent = _sentence_meaning(question, said, around)
    for (hit, sent, fits, at), sent_near in zip(read, near_sent, strict=True):
        matched = [t for t in sent if _key_of(t) in keys and not t.is_stop]
        for span, origin in _phrases(sent, want, matched, question):
            key = (hit.id, span.start, span.end)
            if key in found:
                found[key][4].append(origin)
                continue
            text = trim(span)
            if not _answers(want, span, text, keys, named) or _not_fitting(want, text):
                continue
            if named_noun and _untied(span, named_noun, (hit, fits, context), question, unnamed):
                continue
            if _named_wrong(want, span, text, question):
                continue
            if _doer(want, span) or someone_done_to(want, span):
                continue  # "Marisol got a bronze at the gala": Marisol is not what she won
            if _not_the_measure(want, span, question, (counted, counted_said)):
                continue
            if want.kind == "money" and _no_price(span, question, (hit, fits, speakers)):
                continue
            cues = _cues(want, span, text, keys, (fits, at, near(span, matched)), around.rarity)
            cues["later"] = later.get(hit.id, 0.0) * (1 + span.start / len(span.doc)) / 2
            cues["speaker"] = float(
                want.kind == "person" and (text.lower() in speakers or naming.addressed(span))
            )
            cues["meaning"] = meaning.get(hit.id, 0.0)
            cues["s_meaning"] = sent_near
            cues["counts"] = float(bool(counted) and _counts_noun(span, counted))
            cues["trusted"] = float((hit.id, sent.start) in raised)
            cues.update(now.choice_cues(question, span, context.get(hit.id, [])))
            found[key] = (span, text, hit, cues, [origin])
    typed = _type_meaning(want, [text for _, text, _, _, _ in found.values()], around)
    handed = not want.head and _role_verb(question, want) in _HANDLED
    doing = _verb_meaning(question, want, [span for span, _, _, _, _ in found.values()], around)
    out = []
    for (span, text, hit, cues, origins), kind_near, verb_near in zip(
        found.values(), typed, doing, strict=True
    ):
        cues["type_meaning"] = kind_near
        cues["verb_meaning"] = verb_near
        if want.kind == "thing":
            cues.update(_thing_cues(span, text, want, handed))
        feats = rank_features(span, origins, cues)
        out.append(Span(text, rank_score(feats, weights), hit, feats))
    return out


def _thing_cues(span: Any, text: str, want: Want, handed: bool) -> dict[str, float]:
    """What tells a thing asked from what is none: someone ("Lucia's husband", "Ngozi's
    aunt"), a named place or organisation asked with no kind noun, and, asked as what
    was given, lost or found (``handed``), a physical thing."""
    return {
        "a_person": float(
            span.root.ent_type_ == "PERSON" or _a_person_noun(text) or _named_as_someone(span)
        ),
        "a_named": float(
            span.root.ent_type_ in _NOT_THINGS
            if not want.head
            else span.root.ent_type_ in _PLACES and not _may_be_place(want.head)
        ),
        "physical": float(handed and _physical(span)),
    }


#: how many turns before a memory may say the noun a name in it is given to ("I've
#: adopted a cat!" / "Oh, tell me everything!" / "He's called Biscotti.")
_TALK_BEFORE = 2


#: how many of the best candidates' memories have the turns before them read for
#: someone said to have gone (:func:`now.not_gone`)
_GONE_READ = 4


def _read_around(found: list[Span], evidence: Sequence[Hit], around: Around) -> list[str]:
    """The texts of the evidence and of the turns just before the best candidates'
    memories ("Ollie's gone." two turns before "Wiebke put me in touch with Femi
    Adeyemi ... alongside Ollie")."""
    hits = list({s.hit.id: s.hit for s in found}.values())[:_GONE_READ]
    talk = _talk_before([(h, 0.0, 0) for h in hits], around)
    return [h.text for h in evidence] + [t for texts in talk.values() for t in texts]


def _talk_before(sources: list[Source], around: Around) -> dict[str, list[str]]:
    """Each source memory's id -> the texts of the turns said just before it
    (:data:`_TALK_BEFORE`), nearest first, whether recall brought them or not."""
    hits = [h for h, _, _ in sources]
    before = around.before
    out: dict[str, list[str]] = {h.id: [] for h in hits}
    if before is None:
        return out
    now_at = {h.id: h for h in hits}
    for _ in range(_TALK_BEFORE):
        prior = before(list(now_at.values())) if now_at else {}
        now_at = {i: p for i, h in now_at.items() if (p := prior.get(h.id)) is not None}
        for i, p in now_at.items():
            out[i].append(p.text)
    return out


def _untied(
    span: Any,
    noun: str,
    read: tuple[Hit, tuple[float, float], dict[str, list[str]]],
    question: Question,
    unnamed: bool = False,
) -> bool:
    """Whether a name is not the name of the noun a question asks it of (``read``: the
    memory, its sentence's fits and the talk before each memory): not beside it nor
    across "be" or "called" (:func:`naming.tied`), given to someone else's or
    another's, nor the owner's own (:func:`naming.is_the_owner`). Where the sentence
    does not say the noun, its memory or the turns just before do ("Her name is the
    Merry Dawdler", of a boat, names no cat), or it says more of the question ("My
    neighbour has a rescue named Biscuit", of the neighbour's dog). ``unnamed``: the
    memories read speak of the person asked without a name (:func:`_said_unnamed`);
    then a name not given as one ("Ravi sent me a list of contractors") names them
    only where its memory, or the turn before it, says the noun or a word of its
    family ("Who's teaching you?" / "Ines Duarte"), not where it only shares the
    question's other words ("Who's doing the plastering?", of "the apprentice who
    helped with the plastering")."""
    hit, (own, fit), context = read
    if naming.other_sex(span, noun) or naming.is_the_owner(span, naming.owner_noun(question, noun)):
        return True  # no husband's name given by "her"; no captain's wife the captain
    tie = naming.tied(span, noun)
    if tie is False and asks_called(question):
        tie = True  # a thing's name given where its sentence says it ("two guinea pigs
        # yesterday, Pepper and Clove", which the parser hangs on "yesterday")
    if tie is None and _asked_who(context.get(hit.id, ())) and not is_a(noun, "person"):
        return True  # "Who is he?" / "Gerwyn Pryce." names no collie
    if tie is None and unnamed and not _given_as_name(span):
        said = (hit.text, *context.get(hit.id, ()))
        if not any(_says_kin(text, noun) for text in said):
            return True
    if tie is None:  # the sentence does not say the noun (:func:`naming.given`)
        said = (hit.text, *context.get(hit.id, ()))  # each parsed once, whoever asks
        told = (
            fit > own
            or own >= 2
            or any(_says_noun(text, noun) for text in said)
            or naming.someone_called(span)
            # a name given anew need not say the thing ("so she's Pimenta now", of my
            # cat); a name first given must ("Her name is the Slow Heron", a boat's)
            or span.text in now.renamed_to(hit.text)
        )
        tie = told and (own >= 1 or naming.given(span))
    return (
        not tie or naming.of_another(span, noun, hit, question) or naming.called_other(span, noun)
    )


def _asked_who(before: Sequence[str]) -> bool:
    """Whether the turn just before a memory (``before``, nearest first) asks "who":
    its reply names someone."""
    return bool(before) and re.match(r"\W*who\b", _last_question(before[0])[0], re.I) is not None


def _says_noun(text: str, noun: str) -> bool:
    """Whether ``text`` says ``noun``, a kind of it ("a greyhound named Biscuit" of
    "my dog") or a relation's word of its kind ("Dad" of "father")."""
    return any(
        t.lemma_.lower() == noun
        or (t.pos_ == "NOUN" and is_a(t.lemma_.lower(), noun))
        or naming.kin_word(t.lower_, noun)
        for t in nlp.parse(text)
    )


def _given_as_name(span: Any) -> bool:
    """Whether a name is given as one (:func:`naming.given`), not said as who does
    something in a short sentence ("Jonah is deeply jealous"); or set off by a comma
    after a noun ("a guy in the league, Ray Castellanos, who's...", which the parser
    may not read as an apposition)."""
    doc = span.doc
    if span.start >= 2 and doc[span.start - 1].text == "," and doc[span.start - 2].pos_ == "NOUN":
        return True
    return naming.given(span) and span.root.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj")


def _says_kin(text: str, noun: str) -> bool:
    """Whether ``text`` says ``noun`` (:func:`_says_noun`) or a word of its family
    ("teaching" of "teacher", :func:`_kin`)."""
    return _says_noun(text, noun) or _kin(words.word_key(noun), set(words.content_keys(text)))


def _said_unnamed(noun: str, sources: list[Source]) -> bool:
    """Whether a person's ``noun`` asked the name of is said in ``sources`` with no
    name beside it or across "be" or "called" in that sentence ("his apprentice, a
    young lad who barely said a word"): memory speaks of them, so a name must be tied
    to them to be theirs."""
    if not is_a(noun, "person"):
        return False
    for hit, _, _ in sources:
        for sent in nlp.parse(hit.text).sents:
            if not _says_noun(sent.text, noun):
                continue
            names = [e for e in sent.ents if e.label_ in ("PERSON", "ORG", "GPE", "NORP")]
            if not any(naming.tied(e, noun) for e in names):
                return True
    return False


def _named_wrong(want: Want, span: Any, text: str, question: Question) -> bool:
    """Whether a name is given to another thing than the one asked: an organisation's
    to another kind of one (:func:`_no_org`), a name or a thing asked and a relation's
    word given ("Mum"), or, asked what a thing is called ("What's
    my cat called?"), to another noun ("a guy called Declan Rourke",
    ``spans.named_other``)."""
    if want.kind == "org":
        return _no_org(span, text, want.head)
    if text.lower() in relations() and (want.head == "name" or _a_thing(want)):
        return True  # "Mum", capitalised as a name, is what she is to someone; "Dad" no car
    return want.kind == "thing" and asks_called(question) and named_other(span, want, question)


def _a_thing(want: Want) -> bool:
    """Whether a thing is asked by a noun that is no one's ("Which car...?")."""
    return want.kind == "thing" and bool(want.head) and not is_a(want.head, "person")


def _no_org(span: Any, text: str, head: str) -> bool:
    """Whether an organisation's candidate is a name given to another kind of one ("a
    local firm called Pellow & Sons" is no choir) or someone's relation ("Mam says it
    was Grandad's": someone's mother is no maker)."""
    return naming.named_other_kind(span, head) or text.lower() in relations()


def _doer(want: Want, span: Any) -> bool:
    """Whether a thing asked as what someone did something to ("What did Rafael's
    daughter win?") is answered by a person's name that does it, the subject of a
    verb with an object: the doer, not the done-to. The small tagger calls many a
    thing a person, so not when the question names the kind ("Which Disney movie...?":
    "Ratatouille is one of my favorites") or the verb has no object ("Shibuya
    Crossing is like Tokyo's Times Square"). A name beside a person noun is someone's
    whatever the question names ("My niece Cosima designed the poster: a teacup")."""
    root = span.root
    subject = root.head if root.dep_ == "appos" else root
    # "Which Disney movie...?": "Ratatouille", tagged a person
    person = _named_as_someone(span) or (root.ent_type_ == "PERSON" and not want.head)
    return (
        want.kind == "thing"
        and person
        and want.role[1] == "object"
        and subject.dep_ == "nsubj"
        and any(c.dep_ == "dobj" for c in subject.head.children)  # not "X is like Y"
    )


def _unnamed_in(hit: Hit, question: Question, speakers: Collection[str]) -> bool:
    """Whether the memory names none of the places or things the question names
    ("How much were my flights to Vilnius?": not "Flights to Tallinn were £89"); the
    people talking (``speakers``, lower-cased) aside."""
    names = naming.bare_names(question) - set(speakers)
    text = hit.text.lower()
    return bool(names) and not any(n in text for n in names)


#: what a sum is paid in, no thing bought ("we met at £4,300 cash")
_PAID_IN = frozenset({"cash", "cheque", "check", "card", "transfer", "instalment", "installment"})


def _priced_other(span: Any, question: Question) -> bool:
    """Whether the parse says the price is of a thing the question does not name,
    nor a word of its family ("The table was £145, the substrate another £12" asked
    what the UV lamp cost; "The adoption fee was £250" is what adopting cost)."""
    noun = priced_noun(span)
    if noun is None or noun.pos_ not in ("NOUN", "PROPN"):
        return False
    if noun.lemma_.lower() in CURRENCIES or noun.lemma_.lower() in _PAID_IN:
        return False  # "950 euro", "£4,300 cash": a price in euros or cash, of no other thing
    # the nouns of the whole phrase: "Declan's redone all the numbers and the budget
    # is now £61,500", whose subject the tagger misreads as "redone"
    said = {_key_of(t) for t in noun.subtree if t.pos_ in ("NOUN", "PROPN")} | {_key_of(noun)}
    # a word of the family is no other thing: "the adoption fee" of "to adopt my dog"
    return not any(_kin(k, said) for k in question.keys)


def _of_kind(span: Any, head: str, kind_senses: int | None = None) -> bool:
    """Whether the phrase names a kind of the noun a "what" question asks for
    ("a Java fern" of "What plant...?", "a retired racing greyhound" of "What sort of
    animal...?": :func:`kinds.is_a`), by its whole words or its head noun; a name
    the noun opens names one ("Lake Bohinj" of "Which lake...?")."""
    root = span.root
    if head and 1 < len(span) <= 3 and is_a(span.text.lower(), head, kind_senses=kind_senses):
        return True  # a name WordNet holds whole ("bottle green", which parses oddly)
    if not head or root.pos_ not in ("NOUN", "PROPN"):
        return False
    named = [t for t in span if t.pos_ == "PROPN"]
    if root.pos_ == "PROPN" and len(named) > 1 and named[0].lemma_.lower() == head:
        return True  # not "Brightwater Home Care" of "home": a name the noun opens
    compound = " ".join(t.lower_ for t in span if t.dep_ == "compound" and t.head == root)
    names = {root.lemma_.lower(), f"{compound} {root.lemma_.lower()}".strip()}
    return any(is_a(n, head, kind_senses=kind_senses) for n in names)


def _isa(want: Want, span: Any) -> bool:
    """Whether a thing asked by a noun is answered by a kind of it (:func:`_of_kind`),
    or, asked "what kind of", by the noun told apart (:func:`_sort_of`)."""
    if want.kind != "thing":
        return False
    return _of_kind(span, want.head) or (want.kind_of and _sort_of(span, want.head))


def _sort_of(span: Any, head: str) -> bool:
    """Whether the phrase is the noun a "what kind of" question asks, told apart by
    a name-like word or a noun before it ("Hawaiian pizza", "mushroom risotto"),
    which WordNet need not hold: the kind asked for."""
    root = span.root
    if root.lemma_.lower() != head:
        return False
    return any(
        t.head == root
        and t.i < root.i
        and (
            t.dep_ == "compound"
            or (t.dep_ == "amod" and (t.ent_type_ == "NORP" or written_as_name(t)))
        )
        for t in span
    )


def _key_of(token: Any) -> str:
    """A token's key, a verb's by its lemma (:func:`_lemma_keys`)."""
    return words.word_key(token.lemma_ if token.pos_ == "VERB" else token.lower_)


def _owner_names(question: Question, sources: list[Source]) -> set[str]:
    """The names the sources give someone the question names only as an owner of
    what it asks of ("What is the name of my sister's baby?" when a memory says "my
    sister Hana"): the owner is not the answer, any more than a name the question
    writes is ("Hana had her baby! A little girl called Mina"); nor is the name of a
    thing the user says they have ("Who is the vet that looks after my tortoise?":
    not "Pickle the tortoise"). Lower-cased."""
    owners = sorted(
        {
            t.lower_
            for t in nlp.parse(question.text)
            if t.pos_ == "NOUN" and t.dep_ == "poss" and t.head.pos_ == "NOUN"
            and t.head.lemma_.lower() != "name"
        }
    )  # fmt: skip
    found = set()
    if owners:
        rule = re.compile(
            rf"\b(?:{'|'.join(map(re.escape, owners))}),?\s+((?:[A-Z][\w-]*\s?){{1,3}})"
        )
        found |= {m.group(1).strip().lower() for h, _, _ in sources for m in rule.finditer(h.text)}
    if question.first_person and question.possessed:  # "Pickle the tortoise": my pet's name
        nouns = "|".join(map(re.escape, question.possessed))
        rule = re.compile(rf"\b([A-Z][\w-]*),?\s+(?:the|my)\s+(?:{nouns})\b")
        found |= {m.group(1).lower() for h, _, _ in sources for m in rule.finditer(h.text)}
    return found


def _phrases(sent: Any, want: Want, matched: list[Any], question: Question) -> list[Any]:
    """The sentence's candidate phrases (:func:`spans.phrases`), and for a thing or a
    reason the sentence itself, when no phrase of it answers well; not for a
    question about now, whose sentence often tells the old value beside the new
    ("Someone stole the Raleigh, so I bought a folding Brompton")."""
    out = _carried(phrases(sent, want, matched, question))
    whole = want.kind in ("thing", "reason") and question.order != "newest"
    return [*out, (sent, "sentence")] if whole else out


def _not_the_measure(
    want: Want, span: Any, question: Question, counted: tuple[frozenset[str], str]
) -> bool:
    """Whether a number or a span of time is no measure of what the question asks: a
    count of another noun ("bowl still in one piece" counts no people), someone's age
    ("I'm thirty-four" counts no students), a share of a whole ("412 out of a possible
    744" is no price), a time ago ("Finished a few weeks ago" is no course's length).
    ``counted``: the nouns a "how many" question counts and its words for them."""
    nouns, said = counted
    if nouns and counts_other(span.root, said):
        return True
    if want.kind == "money" and _out_of(span):
        return True
    if want.kind == "number" and not said.startswith("year") and _an_age(span):
        return True
    return want.kind == "duration" and ago(span) and not _UNTIL_NOW.match(question.text)


#: the words that say a bare number is a sum ("I paid 300 for it", "sold it for 40")
_SUM_WORDS = frozenset(
    {"pay", "cost", "price", "charge", "spend", "fee", "sell", "buy", "worth", "budget",
     "rent", "grand", "offer", "quote", "bill", "invoice", "deposit", "save", "raise"}
) | CURRENCIES  # fmt: skip


def _no_sum_said(span: Any) -> bool:
    """Whether a bare number stands in a sentence that says nothing of money ("we're at
    412 already across the four nights" is no ticket's price): no currency, no word
    of paying or selling."""
    if span.root.ent_type_ != "CARDINAL":
        return False
    sent = span.sent
    if any(c in sent.text for c in "£$€¥"):
        return False
    return not any(t.lemma_.lower() in _SUM_WORDS or t.lower_ in _SUM_WORDS for t in sent)


def _no_price(
    span: Any, question: Question, read: tuple[Hit, tuple[float, float], set[str]]
) -> bool:
    """Whether a sum is no price of what the question prices: "The table was £145"
    prices no lamp; Tallinn's flights are no Vilnius's; "we're at 412 already" is
    no sum. A reply names what it inherits no more than a number of money: "£640"
    or "640" after "How much?" (``read``: the memory, its sentence's fits and the
    names of those talking)."""
    hit, (own, fit), speakers = read
    if _priced_other(span, question):
        return True
    if fit <= own and _unnamed_in(hit, question, speakers):
        return True
    return fit - own < _READ_MIN and _no_sum_said(span)  # no turn asking "How much?"


def _out_of(span: Any) -> bool:
    """Whether "out of" follows a number: a count or a mark of a whole ("412 out of a
    possible 744", "142 out of 180")."""
    after = span.doc[span.end : span.end + 2]
    return len(after) == 2 and after[0].lower_ == "out" and after[1].lower_ == "of"


#: the ones whose age a bare number after "be" tells ("I'm thirty-four")
_AGED = frozenset({"i", "he", "she"})


def _an_age(span: Any) -> bool:
    """Whether ``span`` is a bare number said of one person by "be" or beside them:
    their age ("I'm thirty-four", "Pavel is fifteen", "Welsh, about seventy"), not a
    count ("There are eighty-four of us")."""
    root = span.root
    if any(c.dep_ == "prep" for c in root.children):
        return False  # "We're two of six", "on Wednesday, 96 of them"
    if root.dep_ == "appos" and root.pos_ == "NUM":  # "Gerwyn Pryce. Welsh, about seventy"
        head = root.head
        return head.ent_type_ in ("", "PERSON", "NORP") and _someone_said(head)
    if root.dep_ not in ("attr", "acomp") or root.head.lemma_ != "be":
        return False
    if root.pos_ not in ("NUM", "ADJ"):
        return False
    subj = next((c for c in root.head.children if c.dep_ == "nsubj"), None)
    return subj is not None and (subj.lower_ in _AGED or _someone_said(subj))


def _someone_said(token: Any) -> bool:
    """Whether a word names someone: a person's name or a noun of a person."""
    return token.ent_type_ == "PERSON" or token.pos_ == "PROPN" or is_a(token.lemma_, "person")


def _carried(found: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """The phrases as found, each cut name carried whole (:func:`_whole_name`). A name
    some rule found whole stays as it was found, unless the rule that found it cut
    rates higher (:data:`spans.FITS`): then it stands as that rule's ("Gold", a colour,
    of "Tiger Gold", a noun phrase). Found twice so, it counts as found once."""
    wholes = [(_whole_name(span), span, origin) for span, origin in found]
    out = [(span, origin) for whole, span, origin in wholes if whole is span]
    at: dict[tuple[int, int], int] = {}
    for i, (span, origin) in enumerate(out):
        key = (getattr(span, "start", -1), getattr(span, "end", -1))
        if key not in at or FITS[origin] < FITS[out[at[key]][1]]:
            at[key] = i  # the weakest origin it was found by
    for whole, span, origin in wholes:
        if whole is span:
            continue
        had = at.get((whole.start, whole.end))
        if had is None:
            at[(whole.start, whole.end)] = len(out)
            out.append((whole, origin))
        elif FITS[origin] > FITS[out[had][1]]:
            out[had] = (out[had][0], origin)
    return out


def _whole_name(span: Any) -> Any:
    """``span`` carried over the name it stops inside: on to the end of a name the
    tagger found whole ("book called Turn Left" is "book called Turn Left at Orion":
    the parser hung "at Orion" on the verb), and back over the proper nouns it is the
    last word of ("Gold" of "the original Tiger Gold and black")."""
    doc = getattr(span, "doc", None)
    if doc is None or span.start == span.end:
        return span
    start, end = span.start, span.end
    while start > 0 and _names_with(doc[start - 1], span):
        start -= 1
    last = doc[end - 1]
    ent = next((e for e in doc.ents if e.start <= last.i < e.end), None) if last.ent_type_ else None
    if ent is not None and ent.label_ not in _MEASURES and ent.end > end and ent.start >= start:
        end = ent.end
    return span if (start, end) == (span.start, span.end) else doc[start:end]


#: the entity labels of a measure, a time or a count, no name: "five years" is not
#: carried on to "five years ago"
_MEASURES = frozenset({"DATE", "TIME", "CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"})


def _names_with(token: Any, span: Any) -> bool:
    """Whether ``token`` is a proper noun naming one thing with ``span`` ("Tiger" of
    "Tiger Gold"), no title before a name."""
    return (
        token.dep_ == "compound"
        and token.pos_ == "PROPN"
        and token.lower_.rstrip(".") not in TITLES  # "Ms Eszter Halmi" is found as said
        and token.head.i in range(span.start, span.end)
    )


def _cues(
    want: Want,
    span: Any,
    text: str,
    keys: frozenset[str],
    measured: tuple[tuple[float, float], int, float],
    rarity: Rarity | None,
) -> dict[str, float]:
    """The numbers a candidate is scored by (:func:`rank.features`): its sentence's
    own fit and what it inherits, its memory's rank, its nearness to the question's
    words, the question's own words in it, its length, and how rare its new words
    are."""
    (own, fit), at, nearness = measured
    said = frozenset() if _measure(want, span) else words.content_keys(text)
    new = " ".join(w for w in text.split() if words.word_key(w.lower()) not in keys)
    asked = said & (keys - want.head_keys)
    root = getattr(span, "root", None)
    return {
        # the noun asked, described in the question's own words ("a movie that blew
        # my mind", of "What movie ... blew his mind?"): it says no more than was asked
        "echo": float(
            bool(asked) and root is not None and root.pos_ == "NOUN" and root.lemma_ == want.head
        ),
        "fit": own,
        "inherited": fit - own,
        "near": nearness,
        "rank": float(at),
        "asked": float(len(asked)),  # "Millbrook Rowing Club"
        "words": float(len(text.split())),
        "rarity": rarity(new) if rarity is not None and new else 0.0,
        "bare": float(_bare(span, want.kind) and fit - own >= REPLY_SHARE),
        "isa": float(_isa(want, span)),
    }


#: the kinds a measure answers, and the labels of a measure's entity
_MEASURE_KINDS = frozenset(
    {"number", "money", "age", "duration", "frequency", "distance", "length"}
)
_MEASURE_LABELS = frozenset({"QUANTITY", "TIME", "DATE", "MONEY", "CARDINAL", "PERCENT"})


def _measure(want: Want, span: Any) -> bool:
    """Whether ``span`` is a measure of the kind asked, whose unit repeats the
    question's without echoing it: "57-foot" to "What's the length of my boat in
    feet?", "three days" to "How many days...?"."""
    root = getattr(span, "root", None)
    return want.kind in _MEASURE_KINDS and root is not None and root.ent_type_ in _MEASURE_LABELS


def _bare(span: Any, kind: str = "") -> bool:
    """Whether ``span`` is an entity or a number and all its sentence says ("Ljubljana.",
    "Keiko Tanabe."): a reply's fragment, which answers the turn that asked (not
    "Rude!", which only says what the one replying thinks of it). For a thing asked
    (``kind``), a noun phrase is one too, and so is a common noun heading a sentence
    without a verb that only adds when or how ("The terrazzo, in the end." to "Which
    worktop did you go for?"); for a place, a place the fragment puts its noun in ("A
    three-bed terrace on Crofton Street in Heaton Moor." to "Which house is it?")."""
    sent = getattr(span, "sent", None)
    if sent is None or span.start == sent.start and span.end == sent.end:
        return False  # the sentence itself is no fragment of it
    root = span.root
    noun = kind == "thing" and root.pos_ == "NOUN"  # a common noun, for a thing asked
    if root.pos_ != "NUM" and not root.ent_type_ and not noun:
        return False
    if all_it_says(span) or _said_first(span):
        return True
    verbless = not any(t.pos_ in ("VERB", "AUX") for t in sent)
    if kind == "place" and verbless and root.dep_ == "pobj" and root.head.lower_ in LOCATIVE:
        return True
    # not a name with more said of it ("Skomer, the island off Pembrokeshire." tells
    # where, to "Where are you off to?", not the bird asked of the trip)
    return noun and root.i == sent.root.i and verbless


#: the words a reply opens with before what it answers ("Yes, Hamish Ardley, ...")
_REPLY_OPENERS = frozenset({"yes", "yeah", "yep", "no", "nope", "well", "oh", "sure"})


def _said_first(span: Any) -> bool:
    """Whether a name opens a reply after a "yes" or a "no" and only a clause about it
    follows ("Yes, Hamish Ardley, who runs the hardware shop on Fore Street." to "Have
    you found someone to take over as Teddy?"): the reply's answer, as a fragment's."""
    doc, sent = span.doc, span.sent
    opening = [t for t in doc[sent.start : span.start] if not t.is_punct]
    if not opening or any(t.lower_ not in _REPLY_OPENERS for t in opening):
        return False
    rest = doc[span.end : sent.end]
    return len(rest) > 1 and rest[0].text == "," and rest[1].lower_ in ("who", "which")


def _sentences(
    question: Question,
    keys: frozenset[str],
    sources: list[Source],
    head: str = "",
    trusted: tuple[int, set[tuple[str, int]]] | None = None,
) -> Iterator[tuple[Hit, Any, tuple[float, float], int]]:
    """(memory, sentence, (its own fit, its fit), rank) of each source sentence that
    speaks to the question (:func:`_fit`), one after such a sentence inheriting part
    of the words it shares (not its time: "I booked climbing on Saturday. My phone
    is an old Pixel" does not tell what was done on Saturday). What a reply inherits
    of the turn that asked fades the same way from one sentence to the next: "Does
    Ines want you practising daily?" is answered by "Twenty minutes a day", not by
    "I'm thinking Kyoto in late April" two sentences on. A sentence that brings in
    the noun asked (``head``) without saying which ("I had a frustrating issue at
    the supermarket.") hands the next its whole fit ("The self-checkout machines were
    all broken"). ``trusted``: how many of the first sources are read whatever words
    they share (:data:`_TRUSTED`), and the set that collects (memory, sentence start)
    of each sentence read so."""
    setter = now.current_setter(question, sources)
    # a thing's name is given in a sentence that need not say the thing ("so she's
    # Pimenta now", of my cat); a person's is not any name given ("a man called
    # Cedric conducted it" is no vicar's)
    called = asks_called(question)
    noun = named_noun_of(question) if called else ""
    called = called and not (noun and is_a(noun, "person", senses=1))
    choosing = now.asks_choice(question)
    for hit, inherited, rank in sources:
        before = teased = 0.0
        sents = list(nlp.parse(hit.text).sents)
        if question.order == "newest":
            sents = sents[now.last_change(sents, keys) :]
        owns = [_fit(question, keys, sent, hit) for sent in sents]
        for at, sent in enumerate(sents):
            own = owns[at]
            if hit.id == setter and own < 1 and sets_asked(question.text, sent.text):
                own = 1.0  # as if it said the asked word: "live" of "I'm renting in Mutley"
            if called and own < 1 and gives_name(sent.text):
                own = 1.0  # "What's my cat called now?": "so she's Pimenta now"
            if choosing and own < _READ_MIN and now.tells_choice(sent.text):
                own = _READ_MIN  # "so I ordered an 8-inch Dobsonian instead", of the telescope
            after = _told_after(sents, owns, at, keys)  # "... Rhiannon Voss. She's my mentor"
            fit = max(own, _NEXT_SHARE * before, _NEXT_SHARE * after, teased) + inherited
            teased = own if head and _brings_in(sent, head) else 0.0
            if trusted and rank < trusted[0] and fit < _READ_MIN and not hit.superseded_by:
                fit = _READ_MIN
                trusted[1].add((hit.id, sent.start))  # read as trusted (``rank``)
            before = max(float(len(keys & words.content_keys(sent.text))), _NEXT_SHARE * before)
            if not (_opener(sent) or _fragment(sent) or sent.text.rstrip().endswith(":")):
                inherited *= _NEXT_SHARE  # not over a colon: "We met her: Ms Adaeze Okonkwo."
            if fit >= _READ_MIN:
                yield hit, sent, (own, fit), rank


def _brings_in(sent: Any, head: str) -> bool:
    """Whether ``sent`` brings in the noun asked as a new one ("a frustrating
    issue", "an idea"), not saying which: the next sentence says. Not when the
    sentence goes on to name it ("a film that made me cry, I think it was called
    'Aftersun'")."""
    for t in sent:
        if t.lemma_.lower() != head or t.pos_ != "NOUN":
            continue
        if not any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in t.children):
            continue
        rest = [u for u in sent if u.i > t.i]
        named = any(u.pos_ == "PROPN" or u.lower_ in _NAMES_IT or u.is_quote for u in rest)
        if not named and not any(c.dep_ in ("appos", "acl", "relcl") for c in t.children):
            return True
    return False


#: the words a sentence names something with
_NAMES_IT = CALLING | {"titled"}


#: the pronouns a sentence opens with when it goes on about what the one before named
_BACK = frozenset({"he", "she", "they", "it"})


#: how many sentences on a pronoun may say what the question asks of the one named
#: before, each between opening with a pronoun too (:func:`_told_after`)
_PRONOUN_RUN = 3


def _told_after(sents: list[Any], owns: list[float], at: int, keys: frozenset[str]) -> float:
    """The own fit of the sentence after sentence ``at`` that says, by a pronoun, what
    the question asks of (:func:`_pronoun_is_asked`): the next, or one further on when
    each sentence between opens with a pronoun as its subject too ("a woman called
    Maureen Quaife. She learned in 1971... She does one-to-one handling lessons");
    0 when none does."""
    for j in range(at + 1, min(len(sents), at + 1 + _PRONOUN_RUN)):
        if _pronoun_is_asked(sents[j], keys):
            return owns[j]
        first = next((t for t in sents[j] if not t.is_punct), None)
        if first is None or first.lower_ not in _SUBJECT_PRONOUNS or first.dep_ != "nsubj":
            return 0.0
    return 0.0


#: the pronouns a run of sentences about one person or thing opens with
_SUBJECT_PRONOUNS = frozenset({"he", "she", "they", "it"})


def _pronoun_is_asked(sent: Any, keys: frozenset[str]) -> bool:
    """Whether ``sent`` says, of someone or something it names by a pronoun, what the
    question asks of ("A paramedic called Rhiannon Voss. She's my mentor"; "A little
    silver Yaris. It drives like a dream"; "An old boy called Hamish. He came round and
    showed me how"): a word of the question (``keys``) is what "he", "she", "they" or
    "it" is, or what they do, so the sentence before names them and shares part of the
    fit. Not any sentence opening with a pronoun: "He said it had been his
    brother-in-law's" says he is no one's brother."""
    for t in sent:
        if _key_of(t) not in keys:
            continue
        if t.dep_ == "attr" and t.head.lemma_ == "be":
            whose = [c for c in t.children if c.dep_ == "case" or c.lower_ in _THEIRS]
            if not whose and _pronoun_subject(t.head):
                return True  # "she's my mentor", "it's my mum's recipe"
        elif t.pos_ == "VERB" and _pronoun_subject(t):
            return True  # "it drives like a dream", "he ... showed me how"
        elif t.pos_ == "NOUN" and not any(c.lower_ in _THEIRS for c in t.children):
            verb = _governing_verb(t)  # "They do the photos, the listings and all the
            if verb is not None and _pronoun_subject(verb):  # payments"
                return True
    return False


def _governing_verb(noun: Any) -> Any | None:
    """The verb whose object ``noun`` is, through a list ("the photos, the listings and
    all the payments") and a preposition; None for a subject or anything else."""
    t = noun
    while t.dep_ in ("conj", "pobj", "prep", "appos") and t.head is not t:
        t = t.head
    return t.head if t.dep_ == "dobj" and t.head.pos_ in ("VERB", "AUX") else None


def _pronoun_subject(verb: Any) -> bool:
    """Whether ``verb``'s subject, or its first conjunct's ("He came round and showed
    me"), is a pronoun that refers back (:data:`_BACK`)."""
    while True:
        if any(c.dep_ == "nsubj" and c.lower_ in _BACK for c in verb.children):
            return True
        if verb.dep_ != "conj" or verb.head is verb:
            return False
        verb = verb.head


#: the owners that make a role someone else's ("his brother-in-law's")
_THEIRS = frozenset({"his", "her", "their", "its"})


#: the words a reply to a yes-or-no question opens with
_POLAR = frozenset({"yes", "no", "yeah", "yep", "nope", "nah"})


def _opener(sent: Any) -> bool:
    """Whether ``sent`` only answers yes or no, telling nothing more ("No, a different
    one."): four words or fewer, the first a yes or a no, no name or number. What the
    reply inherits of its asking turn ("Who's teaching it? The same person who ran
    your taster?") passes over it unfaded to the sentence that answers ("A woman named
    Hester Galloway")."""
    said = [t for t in sent if not t.is_punct]
    return (
        0 < len(said) <= 4
        and said[0].lower_ in _POLAR
        and not any(t.pos_ in ("PROPN", "NUM") for t in said)
    )


def _fragment(sent: Any) -> bool:
    """Whether ``sent`` is a bare answer or an opener a reply starts with, a word or
    three with no verb ("Madeira. Dominic has booked twelve nights at a quinta";
    "Honestly? I hadn't touched a piano for twenty years"): the reply goes on about
    what was asked, so what it inherits passes over it unfaded, as over a yes. Not an
    adjective ("Lovely.") nor a no ("God, no.")."""
    said = [t for t in sent if not t.is_punct]
    return 0 < len(said) <= 3 and not any(
        t.pos_ in ("VERB", "AUX", "ADJ") or t.lower_ in _POLAR for t in said
    )


def _bare_name(name: str) -> str:
    """A name the question gives, lower case, without its possessive ("dominic" of
    "Dominic's")."""
    return re.sub(r"['\u2019]s$", "", name.lower())


def _answers(want: Want, span: object, text: str, keys: frozenset[str], named: set[str]) -> bool:
    """Whether phrase ``text`` (of ``span``) can answer at all: it says something
    the question (its ``keys``) does not, names no one the question names
    (``named``), and, for a thing, is no time or bare number (:func:`spans.thing`).
    The words that ask say nothing either: "What kind of music", cut from the other
    speaker's "What kind of music do you like?", does not answer "What kind of music
    does John like?"."""
    digits = set(re.findall(r"\d+", text)) - keys  # "6": one character, yet a count
    if not text or not (words.content_keys(text) - keys - words.ASKING or digits):
        return False
    low = text.lower()
    if low in named or any(n in low.split() for n in named):
        return False
    if want.kind not in ("time", "thing") and _on_the_clock(span):
        return False  # "6am runs along the Mersey": no deposit of 6
    return want.kind != "thing" or thing(span, keys, want)


def _on_the_clock(span: Any) -> bool:
    """Whether a phrase ends in a number written against "am" or "pm" ("6am", which the
    tokenizer splits as "6" and a verb "am"): a time of day, not a count or a sum."""
    last = span[-1]
    if not last.like_num or last.whitespace_ or last.i + 1 >= len(last.doc):
        return False
    return last.doc[last.i + 1].lower_ in ("am", "pm", "a.m.", "p.m.")


def _not_fitting(want: Want, text: str) -> bool:
    """Whether ``text`` cannot be what is asked, by the words the time layer reads
    a job by (``time.current``): a club, a gym, a choir... asked for a company
    ("Which company did Tomas leave?": not the "Millbrook Rowing Club" he joined),
    and, asked for an occupation, a phrase naming no role ("cox" of a rowing crew is
    no living; "a carpenter" is); asked for a thing by its noun, a phrase naming it
    only as a modifier (:func:`_modified_by`)."""
    said = {w.strip(".,;:!?\"'()") for w in text.lower().split()}
    if want.head in _EMPLOYERS:
        return bool(said & not_employers())
    if want.occupation:
        return not said & _occupations()
    return want.kind == "thing" and _modified_by(want.head, text)


def _modified_by(head: str, text: str) -> bool:
    """Whether a phrase has the noun asked only as a modifier of another noun, which
    is no kind of it: "bird-watching trip" is no bird, "movie night" no movie
    (:func:`_not_fitting`); not "retired racing greyhound" of "dog", nor "the bird",
    nor "a photo of a painting of a cactus" of "painting", nor a name the noun opens
    ("Lake Bohinj" of "lake")."""
    raw = [w.strip(".,;:!?\"'()") for w in text.split()]
    words_ = [w.lower() for w in raw]
    if not head or len(words_) < 2 or _opens_name(raw):
        return False
    before, last = words_[-2], words_[-1]  # the noun's modifier, right before it
    single = last[:-1] if last.endswith("s") else last
    modifies = before in (head, f"{head}s") or before.startswith((f"{head}-", f"{head}s-"))
    return modifies and single != head and not is_a(single, head)


def _opens_name(raw: list[str]) -> bool:
    """Whether a phrase ends in a two-word name its next-to-last word opens ("the Lake
    Vrana"; not "Brightwater Home Care", a name that "Home" only modifies)."""
    capital = [w[:1].isupper() for w in raw]
    return capital[-2] and capital[-1] and (len(raw) == 2 or not capital[-3])


@cache
def _occupations() -> frozenset[str]:
    """The role nouns (``time.current.roles``) and their plurals, made once."""
    return roles() | {r + "s" for r in roles()}


def _unheld(question: Question, want: Want, sources: list[Source], around: Around) -> bool:
    """Whether a thing the question says someone has ("Dana's father", "my cousin")
    or asks the price of ("the tank respray") is held by no memory: none read holds
    its word or comes near it in meaning (the verdict's premise threshold), and no
    other memory of the user says the word
    (``around.rarity``: "my sister", named "my sister Anouk" in a memory the question
    did not recall, is held all the same). Then whatever the memories say answers
    another question."""
    hits = [h for h, _, _ in sources]
    nearness, rarity = around.nearness, around.rarity
    # "the focal length of my Dobsonian": no length called focal said, nor a length
    measures = _measure_kinds(question, want)
    unsaid = [w for w in measures if _unsaid(w, hits, rarity)]
    if unsaid and _unsaid(want.head, hits, rarity):
        return True
    priced = _priced(question, want)
    for noun in [*possessions(question), *priced]:
        key = words.word_key(noun)
        if noun == want.head or key in _KIND_KEYS:
            continue  # the attribute asked ("Tomas's time"), not a thing presupposed
        if key in _EVERYONE_HAS:
            continue  # "Callum's family": told of as "we", never by the word
        if not _unsaid(noun, hits, rarity):
            continue  # said, in a memory read or not ("my sister Anouk", not recalled)
        owned = noun not in priced and not is_a(noun, "person")  # a respray is no tank
        kinds = _compounds(question, noun) if owned else set()
        if kinds and any(kinds & words.content_keys(h.text) for h in hits):
            continue  # "my fieldwork trip" of "the fieldwork": the trip is the fieldwork's
        if any(alike(noun, n) or is_a(n, noun) for h in hits for n in _nouns(h.text)):
            continue  # "my pottery teacher", told of as "the instructor"; "my whippet"
        near = nearness(noun, hits) if nearness else {}
        if not any(v >= RELATED_MIN for v in near.values()):
            return True
    return False


def _unsaid(word: str, hits: list[Hit], rarity: Rarity | None) -> bool:
    """Whether no memory says ``word``: none read says a word of its family, and no
    other memory of the user says it."""
    key = words.word_key(word)
    if any(_kin(key, words.content_keys(h.text)) for h in hits):
        return False
    return rarity is None or rarity(word) >= 1.0


#: the verbs a price is said by ("How much did the respray cost?", "was the fee",
#: "did I pay for my bike")
_PRICING = frozenset({"cost", "be", "pay", "charge", "spend"})
#: nouns of the sum itself, no thing priced ("the adoption fee", "How much money")
_SUM_NOUNS = frozenset(
    {"money", "fee", "price", "cost", "charge", "rate", "amount", "sum", "total", "bill", "rent"}
)


def _priced(question: Question, want: Want) -> list[str]:
    """The nouns a question asks the price of, lemmas: the subject of "cost" or "be"
    ("respray" of "How much did the tank respray cost me?") and what is paid for
    ("bottle" of "How much does Noor charge for a bottle of sauce?"); not the sum's
    own noun ("the adoption fee"), nor anything else it names ("for the hospice").
    None for a question of another kind."""
    if want.kind != "money":
        return []
    out = []
    for t in nlp.parse(question.text):
        verb = t.head.head if t.dep_ == "pobj" and t.head.lower_ == "for" else t.head
        subject = t.dep_ in ("nsubj", "nsubjpass") or t.dep_ == "pobj" and verb is not t.head
        lemma = t.lemma_.lower()
        if t.pos_ == "NOUN" and subject and verb.lemma_ in _PRICING and lemma not in _SUM_NOUNS:
            out.append(lemma)
    return out


#: the nouns of a measure or a mark that a word before them makes one of its kind ("the
#: focal length", "the registration number", "a hygiene rating")
_MEASURE_NOUNS = frozenset(
    {"length", "number", "rating", "score", "size", "weight", "height", "capacity", "speed"}
)
#: words before such a noun that say which one, not what kind ("the exact length")
_WHICH_ONE = frozenset(
    words.content_keys(
        "exact total full final current new old first last latest usual average top best "
        "highest lowest overall actual official rough approximate own"
    )
)


def _measure_kinds(question: Question, want: Want) -> list[str]:
    """The words that make the measure or mark asked one of its kind ("focal" of "What
    is the focal length of my Dobsonian?", "registration" of "the Triumph's
    registration number"): what memory must have said for it to have been given."""
    if want.head not in _MEASURE_NOUNS:
        return []
    return [
        c.lower_
        for t in nlp.parse(question.text)
        if t.lemma_.lower() == want.head and t.pos_ == "NOUN"
        for c in t.children
        if c.dep_ in ("amod", "compound") and c.pos_ in ("ADJ", "NOUN")
        and words.word_key(c.lower_) not in _WHICH_ONE
    ]  # fmt: skip


def _compounds(question: Question, noun: str) -> set[str]:
    """The keys of the nouns that say what kind of ``noun`` the question asks of
    ("archery" of "my first archery session"; "falconry" of "my falconry training",
    which the tagger calls an adjective: a modifier that is a noun of WordNet's and
    no word of degree, :data:`_DEGREE`)."""
    doc = nlp.parse(question.text)
    return {
        words.word_key(c.text)
        for t in doc
        if t.text.lower() == noun or t.lemma_.lower() == noun
        for c in t.children
        if (c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN"))
        or (c.dep_ == "amod" and c.tag_ == "JJ" and _noun_modifier(c.lower_))
    }


#: adjectives that are WordNet nouns too, by another sense ("the old", "a red"):
#: they say no kind of the thing they describe
_DEGREE = frozenset(
    {"new", "old", "first", "last", "next", "big", "small", "little", "young", "best",
     "good", "bad", "red", "blue", "green", "black", "white", "yellow", "brown", "grey",
     "gray", "pink", "orange", "purple", "own", "local", "favourite", "favorite", "main",
     "usual", "current", "previous", "latest", "early", "late", "second", "third", "whole"}
)  # fmt: skip


def _noun_modifier(word: str) -> bool:
    """Whether ``word``, tagged an adjective before a noun, names a kind of thing
    ("falconry", "pottery") rather than a quality ("new", "red")."""
    return (
        word not in _DEGREE
        and not word.endswith(("ed", "ous", "ful", "ive", "ic", "al", "est", "er"))
        and known_noun(word)
    )


def _nouns(text: str) -> set[str]:
    """The lemmas of the nouns ``text`` says, proper ones too ("Dad", "Mum": the
    tagger calls a relation's word a name when it is written as one)."""
    return {t.lemma_.lower() for t in nlp.parse(text) if t.pos_ in ("NOUN", "PROPN")}


#: what anyone has (``words.EVERYONE_HAS``), by its key
_EVERYONE_HAS = frozenset(words.word_key(w) for w in words.EVERYONE_HAS)


def _kin(key: str, keys: set[str]) -> bool:
    """Whether ``keys`` hold ``key`` or a word of its family: one key starting with
    the other, five letters or more ("teacher" and "teach" of "teaching", "director"
    and "direct" of "directs", which the stemmer keeps apart; not "company" and
    "compare")."""
    return key in keys or any(words.one_family(key, k) for k in keys)


def asked_by_kin(
    question: Question, evidence: Sequence[Hit], around: Around
) -> tuple[str, Hit | None]:
    """Where no sentence of the evidence shares a word with the question, a memory
    that answers a turn saying a word of the family of one of its nouns ("Who's
    supervising you?" / "Professor Hallgerd Vinter." of "Who is my doctoral
    supervisor?"): its first sentence and the memory, for the typed reader to read.
    ("", None) when none does."""
    keys = set(_noun_keys(question.text)) & set(question.topic_keys)
    before = around.before(list(evidence)) if around.before is not None and keys else {}
    for h in evidence:
        asking = before.get(h.id)
        if asking is None or not asking.text.rstrip().endswith("?"):
            continue
        said = set(words.content_keys(asking.text))
        if any(_kin(k, said) for k in keys):
            parts = sentences(h.text)
            return (parts[0] if parts else h.text), h
    return "", None


def _about_subject(
    question: Question, sources: list[Source], nearness: Nearness | None
) -> list[Source]:
    """For a question asking an entity (a name, an age, a number), the sources that
    speak of what it is asked of: by a word of it other than the names the question
    gives and the words naming the kind, or near it in meaning (``nearness``, by the
    verdict's premise threshold: "my dog" and "I adopted a greyhound named Biscuit");
    a word that modifies none also by a word of its family ("Remind me who's teaching
    it?" of "the name of Oona's teacher", "who did the operation" of "the surgeon who
    operated"; a modifier's family says less: "replacing the filter" is not about "the
    replacement heater"). A reply inherits
    its asking turn's standing. "What is the name of Priya's brother?": a memory about
    Priya's cello teacher names no brother."""
    subject = question.topic_keys - _kind_keys(question.text)
    if not subject:
        return sources
    said = [w for w, k in question.content if k in subject]
    near = nearness(" ".join(said), [h for h, _, _ in sources]) if nearness and said else {}
    heads = _heads(question.text) & subject

    def about(hit: Hit) -> bool:
        keys = words.content_keys(hit.text)
        if subject & keys or _any_kin(heads, keys) or near.get(hit.id, 0.0) >= RELATED_MIN:
            return True
        nouns = _nouns(hit.text)  # a kind of it: "Dad" of "my father"
        return any(is_a(n, w) for w in said for n in nouns if n != w)

    return _standing(sources, about)


@cache
def _noun_keys(question: str) -> frozenset[str]:
    """The keys of the question's nouns ("teacher" of "What's the name of Oona's
    teacher?")."""
    return frozenset(
        words.word_key(t.lower_) for t in nlp.parse(question) if t.pos_ in ("NOUN", "PROPN")
    )


@cache
def _heads(question: str) -> frozenset[str]:
    """The keys of the question's words that modify no other ("teacher" and not
    "bookbinding" of "Oona's bookbinding teacher")."""
    return frozenset(
        words.word_key(t.lower_) for t in nlp.parse(question) if t.dep_ not in ("compound", "amod")
    )


def _any_kin(keys: frozenset[str], said: set[str]) -> bool:
    """Whether ``said`` holds any of ``keys`` or a word of its family (:func:`_kin`:
    "the operation" speaks of "the surgeon who operated", as the fit reads it)."""
    return any(_kin(k, said) for k in keys)
