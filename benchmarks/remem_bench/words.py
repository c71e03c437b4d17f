"""The answer graders' own words: tokens, function words and a word's key.

The grade of an answer by its words ("which words of it no memory holds",
:mod:`remem_bench.answercheck`) must not use remem's own word rules (its
``remem.words.word_key`` decides what the reader's grounding check accepts): a
grader sharing code with what it grades could not catch that code's bugs. So these
are the harness's: plain tokens (two or more word characters, lower case), bm25s'
English stopwords written out, the personal words, and a key made by a light suffix
stripper after the irregular past forms (``data/irregular_past.txt``) are read as
their base. They are the rules remem's reader had when the published "invented"
figures were made, frozen here so that those figures stay reproducible and a change
to remem's own rules no longer moves the grade. (NLTK's Porter stemmer instead would
flip the invented flag of 225 of the 7,874 distinct non-refused LoCoMo answers saved
in docs/results/: a different grade, not a fix.)
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

TOKEN = re.compile(r"(?u)\b\w\w+\b")

#: bm25s' ``STOPWORDS_EN`` (MIT licence)
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip
#: words that tie an answer to any sentence about the same person ("my", "did")
PERSONAL = frozenset(
    {
        "my", "me", "mine", "your", "yours", "our", "ours", "their", "theirs", "them", "his",
        "her", "hers", "its", "we", "you", "they", "he", "she", "did", "does", "do", "have",
        "has", "had", "was", "were", "been",
    }
)  # fmt: skip
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip


def tokens(text: str) -> list[str]:
    """``text``'s words in lower case, stopwords aside."""
    return [t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


@cache
def _irregular() -> dict[str, str]:
    text = (Path(__file__).parent / "data" / "irregular_past.txt").read_text("utf-8")
    lines = (line.split("#", 1)[0].split() for line in text.splitlines())
    return {pair[0]: pair[1] for pair in lines if len(pair) == 2}


_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", ""))


def _stem(word: str) -> str:
    """A light suffix stripper: "painted" meets "paint", "kids" "kid"."""
    if len(word) <= 4:
        return word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: len(word) - len(suffix)] + repl
    return word


def key(word: str) -> str:
    """What ``word`` is matched by: "moved" meets "move" (a final "e" dropped),
    "applied" "apply", "won" "win"."""
    word = _irregular().get(word.lower(), word.lower())
    if len(word) >= 5 and word.endswith("ied"):
        return word[:-3] + "y"
    return _stem(word).rstrip("e") or word
