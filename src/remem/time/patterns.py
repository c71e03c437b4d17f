"""Finding time expressions in English text: where they are and what they say.

Each pattern finds one family ("Saturday", "last week", "3rd of March 2023", "two
weeks ago", "the 9th", "in April", "in 2019" ...) and records its span (the exact
words, without a leading "on"/"in") and its raw fields; :mod:`.resolve` turns them
into days. A family is looked for only when a word it cannot do without is in the
text, so a memory that names no time costs a handful of substring tests.

Guards against words that look like times but are not: a weekday after a determiner
("her Sunday best", "every Tuesday") or in the plural ("on Fridays") is a habit, not
an event; a bare month name counts only after a preposition ("in May", "from
January") or with a day or a year, so "May I ...", "you may", "march" the verb and
"the May Fair" are not months; a bare four-digit number is a year only after a
preposition ("in 2019"), so "room 2019" and "2000 dollars" are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
#: the names of days and months: capitalised words that name a time, not a person
#: (``words.py`` and ``index/tokenize.py`` leave them out of names)
CALENDAR_WORDS = frozenset(WEEKDAYS + MONTHS)
_WD = r"(monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_MON_FULL = (
    r"(january|february|march|april|may|june|july|august|september|october|november|"
    r"december)"
)
_MON_ANY = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_PART = r"(?:\s+(?:morning|afternoon|evening|night))?"
_NUMBER = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
_QTY = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several)"
)
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_DAY_WORDS = ("day", "night", "morning", "afternoon", "evening", "tonight", "tomorrow")
_UNIT_WORDS = ("week", "month", "year")

_DIGIT = re.compile(r"\d")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_NUMERIC = re.compile(r"\b(on\s+)?(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b(?![/.]\d)", re.I)
_MONTH_DAY = re.compile(
    rf"\b(?:{_WD},?\s+(?:the\s+)?)?(?:{_MON_ANY}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b"
    rf"(?:\s*[-–]\s*(\d{{1,2}})\b)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON_ANY}\b)"
    r"(?:,?\s+(\d{4})\b)?",
    re.I,
)
#: a day of the month in words, as said before "of" and a month ("the first of June")
_UNITS_ORDINAL = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
)  # fmt: skip
_ORDINAL_WORDS = {
    **{w: i + 1 for i, w in enumerate(_UNITS_ORDINAL)},
    **{f"twenty-{w}": 21 + i for i, w in enumerate(_UNITS_ORDINAL)},
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20, "thirtieth": 30, "thirty-first": 31,
}  # fmt: skip
_MONTH_DAY_WORDS = re.compile(
    rf"\b(?:the\s+)?({'|'.join(sorted(_ORDINAL_WORDS, key=len, reverse=True))})"
    rf"\s+of\s+{_MON_FULL}\b(?:,?\s+(\d{{4}})\b)?",
    re.I,
)
_NOT_A_DATE_NOUN = (
    r"time|floor|place|century|grade|birthday|anniversary|edition|row|street|avenue|"
    r"round|attempt|try|day|week|month|year|generation|person|one|chapter|page|lap"
)
_ORDINAL = re.compile(
    rf"\bthe\s+(\d{{1,2}})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?{_MON_ANY}\b)"
    rf"(?!\s+(?:{_NOT_A_DATE_NOUN})s?\b)",
    re.I,
)
_WEEKDAY = re.compile(
    rf"\b(?:(last|next|this\s+past|this\s+coming|this|past|previous|coming)\s+)?{_WD}\b{_PART}",
    re.I,
)
#: "last Fri", "on Tues": a weekday shortened, read only after a step word or "on" and
#: capitalised ("on sun loungers", "last wed..." are no days)
_WEEKDAY_SHORT = re.compile(
    r"\b((?i:last|next|this\s+past|this\s+coming|this|past|previous|coming|on))\s+"
    r"(Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b\.?"
)
_SHORT_STEMS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_HABIT = re.compile(
    r"(?:\b(?:a|an|the|my|your|his|her|our|their|its|every|each|one|any|some|that)|['’]s)\s+$",
    re.I,
)
_DAYWORD = re.compile(
    r"\b(the\s+day\s+before\s+yesterday|the\s+day\s+after\s+tomorrow|yesterday|today|"
    rf"tomorrow|tonight|last\s+night|this\s+(?:morning|afternoon|evening)){_PART}\b",
    re.I,
)
_UNIT = re.compile(
    r"\b(this|next|last|past|previous)\s+(week|weekend|month|year)\b(?!\s+of\b)"
    r"|\b(the)\s+(weekend)\b(?!\s+(?:before\s+last|after\s+next)\b)"
    r"|\bthe\s+(weekend|week|month|year)\s+(before\s+last|after\s+next)\b",
    re.I,
)
_AGO = re.compile(rf"\b{_QTY}\s+(day|week|month|year)s?\s+ago\b", re.I)
_IN_N = re.compile(rf"\bin\s+{_QTY}\s+(day|week|month|year)s?\b(?!\s+ago\b)", re.I)
_MONTH = re.compile(
    r"\b(?:(in|during|of|back\s+in|from|to|until|till|through|between|and|since)\s+)?"
    rf"(?:(early|mid|late)[\s-]+)?{_MON_FULL}\b(?:,?\s+(\d{{4}})\b)?",
    re.I,
)
#: "the first weekend of August", "the last week of October 2023", "the second week
#: of November": a week or weekend counted within a month
_MONTH_WEEK = re.compile(
    r"\b(?:the\s+)?(first|second|third|fourth|last)\s+(week|weekend)\s+of\s+"
    rf"{_MON_FULL}\b(?:,?\s+(\d{{4}})\b)?",
    re.I,
)
#: the ordinals of :data:`_MONTH_WEEK`, "last" as -1
WEEK_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
#: "last August", "next May", "this March": a month counted from the moment said
_STEP_MONTH = re.compile(
    rf"\b(last|next|this\s+past|this\s+coming|this|past|previous|coming)\s+{_MON_FULL}\b"
    r"(?!,?\s+\d{4})",
    re.I,
)
_CAPITAL_ONLY = frozenset(("from", "to", "until", "till", "through", "between", "and", "since"))
# "between March and May": "and" opens a month only as the end of such a range
_BETWEEN_MONTH = re.compile(rf"\bbetween\s+(?:(?:early|mid|late)[\s-]+)?{_MON_FULL}\s+$", re.I)
_YEAR = re.compile(
    r"\b(?:in|during|of|back\s+in|from|to|until|till|through|since)\s+(\d{4})\b"
    r"(?!\s*(?:%|percent|dollars|euros|pounds|people|km|miles|words|times|calories|steps|"
    r"feet|meters|metres)\b)(?![-/.:]\d)",
    re.I,
)


SEASONS = ("spring", "summer", "autumn", "fall", "winter")
_SEASON = r"(spring|summer|autumn|fall|winter)"
#: "last summer", "this past winter", "in the summer of 2022", "over the summer",
#: "summer 2022", "in spring", "two summers ago". "fall" the verb ("I fall asleep")
#: is never a season: it needs a year, "the", or a step word before it.
_SEASONS = re.compile(
    rf"\b(last|this\s+past|past|previous|this|next|this\s+coming|coming)\s+{_SEASON}\b"
    rf"|\b(?:in|during|over|through|for)\s+(?:the\s+)?(?:(early|mid|late)[\s-]+)?{_SEASON}"
    rf"(?:\s+of)?(?:,?\s+(\d{{4}})\b)?"
    rf"|\b{_SEASON}\s+(?:of\s+)?(\d{{4}})\b"
    rf"|\b{_QTY}\s+{_SEASON}s\s+ago\b",
    re.I,
)
#: quantities that say "about": "a few years ago" is a guess at which year
VAGUE = frozenset(("a few", "few", "several", "a couple", "a couple of", "couple of"))


@dataclass(frozen=True)
class Found:
    """One expression: ``text[start:end]`` are its words, ``kind`` its family and
    ``fields`` what resolving it needs (numbers and lower-cased words)."""

    start: int
    end: int
    kind: str
    fields: tuple[object, ...]


def quantity(words: str) -> int:
    words = " ".join(words.lower().split())
    return int(words) if words.isdigit() else _NUMBER.get(words, 1)


def month_number(name: str) -> int:
    """0 (January) to 11 of a month's name or abbreviation."""
    return _MONTH_STEMS.index(name[:3].lower())


