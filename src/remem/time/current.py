"""What is true now: the slots a speaker's memories set, and which value is current.

"I live in Lisbon" (January) then "I moved to Porto" (June): the two share no word a
question like "Where do I live now?" would weigh, and their vectors are not close, so
the time stage's version rule (``arrange.py``) cannot tell they are two values of one
fact. This module reads, at ingest and without an LLM, the *slot* a memory sets:

* **Slots** (``data/slots.json``, patterns per attribute): where the speaker lives
  (``residence``), works (``employer``), what they do (``occupation``), their
  ``phone``, ``car``, ``partner``, a ``favourite:<thing>`` and a ``count:<thing>``.
  A slot is a person and the attribute: the speaker (the memory's speaker,
  lower-cased, or "i"; "I", "we", or no subject at all: "Moved to Porto last
  month!") or someone they name ("my sister lives in Munich": ``i/sister``, never the
  speaker's own city). The value is the words the pattern names, cut at the first
  stop word ("I moved to Porto last month" -> "porto"). A pattern may say the verb
  itself is a change ("moved to", "got a new phone": no value needed) or that it
  ends the value ("no longer work at", "quit"). "Moved to" needs a place (a name, a
  place noun, an address), so "I moved to a new desk" moves no home.
* **A change that names no slot** ("Also I switched to an iPhone 15", after "My
  phone is an old Pixel 6") is matched through what it names: the thing switched
  to is an owned one ("a"/"an" and a product name, or a noun of an attribute: "an
  Android phone"; not "Windows 11", "oat milk", "a standing desk") and becomes the
  value of the one owned-thing slot (phone, car) its person set before. With both a
  phone and a car set, it is left unread rather than guessed. A vector test (the
  store holds each memory's) was looked at and not used: it needs a threshold.
* **Superseded, never hidden.** Per slot, the memories are ordered by when they were
  said (timestamp, then insertion order); one is *superseded* by the next that gives
  a different value (two values are the same when one's words hold the other's:
  "Porto" and "Porto, Portugal"). A restated value supersedes nothing. The rows live
  in this module's extension tables (``cur_slots``: one per memory and slot, with the
  value words, when it was said, when it became true (its event time when its words
  name an earlier one) and when remem learned it; ``cur_superseded``: the chain's
  links; ``cur_state``: how far the user's memories were read), erased with the
  memory or the user; deleting a memory relinks its slots' chains, so the older value
  is current again when the newer one goes.
* **Written with the memory.** The add's own transaction reads the new memories and
  writes their rows and links (:meth:`CurrentTables.on_add`), so no crash leaves a
  stored memory without them; a database from before the tables (``cur_state``
  behind) is read once per user on first use (:meth:`SlotBook.ingest`).
* **The view** a question reads (:class:`SlotView`, per user) is built once and kept
  in step with this process's adds in place (one query by the new ids, none when
  they set no slot); another process's add or any delete reads it again, as
  ``index/cache.py`` does with the indexes.
* **The question** (``asks`` per attribute): "Where do I live (now)?" asks for the
  current value, so in the time stage the current memory of each slot the question
  is about moves just above the best-ranked superseded one ("a newer version of
  <id>", the reader's ``versions`` reads that), and is brought in when the engine
  missed it (at most one per slot); "before", "used to", "originally" (``oldest`` in
  the data) put the first value first; a past-tense question without those words
  ("Where did I work in 2019?") is left to the engine and the window. "my sister"
  in a question asks about her slots, else the speakers' own.

Limits: statements by the person or about "my <relation>" ("Ana moved to Porto",
said by Ben, sets no slot of Ana's); one value per slot at a time (two phones are a
change); English.
"""

from __future__ import annotations

import json
import re
import threading
import time
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..engines.base import Scored
from ..store.base import Store, UserState, timestamp_epoch
from ..store.extension import Extension, Tables, Tx, register_extension
from .events import event_times

if TYPE_CHECKING:
    from ..types import StoredMemory

#: the value of a change whose new value the sentence does not say ("I got a new phone")
UNKNOWN = "(new)"
#: what a negated value starts with ("I quit Google": "not google")
NOT = "not "

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'&-]*")
_CUE_WORD = re.compile(r"[^\W_]+")
_SENTENCE = re.compile(r"(?<=[.!?\n])\s+")
_NAME = re.compile(r"(?:the\s+)?((?:[A-Z][A-Za-z0-9'&-]*)(?:\s+[A-Z][A-Za-z0-9'&-]*)*)")


@dataclass(frozen=True)
class Pattern:
    attribute: str
    regex: re.Pattern[str]
    kind: str
    change: bool
    negated: bool
    reject: frozenset[str]


@dataclass(frozen=True)
class Rules:
    patterns: tuple[Pattern, ...]
    asks: dict[str, re.Pattern[str]]
    roles: frozenset[str]
    stops: frozenset[str]
    drops: frozenset[str]
    numbers: dict[str, int]
    oldest: re.Pattern[str]
    past: re.Pattern[str]
    present: re.Pattern[str]
    #: an owned thing's noun -> its attribute ("handset" -> "phone")
    nouns: dict[str, str]
    places: frozenset[str]
    #: "my sister" in a question: whose slot it asks about
    relation: re.Pattern[str]
    #: attribute -> the words one of which each of its patterns holds: a look at the
    #: text's words spares most texts the patterns (a long turn took 2.3 ms without)
    cues: dict[str, frozenset[str]]
    #: the nouns of someone's people ("sister", "boss"), as the patterns' subjects
    relations: frozenset[str]


