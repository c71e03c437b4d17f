"""Settings declared once, on a frozen dataclass, and checked before use.

Every group of options a :class:`~remem.Memory` takes is the fields of a frozen
dataclass: the engines' (``HybridConfig``, ``SynapseConfig``, ``IlstmaConfig``), the
time and exact stages' (``ArrangeConfig``, ``ExactConfig``), the passages'
(``PassagePlan``), the reader's (``AnswerOptions``), each store's and each LLM
backend's (``store/options.py``, ``llm/options.py``); :class:`remem.config.MemoryConfig`
holds them all, resolved. Each field says what it accepts next to its default: its type
annotation (``X | None`` where None is a value of its own, such as "read it from the
environment"), and in its metadata a range (:func:`number`), the choices
(:func:`choice`), a path (:func:`path`), or plain text or a switch (:func:`text`,
:func:`switch`); the docstring under it says why the default is what it is
(:func:`reasons` reads them). :func:`resolve` checks a caller's options against those
declarations when the Memory is made, so a wrong value is refused at once with a
message naming the option, the value and what is allowed, never later: before this,
``consolidate_every="x"`` raised a bare ``TypeError`` in the middle of an add (after the
memory was stored) and ``anchors=0`` made every search fail inside numpy.

Why these helpers and not pydantic: pydantic is no dependency of the core install (it
comes with the ``server`` and ``mcp`` extras only), and the core would need it for
this alone; the resolved settings are plain frozen dataclasses that the engines read
in their hot loops as attributes, with nothing to validate on access; the checks are
strict where pydantic's defaults coerce (``"5"`` or ``True`` is no int here, 1 is no
True), and every message has one shape, "<where>: <option> must be <rule>, got
<value> (<type>)", that tests and users match on. About 150 lines do all of it.

A field without a declaration cannot be checked, so :func:`declared` refuses one; the
tests walk every option of every section through it and :func:`reasons`.
"""

from __future__ import annotations

import ast
import inspect
import math
import os
import textwrap
import types
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

from .errors import InvalidInputError, InvalidOptionError
from .validation import shown

T = TypeVar("T")

_KEY = "remem.allowed"
_PLAIN = (bool, int, float, str)