Windows = list[tuple[int, int]]
_ANCHORS = (
    *_MONTH_STEMS,
    "day",
    "night",
    "morning",
    "afternoon",
    "evening",
    "tomorrow",
    "week",
    "month",
    "year",
    "ago",
    *SEASONS,
)
_REACH = 48  # characters an expression reaches either side of its anchor word


def _windows(text: str, low: str) -> Windows:
    """The stretches of ``text`` around words no expression can do without (a digit,
    a month's first letters, "day", "week", "ago" ...), merged: the patterns, whose
    optional openings make them slow to slide over a long text, read only these. A
    window ends at a space, so no word is cut."""
    if len(low) != len(text):  # a letter whose lower case is longer: read it all
        return [(0, len(text))]
    hits = [m.start() for m in _DIGIT.finditer(low)]
    for word in _ANCHORS:
        i = low.find(word)
        while i >= 0:
            hits.append(i)
            i = low.find(word, i + 1)
    hits.sort()
    out: Windows = []
    for hit in hits:
        lo = max(0, hit - _REACH)
        if out and lo <= out[-1][1]:
            lo = out.pop()[0]
        hi = low.find(" ", hit + _REACH)
        out.append((lo, len(low) if hi < 0 else hi))
    return out


#: words before "the 27th" that make it a day of the month ("on the 27th", "from the
#: 9th to the 21st", "by the 3rd", "the week of the 5th")
_DATE_BEFORE = re.compile(
    r"(?:^|[.!?;:,(]|\b(?:on|by|from|to|till|until|since|between|and|or|before|after|"
    r"of|for|through|thru|around|about|starting|ending))\s*$",
    re.I,
)
_WORD_AFTER = re.compile(r"\s+[a-z]")


