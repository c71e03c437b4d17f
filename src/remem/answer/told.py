"""What a sentence of the evidence tells of the question: whose it is, and when.

Two tests the readers share: the sentence reader's choice (``reader.best_sentence``)
and the typed reader's fit (``typed.py``) count a sentence in which the asked person
speaks of themself, and one that tells of a time inside the window the question
names, though neither shares the question's words. One module, so neither reader
imports the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..question import Question
from ..store.base import timestamp_epoch
from ..time.events import EventTime
from ..types import Hit
from ..words import content_keys

#: the speaker in the sentence: "I", and "we" (who include the speaker: "We are
#: planning to play it next Saturday", Jolene of herself and her partner)
_SPEAKER_SELF = re.compile(r"\b(?:i|me|my|mine|myself|we|us|our|ours)\b", re.I)


def told_by_asked(sentence: str, hit: Hit, keys: frozenset[str]) -> bool:
    """Whether ``sentence`` is the asked person speaking of themself: "I went to a
    meeting", said by Sam, tells "What was Sam doing?" what "Hey Sam, how are you?",
    said to Sam, does not; the name is the speaker's, not the sentence's words."""
    if not hit.speaker or not _SPEAKER_SELF.search(sentence):
        return False
    return bool(keys & content_keys(hit.speaker))


def in_window(times: Sequence[EventTime], question: Question) -> bool:
    """Whether a sentence whose event times are ``times`` tells of a time inside the
    window the question names ("What was Sam doing on 4 December?" and "I went to a
    meeting yesterday", said on the 5th): the window's words are not in the
    sentence, its time is. Only the sentence's own times count; when it was said is
    the time stage's business (it ranked the memory)."""
    window = question.window
    if window is None:
        return False
    lo, hi = timestamp_epoch(window.start), timestamp_epoch(window.end)
    if window.day is not None:  # a named day is that day, not the slack around it
        lo = timestamp_epoch(window.day)
        hi = lo + 86400.0
    return any(timestamp_epoch(e.start) < hi and timestamp_epoch(e.end) > lo for e in times)
