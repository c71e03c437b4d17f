"""Concept extraction without an LLM.

The bundled small LLM cannot extract concepts (it returns empty or looping JSON), so
the default is lexical and fast: named entities (capitalised word runs that are not
just a sentence's first word) and content words (non-stopwords, plural/possessive
folded), each a candidate semantic node. The embedder then merges near-duplicates
(cosine >= 0.92) into one canonical concept. A capable LLM plugs in through the
:class:`ConceptExtractor` protocol.
"""

from __future__ import annotations

import re
from typing import Protocol

from ...index.tokenize import STOPWORDS, singular

# Words that open sentences or chat turns without naming anything.
_COMMON_CAPS = frozenset(
    [
        "yeah",
        "yes",
        "no",
        "oh",
        "wow",
        "hey",
        "hi",
        "hello",
        "thanks",
        "thank",
        "sure",
        "okay",
        "ok",
        "well",
        "so",
        "but",
        "and",
        "or",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "it's",
        "that's",
        "what's",
        "let's",
        "you're",
        "we're",
        "they're",
        "don't",
        "can't",
        "definitely",
        "absolutely",
        "totally",
        "really",
        "great",
        "awesome",
        "cool",
        "nice",
        "congrats",
        "haha",
        "lol",
        "aww",
        "omg",
        "sounds",
        "glad",
        "love",
        "good",
    ]
)
_ENTITY = re.compile(r"\b[A-Z][\w'’-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'’-]*)*")
_WORD = re.compile(r"[a-z][a-z'’-]*[a-z]")


class ConceptExtractor(Protocol):
    def extract(self, text: str) -> list[tuple[str, str]]:
        """(label, kind) pairs; kind is "entity", "topic", "preference" or "event"."""
        ...


def fold(word: str) -> str:
    """Fold possessives and plurals so "dogs", "dog's" and "dog" meet (and "classes"
    "class", "watches" "watch")."""
    word = word.replace("’", "'")
    if word.endswith("'s"):
        word = word[:-2]
    return singular(word.strip("'-"))


def _opens_sentence(text: str, start: int) -> bool:
    """Whether ``start`` opens a sentence or a line: the text's start, a line break
    just before it, or whitespace after a sentence's end (looked at backwards from
    ``start``, so long texts cost no more per word than short ones)."""
    if start == 0 or text[start - 1] == "\n":
        return True
    j = start - 1
    while j >= 0 and text[j].isspace():
        j -= 1
    return j < start - 1 and j >= 0 and text[j] in ".!?"


class LexicalExtractor:
    def __init__(self, min_chars: int = 4):
        self.min_chars = min_chars

    def extract(self, text: str) -> list[tuple[str, str]]:
        found: dict[str, str] = {}
        for m in _ENTITY.finditer(text):
            span = m.group(0)
            first = span.split()[0].lower().replace("’", "'")
            at_start = _opens_sentence(text, m.start())
            single = len(span.split()) == 1
            if single and (at_start or first in _COMMON_CAPS or first in STOPWORDS):
                continue  # a capital that only opens a sentence names nothing
            label = fold(span.lower())
            if len(label) >= 2 and label not in STOPWORDS:
                found[label] = "entity"
        for w in _WORD.findall(text.lower()):
            w = fold(w)
            if len(w) < self.min_chars or w in STOPWORDS or w in _COMMON_CAPS:
                continue
            found.setdefault(w, "topic")
        return list(found.items())


CONCEPT_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "concepts": {
            "type": "array",
            "maxItems": 8,
            "items": {
                "type": "object",
                "properties": {
                    "label": {"type": "string", "maxLength": 80},
                    "kind": {"type": "string", "enum": ["entity", "topic", "preference", "event"]},
                },
                "required": ["label", "kind"],
            },
        }
    },
    "required": ["concepts"],
}


class LLMExtractor:
    """Concepts from the configured LLM (the paper's extraction), one call per memory.

    A failing call raises :class:`remem.LLMError`; the engine then leaves the memories
    unconsolidated (they are durably stored and still found through the anchors) and
    retries at the next consolidation, falling back to the lexical extractor after
    ``llm_attempts`` failed rounds, with a logged warning.
    """

    def __init__(self, get_llm, min_chars: int = 2):
        self.get_llm = get_llm  # called at the first extraction: loading a model is slow
        self.min_chars = min_chars

    def extract(self, text: str) -> list[tuple[str, str]]:
        from ...errors import LLMError
        from ...llm import ask_json, prompts

        llm = self.get_llm()
        if not llm.generates:
            raise LLMError("extractor='llm' needs an LLM that generates (llm is 'none')")
        items = ask_json(
            llm,
            prompts.render("concepts", text=text[:2000]),
            CONCEPT_SCHEMA,
            lambda v: [(str(c["label"]), str(c["kind"])) for c in v["concepts"]],
            task="concepts",
            retries=1,
            max_tokens=200,
        )
        found: dict[str, str] = {}
        for label, kind in items:
            label = fold(" ".join(label.lower().split()))
            if len(label) >= self.min_chars and label not in STOPWORDS:
                found.setdefault(label, kind)
        return list(found.items())