def _list_ordinal(text: str, start: int, end: int) -> bool:
    """Whether "the 27th" at ``text[start:end]`` ranks a thing in a list rather than
    naming a day: followed by a word ("what was the 27th parameter on that list?",
    "the 3rd item") and not after a word that introduces a date ("on the 27th", "from
    the 9th"). Read as a day, a benchmark's "the 27th parameter" question named 27 May
    and lost its evidence to that day's memories (recall@5 1 -> 0:
    docs/notes/benchmark-history.md#time-and-change-recall-after-the-third-round-issue-36).
    The nouns that are not dates (``_NOT_A_DATE_NOUN``) cannot be every noun."""
    if _WORD_AFTER.match(text, end) is None:
        return False
    return _DATE_BEFORE.search(text, max(0, start - 20), start) is None


def _scan(pattern: re.Pattern[str], text: str, win: Windows) -> Iterator[re.Match[str]]:
    for lo, hi in win:
        yield from pattern.finditer(text, lo, hi)


def find(text: str) -> list[Found]:
    """Every expression in ``text``, non-overlapping, in order (where two overlap the
    one that starts first, then the longer, wins)."""
    low = text.lower()
    win = _windows(text, low)
    if not win:
        return _weekdays_short(text)
    found: list[Found] = []
    digits = _DIGIT.search(low) is not None
    months = any(m in low for m in _MONTH_STEMS)
    if digits:
        found += _digits(text, low, months, win)
    if months:
        found += _months(text, win)
    if "day" in low:
        found += _weekdays(text, win)
    found += _weekdays_short(text)
    if any(w in low for w in _DAY_WORDS):
        found += [
            Found(m.start(), m.end(), "dayword", (m.group(1).lower(),))
            for m in _scan(_DAYWORD, text, win)
        ]
    if any(w in low for w in _UNIT_WORDS):
        found += _units(text, low, win)
    if "day" in low or any(w in low for w in _UNIT_WORDS):
        found += _offsets(text, low, win)
    if any(w in low for w in SEASONS):
        found += _seasons(text, win)
    found.sort(key=lambda f: (f.start, f.start - f.end))
    kept: list[Found] = []
    for f in found:
        if not kept or f.start >= kept[-1].end:
            kept.append(f)
    return _days_of_month(text, kept)