@lru_cache(maxsize=1)
def roles() -> frozenset[str]:
    """The nouns that name an occupation ("engineer", "nurse", "carpenter": the
    occupation slot's roles), for the typed reader's "What does Sam do for work?"."""
    return frozenset(r.split()[-1] for r in rules().roles)  # "social worker": "worker"


def relations() -> frozenset[str]:
    """The nouns of someone's people ("sister", "boss", "neighbour": ``slots.json``'s
    relations), for the typed reader's "Who...?" answered by "her mum"."""
    return rules().relations


@lru_cache(maxsize=1)
def not_employers() -> frozenset[str]:
    """The words that make a place one is with no employer ("club", "gym", "choir":
    the employer slot's ``reject``), for the typed reader's company questions too."""
    return next(p.reject for p in rules().patterns if p.attribute == "employer")


#: the attribute of a change that names no slot ("I switched to an iPhone 15"): the
#: speaker's one owned-thing slot an earlier memory set (:func:`resolve`)
OBJECT = "object"
#: an auxiliary a subject may carry ("I've", "my sister is"); no past ("I was living in
#: Lisbon" is history, not the current value)
_AUX = r"(?:'ve|'s|'m|'re|\s+have|\s+has|\s+had|\s+am|\s+is|\s+are)?"
_KIN = r"(?:(?:older|younger|little|big|best|eldest|oldest|twin)\s+)?"


def _who(relations: Iterable[str], bare: bool) -> str:
    """The subject of a pattern: I, we or "my <relation>" (a group ``rel``); with
    ``bare``, also none at the start of a sentence ("Moved to Porto last month!")."""
    rel = "|".join(sorted((re.escape(r) for r in relations), key=len, reverse=True))
    subject = rf"\b(?:I|we|my\s+{_KIN}(?P<rel>{rel}))\b{_AUX}\s+"
    if not bare:
        return f"(?:{subject})"
    return rf"(?:{subject}|(?:^|(?<=[.!?;]))\s*(?:(?:also|and|so|oh|well|update)[,:]?\s+)?)"


def _compile(attribute: str, p: str, kind: str, data: dict, number: str) -> re.Pattern[str]:
    """One pattern of ``slots.json`` as a regex (placeholders in the file's notes)."""
    tail = p.split("{v}", 1)[1]
    if kind == "number":
        v = rf"(?P<v>\d+|{number})"
    else:  # greedy at the end, lazy before more pattern
        v = r"(?P<v>[^.,;:!?()\n]+)" if not tail else r"(?P<v>[^.,;:!?()\n]+?)"
    thing = (
        r"(?P<thing>[a-z]+)" if attribute == "count" else r"(?P<thing>[a-z]+(?:\s+[a-z]+){0,2}?)"
    )
    p = p.replace("{who?}", _who(data["relations"], True))
    p = p.replace("{who}", _who(data["relations"], False))
    return re.compile(p.replace("{v}", v).replace("{thing}", thing), re.I)


@lru_cache(maxsize=1)
def rules() -> Rules:
    """``data/slots.json`` compiled, once."""
    data = json.loads((resources.files("remem.data") / "slots.json").read_text("utf-8"))
    numbers: dict[str, int] = data["numbers"]
    number = "|".join(sorted((re.escape(n) for n in numbers), key=len, reverse=True))
    pats = []
    for attribute, spec in data["attributes"].items():
        for say in spec["says"]:
            p: str = say["p"]
            kind = spec["value"]
            for k in ("name", "place", "named"):
                if f"{{v:{k}}}" in p:
                    kind, p = k, p.replace(f"{{v:{k}}}", "{v}")
            pats.append(
                Pattern(
                    attribute,
                    _compile(attribute, p, kind, data, number),
                    kind,
                    bool(say.get("change")),
                    bool(say.get("negated")),
                    frozenset(spec.get("reject", ())),
                )
            )
    rel = "|".join(sorted((re.escape(r) for r in data["relations"]), key=len, reverse=True))
    return Rules(
        tuple(pats),
        {a: re.compile(s["asks"], re.I) for a, s in data["attributes"].items()},
        frozenset(data["roles"]),
        frozenset(data["value_stops"]),
        frozenset(data["value_drops"]),
        numbers,
        re.compile(data["oldest"], re.I),
        re.compile(data["past"], re.I),
        re.compile(data["present"], re.I),
        {n: a for a, s in data["attributes"].items() for n in s.get("nouns", ())},
        frozenset(data["places"]),
        re.compile(rf"\b(?:my|his|her|their|your)\s+{_KIN}({rel})\b", re.I),
        {a: frozenset(s["cue"]) for a, s in data["attributes"].items()},
        frozenset(data["relations"]),
    )


