"""Lexical tokenisation for BM25, identical to bm25s' default.

Lower-cased ``\\w\\w+`` words minus bm25s' English stopword list, so scores match
what the project's baselines were measured with (checked in tests against bm25s).
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip
"""bm25s' ``STOPWORDS_EN`` (MIT licence), written out: importing it from bm25s
imports all of bm25s, and with it scipy, about half a second of every command that
opens a Memory (docs/benchmarks.md, "CLI cold start"). A test holds the two equal."""


def tokenize(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def has_words(text: str) -> bool:
    """Whether ``text`` holds any word :func:`tokenize` keeps. A text without one ("x",
    "?", "0", an emoji) can match no query word and says nothing a concept could be
    made of."""
    return any(t not in STOPWORDS for t in _TOKEN.findall(text.lower()))


def stem(token: str) -> str:
    """A light suffix stripper, so "painted" covers "paint" and "kids" covers "kid"
    (the BM25 index itself stays unstemmed, as in the baselines)."""
    if len(token) <= 4:
        return token
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: len(token) - len(suffix)] + repl
    return token