#: what joins a weekday to the day of the month after it ("Tuesday the 11th",
#: "Friday, the 3rd")
_WEEKDAY_JOIN = re.compile(r",?\s+")


def _days_of_month(text: str, found: list[Found]) -> list[Found]:
    """A bare weekday followed by a day of the month ("on Tuesday the 11th") is one
    day, the 11th that is a Tuesday (``weekday_ordinal``), not two: read apart, the
    weekday names the Tuesday nearest in the clause's tense, often another week."""
    out: list[Found] = []
    for f in found:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == "weekday"
            and not prev.fields[0]
            and f.kind == "ordinal"
            and _WEEKDAY_JOIN.fullmatch(text, prev.end, f.start)
        ):
            out[-1] = Found(prev.start, f.end, "weekday_ordinal", (f.fields[0], prev.fields[1]))
            continue
        out.append(f)
    return out


def _digits(text: str, low: str, months: bool, win: Windows) -> list[Found]:
    out = [
        Found(m.start(), m.end(), "date", tuple(int(g) for g in m.groups()))
        for m in _scan(_ISO, text, win)
    ]
    for m in _scan(_NUMERIC, text, win) if "/" in low else ():
        if m.group(1) or m.group(4):
            year = int(m.group(4)) if m.group(4) else None
            if year is not None and len(m.group(4)) == 2:
                year += 2000
            out.append(
                Found(
                    m.start(2),
                    m.end(),
                    "monthday",
                    (year, int(m.group(2)) - 1, int(m.group(3)), None),
                )
            )
    for m in _scan(_MONTH_DAY, text, win) if months else ():
        month = month_number(m.group(2) or m.group(6))
        day = int(m.group(3) or m.group(5))
        last = int(m.group(4)) if m.group(4) else None
        year = int(m.group(7)) if m.group(7) else None
        out.append(Found(m.start(), m.end(), "monthday", (year, month, day, last)))
    for m in _scan(_ORDINAL, text, win) if "the" in low else ():
        if not _list_ordinal(text, m.start(), m.end()):
            out.append(Found(m.start(), m.end(), "ordinal", (int(m.group(1)),)))
    for m in _scan(_YEAR, text, win):
        out.append(Found(m.start(1), m.end(1), "year", (int(m.group(1)),)))
    return out