@dataclass(frozen=True)
class SlotFact:
    """One slot a text sets: ``attribute`` ("residence", "count:cat"), the value's
    words (lower-cased, "not ..." when ended, :data:`UNKNOWN` when only the change is
    said), whether the words themselves say it changed, and ``whose`` ("": the
    speaker's own; "sister": the speaker's sister's)."""

    attribute: str
    value: str
    change: bool = False
    whose: str = ""


def singular(word: str) -> str:
    w = word.lower()
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def _words(raw: str, r: Rules) -> list[str]:
    """The value's words as written, up to a stop word, without the drop words."""
    out: list[str] = []
    for w in _WORD.findall(raw):
        low = w.lower()
        if low in r.stops:
            break
        if low not in r.drops:
            out.append(w)
        if len(out) == 4:
            break
    return out


def _value(raw: str, kind: str, r: Rules) -> str | None:
    if kind == "number":
        low = raw.lower()
        return str(r.numbers[low]) if low in r.numbers else low if low.isdigit() else None
    if kind in ("name", "place"):
        m = _NAME.match(raw.strip())
        if m and m.group(1) != "I":
            words = [w.lower() for w in _WORD.findall(m.group(1))]
            return " ".join(words[:4]) or None
        if kind == "name":
            return None
        # a place not named: a place noun ("the suburbs") or an address ("12 Elm Road");
        # "moved to a new desk", "to the front row" move no home
        place = [w.lower() for w in _words(raw, r)]
        ok = place and (singular(place[-1]) in r.places or place[-1] in r.places)
        return " ".join(place) if ok or any(c.isdigit() for c in "".join(place)) else None
    words = _words(raw, r)
    if kind == "named" and not any(c.isupper() or c.isdigit() for c in "".join(words)):
        return None  # "my car is the best": no model named
    out = [w.lower() for w in words]
    if kind == "role" and not (out and (out[-1] in r.roles or " ".join(out[-2:]) in r.roles)):
        return None
    return " ".join(out) or None


def _object(raw: str, r: Rules) -> tuple[str, str] | None:
    """What a change naming no slot switched to, and its attribute (:data:`OBJECT`
    when only an earlier memory can tell): an owned thing takes "a"/"an" ("an iPhone
    15"; "Windows 11", "Android", "oat milk" are no thing one owns) and is either
    named like a product (every word capitalised or with a digit) or ends in the noun
    of an attribute ("an Android phone"); "a standing desk" is neither."""
    m = re.match(r"\s*an?\s+(.+)", raw, re.I)
    if not m:
        return None
    words = _words(m.group(1), r)
    if not words:
        return None
    value = " ".join(w.lower() for w in words)
    last = words[-1]
    if last.isalpha() and last.islower():
        attribute = r.nouns.get(singular(last))
        return (attribute, value) if attribute else None
    if all(any(c.isupper() or c.isdigit() for c in w) for w in words):
        return OBJECT, value
    return None


def read_slots(text: str, cued: bool = True) -> list[SlotFact]:
    """The slots a first-person ``text`` sets (the speaker's, and those of the people
    it names as "my sister"), first per person and attribute, in pattern order; a
    change of an unnamed slot has the attribute :data:`OBJECT` (:func:`resolve`).
    ``cued``: only the attributes whose cue word the text holds are tried (the same
    reading, faster). Public (docs/usage.md#python-quickstart)."""
    r = rules()
    text = text.replace("\u2019", "'")
    found: dict[tuple[str, str], SlotFact] = {}
    parts = [(text, set(r.cues))] if not cued else _cued(text, r)
    for p in r.patterns:
        for part, live in parts:
            if p.attribute not in live:
                continue
            for m in _matches_of(p.regex, part):
                attribute = p.attribute
                whose = m.groupdict().get("rel") or ""
                whose = singular(whose) if whose else ""
                if "thing" in p.regex.groupindex:
                    words = m.group("thing").split()
                    attribute = f"{attribute}:{' '.join(singular(w) for w in words)}"
                value: str | None
                if attribute == OBJECT:
                    got = _object(m.group("v"), r)
                    if got is None:
                        continue
                    attribute, value = got
                else:
                    value = _value(m.group("v"), p.kind, r)
                if (whose, attribute) in found:
                    continue
                if value is not None and set(value.split()) & p.reject:
                    continue
                if value is None:  # only a change of words that say no value is one
                    if not p.change or p.negated or p.kind != "words":
                        continue
                    value = UNKNOWN
                if p.negated:
                    value = NOT + value
                found[(whose, attribute)] = SlotFact(attribute, value, p.change, whose)
    return list(found.values())


def ended(text: str) -> list[str]:
    """The values a first-person ``text`` says the speaker's own slots no longer hold
    ("I quit Google": "google"), every one: :func:`read_slots` keeps one fact per slot
    and memory, the new value where one is told beside the old ("I handed in my notice
    at Crumb & Co. today. I'm going to be the head baker at Levain House")."""
    r = rules()
    text = text.replace("\u2019", "'")
    out = []
    for p in r.patterns:
        if not p.negated:
            continue
        for m in _matches_of(p.regex, text):
            value = _value(m.group("v"), p.kind, r)
            if value and not m.groupdict().get("rel"):
                out.append(value)
    return out


