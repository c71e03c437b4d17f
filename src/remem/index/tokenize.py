"""Lexical tokenisation for BM25, identical to bm25s' default.

Lower-cased ``\\w\\w+`` words minus bm25s' English stopword list, so scores match
what the project's baselines were measured with (checked in tests against bm25s).
"""

from __future__ import annotations

import re

from ..time.patterns import CALENDAR_WORDS  # capitalised, yet no names: the time stage reads them

_TOKEN = re.compile(r"(?u)\b\w\w+\b")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
STOPWORDS = frozenset(
    {
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is",
        "it", "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there",
        "these", "they", "this", "to", "was", "will", "with",
    }
)  # fmt: skip
"""bm25s' ``STOPWORDS_EN`` (MIT licence), written out: importing it from bm25s
imports all of bm25s, and with it scipy, about half a second of every command that
opens a Memory (docs/benchmarks.md#cli-cold-start). A test holds the two equal."""


#: The words that make a sentence a question ("how many", "what did", "when have"):
#: every question has some, and they say nothing about what it asks.
ASKING = frozenset(
    {
        "how", "many", "much", "what", "when", "where", "which", "who", "whom", "whose",
        "why", "did", "does", "do", "can", "could", "would", "should", "have", "has", "had",
    }
)  # fmt: skip


def tokenize(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if t not in STOPWORDS]


def without_asking(query: str) -> str:
    """``query``'s words without its asking words (:data:`ASKING`), for a lexical
    search; a query of asking words only is kept as it is ("when how")."""
    words = [t for t in tokenize(query) if t not in ASKING]
    return " ".join(words) if words else query


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


#: Common nouns in "-ie" whose plural would otherwise lose its "e" like "stories"
#: ("movies" -> "movy").
_IE_NOUNS = frozenset(
    {
        "movie", "cookie", "calorie", "selfie", "brownie", "rookie", "smoothie", "zombie",
        "hoodie", "veggie", "goalie", "newbie", "freebie", "prairie", "sweetie", "genie",
        "auntie", "boogie",
    }
)  # fmt: skip


def singular(word: str, shortest: int = 5) -> str:
    """A plural's (or third person's) singular: "stories" -> "story", "movies" ->
    "movie", "classes" -> "class", "dogs" -> "dog"; "glass", "status" and
    "analysis" stay. Words shorter than ``shortest`` letters are left alone (an
    "-ies" word needs five)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-1] if word[:-1] in _IE_NOUNS else word[:-3] + "y"
    if len(word) < shortest:
        return word
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


#: Doubled final consonants that inflection adds ("stopped", "running") and that a
#: base may already end in ("called", "passed", "buzzed", "stuffed") and keeps.
_KEEP_DOUBLE = frozenset("lsfz")
#: Words whose inflection rule would land on a different common word.
_OWN_KEY = frozenset({"news", "evening", "during", "always", "perhaps", "series"})


def inflection_key(token: str) -> str:
    """The key a word shares with its inflected forms: plurals and third persons
    ("classes", "galleries", "doctors"), past forms and gerunds ("baked", "baking",
    "stopped", "running") give their base's key ("class", "galleri", "doctor",
    "bak", "stop", "run"). Keys are not words: a final "e" is dropped and a final
    "y" made "i", so "bake"/"baking" and "gallery"/"galleries" meet. Only
    inflections: derivations ("organization", "organize") keep keys of their own,
    unlike Porter's stemmer, whose "organ" and "univers" join words that do not mean
    the same. A base keeps at least three letters ("need", "thing" stay whole)."""
    if token in _OWN_KEY or not token.isalpha():
        return token
    if len(token) <= 3:
        return token[:-1] + "i" if len(token) == 3 and token[-1] == "y" else token
    base = singular(token, shortest=4)
    if base == token:  # not a plural: a past form or a gerund?
        if token.endswith("ed") and len(token) >= 5 and not token.endswith("eed"):
            base = token[:-2]
        elif token.endswith("ing") and len(token) >= 6:
            base = token[:-3]
    undouble = base != token and len(base) >= 4 and base[-1] == base[-2]
    if undouble and base[-1] not in _KEEP_DOUBLE and base[-1] not in "aeiou":
        base = base[:-1]
    if len(base) > 3 and base[-1] == "e":
        base = base[:-1]
    elif len(base) >= 3 and base[-1] == "y":
        base = base[:-1] + "i"
    return base


#: An email or a handle ("ana.silva@example.com", "@ana"), or letters joined by a
#: dot (a domain, a file name: "example.org", "notes.txt"); a slash or a colon also
#: join prose ("artists/bands", "10:30")
_JOINED = re.compile(r"@\w|[^\W\d_]\.[^\W\d_]")
_SENTENCE_END = re.compile(r"[.!?]\s*$")


def identifier_tokens(text: str, names: bool = True) -> list[str]:
    """The tokens of ``text`` written like identifiers (as :func:`tokenize` has them,
    each once): the forms that name one thing rather than describe it.

    * a token with a digit that is not a small number: one with a letter too
      ("a035x", "b12") or of three digits or more (a phone number's "0134", a code's
      "9931", a year); "10" and "25" are quantities;
    * a token written with a capital inside ("ZX", "NASA", "iPhone", "McKay") or an
      underscore ("user_id"): a code or an acronym;
    * every token of an email, a handle or a dotted name ("dana.silva@example.com",
      "example.org");
    * with ``names``, a capitalised word that does not start a sentence ("what did
      Xiomara say?"): a proper name.

    Nothing else: a question's ordinary words ("how many fitness classes ...") are
    never identifiers, however rare, so one rare word in an unrelated memory cannot
    decide a question written in prose. Whether a token this finds is rare for the
    user is for the caller, who has the user's index.
    """
    out: dict[str, None] = {}
    start = True  # the next word starts a sentence
    for chunk in text.split():
        joined = _JOINED.search(chunk) is not None
        for raw in _TOKEN.findall(chunk):
            token = raw.lower()
            if token in STOPWORDS:
                continue
            digits = sum(c.isdigit() for c in raw)
            if (
                joined
                or (digits and (digits >= 3 or any(c.isalpha() for c in raw)))
                or any(c.isupper() for c in raw[1:])
                or "_" in raw
                or (
                    names
                    and not start
                    and raw[0].isupper()
                    and token.rstrip("s") not in CALENDAR_WORDS
                )
            ):
                out[token] = None
        start = _SENTENCE_END.search(chunk) is not None
    return list(out)


def sentences(text: str, maxsplit: int = 0) -> list[str]:
    """``text`` cut after each ".", "!" or "?" that whitespace follows: the rough cut
    the reader, the verdict and ILSTMA's summaries share (an abbreviation's dot cuts
    too, which costs them nothing; passages cut at line breaks as well,
    ``index/passages.py``). ``maxsplit`` as in ``re.split``."""
    return _SENTENCE_BREAK.split(text, maxsplit=maxsplit)
