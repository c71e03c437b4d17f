"""Hard filters on a read: which memories a search, recall, answer or listing may see.

``filters=`` (a mapping, or a :class:`Filters`) is checked once here, at the facade,
and then resolved per call into an allowed mask over the user's index positions
(``index/restrict.py``) that every ranking path honours *before* its top-k, so ``k``
results come back whenever ``k`` memories pass. Keys:

* ``session_id``, ``speaker``: a str or a list of str (any of); a memory without one
  never passes.
* ``metadata``: ``{key: value or [values]}``, equality on the memory's metadata
  values (a list means any of; a bool matches only a bool, so ``True`` is not ``1``);
  a memory without the key does not pass. Values are JSON scalars.
* ``after`` / ``before``: the time of saying (the memory's timestamp), ``after``
  inclusive, ``before`` exclusive.
* ``event_after`` / ``event_before``: the times a memory talks about (its stored
  event times, ``time/stored.py``); it passes when one of its intervals overlaps
  ``[event_after, event_before)``. A memory that names no time does not pass an event
  filter: it is a filter on event time, and "no time named" is not "any time".

Times are what every time input takes (a datetime, a date, ISO 8601 text; naive
times are UTC) or epoch seconds. An unknown key, a wrong type or a bad value is an
:class:`~remem.errors.InvalidFilterError` (both an ``InvalidInputError`` and an
``InvalidTypeError``) naming it; empty filters are no filter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import timezone
from typing import Any

from .errors import InvalidFilterError, RememError
from .validation import parse_timestamp

KEYS = (
    "session_id",
    "speaker",
    "metadata",
    "after",
    "before",
    "event_after",
    "event_before",
)
"""The filter keys, in the order the docs list them."""

MAX_VALUES = 1000
"""choice: values one key may list (a filter is a condition, not a bulk id lookup)."""

Scalar = str | int | float | bool | None


@dataclass(frozen=True)
class Filters:
    """Typed filters (the keys of the module notes); ``None`` or empty: no condition.

    >>> Filters(session_id="s1", metadata={"topic": ["work", "travel"]})
    ... # doctest: +ELLIPSIS
    Filters(session_id='s1', ...)
    """

    session_id: str | list[str] | tuple[str, ...] | None = None
    speaker: str | list[str] | tuple[str, ...] | None = None
    metadata: Mapping[str, Any] | None = None
    after: Any = None
    before: Any = None
    event_after: Any = None
    event_before: Any = None


@dataclass(frozen=True)
class Checked:
    """Filters as the engines use them: names as tuples, times as epoch seconds."""

    session_id: tuple[str, ...] | None = None
    speaker: tuple[str, ...] | None = None
    metadata: tuple[tuple[str, tuple[Scalar, ...]], ...] = ()
    after: float | None = None
    before: float | None = None
    event_after: float | None = None
    event_before: float | None = None
    #: the filters as given, for messages and logs
    shown: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def on_events(self) -> bool:
        """Whether a condition needs the stored event times."""
        return self.event_after is not None or self.event_before is not None


def check_filters(value: Any) -> Checked | None:
    """``filters=`` checked once (module notes); None for no filter at all."""
    if value is None:
        return None
    if isinstance(value, Filters):
        value = {f.name: getattr(value, f.name) for f in fields(value)}
    if not isinstance(value, Mapping):
        raise InvalidFilterError(
            f"filters must be a mapping or remem.Filters, not {type(value).__name__}"
        )
    unknown = sorted(str(k) for k in value if k not in KEYS)
    if unknown:
        raise InvalidFilterError(f"unknown filter keys {unknown}; known: {list(KEYS)}")
    given = {k: v for k, v in value.items() if v is not None}
    checked = Checked(
        session_id=_names(given.get("session_id"), "session_id"),
        speaker=_names(given.get("speaker"), "speaker"),
        metadata=_metadata(given.get("metadata")),
        after=_time(given.get("after"), "after"),
        before=_time(given.get("before"), "before"),
        event_after=_time(given.get("event_after"), "event_after"),
        event_before=_time(given.get("event_before"), "event_before"),
        shown=dict(given),
    )
    _ordered(checked.after, checked.before, "after", "before")
    _ordered(checked.event_after, checked.event_before, "event_after", "event_before")
    return None if checked == Checked() else checked


def _names(value: Any, key: str) -> tuple[str, ...] | None:
    """A str or a list of str, as a tuple; None when not given."""
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not items:
        raise InvalidFilterError(
            f"filter {key!r} must be a str or a non-empty list of str, not {_kind(value)}"
        )
    if len(items) > MAX_VALUES:
        raise InvalidFilterError(f"filter {key!r} lists more than {MAX_VALUES} values")
    for item in items:
        if not isinstance(item, str) or not item:
            raise InvalidFilterError(f"filter {key!r} must hold non-empty str values, not {item!r}")
    return tuple(items)


def _metadata(value: Any) -> tuple[tuple[str, tuple[Scalar, ...]], ...]:
    """``{key: value or [values]}`` as sorted (key, values) pairs."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise InvalidFilterError(
            f"filter 'metadata' must be a mapping of key to value(s), not {_kind(value)}"
        )
    out = []
    for key, want in value.items():
        if not isinstance(key, str) or not key:
            raise InvalidFilterError(f"filter 'metadata' keys must be non-empty str, not {key!r}")
        values = list(want) if isinstance(want, (list, tuple)) else [want]
        if not values or len(values) > MAX_VALUES:
            raise InvalidFilterError(f"filter metadata {key!r} must list 1 to {MAX_VALUES} values")
        for v in values:
            if not isinstance(v, Scalar) or (isinstance(v, float) and not math.isfinite(v)):
                raise InvalidFilterError(
                    f"filter metadata {key!r}: {v!r} is not a JSON scalar "
                    "(str, number, bool or null)"
                )
        out.append((key, tuple(values)))
    return tuple(sorted(out, key=lambda kv: kv[0]))