def _cued(text: str, r: Rules) -> list[tuple[str, set[str]]]:
    """The text's sentences that hold a cue word, each with the attributes it cues (no
    pattern reads across a sentence's end: a value stops at its punctuation)."""
    out = []
    for sentence in _SENTENCE.split(text):
        words = set(_CUE_WORD.findall(sentence.lower()))
        if any(c.isdigit() for c in sentence):
            words.add("#digit")
        live = {a for a, cue in r.cues.items() if cue & words}
        if live:
            out.append((sentence, live))
    return out


def _matches_of(regex: re.Pattern[str], text: str) -> Iterable[re.Match[str]]:
    """Every match, the next searched from the last one's value: a value runs to the
    end of its clause, so "I live in Lisbon and my sister lives in Porto" would
    otherwise hide the sister's."""
    pos = 0
    while (m := regex.search(text, pos)) is not None:
        yield m
        pos = max(m.start("v") if "v" in regex.groupindex else m.end(), m.start() + 1)


def object_attributes() -> frozenset[str]:
    """The attributes a change naming no slot may be of (those with owned-thing nouns)."""
    return frozenset(rules().nouns.values())


def resolve(facts: list[SlotFact], subject: str, known: set[str]) -> list[SlotFact]:
    """``facts`` with each :data:`OBJECT` change given the attribute of the one
    owned-thing slot ``known`` (slot keys already set) holds for its person; dropped
    when there is none or more than one ("switched to a Tesla" after a phone and a
    car: which?)."""
    out = []
    for f in facts:
        if f.attribute == OBJECT:
            person = slot_subject(subject, f.whose)
            have = [a for a in object_attributes() if f"{person}|{a}" in known]
            if len(have) != 1:
                continue
            f = replace(f, attribute=have[0])
        out.append(f)
    return out


def subject_of(speaker: str | None) -> str:
    """Whose slot a first-person memory sets: its speaker, or "i"."""
    return (speaker or "").strip().lower() or "i"


def slot_subject(subject: str, whose: str) -> str:
    """The person of a slot: the speaker ("ana") or one they name ("ana/sister")."""
    return f"{subject}/{whose}" if whose else subject


def same_value(a: str, b: str) -> bool:
    """Whether two values are one ("porto" and "porto portugal"); an unknown new value
    is never the same as another."""
    if UNKNOWN in (a, b):
        return False
    if a.startswith(NOT) != b.startswith(NOT):
        return False
    wa, wb = set(a.split()), set(b.split())
    return bool(wa and wb) and (wa <= wb or wb <= wa)


def decide(
    first: str, second: str, first_speaker: str | None = None, second_speaker: str | None = None
) -> str:
    """What ``second`` (said later) does to ``first``: "superseded" (a slot of the same
    person set to another value), "same" (a slot restated) or "different"."""
    one = subject_of(first_speaker)
    a = {
        (slot_subject(one, f.whose), f.attribute): f.value
        for f in resolve(read_slots(first), one, set())
        if f.attribute != OBJECT
    }
    two = subject_of(second_speaker)
    known = {f"{s}|{attr}" for s, attr in a}
    out = "different"
    for f in resolve(read_slots(second), two, known):
        old = a.get((slot_subject(two, f.whose), f.attribute))
        if old is None:
            continue
        if not same_value(old, f.value):
            return "superseded"
        out = "same"
    return out


# -- chains ------------------------------------------------------------------------


@dataclass(frozen=True)
class SlotRow:
    memory_id: str
    slot: str
    value: str
    said: float
    seq: int


def link(rows: Iterable[SlotRow]) -> list[tuple[str, str, str, float]]:
    """The links of the slots' chains: (memory id, slot, superseded by, at) for every
    memory the next different value of its slot (in the order said) replaced."""
    by_slot: dict[str, list[SlotRow]] = {}
    for row in rows:
        by_slot.setdefault(row.slot, []).append(row)
    out = []
    for slot, chain in by_slot.items():
        chain.sort(key=lambda r: (r.said, r.seq))
        for i, row in enumerate(chain):
            nxt = next((s for s in chain[i + 1 :] if not same_value(row.value, s.value)), None)
            if nxt is not None:
                out.append((row.memory_id, slot, nxt.memory_id, nxt.said))
    return out


# -- the tables --------------------------------------------------------------------

_SQLITE_V1 = """
CREATE TABLE IF NOT EXISTS cur_slots (
    user_id    TEXT NOT NULL,
    memory_id  TEXT NOT NULL,
    slot       TEXT NOT NULL,
    value      TEXT NOT NULL,
    said       REAL NOT NULL,
    seq        INTEGER NOT NULL,
    valid_from REAL NOT NULL,
    learned_at REAL NOT NULL,
    PRIMARY KEY (user_id, memory_id, slot)
);
CREATE TABLE IF NOT EXISTS cur_superseded (
    user_id       TEXT NOT NULL,
    memory_id     TEXT NOT NULL,
    slot          TEXT NOT NULL,
    superseded_by TEXT NOT NULL,
    at            REAL NOT NULL,
    PRIMARY KEY (user_id, memory_id, slot)
);
CREATE INDEX IF NOT EXISTS cur_superseded_by ON cur_superseded (user_id, superseded_by);
CREATE TABLE IF NOT EXISTS cur_state (
    user_id TEXT PRIMARY KEY,
    seq     INTEGER NOT NULL
)
"""

