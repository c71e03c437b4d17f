"""The events a question compares: "between X and Y", "first, X or Y", "before X did I Y".

"How many days passed between the day I fixed my bike and the day I upgraded my
pedals?", "Which trip did I take first, the one to Europe or the solo trip to
Thailand?", "How many days before the 'Rack Fest' did I join 'Turbocharged
Tuesdays'?", "How long had I been bird watching when I attended the workshop?": the
answer needs *two* memories, one per event, said weeks apart in different sessions.
One search for the whole question ranks by what the question says as a whole, and
the memories of the event it words more strongly (and the assistant's replies to
them, and the same session's other turns) fill the top of the list: the other event's
memory falls below the cut. On a benchmark's temporal-reasoning questions over long
assistant histories, 17 of hybrid's 38 questions with evidence outside the top 5 were
of these forms, most with one event's turn in the top 5 and the other's at ranks 6
to 30 (docs/notes/benchmark-history.md#time-and-change-recall-after-the-third-round-issue-36).

:func:`event_phrases` reads the phrases naming each event, so the recall stage
(``recall/events.py``) can rank the candidates once per event and interleave the
lists. It only reads the comparison forms above (and three or more quoted names, "the
order of the three events: 'A', 'B' and 'C'"); any other question gives none and its
ranking is left as the engine made it.
"""

from __future__ import annotations

import re

#: what opens an event phrase after "and"/"or" (a determiner, a pronoun, a quote)
_OPENER = r"(?:the|my|a|an|when|i|his|her|our|their|['\"‘“])"
_BETWEEN = re.compile(rf"\bbetween\s+(.+?)\s+and\s+(?={_OPENER}\b|['\"‘“])(.+?)[?.!]*$", re.I)
# "Which ... first, X or Y?", "... most recently: X or Y?"
_EITHER = re.compile(
    r"\b(?:first|earlier|earliest|later|latest|last|most\s+recently|before|after)\b"
    r"[^,:?]*[,:]\s*(.+?)\s+or\s+(.+?)[?.!]*$",
    re.I,
)
# "How many days before X did I Y?", "How many weeks after X did I Y?"
_BEFORE_DID = re.compile(
    r"\b(?:before|after)\s+(.+?)\s+(?:did|had|have|was|were)\s+(?:i|we)\s+(.+?)[?.!]*$", re.I
)
# "How long had I been X when I Y?", "How many weeks had passed since X when I Y?",
# "How many days ago did I X when I Y?": a duration up to the second event (a
# question asking what held then, "how many engineers did I lead when I started?",
# compares no two events)
_WHEN = re.compile(
    r"^how\s+(?:long|many\s+\w+)\s+(?:had|have|has)?\s*(?:passed\s+)?"
    r"(?:(?:i|we)\s+been|since|ago\s+did\s+(?:i|we))\s+(.+?)\s+when\s+((?:i|we)\b.+?)[?.!]*$",
    re.I,
)
_QUOTED = re.compile(r"['\"‘“]([^'\"‘’“”]{3,}?)['\"’”](?!\w)")
#: leading words that name no event ("the day I ...", "the time I ...")
_LEAD = re.compile(
    r"^(?:(?:the|a)\s+(?:day|time|date|moment)\s+(?:that\s+|when\s+)?|when\s+|the\s+)", re.I
)
_EDGES = " ,;:'\"‘’“”"
#: an event phrase needs at least this many letters (not "it", "one")
_MIN_CHARS = 4


def event_phrases(question: str) -> tuple[str, ...]:
    """The phrases naming each event a comparison question asks about (two, or three
    and more quoted ones), in the question's order; empty when it compares none."""
    text = question.strip()
    for pattern in (_BETWEEN, _EITHER, _BEFORE_DID, _WHEN):
        m = pattern.search(text)
        if m is not None:
            found = _cleaned(m.groups())
            if len(found) == 2:
                return found
    quoted = _cleaned(tuple(_QUOTED.findall(text)))
    return quoted if len(quoted) >= 3 else ()


def _cleaned(parts: tuple[str, ...]) -> tuple[str, ...]:
    """The phrases without their leading "the day I" (which names no event), each
    kept only when it has words enough to search by, distinct."""
    out: list[str] = []
    for part in parts:
        phrase = _LEAD.sub("", part.strip(_EDGES)).strip(_EDGES)
        if sum(c.isalpha() for c in phrase) >= _MIN_CHARS and phrase.lower() not in (
            p.lower() for p in out
        ):
            out.append(phrase)
    return tuple(out)
