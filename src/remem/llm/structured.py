"""Structured replies: ask for JSON, validate it against a schema, repair or retry.

Backends that can (llama.cpp grammars, OpenAI ``json_schema``) are handed the
schema so the reply is constrained at decoding time; every reply is still parsed
and validated here, because endpoints differ and small models wander. A reply
that fails is repaired (code fences, prose around the object, trailing commas,
Python literals) and, failing that, asked again with the error stated, a bounded
number of times. Then :class:`LLMOutputError` tells the caller to take its offline
path (which it logs).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..errors import LLMError
from .base import LLM, Message

T = TypeVar("T")


class LLMOutputError(LLMError):
    """The model's reply stayed unusable after the repairs and retries."""


def ask_json(
    llm: LLM,
    messages: Sequence[Message],
    schema: dict[str, Any],
    build: Callable[[Any], T],
    *,
    task: str,
    retries: int = 2,
    max_tokens: int = 256,
    on_call: Callable[[], None] | None = None,
) -> T:
    """The validated reply, built into a typed value by ``build``.

    Raises :class:`LLMError` for a failing backend and :class:`LLMOutputError` when
    ``retries`` further attempts still give no valid JSON.
    """
    convo = list(messages)
    problem = ""
    sent = _for_backend(schema)
    for _ in range(retries + 1):
        if on_call is not None:
            on_call()
        reply = llm.complete(
            convo, task=task, json_schema=sent, max_tokens=max_tokens, temperature=0.0
        ).text
        try:
            value = parse_json(reply)
            validate(value, schema)
            return build(value)
        except (ValueError, TypeError, KeyError) as exc:
            problem = str(exc)
            convo = [
                *messages,
                {"role": "assistant", "content": reply[:2000]},
                {
                    "role": "user",
                    "content": f"That reply was not valid ({problem}). Reply with one JSON "
                    f"object only, matching this schema: {json.dumps(schema)}",
                },
            ]
    failed = LLMOutputError(f"{llm.name} gave no valid JSON for {task!r}: {problem}")
    failed.log_detail = f"no valid JSON for {task!r} after {retries + 1} tries"
    raise failed


_LENGTH_KEYS = ("maxLength", "minLength", "maxItems", "minItems")


def _for_backend(schema: Any) -> Any:
    """The schema without length bounds: llama.cpp unrolls them into grammar rules
    (a 1,200-character string does not compile), and max_tokens bounds length anyway;
    :func:`validate` still checks them on the reply."""
    if isinstance(schema, dict):
        return {k: _for_backend(v) for k, v in schema.items() if k not in _LENGTH_KEYS}
    if isinstance(schema, list):
        return [_for_backend(v) for v in schema]
    return schema


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def parse_json(text: str) -> Any:
    """JSON out of a model's reply, repaired where the intent is unambiguous."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError("empty reply")
    candidates = [text.strip()]
    fenced = _FENCE.search(text)
    if fenced:
        candidates.append(fenced.group(1).strip())
    for opener, closer in (("{", "}"), ("[", "]")):
        i, j = text.find(opener), text.rfind(closer)
        if 0 <= i < j:
            candidates.append(text[i : j + 1])
    for c in list(candidates):
        candidates.append(_repair(c))
    for c in candidates:
        try:
            return json.loads(c)
        except ValueError:
            continue
    raise ValueError(f"not JSON: {text[:80]!r}")


_LITERALS = {"True": "true", "False": "false", "None": "null"}


def _repair(text: str) -> str:
    """Python literals to JSON and trailing commas dropped, outside strings only (a
    reply's "None of them" must stay as written)."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':  # copy a string verbatim, escapes included
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if ch == ",":
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            if j < n and text[j] in "}]":
                i += 1  # a trailing comma
                continue
        if ch.isalpha():
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            word = text[i:j]
            out.append(_LITERALS.get(word, word))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
    "null": (type(None),),
}


def validate(value: Any, schema: dict[str, Any], path: str = "$") -> None:
    """Check ``value`` against the JSON-schema subset our prompts use (type,
    properties, required, items, enum, maxItems, maxLength); raises ValueError."""
    kind = schema.get("type")
    if kind is not None:
        kinds = [kind] if isinstance(kind, str) else list(kind)
        ok = any(
            isinstance(value, _TYPES[k])
            and not (k in ("integer", "number") and value is True)
            and not (k in ("integer", "number") and value is False)
            for k in kinds
        )
        if not ok:
            raise ValueError(f"{path} should be {'/'.join(kinds)}, got {type(value).__name__}")
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        raise ValueError(f"{path} should be one of {schema['enum']}, got {value!r}")
    if isinstance(value, str) and len(value) > schema.get("maxLength", 1 << 30):
        raise ValueError(f"{path} is longer than {schema['maxLength']} characters")
    if isinstance(value, dict):
        for name in schema.get("required", []):
            if name not in value:
                raise ValueError(f"{path} lacks {name!r}")
        for name, sub in schema.get("properties", {}).items():
            if name in value:
                validate(value[name], sub, f"{path}.{name}")
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", 1 << 30):
            raise ValueError(f"{path} has more than {schema['maxItems']} items")
        for i, item in enumerate(value):
            validate(item, schema.get("items", {}), f"{path}[{i}]")
