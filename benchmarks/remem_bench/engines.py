"""Engines as the benchmarks name them: a registered name, optionally with options."""

from __future__ import annotations

import json
from typing import Any

from remem import InvalidInputError, Memory
from remem.embed import Embedder


def engine_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``name`` or ``name@key=value+key=value``: an engine with options, so one run can
    compare settings of one engine side by side (values are read as JSON when they
    parse, else kept as text), e.g. ``ilstma@hit_threshold=0.8``."""
    name, _, rest = spec.partition("@")
    options: dict[str, Any] = {}
    for part in filter(None, rest.split("+")):
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise InvalidInputError(f"engine option {part!r} in {spec!r} is not key=value")
        try:
            options[key] = json.loads(raw)
        except ValueError:
            options[key] = raw
    return name, options


def open_engine(
    spec: str,
    embedder: Embedder,
    *,
    memory_options: dict[str, Any] | None = None,
    **options: Any,
) -> Memory:
    """An in-memory Memory for an engine spec (see :func:`engine_spec`);
    ``memory_options`` go to the Memory itself (``passage_options``, ...)."""
    name, opts = engine_spec(spec)
    return Memory(
        ":memory:",
        engine=name,
        embedder=embedder,
        engine_options={**opts, **options},
        **(memory_options or {}),
    )


def passage_setting(text: str) -> dict[str, Any]:
    """``MAX/OVERLAP[/SCORE]`` (word pieces a passage, sentences shared, how passages
    score: max, corrected, both, mean) as passage_options; ``off`` embeds every memory
    whole."""
    if text.strip().lower() == "off":
        return {"max_pieces": 0}
    size, _, rest = text.partition("/")
    overlap, _, score = rest.partition("/")
    try:
        out: dict[str, Any] = {"max_pieces": int(size), "overlap": int(overlap or 1)}
        return {**out, "score": score} if score else out
    except ValueError:
        raise InvalidInputError(f"a passage setting is MAX/OVERLAP or off, not {text!r}") from None