def _time(value: Any, key: str) -> float | None:
    """A time input (or epoch seconds) as epoch seconds; naive times are UTC."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise InvalidFilterError(f"filter {key!r} must be a finite epoch, not {value!r}")
        return float(value)
    try:
        ts = parse_timestamp(value, what=f"filter {key!r}")
    except RememError as exc:
        raise InvalidFilterError(str(exc)) from None
    return (ts if ts.tzinfo else ts.replace(tzinfo=timezone.utc)).timestamp()


def _ordered(low: float | None, high: float | None, a: str, b: str) -> None:
    if low is not None and high is not None and low >= high:
        raise InvalidFilterError(f"filter {a!r} must be before {b!r}")


def _kind(value: Any) -> str:
    return type(value).__name__


def same_value(have: Any, want: Scalar) -> bool:
    """JSON equality: a bool equals only a bool (Python's ``True == 1`` would not do)."""
    if isinstance(have, bool) or isinstance(want, bool):
        return have is want
    if isinstance(have, (int, float)) and isinstance(want, (int, float)):
        return bool(have == want)
    return type(have) is type(want) and have == want


def value_key(value: Any) -> tuple[str, Any] | None:
    """A hashable key that two values share exactly when :func:`same_value` calls them
    equal (1 and 1.0 share one, True and 1 do not); None for a value no key stands
    for (a list, a mapping, NaN), which is compared one by one."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return None if value != value else ("number", value)
    if isinstance(value, str):
        return ("str", value)
    if value is None:
        return ("null", None)
    return None


def metadata_passes(metadata: Mapping[str, Any], wanted: Checked) -> bool:
    """Whether a memory's metadata meets every metadata condition."""
    for key, values in wanted.metadata:
        if key not in metadata:
            return False
        have = metadata[key]
        if not any(same_value(have, v) for v in values):
            return False
    return True