def _months(text: str, win: Windows) -> list[Found]:
    out = []
    for m in _scan(_MONTH, text, win):
        prep, early, name, year = m.groups()
        prep = " ".join(prep.lower().split()) if prep else None
        if not (prep or early or year):
            continue
        if prep in _CAPITAL_ONLY and not (name[0].isupper() or early or year):
            continue
        if prep == "and" and not _BETWEEN_MONTH.search(text, max(0, m.start() - 30), m.start()):
            continue
        start = m.start(2) if early else m.start(3)
        out.append(
            Found(start, m.end(), "month", (int(year) if year else None, month_number(name)))
        )
    for m in _scan(_MONTH_DAY_WORDS, text, win) if " of " in text.lower() else ():
        # "the first of June", a day of the month in words
        day, year = _ORDINAL_WORDS[m.group(1).lower()], int(m.group(3)) if m.group(3) else None
        out.append(
            Found(m.start(), m.end(), "monthday", (year, month_number(m.group(2)), day, None))
        )
    for m in _scan(_MONTH_WEEK, text, win):
        nth, unit, name, year = m.groups()
        fields = (WEEK_ORDINALS[nth.lower()], unit.lower(), int(year) if year else None)
        out.append(Found(m.start(), m.end(), "monthweek", (*fields, month_number(name))))
    for m in _scan(_STEP_MONTH, text, win):
        if m.group(2)[0].isupper():  # "this may be": a month's name is written capitalised
            which = " ".join(m.group(1).lower().split())
            out.append(Found(m.start(), m.end(), "stepmonth", (which, month_number(m.group(2)))))
    return out


#: "Saturday mornings": a part of the day in the plural is a habit
_PARTS_AFTER = re.compile(r"\s+(?:morning|afternoon|evening|night)s\b", re.I)
#: a capitalised word before a weekday inside a sentence names a day of its own
#: ("Maundy Thursday", "Black Friday", "Big Sunday brunch"), no date these rules know
_NAME_BEFORE = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+)\s+$")
_STEP_WORDS = frozenset(
    ("last", "next", "this", "past", "previous", "coming", "on", "by", "from", "until")
)


def _names_a_day(text: str, m: re.Match[str]) -> bool:
    """Whether the weekday of ``m`` is part of a name or a habit, not a day."""
    if _PARTS_AFTER.match(text, m.end(2)):
        return True
    if m.group(1):
        return False
    before = _NAME_BEFORE.search(text, max(0, m.start() - 20), m.start())
    return before is not None and before.group(1).lower() not in _STEP_WORDS


def _weekdays(text: str, win: Windows) -> list[Found]:
    out = []
    for m in _scan(_WEEKDAY, text, win):
        if not m.group(1) and _HABIT.search(text, max(0, m.start() - 12), m.start()):
            continue
        if _names_a_day(text, m):
            continue
        which = " ".join(m.group(1).lower().split()) if m.group(1) else ""
        out.append(
            Found(m.start(), m.end(), "weekday", (which, WEEKDAYS.index(m.group(2).lower())))
        )
    return out


def _weekdays_short(text: str) -> list[Found]:
    """ "last Fri", "on Tues": one pass of a case-sensitive pattern over the text (the
    anchors' windows would open around every "wed" of "showed" for these)."""
    out: list[Found] = []
    if not any(stem in text for stem in _SHORT_STEMS):
        return out  # a substring test per stem: the pattern's pass costs far more
    for m in _WEEKDAY_SHORT.finditer(text):
        step = " ".join(m.group(1).lower().split())
        which = "" if step == "on" else step
        start = m.start(2) if step == "on" else m.start()
        day = _SHORT_STEMS.index(m.group(2)[:3])
        out.append(Found(start, m.end(2), "weekday", (which, day)))
    return out


def _units(text: str, low: str, win: Windows) -> list[Found]:
    out = []
    for m in _scan(_UNIT, text, win):
        if m.group(5):
            step = -2 if m.group(6).lower().startswith("before") else 2
            out.append(Found(m.start(), m.end(), "unit", (str(step), m.group(5).lower())))
        elif not (
            m.group(1) and _NAMED_BY_EVENT.match(text, m.end()) and _THE.search(text, 0, m.start())
        ):
            which, unit = (m.group(1) or m.group(3)).lower(), (m.group(2) or m.group(4)).lower()
            out.append(Found(m.start(), m.end(), "unit", (which, unit)))
    return out


#: "the last week before the trip" names a week by an event (``anchors.py``), not
#: the week before this one; without "the", "last weekend after the fight" is last
#: weekend and the rest says when in it
_NAMED_BY_EVENT = re.compile(r"\s+(?:before|after)\b", re.I)
_THE = re.compile(r"\bthe\s+$", re.I)


