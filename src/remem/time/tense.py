"""Which way a bare time word points: the tense of the clause it sits in.

"I went hiking on Saturday", said on a Monday, is about the Saturday before; "I'm
picking up the keys on Saturday" about the one after. Bare weekdays, day numbers
("the 9th") and month names have no direction of their own, so the nearest tense cue
in the same clause gives it: a past verb (``went``, ``did``, ``-ed``), or a future
one (``will``, ``'ll``, ``going to``, a present progressive "I'm picking up", which
in English speaks of plans, or a verb of arranging: what is "booked" or "scheduled"
lies ahead). Without a cue the caller falls back on its own default and lowers its
confidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable

PAST, FUTURE = -1, 1

_IRREGULAR = (
    "was were did had went saw got came made took gave bought met ate ran left found "
    "told said thought felt brought caught taught sent spent kept slept paid lost won "
    "wrote drove flew rode began sang swam drank sat stood heard knew grew threw broke "
    "spoke chose wore forgot woke hung held built fell became fought sold sought "
    "shot stole struck swore tore understood forgave hid led lit meant quit"
)
_NOT_PAST = "need feed seed speed indeed bed red shed hundred wed breed weed proceed " \
    "exceed succeed embed bleed sled"  # fmt: skip
#: past participles that tell a past event without an auxiliary ("a little girl,
#: born on Saturday", "bike stolen on Wednesday"); after "be" they are a state, as an
#: "-ed" word is ("will be born": :func:`_cue`)
_PARTICIPLES = frozenset(("born", "stolen", "broken"))
_PAST_WORDS = frozenset(_IRREGULAR.split()) | _PARTICIPLES | {"yesterday", "ago", "last"}
_FUTURE_WORDS = frozenset(
    ["will", "shall", "won't", "gonna", "let's", "tomorrow", "next", "upcoming", "coming"]
)
_NOT_PAST_SET = frozenset(_NOT_PAST.split())
#: verbs of arranging: what is booked or scheduled lies ahead of the arranging, so a
#: bare time beside them points forward ("I've booked a climbing session on Saturday")
_ARRANGED = frozenset(
    [
        "booked",
        "scheduled",
        "planned",
        "arranged",
        "reserved",
        "registered",
        "enrolled",
        "rescheduled",
        "postponed",
    ]
)
_BE = frozenset(("am", "is", "are", "be"))
#: participles that give a name after a noun ("a band called the Blyth Valley
#: Stompers", "a cat named Biscuit"): no past told
_NAMING = frozenset(("called", "named", "nicknamed", "titled"))
#: words after which an "-ed" word describes a noun instead of telling a past
_DETERMINERS = frozenset(
    ["a", "an", "the", "my", "your", "his", "her", "our", "their", "its", "this", "that"]
)
_PRONOUNS = frozenset(("i", "you", "we", "they", "he", "she", "it", "that"))
_TOKEN = re.compile(r"[\w'’]+")
_CLAUSE = re.compile(r"[.!?;,]|\b(?:and|but|while|because|then|whereas)\b", re.I)
_REACH = 200  # characters a clause is read either side of an expression

Token = tuple[int, int, str]


class Clauses:
    """One text's clauses, read around each expression (at most ``_REACH``
    characters either side, so a long memory is not rescanned per expression)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The bounds of the clause around ``text[start:end]``."""
        left = max(0, start - _REACH)
        for m in _CLAUSE.finditer(self.text, left, start):
            left = m.end()
        right = _CLAUSE.search(self.text, end, end + _REACH)
        return left, right.start() if right else min(len(self.text), end + _REACH)


#: a doing told of as a topic ("talking about me ringing my first quarter peal",
#: "thinking of selling the van"): the tense before it is the talk's, not the doing's
_TOPIC_DOING = re.compile(
    r"\b(?:about|of)\s+(?:(?:me|him|her|us|them|you|my|his|our|their|your|[\w]+'s)\s+)?"
    r"\w{2,}ing\b",
    re.I,
)


def direction(clauses: Clauses, start: int, end: int) -> int:
    """PAST, FUTURE or 0: the tense nearest to ``text[start:end]`` within its clause
    (the expression's own words are not read). Cues before a doing told of as a topic
    (:data:`_TOPIC_DOING`) tell of the telling, and are not read for the time after it:
    "Gordon's started talking about me ringing my first quarter peal in May", said in
    March, is next May."""
    left, right = clauses.around(start, end)
    for m in _TOPIC_DOING.finditer(clauses.text, left, start):
        left = m.end()
    best, best_gap = 0, len(clauses.text) + 1
    for lo, hi in ((left, start), (end, right)):
        for cue_start, cue_end, kind in _cues(clauses.text, lo, hi):
            gap = start - cue_end if cue_end <= start else cue_start - end
            if gap < best_gap:
                best, best_gap = kind, gap
    return best


def tense_of(text: str) -> int:
    """PAST, FUTURE or 0: the first tense cue of ``text`` ("Hill reps on Monday."
    has none)."""
    cues = _cues(text, 0, len(text))
    return cues[0][2] if cues else 0


_HABIT = re.compile(
    r"\b(?:usually|always|often|normally|typically|generally|regularly|sometimes|"
    r"every|each|tend|tends)\b",
    re.I,
)


def habitual(clauses: Clauses, start: int, end: int) -> bool:
    """Whether the clause around ``text[start:end]`` tells a habit ("what do I
    *usually* do on Saturday?"): its weekday then names no one day."""
    left, right = clauses.around(start, end)
    text = clauses.text
    return bool(_HABIT.search(text, left, start) or _HABIT.search(text, end, right))


def _cues(text: str, lo: int, hi: int) -> list[tuple[int, int, int]]:
    """(start, end, PAST or FUTURE) of the tense cues in ``text[lo:hi]``, read word by
    word (one regex of a hundred verbs slid over the text costs more)."""
    toks: list[Token] = [
        (m.start(), m.end(), m.group().lower().replace("’", "'"))
        for m in _TOKEN.finditer(text, lo, hi)
    ]
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(toks):
        start, end, word = toks[i]
        cue, used = _cue(toks, i)
        if cue:
            out.append((start, toks[i + used - 1][1], cue))
        i += max(used, 1)
    return out


def _cue(toks: list[Token], i: int) -> tuple[int, int]:
    """(the tense the words from ``toks[i]`` on give or 0, how many words it took)."""
    word = toks[i][2]
    nxt = toks[i + 1][2] if i + 1 < len(toks) else ""
    base, _, suffix = word.partition("'")
    if word in _BE or (base in _PRONOUNS and suffix in ("m", "re", "s")):
        j = i + 2 if nxt.endswith("ly") and i + 2 < len(toks) else i + 1
        if word in _BE and nxt in _PRONOUNS and i + 2 < len(toks):
            j = i + 2  # a question's inversion: "am I going", "are you coming"
        verb = toks[j][2] if j < len(toks) else ""
        if suffix == "s" and _has_got(toks, j):  # "She's got a tournament on Saturday"
            return 0, j - i + 1
        if verb.endswith("ing"):  # "I'm picking up": a plan
            after = toks[j + 1][2] if j + 1 < len(toks) else ""
            return FUTURE, j - i + 1 + after.endswith("ed")  # "getting married"
        if verb in _ARRANGED:  # "The ceilidh is booked for early July": ahead
            return FUTURE, j - i + 1
        if verb.endswith("ed") or verb in _PARTICIPLES:  # "is finished": a state
            return 0, j - i + 1
        return 0, 1
    if (
        word in _FUTURE_WORDS
        or word in _ARRANGED
        or suffix == "ll"
        or (word in ("going", "plan", "planning") and nxt == "to")
    ):
        return FUTURE, 1
    if (word in ("have", "has") or suffix == "ve") and _has_got(toks, i + 1):
        return 0, 2  # "I've got a dentist appointment on Friday": what one has, ahead
    if (
        word in ("have", "has")
        and nxt == "been"
        or suffix == "ve"
        or (word == "back" and nxt == "in")
    ):
        return PAST, 1
    before = toks[i - 1][2] if i > 0 else ""
    if word in _NAMING and before not in _PRONOUNS:
        return 0, 1  # "a band called the Stompers" names; "she called" tells a past
    if word in _PAST_WORDS or (
        len(word) >= 4
        and word.endswith("ed")
        and word not in _NOT_PAST_SET
        and before not in _DETERMINERS  # "a retired racing greyhound": an adjective
    ):
        return PAST, 1
    return 0, 1


def _has_got(toks: list[Token], at: int) -> bool:
    """Whether ``toks[at]`` is the "got" of "have got", what one has ("I've got a
    match on Saturday"), not of an event ("we've got back", "she's got married")."""
    if at >= len(toks) or toks[at][2] != "got":
        return False
    after = toks[at + 1][2] if at + 1 < len(toks) else ""
    return after not in _GOT_EVENTS


#: the words after "got" that make it an event ("got back", "got married")
_GOT_EVENTS = frozenset(
    {"back", "home", "married", "engaged", "divorced", "there", "to", "into", "in", "out",
     "up", "off", "lost", "stuck", "hurt", "injured", "promoted", "fired"}
)  # fmt: skip


#: a sentence and the first word of it, after any opening punctuation
_SENTENCE = re.compile(r"[\"'(]*([A-Za-z]+)\b[^.!?]*([.!?]*)")


def opens_in_past(text: str) -> bool:
    """Whether a sentence of ``text`` that asks nothing opens with a verb in the past
    tense and no subject ("Got the keys on Saturday just gone.", "Spent Sunday
    clearing brambles."): chat drops the "I", so the sentence is the speaker's own."""
    for m in _SENTENCE.finditer(text):
        word = m.group(1).lower()
        if "?" in m.group(2):
            continue  # "Had you heard?", "Did it work?"
        if word in _IRREGULAR_SET or (
            len(word) >= 5 and word.endswith("ed") and word not in _NOT_PAST_SET
        ):
            return True
    return False


#: the irregular pasts a subjectless sentence opens with: "was", "were" and "did"
#: open questions or lean on an "it" left out ("Was great")
_IRREGULAR_SET = frozenset(_IRREGULAR.split()) - {"was", "were", "did", "said"}


def ahead(text: str, chosen: Callable[[str], bool]) -> bool:
    """Whether a word of ``text`` that ``chosen`` picks sits in a clause in the future
    tense (:func:`direction`): "so I'm going to set up an aquarium" speaks of the
    setting up as a plan."""
    clauses = Clauses(text)
    return any(
        direction(clauses, m.start(), m.end()) == FUTURE
        for m in _TOKEN.finditer(text)
        if chosen(m.group())
    )
