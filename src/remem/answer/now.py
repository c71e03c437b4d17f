"""What is true now and what was left, as the typed reader reads it: a question
about now reads the newest memory naming what it asks ("What bike do I ride now?"),
and a question about what someone left reads the value a memory says ended ("Which
band did Rosa leave?"). The time stage's slots (``time.current``) tell the changes;
this module picks among the reader's candidates by them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, NamedTuple

from .. import words
from ..index.tokenize import sentences
from ..question import Question
from ..store.base import timestamp_epoch
from ..time.current import ended as ended_values
from ..time.current import sets_asked
from ..types import Hit
from .candidate import Source, Span
from .classes import COLOUR_NOUNS
from .kinds import alike, is_a
from .nlp import parse
from .want import Want, asks_called, possessions

#: verbs that, in the past tense, tell a thing replaced by another (:func:`last_change`)
_CHANGES = frozenset(
    {"sell", "buy", "switch", "swap", "replace", "trade", "upgrade", "move", "change", "quit"}
)


#: a value a sentence says was dropped for another, whoever's it is (:func:`dropped`):
#: "instead of Porto", "rather than the Fiat", "not Porto anymore" ("isn't Porto any
#: more"), "turned Sheffield down", "cancelled Larchmont", "I never bought the Yaris",
#: "moving me off Wednesday evenings";
#: and one it says was traded
#: for another, which it names ("traded in the Fiesta for a secondhand Skoda
#: Octavia", "replaced the Raleigh with a Brompton")
_NAME = r"[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*"
#: the verbs of a choice, as a negation says one was not made ("I never bought the
#: Yaris", "we didn't book Noboribetsu"); not "get", which a choice may be refused
#: ("They didn't get Hollybrook", a school that took them off its list later)
_CHOSE = (
    r"buy|bought|book|booked|choose|chose|pick|picked|hire|hired|"
    r"go\s+(?:with|for)|went\s+(?:with|for)|sign\s+up\s+(?:with|for)|signed\s+up\s+(?:with|for)"
)
_DET = r"(?:(?:the|a|an|my|our|his|her|their)\s+)?"
_DROPPED = re.compile(
    rf"\b(?i:instead\s+of|rather\s+than)\s+(?:{_DET}|going\s+to\s+)(?P<v>{_NAME})"
    rf"|(?:\b[Nn]ot|n['\u2019]t)\s+{_DET}(?P<n>{_NAME})\s+any\s?more\b"
    rf"|\bturned\s+{_DET}(?P<t>{_NAME})\s+down\b|\bturned\s+down\s+{_DET}(?P<d>{_NAME})"
    rf"|\b(?:cancell?ed|ditched|dumped)\s+{_DET}(?P<c>{_NAME})"
    rf"|\b(?i:never|didn['\u2019]t|did\s+not)\s+(?i:end\s+up\s+)?(?i:{_CHOSE})\s+{_DET}(?P<x>{_NAME})"
    rf"|\b(?i:mov(?:e|ed|es|ing)|tak(?:e|en|es|ing)|took)\s+(?:me|us|him|her|them|it)\s+off\s+"
    rf"{_DET}(?P<o>{_NAME})"
)
_TRADED = re.compile(
    rf"\b(?:traded|swapped|exchanged|replaced)\s+(?:in\s+)?{_DET}(?:old\s+)?(?P<old>{_NAME})"
    rf"\s+(?:in\s+)?(?:for|with)\s+{_DET}(?:[a-z-]+\s+){{0,2}}?(?P<new>{_NAME})"
    rf"|\bswitched\s+from\s+{_DET}(?P<from>{_NAME})\s+to\s+{_DET}(?P<to>{_NAME})"
)
#: a clause ending in a bare "instead" ("..., so we're doing Ljubljana instead")
_INSTEAD = re.compile(r"(?:[,;:]|\bso\b|\bbut\b)[^,;:.!?]*\binstead\b(?!\s+of\b)", re.I)
#: a name put after a preposition ("Flights to Tbilisi were silly money")
_PLACED_NAME = re.compile(rf"\b(?:to|in|at|from|for|with)\s+(?:the\s+)?(?P<v>{_NAME})")
#: a name inside a clause, not opening it
_INNER_NAME = re.compile(rf"(?<=[a-z,] )(?P<v>{_NAME})")


#: a name given anew: "I've renamed him Marlowe", "so she's Pimenta now" (a pattern
#: ``spans`` reads names by too)
RENAMED = (
    r"\b(?i:renamed|re-named|rename)\s+(?i:him|her|it|them)\s+((?:[A-Z][\w'-]*\s?){1,3})"
    r"|\b(?i:he|she)(?:'s|’s|\s+is)\s+(?:called\s+|named\s+)?"
    r"([A-Z][\w'-]*(?:\s[A-Z][\w'-]*){0,2})\s+now\b"
    r"|\b(?i:it)(?:'s|’s|\s+is)\s+(?:called|named)\s+"
    r"([A-Z][\w'-]*(?:\s[A-Z][\w'-]*){0,2})\s+now\b"
)
_RENAMED = re.compile(RENAMED)


def renamed_to(text: str) -> set[str]:
    """The names ``text`` gives anew (:data:`RENAMED`), not one as it was first given
    ("The shelter named her Biscuit")."""
    return {next(g for g in m.groups() if g).strip() for m in _RENAMED.finditer(text)}


class Dropped(NamedTuple):
    """A value a memory says was dropped (:func:`dropped`), and the value it names in
    its place ("" when it names none)."""

    hit: Hit
    old: str
    new: str


#: a question about what someone left (:func:`left_asked`)
_LEAVING = re.compile(
    r"\b(?:leave|left|quit)\b|\b(?:move|moved|switch|switched)\b.*\bfrom\W*$"
    r"|\bstop(?:ped)?\s+going\b",
    re.I,
)


def not_left(question: Question, found: list[Span], evidence: Sequence[Hit]) -> list[Span]:
    """For a question about now, the candidates no later memory of the evidence says
    was left ("Still at Crumb & Co." before "I handed in my notice at Crumb & Co."; "I
    quit Parcelwise"): the slots' ended values (``time.current.ended``)."""
    if question.order != "newest":
        return found
    ended = [
        (timestamp_epoch(hit.timestamp), frozenset(words.content_keys(value)))
        for hit, value in _ended(evidence)
    ]
    if not ended:
        return found
    return [
        s
        for s in found
        if not any(
            keys and keys <= words.content_keys(s.text) and timestamp_epoch(s.hit.timestamp) <= at
            for at, keys in ended
        )
    ]


#: a place someone moved away from, whoever says it ("the council moved us on from
#: Kelvingrove", "they relocated out of the Old Mill"): a name after the move
_MOVED_FROM = re.compile(
    r"\b(?:moved|relocated)\b(?:\s+(?:us|me|him|her|them|it|away|on))*\s+(?:from|out\s+of)\s+"
    r"(?:the\s+)?(?P<v>[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)"
)


#: someone said to be gone from where they were ("Ollie's gone. He left for Leeds",
#: "Lena has moved to Leiden"); not "Maureen left a voicemail", "Lena moved the date"
_GONE = re.compile(
    r"\b(?P<v>[A-Z][a-z]+)(?:'s|\s+has|\s+had|\s+is|\s+was)?\s+(?:"
    r"gone\b(?!\s+(?:quiet|off|on|for|to\s+bed|a\s+bit))"
    r"|left(?=\s+(?:for|us|town|in|on|last|yesterday)\b|\s*[.,;!])"
    r"|moved(?=\s+(?:to|away|out|abroad|back)\b)|leaving|retired|stepped\s+down)"
)


def not_gone(found: list[Span], said: Sequence[str]) -> list[Span]:
    """For a question asking who someone is now ("Who walks Pepper these days?"), the
    candidates no text of ``said`` (the memories read and the turns just before
    them) says have gone (:data:`_GONE`): another has the part since, though a newer
    memory may still name them ("He did two trial walks alongside Ollie"). All as
    they were when every one has gone."""
    gone = {m["v"].lower() for text in said for m in _GONE.finditer(text)}
    if not gone:
        return found
    kept = [s for s in found if not gone & {w.lower() for w in s.text.split()}]
    return kept or found


def _ended(evidence: Sequence[Hit]) -> list[tuple[Hit, str]]:
    """Each value a memory of ``evidence`` says its speaker left, with the memory
    (``time.current.ended``: "I quit Parcelwise"), and each place it says someone
    moved away from (:data:`_MOVED_FROM`)."""
    return [
        (hit, value)
        for hit in evidence
        for value in [*ended_values(hit.text), *(m["v"] for m in _MOVED_FROM.finditer(hit.text))]
    ]


def dropped(evidence: Sequence[Hit]) -> list[Dropped]:
    """Each value a memory of ``evidence`` says was dropped for another: after
    "instead of" or "rather than", between "not" and "anymore" ("Not Porto anymore,
    we're going to Seville instead"), "turned" and "down" ("I've accepted Cardiff and
    turned Sheffield down"), one traded for another it names (:data:`_TRADED`), and
    a name put after a preposition in the
    clauses before one that ends in a bare "instead" ("Flights to Tbilisi were silly
    money, so we're doing Ljubljana instead"); with the name of that clause, the value
    in its place. Unlike the slots' ended values (:func:`_ended`), any value of
    anyone's: a plan, a destination, a venue."""
    found: list[Dropped] = []
    for hit in evidence:
        previous = ""
        for sentence in sentences(hit.text):
            clause = _INSTEAD.search(sentence)
            names = [m["v"] for m in _INNER_NAME.finditer(clause.group(0))] if clause else []
            new = names[-1] if names else ""
            for m in _DROPPED.finditer(sentence):
                # a choice not made or a slot left names nothing in its place here
                instead = new if m["n"] else "" if m["x"] or m["o"] else _beside(sentence, m)
                old = m["v"] or m["n"] or m["t"] or m["d"] or m["c"] or m["x"] or m["o"]
                found.append(Dropped(hit, old, instead))
            for m in _TRADED.finditer(sentence):
                found.append(Dropped(hit, m["old"] or m["from"], m["new"] or m["to"]))
            if clause:
                before = sentence[: clause.start()]
                found += [Dropped(hit, m["v"], new) for m in _PLACED_NAME.finditer(before)]
                found += [Dropped(hit, old, new) for old in _same_kind(previous, new)]
            previous = sentence
    return [d for d in found if d.old != d.new]


def _same_kind(sentence: str, name: str) -> list[str]:
    """The names of ``sentence`` that end in the word ``name`` ends in ("Hollins Farm
    are packing in the eggs", before "So from next week the eggs are coming from
    Greystone Farm instead"): another of its kind, the one replaced."""
    last = name.split()[-1] if " " in name else ""
    return [n for n in re.findall(_NAME, sentence) if last and n.endswith(f" {last}")]


def _beside(sentence: str, m: re.Match[str]) -> str:
    """The name that "instead of X", "rather than X" or "turned X down" puts in X's
    place: the last one before it in its clause ("we booked Seville instead of
    Porto", "I've accepted Cardiff and turned Sheffield down"), else the first after
    it ("Instead of Porto, we're going to Seville")."""
    head = re.split(r"[,;:]", sentence[: m.start()])[-1]
    names = [n["v"] for n in _INNER_NAME.finditer(head)]
    if names:
        return names[-1]
    after = _INNER_NAME.search(sentence, m.end())
    return after["v"] if after else ""


def not_dropped(question: Question, found: list[Span], evidence: Sequence[Hit]) -> list[Span]:
    """The candidates no memory as new as theirs says were dropped for another
    (:func:`dropped`); one that is, when that memory names the value in its place,
    becomes that value with its score ("Tbilisi" of "We're leaning towards Tbilisi"
    becomes "Ljubljana" of "..., so we're doing Ljubljana instead"). All as they were
    when the question asks for a first or a left value ("Where did they plan to go
    first?", "Which company did I leave?") or every candidate is dropped for nothing."""
    if question.order == "oldest" or asks_left(question) or _BEFORE.search(question.text):
        return found
    gone = [
        (timestamp_epoch(d.hit.timestamp), words.content_keys(d.old), d) for d in dropped(evidence)
    ]
    kept: list[Span] = []
    for s in found:
        said = timestamp_epoch(s.hit.timestamp)
        keys = words.content_keys(s.text)
        by = [d for at, old, d in gone if old and old <= keys and said <= at]
        if not by:
            kept.append(s)
        elif (d := max(by, key=lambda d: timestamp_epoch(d.hit.timestamp))).new:
            kept.append(Span(d.new, s.score, d.hit, {**s.features, "replaced": 1.0}))
    return kept or found


#: a question asking for a value before it changed, or the one dropped ("Which
#: supplier did Marisol cancel?") (:func:`not_dropped`)
_BEFORE = re.compile(
    r"\b(?:first|originally|initially|before|previous(?:ly)?|used\s+to|instead|"
    r"rather|earlier|old|former(?:ly)?|at\s+first|cancell?(?:ed)?|ditch(?:ed)?|dump(?:ed)?)\b",
    re.I,
)


#: a clause of time after the question's own ("... when he left his job?"), which
#: says when, not what is asked
_WHEN_CLAUSE = re.compile(r"(?<=\w)\W+(?:when|after|before|since|until|while|once)\b.*$", re.I)


def asks_left(question: Question) -> bool:
    """Whether the question asks what someone left ("Which company did Priya leave to
    join Brightwater Health?"); not one that leaving only dates ("How many loaves
    was he baking when he left his job?")."""
    return bool(_LEAVING.search(_WHEN_CLAUSE.sub("", question.text)))


def names_left(evidence: Sequence[Hit]) -> bool:
    """Whether a memory of ``evidence`` names a value left (:func:`left_asked`)."""
    return bool(_left_values(evidence))


def _left_values(evidence: Sequence[Hit]) -> list[tuple[Hit, str]]:
    """(memory, value) of each value the evidence says was left (:func:`_ended`), or,
    when it says none, each name something moved from to another (:func:`_moved_from`)."""
    return _ended(evidence) or _moved_from(evidence)


def left_asked(question: Question, found: list[Span], evidence: Sequence[Hit]) -> list[Span]:
    """For a question about what someone left ("Which band did Rosa leave?", "Which
    company did I leave for my new job?"), the value a memory says was left
    (``time.current.ended``: "I left The Lowtides", "I handed my notice in at
    Brightwell"), as the candidate that holds it or, when none does, as the memory's
    own words: the company joined fits the question's words as well ("for my new
    job") and is no answer. The candidates as they were when no memory tells one."""
    if not asks_left(question):
        return found
    left = _left_values(evidence)
    kept = [
        s
        for s in found
        if any(
            s.hit.id == hit.id and words.content_keys(value) <= words.content_keys(s.text)
            for hit, value in left
        )
    ]
    if kept or not left:
        return kept or found
    hit, value = left[0]
    at = hit.text.lower().find(value)
    if at < 0:
        return found
    said = hit.text[at : at + len(value)]
    return [Span(said, max((s.score for s in found), default=0.0), hit, {"left": 1.0})]


#: a name something moved from, to another ("I'm moving them from Parkway to
#: Ashgrove Animal Clinic")
_FROM_TO = re.compile(r"\bfrom\s+((?:the\s+)?[A-Z][\w'&-]*(?:\s+[A-Z][\w'&-]*)*)\s+to\s+[A-Z]")


def _moved_from(evidence: Sequence[Hit]) -> list[tuple[Hit, str]]:
    """(memory, the name it says something moved from to another name), for a
    question about what was left when no slot rule tells one (:func:`left_asked`)."""
    return [(h, m.group(1).lower()) for h in evidence for m in _FROM_TO.finditer(h.text)]


def newest_value(
    question: Question, want: Want, found: list[Span], asked: Mapping[str, str] | None = None
) -> list[Span]:
    """For a question about now that asks for a thing by its noun ("What bike do I
    ride now?"), the candidates of the newest memory that names one ("I've replaced
    it with a Brompton folding bike", June) and of later ones: an older memory's
    ("I bought a road bike", May) tells a value since replaced, however well it
    fits. All of them when none names the noun. Asked a colour, every candidate names
    one (``classes.narrowed``): the newest memory's ("I went with a sage green
    instead"). Asked how many ("How many eggs a
    week are they laying now?"), the memories that name the thing counted do.
    ``asked``: the turn that asked each reply, by the reply's id: a reply names what
    its asker did ("Do you know who'll be Frieda's teacher after Mrs Okafor
    leaves?" / "It's a Mr Dimitriou").
    """
    if question.order != "newest":
        return found
    asked = asked or {}

    def says(s: Span, keys: frozenset[str]) -> bool:
        told = words.content_keys(s.hit.text) | words.content_keys(asked.get(s.hit.id, ""))
        return bool(keys & told)

    if want.head in COLOUR_NOUNS or want.kind == "weekday":  # each candidate names a
        # colour (``classes``) or a day of the week ("from now on practice is on Thursday")
        named = found
    elif asks_called(question):  # "What's my cat called now?": the names given anew,
        # else any given ("I've renamed him Marlowe", "so she's Pimenta now")
        anew = [s for s in found if s.text in renamed_to(s.hit.text)]
        if anew:
            return [max(anew, key=lambda s: timestamp_epoch(s.hit.timestamp))]
        named = [s for s in found if given_name(s)]
    elif want.kind == "person" and want.head:  # "Who is my supervising partner now?":
        # the memories naming the partner (a person is named beside the noun, not by it)
        named = [s for s in found if says(s, frozenset({words.word_key(want.head)}))]
    elif want.head and " " not in want.head:  # the noun asked, not its owner's words
        named = [s for s in found if _names_head(want.head, s.text)]
    elif want.head_keys:
        named = [s for s in found if want.head_keys & words.content_keys(s.text)]
    else:  # "How many eggs a week are they laying now?": the memories counting eggs;
        # "How much do I charge for a croissant now?": those pricing croissants; "Who
        # is my supervising partner now?": those naming the partner
        nouns = counted(question) or (
            priced_keys(question) if want.kind == "money" else frozenset()
        )
        if want.kind == "person" and not nouns:  # the role's noun, a person's, else
            # the thing the role is of ("Who is handling my insurance claim now?")
            had = possessions(question)
            nouns = frozenset(words.word_key(n) for n in had if is_a(n, "person")) or frozenset(
                words.word_key(n) for n in had
            )
        named = [s for s in found if nouns and says(s, nouns)]
    if not named:
        return found
    newest = max(named, key=lambda s: timestamp_epoch(s.hit.timestamp)).hit
    since = timestamp_epoch(newest.timestamp)
    # the newest memory's whole session: a turn later in it that names the old value
    # again ("The Calder Street agent keeps ringing me") does not hide the new one
    # named a few turns before ("I saw a flat on Abernethy Road")
    kept = [
        s
        for s in found
        if timestamp_epoch(s.hit.timestamp) >= since
        or (newest.session_id and s.hit.session_id == newest.session_id)
    ]
    # who someone is now is told, not asked: "Do you know who'll be Ada's teacher
    # after Mrs Feld retires?" names the one leaving; its reply the one now
    told = [s for s in kept if not _asked_in(s)] if want.kind == "person" else kept
    return told or kept


def _asked_in(span: Span) -> bool:
    """Whether the sentence ``span`` is said in asks a question."""
    said = next((t for t in sentences(span.hit.text) if span.text in t), "")
    return said.rstrip().endswith("?")


#: the origins of a name given ("called Pimenta", "she's Pimenta now": ``spans._given``)
_GIVEN = ("given", "given_head", "named")


def given_name(span: Span) -> bool:
    """Whether a candidate was found as a name given (:data:`_GIVEN`)."""
    return any(span.features.get(f"o_{o}") for o in _GIVEN)


def _names_head(head: str, text: str) -> bool:
    """Whether a candidate names the noun asked (``head``): its word, a synonym, or a
    noun the asked one is a kind of ("Abernethy Road" of "Which street's flat did I
    go for?": a street is a road, WordNet says), not a word of what it belongs to
    ("flat"). Not any kind of the noun asked: "sandstone" is a "material", and a
    climbing trip's sandstone would hide the worktop's quartz."""
    if words.word_key(head) in words.content_keys(text):
        return True
    last = text.split()[-1].lower() if text.split() else ""
    return last.isalpha() and (is_a(head, last) or alike(head, last))


#: the thing a "how many" question counts, up to its verb ("chalk bags" of "How many
#: chalk bags did the shop order?"; else its first word: "eggs" of "How many eggs a
#: week...")
_HOW_MANY = re.compile(
    # "of my pieces", "of the piano's keys"
    r"\bhow\s+many\s+of\s+(?:my|the|your|his|her|their|our)\s+(?:[a-z]+['’]s\s+)?([a-z]+)"
    r"|\bhow\s+many\s+((?:[a-z]+\s+){0,2}?[a-z]+)(?=\s+(?:did|does|do|are|is|was|were|have|"
    r"has|had|will|would|can|could|of)\b|\s*\?|$)|\bhow\s+many\s+([a-z]+)",
    re.I,
)


def priced_keys(question: Question) -> frozenset[str]:
    """The keys of the nouns a question about a sum names ("croissant" of "How much
    do I charge for a croissant at the moment?", which the tagger may call an
    adjective), the words of a time aside."""
    return frozenset(
        words.word_key(t.lower_)
        for t in parse(question.text)
        if (t.pos_ == "NOUN" or t.dep_ in ("pobj", "dobj"))
        and t.pos_ not in ("PRON", "DET")
        and not t.ent_type_
        and t.lower_ not in _NOT_PRICED
    )


#: nouns of a question about a sum that name no thing priced
_NOT_PRICED = frozenset(
    {"much", "many", "moment", "minute", "time", "day", "week", "month", "year", "price", "cost"}
)


def counted(question: Question) -> frozenset[str]:
    """The key of the noun a "how many" question counts, none for another question."""
    said = counted_words(question.text)
    return frozenset(words.content_keys(said)) if said else frozenset()


def counted_words(text: str) -> str:
    """The words naming what a "how many" question counts (:data:`_HOW_MANY`), ""
    for another question."""
    m = _HOW_MANY.search(text)
    return next(g for g in m.groups() if g) if m else ""


def measured(question: Question) -> bool:
    """Whether a number question counts a unit of measurement ("How many kilometres
    ...?", "How many pounds...?") or asks no "how many" of a noun: then a measure
    ("13cm", "42 km") may answer it; "How many hedgehogs...?" counts hedgehogs. Read
    by the first word counted, as WordNet knows it."""
    said = counted_words(question.text).split()
    return _measured(said[0].lower() if said else "")


@cache
def _measured(noun: str) -> bool:
    """:func:`measured` of the noun counted ("" when none is)."""
    return not noun or any(is_a(n, "unit of measurement") for n in {noun, noun.rstrip("s")})


def later(question: Question, sources: list[Source]) -> dict[str, float]:
    """For a question asking what is true now ("What bike does Tomas ride now?"),
    each source memory's place in time, 0 the oldest to 1 the newest; a phrase's
    score gains by it and by how late in its memory it comes ("someone stole the
    Raleigh, so I bought a folding Brompton"). Empty for any other question."""
    if question.order != "newest" or len(sources) < 2:
        return {h.id: 1.0 for h, _, _ in sources} if question.order == "newest" else {}
    times = sorted({timestamp_epoch(h.timestamp) for h, _, _ in sources})
    span = (times[-1] - times[0]) or 1.0
    return {h.id: (timestamp_epoch(h.timestamp) - times[0]) / span for h, _, _ in sources}


def current_setter(question: Question, sources: list[Source]) -> str | None:
    """For a question about now that asks a slot of someone ("Where do I live now?"),
    the id of the newest source memory setting that slot of theirs to a value ("I
    moved out of the Stonehouse flat and I'm renting a little terraced house in
    Mutley now"), which need not say the asked word; never one the time stage knows
    superseded (``Hit.superseded_by``; the stale ones are not sources). None for any
    other question, or when no source sets the slot."""
    if question.order != "newest":
        return None
    names = {k for n in question.names for k in words.content_keys(n)}
    setting = [
        h
        for h, _, _ in sources
        if h.superseded_by is None and sets_asked(question.text, h.text)
        and (not names or bool(h.speaker and names & words.content_keys(h.speaker)))
    ]  # fmt: skip
    return max(setting, key=lambda h: timestamp_epoch(h.timestamp)).id if setting else None


def last_change(sents: list[Any], keys: frozenset[str] = frozenset()) -> int:
    """The index of the last sentence that tells, in the past tense, of a thing
    replaced ("Last week someone dented it, so I sold it and bought a Vespa" after
    "I drive an old Fiat"), 0 when none does: for a question about now the sentences
    before it tell the old value (:data:`_CHANGES`). With ``keys`` (the question's),
    a change of something else does not count: one that says none of them and names
    what it changed ("the budget is now £61,500. I've ... sold my motorbike")."""
    last = 0
    for i, sent in enumerate(sents):
        changes = [
            t
            for t in sent
            if t.lemma_.lower() in _CHANGES and t.tag_ in ("VBD", "VBN") and not _only_when(t)
        ]
        if changes and (not keys or keys & words.content_keys(sent.text) or _of_it(changes)):
            last = i
    return last


def _only_when(verb: Any) -> bool:
    """Whether a change says only when it happened, no value ("So I moved in on
    Monday in the end": the firm that moved me is in the sentence before; "in the end"
    is when too)."""
    told = [c for c in verb.children if c.dep_ in ("dobj", "attr", "prep", "dative", "oprd")]
    timed = [
        c
        for c in told
        if c.dep_ == "prep"
        and all(g.ent_type_ in ("DATE", "TIME") or g.lemma_ == "end" for g in c.children)
    ]
    return len(told) == len(timed)


def _of_it(changes: list[Any]) -> bool:
    """Whether a verb of ``changes`` changed what was said before it ("sold it"), or
    names nothing it changed."""
    done = [c for t in changes for c in t.children if c.dep_ in ("dobj", "nsubjpass")]
    return not done or any(c.lower_ in ("it", "them", "one") for c in done)


#: the words of a question asking what was chosen in the end between options told
#: over time ("Which van did I buy in the end?", "Which colour did I settle on?")
_CHOOSING = re.compile(
    r"\b(?:end(?:ed|s)?\s+up|in\s+the\s+end|eventually|finally|settle[ds]?\s+on|"
    r"go(?:ne)?\s+with|went\s+(?:with|for)|opt(?:ed)?\s+for|decide[ds]?\s+on|pick(?:ed)?)\b",
    re.I,
)
#: the words a sentence tells a choice made with ("We went with Fellside in the end",
#: "So I bought a Ford Transit instead", "No, change of plan")
_CHOSEN = re.compile(
    r"\b(?:in\s+the\s+end|instead|eventually|finally|change\s+of\s+plan|went\s+(?:with|for)|"
    r"settled\s+on|decided\s+on|opted\s+for|signed\s+with|ended\s+up|plumped\s+for|"
    r"gone\s+(?:with|for))\b",
    re.I,
)
#: the words just before an option turned down ("Not the Citroen though", "we gave up
#: on Larkspur", "I pulled out of the cycle-to-work thing")
_TURNED_DOWN = re.compile(
    r"(?:\bnot|\bno|instead\s+of|rather\s+than|gave\s+up\s+on|give\s+up\s+on|pulled\s+out\s+of|"
    r"turned\s+down|decided\s+against|went\s+off)(?:\s+(?:the|a|an|on|with))*\s*$",
    re.I,
)


#: the verbs of a question that asks a choice whatever its time ("What colour did I
#: pick for the hardbound copies?")
_PICKING = re.compile(
    r"\b(?:pick(?:ed)?|cho(?:o)?se|opt(?:ed)?\s+for|go(?:ne)?\s+with|went\s+(?:with|for)|"
    r"settle[ds]?\s+on|decide[ds]?\s+on)\b",
    re.I,
)


#: the words just before the option a sentence says was chosen ("so I went with
#: bottle green", "We're going with fishing line", "I signed up for the pump operator
#: course", "Went with FreeAgent"); not "went for" ("Dad went for tea there"), nor a
#: booking or an order, which may be someone else's or undone ("I've booked
#: Stourport Removals", cancelled later)
_PICKED = re.compile(
    r"(?:\b(?:went|going|go|gone)\s+with|\b(?:chose|picked|opted\s+for|settled\s+on|"
    r"decided\s+on|plumped\s+for|signed\s+up\s+(?:for|with)))"
    r"(?:\s+(?:the|a|an|our|my))?\s*$",
    re.I,
)


def asks_choice(question: Question) -> bool:
    """Whether a question asks the option chosen in the end (:data:`_CHOOSING`), or
    by a verb of choosing (:data:`_PICKING`)."""
    if _PICKING.search(question.text):
        return True
    return question.order == "newest" and bool(_CHOOSING.search(question.text))


def tells_choice(text: str) -> bool:
    """Whether ``text`` tells a choice made (:data:`_CHOSEN`: "So I bought a Ford
    Transit instead"), whatever it was made of."""
    return bool(_CHOSEN.search(text))


def choice_cues(question: Question, span: Any, talk: Sequence[str] = ()) -> dict[str, float]:
    """For a question asking the option chosen in the end, whether a candidate's
    sentence tells a choice made (``chosen``: 1; a half when only its memory does, or
    the turn just before it asked one: "So what did you get instead?") and whether the
    candidate is an option turned down (``turned_down``: "Not the Citroen"). Empty for
    any other question. ``talk``: the turns said just before its memory, nearest
    first."""
    if not asks_choice(question):
        return {}
    sent = span.sent
    asked = bool(talk) and bool(_CHOSEN.search(talk[0]))
    told = _CHOSEN.search(span.doc.text) or asked
    chosen = 1.0 if _CHOSEN.search(sent.text) else 0.5 if told else 0.0
    before = span.doc[max(sent.start, span.start - 5) : span.start].text
    turned = bool(_TURNED_DOWN.search(before)) or span[0].lower_ in ("not", "no")
    # an option weighed: named again elsewhere in its memory or the turns before
    # ("between their French double and the Flemish single ... So in the end I
    # ordered the Flemish single: one manual, 56 keys"), not a detail of the one chosen
    keys = words.content_keys(span.text)
    rest = span.doc[: sent.start].text + " " + span.doc[sent.end :].text
    weighed = bool(keys) and keys <= words.content_keys(" ".join((rest, *talk)))
    picked = bool(_PICKED.search(before)) and not turned
    return {
        "chosen": chosen,
        "turned_down": float(turned),
        "weighed": float(weighed),
        "picked": float(picked),
    }