_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS cur_slots (
    user_id    TEXT COLLATE "C" NOT NULL,
    memory_id  TEXT COLLATE "C" NOT NULL,
    slot       TEXT COLLATE "C" NOT NULL,
    value      TEXT NOT NULL,
    said       DOUBLE PRECISION NOT NULL,
    seq        BIGINT NOT NULL,
    valid_from DOUBLE PRECISION NOT NULL,
    learned_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, memory_id, slot)
);
CREATE TABLE IF NOT EXISTS cur_superseded (
    user_id       TEXT COLLATE "C" NOT NULL,
    memory_id     TEXT COLLATE "C" NOT NULL,
    slot          TEXT COLLATE "C" NOT NULL,
    superseded_by TEXT COLLATE "C" NOT NULL,
    at            DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, memory_id, slot)
);
CREATE INDEX IF NOT EXISTS cur_superseded_by ON cur_superseded (user_id, superseded_by);
CREATE TABLE IF NOT EXISTS cur_state (
    user_id TEXT COLLATE "C" PRIMARY KEY,
    seq     BIGINT NOT NULL
)
"""


class CurrentTables(Extension):
    """The slot tables; a delete relinks the user's chains (the recorded rule has
    dropped the deleted memories' slots and every link naming them)."""

    def on_add(self, tx: Tx, user_id: str, memories: list[StoredMemory]) -> None:
        """The slots the new memories set, written in the add's transaction (a memory
        is never stored without its slot rows), and the user's marker moved past them
        when every memory before them was read."""
        if not memories:
            return
        write_slots(tx, user_id, memories)
        first, top = memories[0].seq, max(m.seq for m in memories)
        if first == 0:  # the user's first memories: read from the start
            tx.run(_MARK, (user_id, top))
        else:
            tx.run(
                "UPDATE cur_state SET seq = ? WHERE user_id = ? AND seq >= ? AND seq < ?",
                (top, user_id, first - 1, top),
            )

    def on_delete(self, tx: Tx, user_id: str, ids: list[str]) -> None:
        relink(tx, user_id, None)


CURRENT_TABLES = CurrentTables(
    name="current",
    migrations={"sqlite": [(1, _SQLITE_V1)], "postgres": [(1, _POSTGRES_V1)]},
    user_tables=("cur_slots", "cur_superseded", "cur_state"),
    memory_refs=(
        ("cur_slots", "memory_id"),
        ("cur_superseded", "memory_id"),
        ("cur_superseded", "superseded_by"),
    ),
    doc="what is true now: the slots memories set and which value replaced which",
)
register_extension(CURRENT_TABLES)  # every Memory attaches it: any delete relinks


def relink(tx: Tx, user_id: str, slots: Sequence[str] | None) -> None:
    """Rebuild the links of ``slots`` (None: all the user's) from their rows."""
    if slots is None:
        rows = tx.all(
            "SELECT memory_id, slot, value, said, seq FROM cur_slots WHERE user_id = ?",
            (user_id,),
        )
        tx.run("DELETE FROM cur_superseded WHERE user_id = ?", (user_id,))
        rows = _opened(tx, user_id, rows)
    else:
        if not slots:
            return
        sealed = [_seal_slot(tx, user_id, slot) for slot in slots]
        rows = tx.rows_in(
            "SELECT memory_id, slot, value, said, seq FROM cur_slots "
            "WHERE user_id = ? AND slot {in}",
            (user_id,),
            sealed,
        )
        tx.rows_in("DELETE FROM cur_superseded WHERE user_id = ? AND slot {in}", (user_id,), sealed)
        rows = _opened(tx, user_id, rows)
    links = link(SlotRow(m, s, v, float(t), int(q)) for m, s, v, t, q in rows)
    tx.many(
        "INSERT INTO cur_superseded (user_id, memory_id, slot, superseded_by, at) "
        "VALUES (?, ?, ?, ?, ?)",
        [(user_id, m, _seal_slot(tx, user_id, slot), by, at) for m, slot, by, at in links],
    )


_MARK = (
    "INSERT INTO cur_state (user_id, seq) VALUES (?, ?) ON CONFLICT (user_id) "
    "DO UPDATE SET seq = CASE WHEN cur_state.seq > excluded.seq "
    "THEN cur_state.seq ELSE excluded.seq END"
)
_INSERT = (
    "INSERT INTO cur_slots (user_id, memory_id, slot, value, said, seq, valid_from, "
    "learned_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, memory_id, slot) "
    "DO NOTHING"
)


