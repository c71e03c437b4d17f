"""Candidate answers in a parsed sentence: the phrases a typed reader chooses among.

Each function takes a sentence parsed by :mod:`remem.answer.nlp` (a spaCy ``Span``)
and returns phrases of it, each with its origin, the rule that found it (a key of
:data:`FITS`; :mod:`remem.answer.rank` scores a phrase by its origin and the rest):

- entities of the kind asked (``want.LABELS``), and for a person also runs of proper
  nouns and a name given as one ("a greyhound named Biscuit"), which the small
  tagger leaves unlabelled or labels wrong;
- for a thing: any entity, a quoted title, the noun phrases (the one whose noun the
  question asks for first), the phrases a question word of the sentence governs (its
  object, its complement, a preposition's object), the phrase that plays the asked
  thing's role for the question's verb, and for "What did X do?" the verb phrases.

Every phrase is a run of the sentence's own words: the reader cuts, never writes.
The rules were written by reading the reader's mistakes on a chat benchmark, the
check conversations and the demo; no half of the benchmark was held out from that
reading, so its figures are not held-out ones
(docs/benchmarks.md#answers-a-person-reads-the-typed-reader-issue-37). The hand
weights of :data:`FITS` are round numbers in one order; the fitted ones (on half the
benchmark's conversations, the same table) replace them where the reader's weights
file is installed.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from .. import words
from ..question import Question
from ..time.current import relations
from ..time.patterns import CALENDAR_WORDS, WEEKDAYS
from ..time.resolve import AHEAD, BACK
from .classes import COLOUR_NOUNS, COLOURS
from .kinds import concrete, country, is_a, verbs_kin
from .nlp import parse
from .now import RENAMED, counted, measured
from .want import (
    ENSEMBLES,
    LABELS,
    NUMBER_NOUNS,
    ORG_NOUNS,
    PERCENT_NOUNS,
    ROLES,
    STRICT,
    TIME_UNITS,
    Want,
    named_noun_of,
)

#: what each origin of a candidate phrase adds to its score, by hand, in one order (a
#: wanted kind and a role > a governed phrase or a quoted title > a doing verb > any
#: entity > any noun phrase); :mod:`remem.answer.rank` holds the weights fitted over
#: these same origins, which the reader uses when they are there
FITS: dict[str, float] = {
    "kind": 1.5,  # an entity of the wanted kind
    "named": 1.5,  # a name given as one ("a greyhound named Biscuit")
    "proper": 0.75,  # an unlabelled run of proper nouns of the kind
    "pattern": 1.5,  # a clock time, a number of units, a frequency
    "given": 1.5,  # a name given as one, for a thing
    "given_head": 3.0,  # ... naming the noun asked for ("a novel called X")
    "entity": 0.5,  # any entity, for a thing
    "quoted": 1.0,  # a quoted title
    "head": 1.5,  # a noun phrase of the noun asked for
    "chunk": 0.0,  # any noun phrase
    "governed_verb": 1.0,  # a phrase a verb of the question governs
    "governed_noun": 0.5,  # ... a noun of the question governs
    "copula": 1.5,  # across "be" from a question word
    "role": 1.5,  # the asked thing's role for the question's verb
    "doing": 0.8,  # a main verb phrase, for "What did X do?"
    "doing_sub": 0.4,  # a subordinate one
    "because": 1.5,  # a clause "because" opens
    "purpose": 1.0,  # a purpose ("to help others")
    "sentence": 0.0,  # the whole sentence, for a thing no phrase names well
}
#: the keys of the words that name a time ("last Sunday", "next May", "this week")
TIME_KEYS = frozenset(
    words.content_keys(" ".join(sorted(CALENDAR_WORDS | BACK | AHEAD)))
    | words.content_keys("this week weekend month year day today yesterday tomorrow ago")
)
#: ... and the weekdays shortened, as the time layer reads them after "last" or "on"
_SHORT_DAYS = words.content_keys("mon tue tues wed thu thur thurs fri sat sun")
#: the shortest asked noun looked for inside a word ("phone" in "iPhone")
_INSIDE = 4
#: the longest candidate phrase, in words
LONGEST = 16

#: the dependencies whose phrase a question word governs
_GOVERNED = frozenset({"dobj", "attr", "oprd", "acomp", "xcomp", "pobj", "ccomp", "npadvmod"})
#: what a verb's phrase keeps as its objects
_OBJECTS = frozenset({"dobj", "dative", "prt", "attr", "acomp", "xcomp", "ccomp", "oprd"})
#: words a candidate is trimmed of at its start ("my old car" -> "old car")
_LEADING = frozenset(
    "a an the my our your his her their its this that these those some".split()  # noqa: SIM905
)
_TIMELY = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT"})
_BECAUSE = frozenset({"because", "cause", "'cause"})
LOCATIVE = frozenset({"in", "at", "on", "from", "to", "near"})
_WHERE = frozenset({"in", "at", "on", "near", "outside", "beyond", "towards", "toward"})
_NOT_PEOPLE = frozenset({"GPE", "LOC", "FAC", "ORG", "NORP", "WORK_OF_ART", "EVENT", "PRODUCT"})
#: the numbers said in words (a regex alternation)
NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety"
)
#: a number of one unit of time ("58 minutes", "2.5 hrs")
#: a count said in words ("nine days", "six weeks", "a couple of hours")
_COUNT_WORDS = (
    rf"(?:(?:{NUMBER_WORDS})(?:-(?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|a\s+couple\s+of|a\s+few)"
)
_UNIT = (
    rf"(?:\d+(?:\.\d+)?|{_COUNT_WORDS}\s)\s*"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weekends?|weeks?|"
    r"fortnights?|months?|years?|decades?)"
)
#: a time on a clock or a stopwatch ("7:58", "1:53:48") and a duration in units, all
#: of them ("1 hour 58 minutes", "2 hours and 5 minutes": not "1 hour" of it)
_CLOCK = re.compile(
    rf"\b(\d{{1,2}}:\d{{2}}(?::\d{{2}})?|{_UNIT}(?:,?\s+(?:and\s+)?{_UNIT})*)\b",
    re.I,
)
#: what a stopwatch reads: a clock ("1:53:48") or hours, minutes, seconds
_STOPWATCH = re.compile(r"\d:\d{2}|\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?)\b", re.I)


#: a sum after a currency's letters, written as one word ("R1,200", "kr450", "CHF 80")
_CODED_SUM = re.compile(
    r"(?<![\w$])((?:R|Rs|kr|CHF|NZ\$|A\$|C\$|US\$|HK\$|S\$|zł)\s?\d[\d,]*(?:\.\d\d)?)(?![\w-])"
    # a sum after its currency's sign, which the tagger now and then leaves unlabelled
    # ("I paid £900 each")
    r"|(?<![\w$£€])([£$€¥]\d[\d,]*(?:\.\d\d)?)(?![\w-])"
)


def stopwatch(text: str) -> bool:
    """Whether ``text`` reads as a stopwatch does (:data:`_STOPWATCH`)."""
    return bool(_STOPWATCH.search(text))


def timed_result(want: Want) -> bool:
    """Whether the question asks for a time one made ("What was my finishing time?",
    "Priya's time in the half marathon"): a length on a stopwatch, never days or
    weeks (the length of a training plan is no race's time)."""
    return want.kind == "duration" and want.head == "time"


#: a time on a clock ("8:15", "7pm", "7 a.m.")
_CLOCK_TIME = re.compile(r"\b\d{1,2}(?::\d{2}|\s*[ap]\.?m\b\.?)", re.I)
#: what names a time of day ("8:15", "7pm", "noon", "half past six")
_DAYTIME = re.compile(
    r"\d|\b(?:noon|midday|midnight|o'clock|half\s+past|quarter\s+(?:past|to))\b", re.I
)
_QUOTES = re.compile(r"[\"“]([^\"“”]{2,60})[\"”]")
#: "What did X do?", "What was Sam doing?" (not "Do you...?", not "do they")
DOING = re.compile(r"(?<!^)\b(?:do|doing)\b(?!\s+(?:you|they|we|i|he|she|it)\b)", re.I)
#: the words a name is given with ("a greyhound named Biscuit")
CALLING = frozenset({"called", "named"})
#: a name given as one: "a greyhound named Biscuit", "a band called The Wombats"
#: a name given, or given anew ("I've renamed him Marlowe", ``now.RENAMED``)
_NAMED = re.compile(
    r"\b(?:named|called|name is|name's)\s+(?:the\s+)?((?:[A-Z][\w'-]*\s?){1,4})|" + RENAMED
)


def gives_name(text: str) -> bool:
    """Whether ``text`` gives a name ("a guy called Declan", "I've renamed him
    Marlowe", "so she's Pimenta now"): it speaks to a question asking what one is
    called, whatever words it shares with it."""
    return _NAMED.search(text) is not None


#: a day of the week, with the part of it ("Sunday mornings", "on Wednesdays")
WEEKDAY = re.compile(
    rf"\b((?:{'|'.join(day.removesuffix('day') for day in WEEKDAYS)})days?"
    r"(?:\s+(?:mornings?|afternoons?|evenings?|nights?|lunchtimes?))?)\b",
    re.I,
)
_FREQUENCY = re.compile(
    r"\b((?:once|twice|three times|four times|\w+ times|every other|every|each)\s+"
    r"(?:a\s+|per\s+|every\s+|other\s+)?(?:day|week|month|year|morning|night|evening|"
    r"weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|daily|weekly|"
    r"monthly|yearly|every day|everyday)\b",
    re.I,
)


def phrases(sent: Any, want: Want, matched: list[Any], question: Question) -> list[tuple[Any, str]]:
    """The candidate phrases of ``sent``, each with its origin (a key of :data:`FITS`)."""
    if want.kind in STRICT:
        return _entities(sent, want, question)
    if want.kind == "reason":
        return _reasons(sent)
    # any entity a little; not a person when a thing is asked by its noun ("What
    # phone?" is not answered by the band seen that night)
    people = ("PERSON",) if want.head else ()
    out = [(e, "entity") for e in sent.ents if e.label_ not in ("DATE", "TIME", *people)]
    out += [(s, "quoted") for s in _pattern_spans(sent, _QUOTES)]
    named = _pattern_spans(sent, _NAMED)
    out += [(s, _given(s, want)) for s in named if not named_other(s, want, question)]
    chunks = [c for c in sent.noun_chunks if c.root.pos_ != "PRON"]
    out += [(c, _chunk(c, want)) for c in chunks + _numbered(sent, chunks)]
    out += _governed(matched)
    out += _played(sent, want, question)
    if want.head in COLOUR_NOUNS:  # "a sage green", which the parser splits
        out += [(_named_colour(s), "pattern") for s in _pattern_spans(sent, _COLOUR_RUN)]
    if DOING.search(question.text):
        out += _verb_phrases(sent)
    return out


_COLOUR_WORD = "|".join(sorted(COLOURS))
#: a colour said in one or more words ("sage green", "pale blue", "blue-grey")
_COLOUR_RUN = re.compile(
    rf"\b((?:(?:pale|light|dark|deep|bright|soft|dusty|pastel)\s+)?(?:{_COLOUR_WORD})"
    rf"(?:[\s-]+(?:{_COLOUR_WORD}))*)\b",
    re.I,
)


def _named_colour(span: Any) -> Any:
    """A colour run with the word before it where the two are a colour's name that
    WordNet knows ("bottle green", "brick red", "royal blue"; not "house green"),
    else the run."""
    if span.start > span.sent.start:
        before = span.doc[span.start - 1]
        if before.is_alpha and before.is_lower and is_a(f"{before.lower_} {span.text}", "colour"):
            return span.doc[span.start - 1 : span.end]
    return span


def _reasons(sent: Any) -> list[tuple[Any, str]]:
    """The clauses that give a reason, the answer to "Why...?": one "because" opens
    ("since" and "as" tell a time as often: "since we last talked"), and one of
    purpose ("to help others")."""
    out = []
    for t in sent:
        if t.dep_ == "mark" and t.lower_ in _BECAUSE:
            clause = t.head
            out.append((t.doc[t.i + 1 : clause.right_edge.i + 1], "because"))
        elif t.dep_ in ("advcl", "xcomp") and any(c.lower_ == "to" for c in t.children):
            out.append((t.doc[t.i : t.right_edge.i + 1], "purpose"))
    return [(s, f) for s, f in out if 0 < len(s) <= LONGEST]


#: the nouns a place is asked by that a venue answers ("Which place did we book for
#: the reception?": "Fernleigh Village Hall", which the small tagger calls an
#: organisation), and the labels a venue's name is given beside a place's
VENUE_NOUNS = frozenset({"place", "venue", "spot"})
_VENUE_LABELS = frozenset({"ORG"})


def _entities(sent: Any, want: Want, question: Question) -> list[tuple[Any, str]]:
    """The phrases of an entity kind: its labelled entities; for a person also a
    name given as one ("a greyhound named Biscuit") and the proper nouns the tagger
    left unlabelled, or labelled otherwise when they name a noun beside them ("my
    neighbour Oksana": :func:`_unnamed`); for a place or organisation the unlabelled
    proper nouns (:func:`_unlabelled`); for a duration a clock time or a number of
    units ("7:58")."""
    labels = LABELS[want.kind] | (_VENUE_LABELS if want.head in VENUE_NOUNS else frozenset())
    out = [(e, "kind") for e in sent.ents if e.label_ in labels and _fits(e, want)]
    if want.kind in ("org", "workplace"):  # "Hexley and District Beekeepers' Association"
        out = [(_joined(e), o) if e.label_ == "ORG" else (e, o) for e, o in out]
    if want.kind == "number" and not measured(question):
        # "13cm" counts no hedgehogs; "10 lessons", which the tagger may call a
        # quantity, counts the lessons asked
        units = counted(question)
        out = [(e, o) for e, o in out if e.label_ != "QUANTITY" or _counts(e, units)]
    if want.kind == "person":
        runs = _proper_runs(sent)
        out += [(s, "named") for s in _pattern_spans(sent, _NAMED) if not names_a_thing(s)]
        out += [(s, "proper") for s in runs if _unnamed(s) and not _names_no_one(s)]
        out += [(s, "named") for s in _titled(sent)]
        out += [(e, "role") for e in [*sent.ents, *runs] if _the_doer(e, want)]
        if want.head:  # "My new teaching assistant, Fenella Quarrie"
            out += [(e, "named") for e in sent.ents if _beside_noun(e, want.head)]
    elif want.kind in ("place", "org", "workplace"):
        runs = _proper_runs(sent)
        out += [
            (s, "proper")
            for s in runs
            if _unlabelled(s, want)
            and not _first_name_doing(s)
            and not (want.kind == "workplace" and _owned(s.root))
        ]
        if want.kind != "place":
            out += _named_bodies(sent, question)
        if want.head:  # "Skomer, the island off Pembrokeshire", whatever its label
            out += [(e, "named") for e in sent.ents if _beside_noun(e, want.head)]
            # "the Brackenridge Bird of Prey Centre" of "Which centre...?": a name
            # ending in the noun asked is that noun's, whatever the tagger labels
            out += [
                (s, "named")
                for s in runs
                if len(s) > 1
                and s[-1].lemma_.lower() == want.head
                # not a part of a name labelled whole ("the Northcliff Sub-Aqua Club")
                and not any(_inside(s, e) for e in sent.ents)
            ]
        if want.head in SETTLEMENTS:  # "Which town did I drive to?": not "Germany"
            out = [(e, o) for e, o in out if _settled(e)]
    elif want.kind == "number" and want.head in NUMBER_NOUNS:
        # a number naming a thing, after it ("Plot 14", "room 5"), not one counting
        # it, before it ("about 60 plots")
        out = [(e, o) for e, o in out if e.root.like_num and not _counting(e.root)]
        at = sent.start
        out += [
            (sent[t.i - at : t.i - at + 1], "pattern")
            for t in sent
            # not a word of a name ("the Three Weirs Triathlon")
            if t.like_num and not _counting(t) and not t.ent_type_ and t.pos_ != "PROPN"
        ]
    elif want.kind == "money":  # "R1,200", which the tagger reads as a name
        taken = {t.i for e, _ in out for t in e}
        out += [(s, "pattern") for s in _pattern_spans(sent, _CODED_SUM) if s.root.i not in taken]
    elif want.kind == "frequency":
        out += [(s, "pattern") for s in _pattern_spans(sent, _FREQUENCY)]
    elif want.kind == "weekday":
        out += [(s, "pattern") for s in _pattern_spans(sent, WEEKDAY)]
    elif want.kind == "rank":  # "We were runners-up", which no tagger calls an ordinal
        out += [(s, "pattern") for s in _pattern_spans(sent, _RUNNER_UP)]
    elif want.kind in ("duration", "time", "length"):
        clocks = _pattern_spans(sent, _CLOCK)
        if want.kind == "time":  # a time of day: "8:15", not "eight weeks" or "2 hours"
            clocks = [s for s in clocks if _CLOCK_TIME.search(s.text)]
        if timed_result(want):  # a race's time: "1:53:48", not "ten days"
            clocks = [s for s in clocks if stopwatch(s.text)]
        out += [(s, "pattern") for s in clocks]
    return out


def _joined(entity: Any) -> Any:
    """An organisation's name with the proper nouns joined to it by "and" or "&"
    before it, which the tagger reads apart ("Hexley" a person, "District
    Beekeepers' Association" an organisation; "Marks and Spencer")."""
    doc, start = entity.doc, entity.start
    if start < 2 or doc[start - 1].lower_ not in ("and", "&") or doc[start - 2].pos_ != "PROPN":
        return entity
    from spacy.tokens import Span  # the pipeline is loaded: its parse is at hand

    first = start - 2
    while first > 0 and doc[first - 1].pos_ == "PROPN" and doc[first - 1].text[:1].isupper():
        first -= 1
    return Span(doc, first, entity.end, label=entity.label_)


#: a time entity that spans some time: a count of hours or minutes ("two hours",
#: "an hour and ten minutes", "half an hour"), not a part of a day ("Thursday night")
_TIME_SPAN = re.compile(r"\b(?:hours?|minutes?|mins?|seconds?|hrs?)\b", re.I)


def _names_no_one(name: Any) -> bool:
    """Whether a name, labelled a person's or not, names no one by what it is: a
    thing's after "the", a holiday, a kind before its noun ("Beulah ewes")."""
    return _the(name) or _holiday(name) or _modifies_noun(name)


def _modifies_noun(entity: Any) -> bool:
    """Whether a name stands before a common noun in the plural that it describes: a
    breed, a make or a kind ("Beulah ewes", "Harris hawks"), no one. The plural, as
    kinds are said: a verb the tagger takes for a noun ("Fiachra rang") is singular;
    a singular one only when it is a physical thing's noun ("a Harris hawk")."""
    root = entity.root
    head = root.head
    if root.dep_ in ("compound", "amod") and head.tag_ == "NNS" and head.i >= entity.end:
        return head.text.islower()  # "Collegiate Peaks Search Dogs" is one name
    if root.dep_ == "compound" and head.tag_ == "NN" and head.i == entity.end:
        # one thing of the kind ("a female Harris hawk", "my Brompton bike"): a
        # physical thing's noun WordNet knows, no person's
        noun = head.lemma_.lower()
        return head.text.islower() and concrete(noun) and not is_a(noun, "person", senses=1)
    # the parser may hang it elsewhere ("a hundred and twenty Beulah ewes"); not a
    # name given something ("gave Tom flowers")
    after = entity.doc[entity.end] if entity.end < len(entity.doc) else None
    return (
        after is not None
        and after.tag_ == "NNS"
        and after.text.islower()
        and root.dep_ not in ("dative", "dobj", "nsubj", "nsubjpass")
    )


def _inside(run: Any, entity: Any) -> bool:
    """Whether a run of proper nouns is a part of a longer labelled name ("Aqua Club"
    of "the Northcliff Sub-Aqua Club"), its determiner aside."""
    named = [t for t in entity if t.pos_ != "DET"]
    return entity.start <= run.start and run.end <= entity.end and len(named) > len(run)


#: second place said in a word
_RUNNER_UP = re.compile(r"\brunners?[- ]up\b", re.I)
#: the nouns an ordinal before them ranks by ("third place")
_RANKS = frozenset({"place", "position", "spot", "prize"})
#: the verbs an ordinal after them ranks by ("we came third")
_RANKING = frozenset({"finish", "come", "place", "end", "rank", "be", "score", "overall"})


def _holiday(entity: Any) -> bool:
    """Whether a one-word entity is a holiday's name ("The new vicar started after
    Easter", which the tagger calls a person; WordNet knows it a holiday)."""
    return len(entity) == 1 and is_a(entity.root.lower_, "holiday")


def _fits(entity: Any, want: Want) -> bool:
    """Whether a labelled entity is of the kind: a duration's DATE, number or quantity
    is a length ("three years", "7:58"), not a day ("yesterday", "last week") or a
    distance ("the last 200 metres"), which a length asked with "is" may be ("How
    long is the loop?": "42 kilometres"); an age is no count of things; a person is not
    where something is ("the music school on Rua Nova", which the tagger calls a
    person) nor a holiday nor a name describing a noun ("Beulah ewes"); a time of day
    no count of minutes ("44 minutes")."""
    if want.kind == "person":
        return not _placed(entity.root) and not names_a_thing(entity) and not _names_no_one(entity)
    if want.kind == "age":
        return _aged(entity) and not _then(entity.root)
    if want.kind == "money":
        return _priced(entity)
    if want.kind == "number" and entity.label_ == "MONEY" and not want.head:
        return False  # a count asked ("the number of people") is no sum: "£5,200"
    if want.kind == "number" and want.head in PERCENT_NOUNS:
        return entity.label_ == "PERCENT"  # "5.8%", not the 40 litres it was made of
    if want.kind == "number" and _quantified(entity):
        return False  # "every one of them" counts nothing: it says all
    if want.kind == "number" and entity.label_ in ("DATE", "TIME"):
        # only a count of the unit asked ("three days"), never "last week"; or the
        # digits the asked noun is given by ("Sail number 2316", tagged a year)
        if _numbers_noun(entity, want.head):
            return True
        return want.head in TIME_UNITS and _counts(entity, {want.head})
    if want.kind == "org" and entity.root.dep_ == "appos":
        # "The owner, Beatrice Hale": the name of a person the noun says she is
        return entity.root.head.lemma_.lower() in ORG_NOUNS
    if want.kind == "workplace" and _owned(entity.root):
        return False  # "I finally sold my old Peugeot" is no place of work
    if want.kind in ("place", "org") and entity.label_ == "GPE" and built(want.head):
        return False  # "Which hotel did I stay at in Trieste?": no city is a hotel
    if want.kind == "time":  # a time of day: "8:15", "noon", not "an hour" or "tonight"
        # nor a count of hours or minutes ("It took 44 minutes"), which is a length
        return bool(_DAYTIME.search(entity.text)) and not _TIME_SPAN.search(entity.text)
    if want.kind == "weekday":  # "Sunday mornings", not "June" or "yesterday"
        return bool(WEEKDAY.search(entity.text))
    if want.kind == "rank":  # "came third", "in 2nd place"; not "my first quarter peal"
        root = entity.root  # nor "Weigh it first"
        head = root.head.lemma_.lower()
        if root.dep_ == "amod":
            return head in _RANKS
        return root.dep_ not in ("advmod", "npadvmod") or head in _RANKING
    if timed_result(want) and not stopwatch(entity.text):
        return False  # a race's time is no "ten days" or "sixteen weeks"
    if want.kind not in ("duration", "length"):
        return True
    if entity.label_ == "TIME":  # "two hours", "half an hour"; not "Thursday night"
        return _CLOCK.search(entity.text) is not None or _TIME_SPAN.search(entity.text) is not None
    if want.kind == "length" and entity.label_ == "QUANTITY":
        return True  # "42 kilometres" is a length too
    return bool(_CLOCK.search(entity.text))  # not "200 metres", "three" or "last week"


def _numbers_noun(entity: Any, noun: str) -> bool:
    """Whether ``entity`` is bare digits that number ``noun`` ("number 2316",
    "plot 14"): what a "What number...?" asks, whatever the tagger calls it."""
    root = entity.root
    return (
        bool(noun)
        and entity.text.isdigit()
        and root.dep_ in ("nummod", "appos", "compound")
        and root.head.lemma_.lower() == noun
    )


def _beside_noun(entity: Any, noun: str) -> bool:
    """Whether a name stands in apposition with ``noun`` ("Skomer, the island off
    Pembrokeshire"; "the island, Skomer"): it names one."""
    root = entity.root
    if root.dep_ == "appos" and root.head.lemma_.lower() == noun:
        return True
    return any(c.dep_ == "appos" and c.lemma_.lower() == noun for c in root.children)


def _quantified(entity: Any) -> bool:
    """Whether a number counts nothing: it follows "every", "each" or "any" ("every
    one of them"), or is a share ("half of it")."""
    start = entity.start
    if entity.text.lower() in ("half", "a half", "quarter", "a quarter"):
        return True
    return start > 0 and entity.doc[start - 1].lower_ in ("every", "each", "any")


#: the nouns asking for a place people live in, smaller than a country
SETTLEMENTS = frozenset({"town", "city", "village", "suburb", "hamlet"})


def _settled(entity: Any) -> bool:
    """Whether ``entity`` may be a town: not a building or a venue the tagger reads
    as one (FAC), and not a country (WordNet's instances: "Germany", "UK")."""
    return entity.label_ != "FAC" and not country(entity.text)


@cache
def built(noun: str) -> bool:
    """Whether a place asked by ``noun`` is built, with a name of its own (a hotel, a
    pub, a museum, an airport: WordNet's structures and facilities), which a town
    or a country it stands in does not answer."""
    return bool(noun) and (is_a(noun, "structure") or is_a(noun, "facility"))


#: the nouns a number counts when it tells an age ("two years", "3 months old")
_AGE_UNITS = frozenset({"year", "month", "week", "day"})


#: a price by the period ("1050 a month", "80 per night"), which the tagger calls a date
_PER_PERIOD = re.compile(
    r"^\W*\d[\d,.]*\s+(?:a|an|per)\s+(?:month|week|year|night|day|hour)$", re.I
)
#: what opens a clause that tells an earlier time ("since he was twelve")
_THEN = frozenset({"since", "when", "until", "till", "before", "after", "as"})


def _counts(entity: Any, units: frozenset[str] | set[str]) -> bool:
    """Whether a date or time entity counts one of ``units``: a number and the unit
    ("three days", "48 hours")."""
    return any(t.like_num for t in entity) and any(t.lemma_.lower() in units for t in entity)


def _priced(entity: Any) -> bool:
    """Whether an entity can be a price: money, a price by the period ("1050 a
    month"), or a bare number that counts nothing ("It was 650"; not "Two bedrooms")."""
    if entity.label_ == "MONEY":
        return True
    if entity.label_ == "DATE":
        return bool(_PER_PERIOD.match(entity.text))
    if entity.text.lower() in _FEW:
        return False  # "I bought one", "the two of them": a count, no sum
    root = entity.root
    if any(c.dep_ == "prep" and c.lower_ == "of" for c in root.children):
        return False  # "one of my resolutions" counts a part
    if root.lower_ in _SHARES and not any(ch.isdigit() for ch in entity.text):
        return False  # "half the reason I chose it", "pays a third": a share, no amount
    if _measured(entity):
        return False  # "half a kilo", "two an hour": a share of a unit, no price
    if any(c.lower_ == "the" or c.dep_ == "amod" for c in root.children):
        return False  # "the last four go in after the holiday": a count of things said
    if root.dep_ == "nummod" and root.head.lemma_.lower() in CURRENCIES:
        return True  # "950 euro", which the tagger leaves a bare number
    if root.dep_ == "nummod" and root.head.pos_ == "PROPN":
        return False  # "14 Blackthorn Close": a house's number
    return not (root.dep_ == "nummod" and root.head.pos_ == "NOUN")


#: small numbers said in words, which count things and price none ("one", "two")
_FEW = frozenset(NUMBER_WORDS.split("|")[:12])
#: the words of a share of something, which say no amount of money
_SHARES = frozenset({"half", "halves", "third", "thirds", "quarter", "quarters", "double", "twice"})

#: the periods a price is said by ("650 a month")
_PERIODS = frozenset({"month", "week", "year", "night", "day", "hour", "session", "lesson"})


def _measured(entity: Any) -> bool:
    """Whether a bare number is a share of a unit said after it: "half a kilo",
    "three a week" aside (a price by the period, when a currency says it: "650 a
    month" is read as a date)."""
    doc, end = entity.doc, entity.end
    if end + 1 >= len(doc) or doc[end].lower_ not in ("a", "an"):
        return False
    unit = doc[end + 1]
    return unit.pos_ == "NOUN" and unit.lemma_.lower() not in _PERIODS | CURRENCIES


#: the units a price is counted in: a number before one is a price, and prices no
#: other thing (:func:`priced_noun`'s noun)
CURRENCIES = frozenset(
    {"euro", "euros", "pound", "pounds", "quid", "dollar", "dollars", "buck", "bucks",
     "pence", "p", "cent", "cents", "franc", "francs", "krona", "kronor", "zloty", "yen"}
)  # fmt: skip


def priced_noun(span: Any) -> Any:
    """The noun a price is said of, by the parse, or None: "The table was £145" ->
    table, "I paid £40 for the toolkit" -> toolkit, "the lamp cost £30" -> lamp, "a
    £40 toolkit" and "a toolkit for £40" -> toolkit."""
    root = span.root
    head = root.head
    if root.dep_ in ("attr", "acomp") and head.lemma_ == "be":
        return _child(head, ("nsubj",))
    if root.dep_ == "dobj" and head.lemma_ in ("pay", "spend"):
        after = _child(head, ("prep",), "for")
        return _child(after, ("pobj",)) if after is not None else None
    if root.dep_ in ("dobj", "npadvmod", "attr") and head.lemma_ == "cost":
        return _child(head, ("nsubj",))
    if root.dep_ in ("nummod", "compound", "amod") and head.pos_ == "NOUN":
        return head
    if root.dep_ == "pobj" and head.lower_ == "for" and head.head.pos_ == "NOUN":
        return head.head
    return None


def _child(token: Any, deps: tuple[str, ...], word: str = "") -> Any:
    """``token``'s first child of one of ``deps`` (and, given, of that word), or None."""
    return next(
        (c for c in token.children if c.dep_ in deps and (not word or c.lower_ == word)), None
    )


def _then(token: Any) -> bool:
    """Whether ``token`` is said of an earlier time in a clause of its own ("He's been
    climbing since he was twelve": twelve was his age then, not now)."""
    verb = token.head
    return verb.lemma_ == "be" and any(
        c.dep_ == "mark" and c.lower_ in _THEN for c in verb.children
    )


#: a year written in digits, which no one's age is
_YEAR = re.compile(r"(?:1[5-9]|20)\d\d")


def _aged(entity: Any) -> bool:
    """Whether a number or a date entity can tell an age: a number of years, months,
    weeks or days ("two years old", "18 months"), or a bare number that counts
    nothing else ("She's two"; not "two plants", not "last week"; "Cheeky. 63.", whose
    number the parser hangs on the word before it, counts nothing)."""
    if entity.label_ == "DATE":
        if _lasting(entity):
            return False  # "The rescue had them for about eight months": how long
        if all(t.like_num for t in entity):
            return not _YEAR.fullmatch(entity.text.strip())  # "since 1985" is no age
        return _counts(entity, _AGE_UNITS) and _said_old(entity)
    root = entity.root
    counting = root.dep_ == "nummod" and root.head.i > root.i  # the noun after it
    return not (counting and root.head.lemma_.lower() not in _AGE_UNITS)


def _said_old(entity: Any) -> bool:
    """Whether a number of years, months, weeks or days is said as an age: "old" after
    it ("two years old", "a 3-year-old"), "aged" or "age" before it, across "be"
    ("He's 18 months"), or turned ("she turns two years this week"); not "About ten
    days.", the answer to how long results take."""
    doc, root = entity.doc, entity.root
    after = doc[entity.end].lower_ if entity.end < len(doc) else ""
    before = doc[entity.start - 1].lower_ if entity.start >= 1 else ""
    return (
        after == "old"
        or "old" in entity.text.lower()
        or before in ("aged", "age")
        or root.dep_ in ("attr", "acomp")
        or root.head.lemma_.lower() in ("turn", "be")
    )


#: words that may stand between "for" and a length of time ("for about eight months")
_ABOUT = frozenset({"about", "around", "nearly", "almost", "over", "roughly", "just", "only"})


def _lasting(entity: Any) -> bool:
    """Whether a time entity is how long something went on, after "for" ("for about
    eight months"), and so no one's age."""
    at = entity.start - 1
    doc = entity.doc
    while at >= 0 and doc[at].lower_ in _ABOUT:
        at -= 1
    return at >= 0 and doc[at].lower_ == "for"


#: nouns of things with names that are no person's: a name right after one (a comma
#: between) is the thing's ("another band, Paper Harbour", which the tagger calls a
#: person)
NAMED_THINGS = ORG_NOUNS | frozenset(
    "band team club choir group album song book novel film movie show podcast game "  # noqa: SIM905
    "city town village country street pub bar venue boat ship place spot".split()
)


#: things people name that :data:`NAMED_THINGS` leaves out
_VEHICLES = frozenset({"truck", "van", "car", "bike", "caravan", "camper", "business", "shop"})


def names_a_thing(entity: Any) -> bool:
    """Whether ``entity`` stands right after a noun of :data:`NAMED_THINGS` as its
    name ("another band, Paper Harbour", "a place called The Kiln Room"; not "my
    cousin Ezekiel", "a woman named Hester")."""
    at = entity.start - 1
    doc = entity.doc
    if at >= 1 and doc[at].lower_ == "the" and doc[at - 1].lower_ in CALLING:
        at -= 1  # "It's called the Brindley Street Singers"
    if at >= 0 and doc[at].lower_ in CALLING and _called_a_thing(doc[at]):
        return True  # "The truck's called Jollof Junction", "It's called Heron Lodge"
    if at >= 0 and (doc[at].text == "," or doc[at].lower_ in CALLING):
        at -= 1  # "another band, Paper Harbour", "a place called The Kiln Room"
    return at >= 0 and doc[at].pos_ == "NOUN" and doc[at].lemma_.lower() in NAMED_THINGS


def _named_bodies(sent: Any, question: Question) -> list[tuple[Any, str]]:
    """The names ``sent`` gives a thing or a body ("a place called The Kiln Room"), or
    a noun of the family of the question's words ("a caterer from Priya's list called
    Hatherley Kitchen", of "Which catering company...?"): an organisation's, whatever
    the tagger labels them."""
    return [
        (s, "named")
        for s in _pattern_spans(sent, _NAMED)
        if names_a_thing(s) or _called_kin(s, question.keys)
    ]


def _called_kin(name: Any, keys: frozenset[str]) -> bool:
    """Whether a name is given with "called" or "named" to a noun of the family of a
    question's word (``keys``), among the few words before it: "a caterer from
    Priya's list called Hatherley Kitchen" of "Which catering company...?"
    (``words.one_family``: "cater"; the parser may hang "called" on the verb)."""
    doc = name.doc
    at = name.start - 1
    if at < 1 or doc[at].lower_ not in CALLING:
        return False
    return any(
        t.pos_ == "NOUN" and any(words.one_family(words.word_key(t.lower_), k) for k in keys)
        for t in doc[max(name.sent.start, at - 6) : at]
    )


def _called_a_thing(verb: Any) -> bool:
    """Whether what "is called" is a thing: its subject is "it", "that", "this", a
    noun of :data:`NAMED_THINGS` ("The truck's called...", "It's called...") or of an
    organisation ("an outfit called..."), not someone ("My cousin's called Kwesi")."""
    subject = next((c for c in verb.children if c.dep_ in ("nsubjpass", "nsubj")), None)
    if subject is None and verb.dep_ == "acl":  # "a truck called...", or "truck's" read so
        subject = verb.head
    if subject is None:
        return False
    word = subject.lemma_.lower()
    # a body of people ("a two-man outfit in Derbyshire called Hathersage Early
    # Keyboards"): WordNet's organisations
    body = subject.pos_ == "NOUN" and is_a(word, "organization")
    # or a made thing, by its first sense ("The cottage is called Penrhiw"; not "the
    # horse", an animal first)
    made = subject.pos_ == "NOUN" and is_a(word, "artifact", senses=1)
    return (
        word in ("it", "that", "this") or word in NAMED_THINGS or word in _VEHICLES or body or made
    )


def _the_doer(entity: Any, want: Want) -> bool:
    """Whether a name after "the" does what the question asks who did: "The Fireworks
    headlined the festival" of "Who headlined the music festival?" (a band, a team:
    :func:`_the` keeps no thing's name for a person otherwise)."""
    verb, role, _ = want.role
    return (
        role == "subject"
        and entity.label_ in ("PERSON", "ORG", "")
        and entity.root.pos_ == "PROPN"
        and _the(entity)
        and entity.root.dep_ == "nsubj"
        and _key(entity.root.head) == verb
    )


def _the(entity: Any) -> bool:
    """Whether a name follows "the", as a thing's does ("the Bach" a choir sings, "the
    Brompton"), not a person's."""
    at = entity.start - 1
    return entity[0].lower_ == "the" or at >= 0 and entity.doc[at].lower_ == "the"


def _placed(token: Any) -> bool:
    """Whether ``token`` is a place by where it stands: the object of "in", "at", "on"
    or "near"; of "to" or "from" after going ("90 kilometres to Abergavenny", "a train
    from Munich"); of "from" after a person or a group ("a student from Bridgend", "a
    band from Halesworth"). The small tagger calls many a town a person."""
    if token.dep_ != "pobj":
        return False
    prep, governor = token.head.lower_, token.head.head.lemma_.lower()
    if prep in _WHERE:
        return True
    if prep in ("to", "from") and governor in _GOING:
        return True
    return prep == "from" and (governor in _FOLK or governor in _GROUPS)


#: the verbs and nouns of going somewhere, before "to" or "from" a place
_GOING = frozenset(
    {"go", "drive", "ride", "cycle", "fly", "move", "travel", "walk", "commute", "head",
     "sail", "relocate", "emigrate", "kilometre", "kilometer", "km", "mile", "train",
     "flight", "trip", "journey", "bus", "ferry", "coach", "route"}
)  # fmt: skip
#: the plain nouns of a person ("a guy", "the woman"), which the typed reader's answers
#: to "Who...?" may end in too
PERSON_WORDS = frozenset({"guy", "man", "woman", "lady", "girl", "boy", "bloke"})
#: nouns of someone who comes from a place ("a student from Bridgend")
_FOLK = PERSON_WORDS | {"student", "lad", "couple", "family", "people"}
#: nouns of a group that comes from a place ("a band from Halesworth")
_GROUPS = frozenset({"band", "team", "choir", "group", "crew", "club", "troupe", "orchestra"})


def _unnamed(run: Any) -> bool:
    """Whether a run of proper nouns may be a person's name: unlabelled, or labelled
    as something else but standing beside a noun as its name ("my neighbour Oksana",
    "my cousin Ezekiel", which the small tagger calls a nationality and a company);
    not one after "in" or "on" ("the conference in Aarhus", "a school on Rua Nova"),
    nor one naming a thing ("the Porto symphony") or quoted (:func:`_quoted`)."""
    root = run.root
    if _placed(root) or names_a_thing(run) or _quoted(run):
        return False
    if not any(t.ent_type_ in _NOT_PEOPLE for t in run):
        return True
    if root.dep_ == "appos" and root.head.pos_ == "NOUN":
        return True
    if _said_of_as_person(run) or _of_someone(run) or _who_follows(run):
        return True
    before = run.doc[run.start - 1] if run.start > 0 else None  # "my cousin Tiago"
    return (
        before is not None
        and before.dep_ == "compound"
        and before.head == root
        and (before.lower_ in _FOLK or before.lower_ in relations())
    )


def _quoted(run: Any) -> bool:
    """Whether a run stands inside a quotation: a title or a prize's name ("Pepper won
    'Best Rescue Glow-Up'"), no one's; or is a single word English uses for other
    things ("Up")."""
    if len(run) == 1 and run[0].is_stop:
        return True
    marks = [t for t in run.doc[run.sent.start : run.start] if t.is_quote]
    return len(marks) % 2 == 1


def _who_follows(run: Any) -> bool:
    """Whether a clause about the run opens with "who", which English says of people
    ("Femi Adeyemi, who runs a small dog-walking business", whom the small tagger
    calls a company)."""
    doc = run.doc
    after = doc[run.end : run.end + 2]
    return len(after) == 2 and after[0].text == "," and after[1].lower_ == "who"


def _of_someone(run: Any) -> bool:
    """Whether a run of proper nouns is what someone is across "be" ("my supervising
    partner will be Anjali Mistry", which the small tagger calls a company) or is
    told of by "who" ("Anjali Mistry, who's moving across from Leeds")."""
    root = run.root
    after = run.doc[run.end : run.end + 2]
    if root.dep_ != "pobj" and any(t.lower_ in ("who", "whom", "whose") for t in after):
        return True  # not "a paramedic from Pinetown who's scared of nothing"
    if root.dep_ != "attr" or root.head.lemma_ != "be":
        return False
    subject = next((c for c in root.head.children if c.dep_ == "nsubj"), None)
    return subject is not None and subject.pos_ == "NOUN" and is_a(subject.lemma_, "person", 1)


def _said_of_as_person(run: Any) -> bool:
    """Whether a run of proper nouns is all its sentence says and the next sentence
    speaks of it as "he" or "she" ("Keiko Tanabe. She's strict about homework", which
    the small tagger calls an organisation)."""
    sent, doc = run.sent, run.doc
    return all_it_says(run) and sent.end < len(doc) and doc[sent.end].lower_ in ("he", "she")


def all_it_says(span: Any) -> bool:
    """Whether ``span`` is all its sentence says, punctuation aside ("Keiko Tanabe.")."""
    sent, doc = span.sent, span.doc
    return all(t.is_punct for t in doc[sent.start : span.start]) and all(
        t.is_punct for t in doc[span.end : sent.end]
    )


#: the labels of a place or an organisation: a run labelled so is read by its label
_PLACES_AND_ORGS = frozenset({"GPE", "LOC", "FAC", "ORG"})


def _counting(token: Any) -> bool:
    """Whether a number counts the noun after it ("60 plots")."""
    return bool(token.dep_ == "nummod" and token.i < token.head.i)


def ago(span: Any) -> bool:
    """Whether a span of time is followed by "ago" or ends with it ("a few weeks
    ago"): when something was, which is how long it lasted only until now."""
    doc = span.doc
    return span[-1].lower_ == "ago" or (span.end < len(doc) and doc[span.end].lower_ == "ago")


def _first_name_doing(run: Any) -> bool:
    """Whether an unlabelled run of proper nouns is one word doing something, as a
    person's first name does ("Priyanka booked the flights", "Hester let us glaze"),
    or opens with a person's title ("Dr Halloran"): no place or organisation asked."""
    if run[0].lower_.rstrip(".") in TITLES:
        return True
    return len(run) == 1 and run.root.dep_ in ("nsubj", "nsubjpass") and not run.root.ent_type_


#: the titles a person's name opens with
TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame"})


def _unlabelled(run: Any, want: Want) -> bool:
    """Whether a run of proper nouns may be a place or an organisation the tagger did
    not label so: for a place, the object of "in", "at", "from" or "to", labelled or
    not ("They still live in Maribor", labelled an organisation; not "the JLPT N5
    exam", which is where nothing is); for an organisation, unlabelled or where
    something is done ("a course at The Kiln Room"); for a workplace either ("I now work at
    Hospital Sao Joao")."""
    root = run.root
    placed = root.dep_ == "pobj" and root.head.lower_ in LOCATIVE
    if want.kind == "place":
        return placed
    # where something is done ("at"), unless a place by its label: "a course at The
    # Kiln Room" (which the tagger calls a work of art) is at a business; "on the
    # Barbican" is where
    business = (
        want.kind == "org"
        and root.dep_ == "pobj"
        and root.head.lower_ == "at"
        and root.ent_type_ not in _PLACES_AND_ORGS
    )
    member = want.kind == "org" and root.dep_ == "dobj" and root.head.lemma_.lower() in _MEMBERSHIP
    return not root.ent_type_ or business or member or (placed and want.kind == "workplace")


#: the verbs whose object is what one belongs to or buys from, an organisation
#: whatever the tagger calls it ("I've left Brightline", labelled a place)
_MEMBERSHIP = frozenset({"leave", "join", "quit", "ditch", "cancel"})
#: the verbs whose object is a thing owned or used, a product by its maker's name
#: ("sold my old Peugeot", "I ride a Genesis"), not where one works (:func:`_owned`)
_OWNING = frozenset({"buy", "sell", "ride", "drive", "own", "swap", "trade", "wear", "order"})


def _owned(token: Any) -> bool:
    """Whether ``token``, or the noun it is a name part of ("Genesis" of "a Genesis
    Croix de Fer"), is the object of a verb of owning or using (:data:`_OWNING`)."""
    while token.dep_ in ("compound", "nmod") and token.head != token:
        token = token.head
    return token.dep_ == "dobj" and token.head.lemma_.lower() in _OWNING


def named_other(span: Any, want: Want, question: Question) -> bool:
    """Whether a name given as one names another noun than the one asked ("a grower
    in Evesham called Dalia Moreno" to "What is the sauce called?"; "a woman called
    Marisol Etxeberria" to "What is my dog called these days?", whose noun is the
    one named, :func:`named_noun_of`)."""
    called = span.doc[span.start - 1] if span.start >= 1 else None
    if called is None or called.dep_ != "acl":
        return False
    noun = want.head if want.head not in ("", "name") else named_noun_of(question)
    return bool(noun) and called.head.pos_ == "NOUN" and called.head.lemma_.lower() != noun


def _given(span: Any, want: Want) -> str:
    """A name given as one, for a thing: "given_head" when it names the noun asked
    for ("a novel called The Glass Orchard" to "Which novel?")."""
    before = span.doc[span.start - 2] if span.start >= 2 else None
    asked = before is not None and want.head and before.lemma_.lower() == want.head
    return "given_head" if asked else "given"


def _numbered(sent: Any, chunks: list[Any]) -> list[Any]:
    """The noun phrases the parser's chunks miss because a number heads them ("an
    iPhone 15"): an object whose head is a number with a noun before it."""
    roots = {c.root.i for c in chunks}
    out = []
    for t in sent:
        headed = t.pos_ == "NUM" and t.dep_ in ("dobj", "pobj", "attr") and t.i not in roots
        if headed and any(c.dep_ == "compound" for c in t.children):
            out.append(t.doc[t.left_edge.i : t.i + 1])
    return out


def _chunk(chunk: Any, want: Want) -> str:
    """A noun phrase's origin: "head" when it has the noun the question asks for,
    with words of its own ("What kind of water?": "flavored seltzer water"), or
    inside one of its words ("What phone?": "an iPhone 15")."""
    if not want.head:
        return "chunk"
    if chunk.root.lemma_.lower() == want.head:
        return "head"
    inside = len(want.head) >= _INSIDE and any(
        want.head in t.lower_ and t.lemma_.lower() != want.head for t in chunk
    )  # "iPhone", not "movie" of "movie recommendations"
    return "head" if inside else "chunk"


def _governed(matched: list[Any]) -> list[tuple[Any, str]]:
    """The phrases a question word of the sentence governs (its object, complement,
    or a preposition's object), a verb's counting more than a noun's; and across a
    copula, what the asked thing is (:func:`_copula`)."""
    out = []
    for t in matched:
        if t.lemma_ == "do":  # "doing good": what "do" takes is no activity
            continue
        if t.pos_ == "VERB" and _denied(t):  # "never buy a van you can't get parts for"
            continue
        fit = "governed_verb" if t.pos_ in ("VERB", "AUX") else "governed_noun"
        for c in t.children:
            if c.dep_ not in _GOVERNED and not (c.dep_ == "prep" and t.pos_ in ("VERB", "NOUN")):
                continue
            if _clause_not_taken(t, c):
                continue
            sub = _subtree(c)
            if c.dep_ == "prep":
                sub = sub[1:]  # the preposition's object, not "on car mods"
            out.append((sub, fit))
        out += [(_subtree(c), "copula") for c in _copula(t)]
    return [(sub, fit) for sub, fit in out if 0 < len(sub) <= LONGEST]


def _subtree(token: Any) -> Any:
    """The phrase ``token`` heads: its whole subtree, a run of the sentence."""
    return token.doc[token.left_edge.i : token.right_edge.i + 1]


def _copula(t: Any) -> list[Any]:
    """Across "be" from a question word: what its subject is ("My partner Sam is a
    carpenter"), or what is it ("Genmaicha is my absolute favourite tea"); a word
    that only describes the subject stands for it ("my favorite thing is Hawaiian
    pizza": "favorite")."""
    if t.dep_ in ("amod", "compound") and t.head.dep_ in ("nsubj", "nsubjpass"):
        t = t.head
    if t.head.lemma_ != "be" or t.head == t:
        return []
    if t.dep_ in ("nsubj", "nsubjpass"):
        return [c for c in t.head.children if c.dep_ in ("attr", "acomp")]
    if t.dep_ in ("attr", "acomp"):  # a clause as the subject too: "Fitting into ...
        # was a challenge", "Performing and connecting with the crowd has been so energizing"
        return [c for c in t.head.children if c.dep_ in ("nsubj", "csubj")]
    return []


def _played(sent: Any, want: Want, question: Question) -> list[tuple[Any, str]]:
    """The phrases that play, for the question's verb in the sentence, or a verb of
    the same doing (``kinds.verbs_kin``: "making" for "cook"), the role the asked
    thing plays in the question ("What fuels Calvin's soul?": the subject of "fuels"
    in "Performing live always fuels my soul")."""
    if not want.role[0]:
        return []
    verb, role, prep = want.role
    asking = [t for t in parse(question.text) if _key(t) == verb]
    asked = {t.lemma_.lower() for t in asking}
    particles = {_particle(t) for t in asking} - {""}
    giving = role == "object" and bool(asked & _GIVING)  # "What was I given?"
    out = []
    for t in sent:
        lemma = t.lemma_.lower()
        kin = t.pos_ == "VERB" and any(verbs_kin(a, lemma) for a in asked)
        if _key(t) != verb and not kin and not (giving and lemma in _GIVING_WITH):
            continue
        if particles and _particle(t) and _particle(t) not in particles:
            continue  # "the engine turns over" tells nothing of what "turned up"
        if _denied(t) and not any(_denied(a) for a in asking):
            continue  # "His rule is never buy a van you can't get parts for": none bought
        if role == "object" and t.dep_ == "amod" and t.tag_ == "VBN" and t.head.i > t.i:
            # "filled the holes and fitted soft-close hinges": a verb the parser hangs
            # on its object as a modifier; the rest of the phrase is what it took
            out.append((t.doc[t.i + 1 : t.head.i + 1], "role"))
            continue
        for c in t.children:
            if role == "prep" and c.dep_ == "prep" and c.lower_ == prep:
                out += [(_subtree(g), "role") for g in c.children if g.dep_ == "pobj"]
            elif _clause_not_taken(t, c):
                continue
            elif c.dep_ in ROLES.get(role, ()):
                out.append((_subtree(c), "role"))
            elif role == "object" and _given_with(t, c):  # "presented me with a tankard"
                # the thing itself, what is said after it aside ("engraved with...")
                out += [
                    (t.doc[g.left_edge.i : g.i + 1], "role") for g in c.children if g.dep_ == "pobj"
                ]
    return [(s, f) for s, f in out if 0 < len(s) <= LONGEST]


#: the clauses a verb may take as its object ("She said that...")
_CLAUSES = frozenset({"ccomp", "xcomp"})


def _clause_not_taken(verb: Any, child: Any) -> bool:
    """Whether a clause the parser hangs on ``verb`` as its object is none: one said
    before it, or beside a thing the verb took ("She came over and brought him a
    present, actually: she knitted him a snood")."""
    if child.dep_ not in _CLAUSES:
        return False
    nominal = any(c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") for c in verb.children)
    return child.i < verb.i or nominal


#: verbs that give what follows "with" to their object ("presented me with a
#: pewter tankard", "treated us to" aside)
_GIVING_WITH = frozenset({"present", "provide", "supply", "reward", "furnish", "equip", "gift"})
#: the question's verbs of giving, which those verbs tell in another frame
_GIVING = frozenset({"give", "gift", "award"})


def _given_with(verb: Any, child: Any) -> bool:
    """Whether ``child`` of ``verb`` is the "with" whose object is the thing given
    ("Gordon presented me with a pewter tankard")."""
    return child.dep_ == "prep" and child.lower_ == "with" and verb.lemma_.lower() in _GIVING_WITH


def _denied(verb: Any) -> bool:
    """Whether a verb is said not to have happened: it, or the verb it completes ("not
    going to buy"), has "not" or "never"."""
    said = [verb, verb.head] if verb.dep_ == "xcomp" else [verb]
    return any(c.dep_ == "neg" for v in said for c in v.children)


def _particle(verb: Any) -> str:
    """A phrasal verb's particle ("up" of "turned up"), "" when it has none."""
    return next((c.lower_ for c in verb.children if c.dep_ == "prt"), "")


def _key(token: Any) -> str:
    """A token's key by its lemma ("cooked" -> the key of "cook")."""
    return words.word_key(token.lemma_.lower())


def _verb_phrases(sent: Any) -> list[tuple[Any, str]]:
    """Each main verb of ``sent`` with its objects, or its first prepositional phrase
    when it has none ("joined a gym", "volunteering at a pet shelter"): the answer to
    "What did X do?". A subordinate clause's verb counts half ("Speaking of new
    things, I attended a Weight Watchers meeting")."""
    out = []
    for t in sent:
        if t.pos_ != "VERB" or t.dep_ in ("aux", "auxpass", "amod"):
            continue
        right = [c for c in t.children if c.i > t.i and c.dep_ in _OBJECTS]
        if not right:
            right = [c for c in t.children if c.i > t.i and c.dep_ == "prep"][:1]
        end = max((c.right_edge.i for c in right), default=t.i)
        if end - t.i + 1 <= LONGEST:
            main = t.dep_ in ("ROOT", "conj")  # the clause's own verb, not "Speaking of"
            out.append((t.doc[t.i : end + 1], "doing" if main else "doing_sub"))
    return out


def _titled(sent: Any) -> list[Any]:
    """The names after a person's title: someone's, whatever the tagger labels them
    ("Ms Adaeze Okonkwo", which it calls an organisation)."""
    out = []
    for t in sent:
        if t.lower_.rstrip(".") not in TITLES or not t.is_title:
            continue
        end = t.i + 1 + (t.i + 1 < sent.end and sent.doc[t.i + 1].text == ".")
        start = end
        while end < sent.end and sent.doc[end].pos_ == "PROPN" and sent.doc[end].is_title:
            end += 1
        if end > start:
            out.append(sent.doc[start:end])
    return out


def _proper_runs(sent: Any) -> list[Any]:
    """The runs of proper nouns in ``sent`` (at its start, where any word is
    capitalised, only a run of two or more: "Priyanka Dholakia, she's head of sixth
    form"), one name joined by "of" between two ("the Isles of Scilly", "Bank of
    England")."""
    out, start = [], None
    for t in [*sent, None]:
        if t is not None and t.pos_ == "PROPN" and _not_first(t, sent) and not _no_name(t):
            start = t.i if start is None else start
            continue
        if start is not None and t is not None and _joins_names(t, sent):
            continue
        if start is not None:
            out.append(sent.doc[start : t.i if t is not None else sent.end])
            start = None
    return [run for run in out if any(written_as_name(t) for t in run)]


def _not_first(token: Any, sent: Any) -> bool:
    """Whether a proper noun is not its sentence's capitalised first word alone: it
    stands later, or a proper noun follows it."""
    after = token.i + 1
    return token.i > sent.start or (after < sent.end and token.doc[after].pos_ == "PROPN")


def _joins_names(token: Any, sent: Any) -> bool:
    """Whether ``token`` is the "of" inside one name, a capitalised proper noun on
    either side of it, or the "'s" inside one, the name after it ending in a noun of
    an organisation ("St Brigid's Community Choir"; not "Priya's Zagreb trip")."""
    after = token.i + 1
    doc = token.doc
    if not (
        after < sent.end
        and doc[after].pos_ == "PROPN"
        and doc[after].text[:1].isupper()
        and doc[token.i - 1].text[:1].isupper()
    ):
        return False
    if token.lower_ == "of":
        return True
    if token.tag_ != "POS":
        return False
    end = after
    while end + 1 < sent.end and doc[end + 1].pos_ == "PROPN":
        end += 1
    return doc[end].lower_ in _NAMED_BODIES


#: the nouns an organisation's name may end in after an owner's "'s"
_NAMED_BODIES = ORG_NOUNS | {*ENSEMBLES, "church", "cathedral", "chapel", "hospital", "academy"}


def written_as_name(token: Any) -> bool:
    """Whether a word the tagger calls proper is written as a name: capitalised (or
    in a sentence typed in lower case throughout: not "... stripped back to bare
    walnut" after a capitalised "The"), and not the first word
    of its sentence unless labelled an entity. The small tagger calls words it does
    not know proper nouns: "a pot of genmaicha" and "Congratulations, Priya!" name no
    company."""
    sent = token.sent
    if token.i == sent.start and not token.ent_type_:
        return False
    if token.text[:1].isupper():
        return True
    first = next((t for t in sent if t.is_alpha), None)  # typed in lower case throughout
    return first is not None and first.is_lower and not any(t.text[:1].isupper() for t in sent)


#: the days of the week, which name no one ("every Sunday with my buddy", untagged)
_WEEKDAYS = frozenset(d + s for d in WEEKDAYS for s in ("", "s"))


def _no_name(token: Any) -> bool:
    """Whether a proper noun names no one and nothing: part of a time or a number
    (:func:`_timely`), a day of the week, or an exclamation ("Oh God", "Thank God")."""
    word = token.lower_
    after_cry = token.i > 0 and token.doc[token.i - 1].tag_ == "UH"
    return _timely(token) or word in _WEEKDAYS or word == "god" or after_cry


def _timely(token: Any) -> bool:
    """Whether ``token`` is part of a time or a number ("Monday", "2023")."""
    return token.ent_type_ in _TIMELY


def _pattern_spans(sent: Any, rule: re.Pattern[str]) -> list[Any]:
    """The spans of ``sent`` that ``rule`` matches, its first group that took part
    (a rule of several ways to say one thing has a group each), snapped to tokens."""
    out = []
    for m in rule.finditer(sent.text):
        g = next((i for i in range(1, (rule.groups or 0) + 1) if m.group(i) is not None), 0)
        span = sent.char_span(m.start(g), m.end(g), alignment_mode="expand")
        if span is not None and len(span):
            out.append(span)
    return out


def near(span: Any, matched: list[Any]) -> float:
    """1 / (1 + the parse distance from the span's root to the nearest question
    word of its sentence); 0 when the sentence holds none."""
    if not matched:
        return 0.0
    root = span.root
    best = min(_distance(root, m) for m in matched)
    return 1.0 / (1.0 + best)


def _distance(a: Any, b: Any) -> int:
    """Steps between two tokens of one parse, through their lowest common head."""
    up_a = [a, *a.ancestors]
    up_b = {t.i: n for n, t in enumerate([b, *b.ancestors])}
    for n, t in enumerate(up_a):
        if t.i in up_b:
            return n + up_b[t.i]
    return len(up_a) + len(up_b)


def trim(span: Any) -> str:
    """The span's words without a leading article or possessive, without the
    punctuation at its ends and without a last word leading on (:func:`_dangling`)."""
    tokens = list(span)
    while tokens and (tokens[0].lower_ in _LEADING or tokens[0].is_punct):
        tokens = tokens[1:]
    while tokens and (tokens[-1].is_punct or _dangling(tokens[-1])):
        tokens = tokens[:-1]
    if not tokens:
        return ""
    doc = tokens[0].doc
    return doc[tokens[0].i : tokens[-1].i + 1].text.strip(" \"'")


def _dangling(token: Any) -> bool:
    """Whether a phrase's last word leads on to words it leaves out: "and", or a
    preposition whose object comes after ("Bristol for", of "moved to Bristol for
    work"), not one left at a clause's end ("what I was looking at")."""
    if token.pos_ == "CCONJ":
        return True
    return token.pos_ == "ADP" and any(c.i > token.i for c in token.children)


#: entity labels of a measure, and the nouns a "what"/"which" asks a measure by
_MEASURES = frozenset({"QUANTITY", "MONEY", "PERCENT"})
_MEASURED = frozenset(
    {"distance", "length", "height", "weight", "size", "price", "cost", "amount", "fee"}
    | {"rent", "salary", "budget", "score", "speed", "pace", "temperature", "share"}
)


def thing(span: Any, keys: frozenset[str], want: Want) -> bool:
    """Whether ``span`` can answer a question for a thing: no time ("last week" is
    when, not what), no bare number, nothing said to be none ("no idea"), and
    something new besides adjectives ("great news" to "What news did she share?"),
    unless the question asks what kind."""
    if span.root.ent_type_ in ("DATE", "TIME", "CARDINAL", "ORDINAL"):
        return False
    if any(t.lower_ == "no" and t.dep_ == "det" for t in span.root.children):
        return False  # "I've no idea what to get her": what there is none of is no thing
    if words.content_keys(span.text) <= TIME_KEYS | _SHORT_DAYS:
        return False  # "last Fri", which the tagger leaves unlabelled
    if span.root.ent_type_ in _MEASURES and want.head not in _MEASURED:
        return False  # "1500 metres" is no band; a "distance" or "price" is a measure
    if want.kind_of:
        return not _unkinded(span, want)
    new = [
        t for t in span if not t.is_stop and not t.is_punct and words.word_key(t.lower_) not in keys
    ]
    return any(_telling(t) for t in new)


def _telling(token: Any) -> bool:
    """Whether a word new to the question tells a thing: not an adjective or adverb
    ("great news" to "What news did she share?"), nor a time ("I finished my first
    proper watercolour yesterday" tells no watercolour's subject)."""
    return (
        token.pos_ not in ("ADJ", "ADV", "INTJ")
        and token.ent_type_ not in ("DATE", "TIME")
        and token.lower_ not in PHATIC
    )


#: words that keep a chat going and tell nothing ("Thanks, Dave!" to a question about
#: the tour it thanks for; "Congrats!"), which the tagger often reads as nouns
PHATIC = frozenset(
    {
        "thanks", "thank", "thx", "congrats", "congratulations", "cheers", "kudos",
        "sorry", "apologies", "hello", "hi", "hey", "bye", "goodbye", "wow", "yay",
        "haha", "lol", "omg", "ok", "okay", "yes", "yeah", "yep", "no", "nope", "please",
    }
)  # fmt: skip


#: the parse roles of a word before a noun that say what kind it is ("vintage", "Pekin",
#: "road" of "road bike")
_KIND_MODIFIERS = frozenset({"amod", "compound", "nmod", "npadvmod", "poss"})


def _unkinded(span: Any, want: Want) -> bool:
    """Whether ``span`` is the noun a "what kind of" question asks about with nothing
    saying which kind ("another motorbike you don't have room for" to "What kind of
    motorbike did he buy?")."""
    root = span.root
    if not want.head or words.word_key(root.lower_) not in want.head_keys:
        return False
    return not any(c.dep_ in _KIND_MODIFIERS and c.i < root.i for c in root.children)
