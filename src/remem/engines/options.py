"""Engine settings: declared once, on their config dataclass, checked before use.

Every engine's options are the fields of a frozen dataclass (``HybridConfig``,
``SynapseConfig``, ``IlstmaConfig``, and the time stage's ``ArrangeConfig``). Each field
says what it accepts next to its default: its type annotation, and in its metadata a
range (:func:`number`), the choices (:func:`choice`), or plain text or a switch
(:func:`text`, :func:`switch`). :func:`resolve` checks a caller's options against
those declarations when the engine is made, so a wrong value is refused at once with a
message naming the option, the value and what is allowed, never later: before this,
``consolidate_every="x"`` raised a bare ``TypeError`` in the middle of an add (after the
memory was stored) and ``anchors=0`` made every search fail inside numpy.

A field without a declaration cannot be checked, so :func:`declared` refuses one; the
tests walk every option of every engine through it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, get_type_hints

from ..errors import InvalidInputError
from ..validation import shown

T = TypeVar("T")

_KEY = "remem.allowed"


@dataclass(frozen=True)
class Allowed:
    """What one option accepts beyond its type: for a number the bounds ``low`` and
    ``high`` (inclusive; None: unbounded), for text the ``choices`` (none: any
    non-empty text)."""

    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()

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


def number(default: float, *, low: float | None = None, high: float | None = None) -> Any:
    """A numeric option (int or float, as annotated) between ``low`` and ``high``
    (inclusive); with no bound it may be any finite number."""
    return field(default=default, metadata={_KEY: Allowed(low, high)})


def choice(default: str, *choices: str) -> Any:
    """A text option that must be one of ``choices`` (``default`` among them)."""
    assert default in choices, (default, choices)
    return field(default=default, metadata={_KEY: Allowed(choices=choices)})


def text(default: str) -> Any:
    """A text option checked elsewhere against something only known at run time (an
    engine name: the registry decides)."""
    return field(default=default, metadata={_KEY: Allowed()})


def switch(default: bool) -> Any:
    """A True/False option (1 and 0 are not booleans here)."""
    return field(default=default, metadata={_KEY: Allowed()})


@dataclass(frozen=True)
class NoOptions:
    """The options of an engine that takes none."""


def declared(cls: type) -> dict[str, tuple[type, Allowed]]:
    """Each option of a config dataclass: its type and what it accepts. Raises
    TypeError for a field declared without one of the helpers above (a programming
    error: such an option could not be checked)."""
    hints = get_type_hints(cls)
    out: dict[str, tuple[type, Allowed]] = {}
    for f in fields(cls):
        allowed = f.metadata.get(_KEY)
        kind = hints[f.name]
        if not isinstance(allowed, Allowed) or kind not in (bool, int, float, str):
            raise TypeError(
                f"{cls.__name__}.{f.name} must be declared with number(), choice(), "
                "text() or switch() and annotated bool, int, float or str"
            )
        out[f.name] = (kind, allowed)
    return out


def resolve(cls: type[T], options: Mapping[str, Any], where: str, base: T | None = None) -> T:
    """``base`` (default: ``cls()``) with ``options`` applied, every one checked against
    its declaration. ``where`` names the options' owner in messages ("engine 'synapse'",
    "time_options"). Any problem is an :class:`InvalidInputError`."""
    spec = declared(cls)
    unknown = sorted(set(options) - set(spec))
    if unknown:
        known = f"; known: {', '.join(spec)}" if spec else " (it takes none)"
        raise InvalidInputError(f"{where} has no options {unknown}{known}")
    values = {name: _checked(name, value, *spec[name], where) for name, value in options.items()}
    return replace(base if base is not None else cls(), **values)  # type: ignore[type-var]


def _checked(name: str, value: Any, kind: type, allowed: Allowed, where: str) -> Any:
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise _refused(where, name, "True or False", value)
    if kind is str:
        if allowed.choices:
            if isinstance(value, str) and value in allowed.choices:
                return value
            raise _refused(where, name, "one of " + ", ".join(map(repr, allowed.choices)), value)
        if isinstance(value, str) and value.strip():
            return value
        raise _refused(where, name, "a non-empty str", value)
    whole = kind is int
    ok_type = not isinstance(value, bool) and isinstance(value, int if whole else (int, float))
    rule = allowed.rule()
    wanted = ("an int" if whole else "a number") + (f" {rule}" if rule else "")
    infinite = isinstance(value, float) and not math.isfinite(value)
    if not ok_type or infinite or not allowed.holds(value):
        raise _refused(where, name, wanted, value)
    return value if whole else float(value)


def _refused(where: str, name: str, wanted: str, value: Any) -> InvalidInputError:
    return InvalidInputError(f"{where}: {name} must be {wanted}, got {_shown(value)}")


def _shown(value: Any) -> str:
    return f"{shown(value)} ({type(value).__name__})"