def write_slots(tx: Tx, user_id: str, memories: Sequence[StoredMemory]) -> int:
    """Read the slots ``memories`` (the user's, in insertion order, all present) set,
    write their rows and relink the chains they join; how many rows. A change naming
    no slot ("I switched to an iPhone 15") takes the one owned-thing slot its person
    set before, in the tables or earlier in ``memories``."""
    read = [(m, read_slots(m.text)) for m in memories]
    known: set[str] = set()
    if any(f.attribute == OBJECT for _, facts in read for f in facts):
        wanted = sorted(object_attributes())
        for (sealed,) in tx.all(
            "SELECT DISTINCT slot FROM cur_slots WHERE user_id = ?", (user_id,)
        ):
            slot = _open_slot(tx, user_id, sealed)
            if slot.rpartition("|")[2] in wanted:
                known.add(slot)
    learned = time.time()
    rows = []
    for m, facts in read:
        if not facts:
            continue
        said, since = timestamp_epoch(m.timestamp), _became_true(m)
        subject = subject_of(m.speaker)
        for f in resolve(facts, subject, known):
            slot = f"{slot_subject(subject, f.whose)}|{f.attribute}"
            known.add(slot)
            rows.append((user_id, m.id, slot, f.value, said, m.seq, since, learned))
    if rows:
        tx.many(_INSERT, [_sealed(tx, row) for row in rows])
        relink(tx, user_id, sorted({r[2] for r in rows}))
    return len(rows)


#: Where slot names are sealed for lookups (``Tx.seal_text``: an encrypted store), in
#: both tables, so SQL still matches a slot by equality; a slot names its subject (a
#: speaker) and attribute. The values are sealed bound to their row.
SLOT_PLACE = "cur.slot"


def _seal_slot(tx: Tx, user_id: str, slot: str) -> str:
    return tx.seal_text(user_id, SLOT_PLACE, slot, lookup=True)


def _open_slot(tx: Tx, user_id: str, sealed: str) -> str:
    return tx.open_text(user_id, SLOT_PLACE, sealed)


def _sealed(tx: Tx, row: tuple) -> tuple:
    """An ``_INSERT`` row with its slot and value sealed (where the store seals)."""
    user_id, memory_id, slot, value, *rest = row
    place = f"cur_slots.value:{memory_id}:{slot}"
    return (
        user_id,
        memory_id,
        _seal_slot(tx, user_id, slot),
        tx.seal_text(user_id, place, value),
        *rest,
    )


def _opened(tx: Tx, user_id: str, rows: Sequence[Sequence]) -> list[tuple]:
    """``_ROWS`` rows (memory_id, slot, value, said, seq) as written, opened."""
    out = []
    for memory_id, sealed, value, said, seq in rows:
        slot = _open_slot(tx, user_id, sealed)
        place = f"cur_slots.value:{memory_id}:{slot}"
        out.append((memory_id, slot, tx.open_text(user_id, place, value), said, seq))
    return out


def _became_true(m: StoredMemory) -> float:
    """When what the memory says became true: the start of the first earlier time its
    words name ("I moved to Porto last month"), else when it was said."""
    said = timestamp_epoch(m.timestamp)
    for e in event_times(m.text, m.timestamp):
        start = timestamp_epoch(e.start)
        if start < said:
            return start
    return said


@dataclass(frozen=True)
class SlotView:
    """One user's slots as a read sees them (never changed: an add makes a new one)."""

    #: slot -> its memories' rows in the order said
    chains: dict[str, list[SlotRow]] = field(default_factory=dict)
    #: memory id -> the memory that superseded it (its first slot's)
    superseded: dict[str, str] = field(default_factory=dict)
    #: (memory id, slot) -> the memory that superseded it in that slot
    links: dict[tuple[str, str], str] = field(default_factory=dict)

    @classmethod
    def of(cls, rows: Iterable[SlotRow]) -> SlotView:
        """The view of these rows, linked as :func:`relink` links the tables."""
        return cls().extended(rows)

    def extended(self, rows: Iterable[SlotRow]) -> SlotView:
        """This view with ``rows`` added (a memory's row already here is kept, as the
        tables' insert keeps it) and their slots' chains linked again."""
        chains = dict(self.chains)
        touched: set[str] = set()
        for row in rows:
            if row.slot not in touched:  # copied: a reader may hold this view
                chains[row.slot] = list(chains.get(row.slot, []))
                touched.add(row.slot)
            chain = chains[row.slot]
            if all(r.memory_id != row.memory_id for r in chain):
                chain.append(row)
        links = {k: v for k, v in self.links.items() if k[1] not in touched}
        for slot in touched:
            chains[slot].sort(key=lambda r: (r.said, r.seq))
        for m, s, by, _ in link(r for t in touched for r in chains[t]):
            links[(m, s)] = by
        superseded: dict[str, str] = {}
        for (m, _), by in sorted(links.items()):
            superseded.setdefault(m, by)
        return SlotView(chains, superseded, links)


_ROWS = "SELECT memory_id, slot, value, said, seq FROM cur_slots WHERE user_id = ?"