def _offsets(text: str, low: str, win: Windows) -> list[Found]:
    """'two weeks ago' (a negative count of units) and 'in two weeks' (positive)."""
    out = []
    for m in _scan(_AGO, text, win) if "ago" in low else ():
        out.append(
            Found(
                m.start(),
                m.end(),
                "offset",
                (-quantity(m.group(1)), m.group(2).lower(), vague(m.group(1))),
            )
        )
    for m in _scan(_IN_N, text, win) if "in " in low else ():
        out.append(
            Found(
                m.start(),
                m.end(),
                "offset",
                (quantity(m.group(1)), m.group(2).lower(), vague(m.group(1))),
            )
        )
    return out


def vague(words: str) -> bool:
    """Whether a quantity's words only say "about" ("a few", "several")."""
    return " ".join(words.lower().split()) in VAGUE


def _seasons(text: str, win: Windows) -> list[Found]:
    """Seasons: fields (step word or "", season, year or None, count ago or None)."""
    out = []
    for m in _scan(_SEASONS, text, win):
        g = m.groups()
        if m.group(0)[-1].isalpha() and _TITLE_AFTER.match(text, m.end()):
            name = text[m.start() : m.end()].split()[-1]
            if name[0].isupper():
                continue  # a title: "the Spring Fling Market", "Summer Jam"
        if g[1]:  # "last summer"
            which = " ".join(g[0].lower().split())
            fields: tuple[object, ...] = (which, g[1].lower(), None, None)
            start = m.start()
        elif g[3]:  # "in (the) (early) summer (of 2022)"
            fields, start = ("", g[3].lower(), int(g[4]) if g[4] else None, None), m.start(4)
            if g[2]:
                start = m.start(3)
            if g[3].lower() == "fall" and not g[4] and "the" not in text[m.start() : start].lower():
                continue  # "in fall" is rare; "fall in love" must not be a season
        elif g[5]:  # "summer 2022"
            fields, start = ("", g[5].lower(), int(g[6]), None), m.start()
        else:  # "two summers ago"
            fields, start = ("", g[8].lower(), None, -quantity(g[7])), m.start()
        out.append(Found(start, m.end(), "season", fields))
    return out


# "Saturday Night Live", "Friday Night Lights": a capitalised weekday and part of the
# day followed by another capitalised word are a title
_TITLE_AFTER = re.compile(r"\s+(?!I\b)[A-Z][a-z]")
_POSSESSIVE = re.compile(r"['’]s\b")
_TO = re.compile(r"\bto\s+$", re.I)
_RANGE_OPEN = re.compile(r"\b(?:from|between)\b", re.I)


def titled(text: str, f: Found) -> bool:
    """Whether weekday ``f`` opens a title: it and the part of the day after it
    capitalised, and a capitalised word after them ("Saturday Night Live", "Friday
    Night Lights"); a time read in any text."""
    words = text[f.start : f.end].split()
    if f.kind != "weekday" or len(words) < 2 or not all(w[0].isupper() for w in words):
        return False
    return _TITLE_AFTER.match(text, f.end) is not None


def named(text: str, f: Found) -> bool:
    """Whether ``f`` is part of a name rather than a time, as a question uses them:
    a title ("Saturday Night Live"), a month that is a person ("a gift to May", "May's
    garden"). Read only in questions (``events.read_times(asking=True)``): in a
    memory the same words are rarer than the dates they would hide."""
    words = text[f.start : f.end]
    if f.kind == "weekday":
        return titled(text, f)
    if f.kind != "month" or f.fields[0] is not None or not words[0].isupper():
        return False
    if _POSSESSIVE.match(text, f.end):
        return True
    to = _TO.search(text, max(0, f.start - 4), f.start)
    return to is not None and not _RANGE_OPEN.search(text, max(0, f.start - 40), f.start)