@dataclass(frozen=True)
class Allowed:
    """What one option accepts beyond its type: for a number the bounds ``low`` and
    ``high`` (inclusive; None: unbounded), for text the ``choices`` (none: any
    non-empty text; choices may mix types, as ``False, True, "full"``); ``path``: a
    str or ``os.PathLike``; ``empty``: "" too; ``none``: None too (from an ``X |
    None`` annotation, set by :func:`declared`)."""

    low: float | None = None
    high: float | None = None
    choices: tuple[object, ...] = ()
    path: bool = False
    empty: bool = False
    none: bool = False

    def rule(self) -> str:
        """The allowed range in words, for messages (">= 1 and <= 100")."""
        parts = [
            f"{sign} {bound:g}"
            for sign, bound in ((">=", self.low), ("<=", self.high))
            if bound is not None
        ]
        return " and ".join(parts)

    def holds(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


def number(default: float | None, *, low: float | None = None, high: float | None = None) -> Any:
    """A numeric option (int or float, as annotated) between ``low`` and ``high``
    (inclusive); with no bound it may be any finite number."""
    return field(default=default, metadata={_KEY: Allowed(low, high)})


def choice(default: object, *choices: object) -> Any:
    """An option that must be one of ``choices`` (``default`` among them), matched
    with its type: 1 is not True."""
    assert default in choices, (default, choices)
    return field(default=default, metadata={_KEY: Allowed(choices=choices)})


def text(default: str | None, *, empty: bool = False) -> Any:
    """A text option checked elsewhere against something only known at run time (an
    engine name: the registry decides; a URL: the backend reads it); ``empty``: ""
    is a value too (an API key for a server that needs none)."""
    return field(default=default, metadata={_KEY: Allowed(empty=empty)})


def path(default: str | None = None) -> Any:
    """A file path: a non-empty str or an ``os.PathLike``."""
    return field(default=default, metadata={_KEY: Allowed(path=True)})


def switch(default: bool) -> Any:
    """A True/False option (1 and 0 are not booleans here)."""
    return field(default=default, metadata={_KEY: Allowed()})


@dataclass(frozen=True)
class NoOptions:
    """The options of an engine (or a backend) that takes none."""


def declared(cls: type) -> dict[str, tuple[type, Allowed]]:
    """Each option of a config dataclass: its type (``object`` for a choice of mixed
    types) and what it accepts. Raises TypeError for a field declared without one of
    the helpers above or annotated with what they cannot check (a programming error:
    such an option could not be checked)."""
    hints = get_type_hints(cls)
    out: dict[str, tuple[type, Allowed]] = {}
    for f in fields(cls):
        allowed = f.metadata.get(_KEY)
        kind = _kind(hints[f.name], allowed) if isinstance(allowed, Allowed) else None
        if kind is None or not isinstance(allowed, Allowed):
            raise TypeError(
                f"{cls.__name__}.{f.name} must be declared with number(), choice(), "
                "text(), path() or switch() and annotated bool, int, float or str "
                "(or one of them | None)"
            )
        none = type(None) in _members(hints[f.name])
        out[f.name] = (kind, replace(allowed, none=none))
    return out


def _members(hint: Any) -> tuple[Any, ...]:
    union = get_origin(hint) in (Union, types.UnionType)
    return get_args(hint) if union else (hint,)


def _kind(hint: Any, allowed: Allowed) -> type | None:
    """The type an option's values are checked as, or None when ``hint`` is not one
    the declaration can check."""
    rest = [get_origin(m) or m for m in _members(hint) if m is not type(None)]
    if allowed.path:
        return str if set(rest) in ({str, os.PathLike}, {str}) else None
    if not rest or any(m not in _PLAIN for m in rest):
        return None
    if len(rest) == 1:
        return rest[0]
    return object if allowed.choices else None


def reasons(cls: type) -> dict[str, str]:
    """The docstring under each field of ``cls`` (why its default is what it is), read
    from the source; a field without one maps to ""."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    out = {f.name: "" for f in fields(cls)}
    for node, after in zip(body, body[1:] + [None], strict=True):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            doc = getattr(after.value, "value", None) if isinstance(after, ast.Expr) else None
            if node.target.id in out and isinstance(doc, str):
                out[node.target.id] = inspect.cleandoc(doc)
    return out


def resolve(cls: type[T], options: Mapping[str, Any], where: str, base: T | None = None) -> T:
    """``base`` (default: ``cls()``) with ``options`` applied, every one checked against
    its declaration. ``where`` names the options' owner in messages ("engine 'synapse'",
    "time_options"). An unknown name is an :class:`InvalidInputError`, a wrong value
    an :class:`InvalidOptionError`."""
    spec = declared(cls)
    unknown = sorted(set(options) - set(spec))
    if unknown:
        known = f"; known: {', '.join(spec)}" if spec else " (it takes none)"
        raise InvalidInputError(f"{where} has no options {unknown}{known}")
    values = {name: _checked(name, value, *spec[name], where) for name, value in options.items()}
    return replace(base if base is not None else cls(), **values)  # type: ignore[type-var]


def _checked(name: str, value: Any, kind: type, allowed: Allowed, where: str) -> Any:
    if value is None and allowed.none:
        return None
    wanted, ok = _wanted(value, kind, allowed)
    if ok:
        return value if kind is not float else float(value)
    if allowed.none:
        wanted += " or None"
    raise InvalidOptionError(f"{where}: {name} must be {wanted}, got {_shown(value)}")


def _wanted(value: Any, kind: type, allowed: Allowed) -> tuple[str, bool]:
    """What the option accepts, in words, and whether ``value`` is that."""
    if allowed.choices:
        ok = any(
            isinstance(value, type(c)) and isinstance(value, bool) == isinstance(c, bool)
            and value == c
            for c in allowed.choices
        )  # fmt: skip
        return "one of " + ", ".join(map(repr, allowed.choices)), ok
    if allowed.path:
        ok = isinstance(value, os.PathLike) or (isinstance(value, str) and bool(value.strip()))
        return "a path (a non-empty str or os.PathLike)", ok
    if kind is bool:
        return "True or False", isinstance(value, bool)
    if kind is str:
        if allowed.empty:
            return "a str", isinstance(value, str)
        return "a non-empty str", isinstance(value, str) and bool(value.strip())
    whole = kind is int
    ok_type = not isinstance(value, bool) and isinstance(value, int if whole else (int, float))
    rule = allowed.rule()
    wanted = ("an int" if whole else "a number") + (f" {rule}" if rule else "")
    infinite = isinstance(value, float) and not math.isfinite(value)
    return wanted, ok_type and not infinite and allowed.holds(value)


def _shown(value: Any) -> str:
    return f"{shown(value)} ({type(value).__name__})"