class SlotBook:
    """Gives the time stage each user's :class:`SlotView`, kept in step with this
    process's adds in place (as ``index/cache.py`` keeps the indexes), reloaded when
    another process changed the user; reads the slots of memories written before the
    tables (or by a process without them) once, per user."""

    def __init__(self, store: Store):
        self._store = store
        self._tables: Tables = store.attach(CURRENT_TABLES)
        self._lock = threading.Lock()
        self._views: dict[str, tuple[UserState | None, SlotView]] = {}
        # user -> (epoch, the highest insertion number known read for slots)
        self._marks: dict[str, tuple[str, int]] = {}

    def marker(self, user_id: str) -> int | None:
        """The highest insertion number whose memory was read for slots (None: this
        user's memories were never read: a database from before the tables)."""
        with self._tables.read() as tx:
            row = tx.one("SELECT seq FROM cur_state WHERE user_id = ?", (user_id,))
        return None if row is None else int(row[0])

    def ingest(self, user_id: str, epoch: str | None = None) -> int:
        """Read the slots of the user's memories the tables have not read (all of
        them the first time; the add's transaction reads every later one): the
        backfill of a database from before the tables. How many slot rows."""
        mark = self.marker(user_id)
        after = -1 if mark is None else mark
        todo = self._store.load(user_id, after_seq=after, with_embeddings=False)
        top = max([after, *(m.seq for m in todo)])
        n = 0
        with self._tables.write(user_id) as tx:
            present = set(tx.existing(user_id, [m.id for m in todo]))
            n = write_slots(tx, user_id, [m for m in todo if m.id in present])
            tx.run(_MARK, (user_id, top))
        self._remember(user_id, epoch, top)
        return n

    def added(
        self,
        user_id: str,
        stored: Sequence[StoredMemory],
        before: UserState | None,
        after: UserState | None,
    ) -> None:
        """This process's add (its slot rows written in its transaction) applied to
        the cached view in place, when nothing else changed the user meanwhile;
        otherwise the next :meth:`view` reloads."""
        if not stored or after is None:
            return
        top, first = max(m.seq for m in stored), min(m.seq for m in stored)
        if first == 0 or self._known(user_id, after.epoch) == first - 1:
            self._remember(user_id, after.epoch, top)
        with self._lock:
            have = self._views.pop(user_id, None)
        if (
            have is None
            or before is None
            or have[0] != before
            or after.epoch != before.epoch
            or after.del_rev != before.del_rev
            or after.next_seq != before.next_seq + len(stored)
        ):
            return
        view = have[1]
        if any(read_slots(m.text) for m in stored):  # most adds set none: no query
            with self._tables.read() as tx:
                rows = tx.rows_in(_ROWS + " AND memory_id {in}", (user_id,), [m.id for m in stored])
                rows = _opened(tx, user_id, rows)
            view = view.extended(SlotRow(m, s, v, float(t), int(q)) for m, s, v, t, q in rows)
        with self._lock:
            self._views[user_id] = (after, view)

    def view(self, user_id: str, state: UserState | None) -> SlotView:
        """The user's slots as of ``state`` (the index's): cached until it moves;
        memories not read yet (an older database, another writer) are read first."""
        with self._lock:
            have = self._views.get(user_id)
        if have is not None and have[0] == state:
            return have[1]
        if state is None:
            return SlotView()
        mark = self._known(user_id, state.epoch)
        if mark is None or mark < state.next_seq - 1:
            mark = self.marker(user_id)
            if mark is None or mark < state.next_seq - 1:
                self.ingest(user_id, epoch=state.epoch)
            else:
                self._remember(user_id, state.epoch, mark)
        with self._tables.snapshot() as tx:
            rows = _opened(tx, user_id, tx.all(_ROWS, (user_id,)))
        view = SlotView.of(SlotRow(m, s, v, float(t), int(q)) for m, s, v, t, q in rows)
        with self._lock:
            self._views[user_id] = (state, view)
        return view

    def _known(self, user_id: str, epoch: str | None) -> int | None:
        """The highest insertion number known read of the user (None: none, or the
        user was erased and recreated since)."""
        with self._lock:
            have = self._marks.get(user_id)
        return have[1] if have is not None and epoch is not None and have[0] == epoch else None

    def _remember(self, user_id: str, epoch: str | None, seq: int) -> None:
        if epoch is None:
            return
        with self._lock:
            have = self._marks.get(user_id)
            if have is None or have[0] != epoch or have[1] < seq:
                self._marks[user_id] = (epoch, seq)

    def forget_user(self, user_id: str) -> None:
        with self._lock:
            self._views.pop(user_id, None)
            self._marks.pop(user_id, None)


_BOOKS: weakref.WeakKeyDictionary[Store, SlotBook] = weakref.WeakKeyDictionary()
_BOOKS_LOCK = threading.Lock()


def slot_book(store: Store) -> SlotBook:
    """The store's one :class:`SlotBook`: the write path and the time stage share
    what it knows (the views, how far each user was read)."""
    with _BOOKS_LOCK:
        book = _BOOKS.get(store)
        if book is None:
            book = _BOOKS[store] = SlotBook(store)
        return book


# -- the question --------------------------------------------------------------------


def asked(text: str) -> tuple[set[str], set[str]]:
    """The attributes a question asks about, and its words as singular nouns (the
    things a favourite or a count may be of)."""
    r = rules()
    attrs = {a for a, rx in r.asks.items() if rx.search(text)}
    things = {singular(w) for w in _WORD.findall(text)} if attrs else set()
    return attrs, things


def question_mode(text: str, order: str | None) -> str | None:
    """ "oldest" when the question asks for the first or a former value, "newest" for
    the current one (present tense, "now", "still"), None for a past question."""
    r = rules()
    if order == "oldest" or r.oldest.search(text):
        return "oldest"
    if order == "newest" or r.present.search(text) or not r.past.search(text):
        return "newest"
    return None


def sets_asked(question: str, text: str) -> bool:
    """Whether ``text`` (a memory or one of its sentences) sets a slot the question
    asks about to a value, of the person it asks about ("I'm renting a little
    terraced house in Mutley now" for "Where do I live now?"); not one it ends ("I
    moved out of the Stonehouse flat")."""
    attrs, things = asked(question)
    if not attrs:
        return False
    whose = _people(question, attrs)
    return any(
        _matches(f.attribute, attrs, things) and f.whose in whose and not f.value.startswith(NOT)
        for f in read_slots(text)
    )


def _matches(attribute: str, attrs: set[str], things: set[str]) -> bool:
    base, _, thing = attribute.partition(":")
    if base not in attrs:
        return False
    return not thing or set(thing.split()) <= things


def _people(text: str, attrs: set[str]) -> set[str]:
    """Whose slots a question asks about: the people it names as "my sister" ({""}:
    the speakers' own); "my wife" in "Who is my wife?" is the slot, not a person."""
    r = rules()
    named = {
        singular(w)
        for w in r.relation.findall(text)
        if not any(r.asks[a.partition(":")[0]].search(w) for a in attrs)
    }
    return named or {""}


def current_first(
    hits: list[Scored], text: str, order: str | None, names: Sequence[str], view: SlotView
) -> list[Scored]:
    """``hits`` with, for each slot the question asks about, the current value's memory
    just above the best-ranked superseded one (brought in when the engine missed it),
    or the first value's above the later ones for a question about the former; every
    hit the view knows superseded carries ``superseded_by``."""
    if not view.chains or not hits:
        return hits
    out = list(hits)
    attrs, things = asked(text)
    mode = question_mode(text, order) if attrs else None
    if mode is not None:
        subjects = {n.lower() for n in names}
        known = {s.split("|", 1)[0].partition("/")[0] for s in view.chains}
        subjects &= known
        whose = _people(text, attrs)
        for slot, chain in view.chains.items():
            person, attribute = slot.split("|", 1)
            subject, _, of = person.partition("/")
            if len(chain) < 2 or not _matches(attribute, attrs, things):
                continue
            if (subjects and subject not in subjects) or of not in whose:
                continue
            stale = {r.memory_id for r in chain if (r.memory_id, slot) in view.links}
            out = _order_chain(out, chain, stale, mode, attribute)
    if view.superseded:
        out = [
            replace(h, superseded_by=view.superseded[h.id]) if h.id in view.superseded else h
            for h in out
        ]
    return out


def _order_chain(
    hits: list[Scored], chain: list[SlotRow], stale_ids: set[str], mode: str, attribute: str
) -> list[Scored]:
    """One slot's chain ordered in ``hits`` (``stale_ids``: its superseded memories)."""
    pos = {h.id: i for i, h in enumerate(hits)}
    ids = [r.memory_id for r in chain]
    old = [m for m in ids if m in stale_ids]
    if not old:
        return hits  # one value, restated: nothing to order
    if mode == "newest":
        stale = [pos[m] for m in old if m in pos]
        fresh = [pos[m] for m in ids if m not in stale_ids and m in pos]
        if not stale:
            return hits
        top = min(stale)
        if fresh and min(fresh) < top:  # already above: said, so the reader knows
            at = min(fresh)
            note = f"a newer version of {hits[top].id} (the current {attribute})"
            if note not in hits[at].note:
                hits[at] = hits[at].noted(note)
            return hits
        target = (
            hits[min(fresh)].id if fresh else next(m for m in reversed(ids) if m not in stale_ids)
        )
        word = "a newer"
    else:
        first = ids[0]
        later = [pos[m] for m in ids[1:] if m in pos and not same_chain_value(chain, first, m)]
        if not later or (first in pos and pos[first] < min(later)):
            return hits
        top, target, word = min(later), first, "an older"
    if target not in pos and top > 0:
        # the engine missed the other value and ranked the stale one below another
        # memory: the question may be about something else that shares the slot's
        # words ("what does she work on?"); bringing a memory in would push out one
        # the engine found (recall@5 fell:
        # docs/notes/benchmark-history.md#time-and-change-first-round-issue-36)
        return hits
    which = "the current" if mode == "newest" else "the first"
    note = f"{word} version of {hits[top].id} ({which} {attribute})"
    if target in pos:
        moved = hits.pop(pos[target])
    else:  # the engine missed it: brought in, at the place of the one it replaces
        moved = Scored(target, hits[top].score, "current" if mode == "newest" else "first")
    moved = replace(moved, note=f"{moved.note}; {note}" if moved.note else note)
    hits.insert(top, moved)
    return hits


def same_chain_value(chain: list[SlotRow], a: str, b: str) -> bool:
    values = {r.memory_id: r.value for r in chain}
    return same_value(values[a], values[b])
