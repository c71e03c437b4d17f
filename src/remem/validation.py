"""Input validation for the public API.

Everything a caller hands to :class:`remem.Memory` passes through here *before*
anything is written, so a bad item in a batch rejects the whole batch and leaves the
store unchanged.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime, timezone
from typing import Any, get_args, get_type_hints

from .errors import InvalidInputError, InvalidTypeError, TextTooLongError
from .types import NewMemory

DEFAULT_MAX_TEXT_CHARS = 100_000
"""Longest memory text accepted by default. Memories are conversation turns or facts;
a 1 MB "memory" is almost always a document pasted by mistake, and the embedder only
reads its first 256 tokens anyway. Raise it with ``Memory(max_text_chars=...)``."""

MAX_BATCH = 10_000
"""Largest ``add_many`` batch (and table import): one transaction and one embedding
pass must stay bounded. Here, not in memory.py, so the servers' argument checks can
name it without importing the library's engines."""
MAX_TRACE_NODES = 200
"""The most nodes ``Memory.trace`` returns: more would not be readable as a drawing."""

MAX_ID_CHARS = 256
MAX_USER_ID_CHARS = 512
"""User ids may be longer than other ids: the servers store a tenant's user as
``<tenant>:<user id>``, and a tenant's own ids must still get the full 256."""
MAX_METADATA_BYTES = 64_000
MAX_METADATA_DEPTH = 32
"""Nesting limit of metadata: JSON serialisers and parsers (pydantic, browsers) give
up somewhere past 250 levels, and a memory stored deeper could never be read back."""
MAX_METADATA_INT_DIGITS = 640
"""The most digits of an integer in metadata. Python refuses to write an integer of
more digits than ``sys.get_int_max_str_digits()`` as text, so as JSON (4,300 by
default, and 640 at the lowest it may be set): a longer one would be a bare
``ValueError`` at the write, or a memory that cannot be read back. Far beyond any id
or amount; a string holds a number of any length."""
_METADATA_INT_LIMIT = 10**MAX_METADATA_INT_DIGITS
MAX_COUNT = 1_000_000_000
"""The largest ``k``, ``limit`` or ``offset`` a read accepts. Far above any one user's
history (a user's active graph is bounded at 10,000 nodes, a batch at 10,000 items),
and far below the 64-bit integers SQLite, PostgreSQL and numpy take, so a typo such
as ``10**20`` is a clear error here instead of an ``OverflowError`` from a driver."""


_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Mn", "Me", "Zs", "Zl", "Zp"})
"""Unicode categories that draw nothing on their own: controls, format characters
(zero-width space and joiners, the byte order mark, direction marks, the soft
hyphen), marks that combine with a preceding letter, and separators."""
_NO_GLYPH_CATEGORIES = frozenset({"Cn", "Co"})
"""Code points with no glyph anyone agreed on: unassigned ones (the noncharacters
U+FFFF, U+FDD0... among them) and private use (each font draws its own, most
nothing). Unassigned is by the Unicode version of the running Python, so a character
assigned since (an emoji newer than Python) counts as blank until then. Surrogates
are not here: :func:`check_utf8` refuses them, with a message that says why."""
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\U0001d159")
"""Letters and symbols that render as blank space: the Hangul fillers, the blank
Braille pattern and the musical null notehead, the usual ways of making a text that
looks empty pass a check."""


_SHOWS_NOTHING = _INVISIBLE_CATEGORIES | _NO_GLYPH_CATEGORIES


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing a reader could see: only whitespace,
    zero-width and format characters, marks with no letter to combine with, blank
    fillers, or code points with no glyph (unassigned, private use). Such a "memory"
    is empty to its user (it would be stored, embedded and returned as a blank line),
    so it is refused as empty, and so is an id made of them (it would print as
    nothing). Stops at the first visible character, so a normal text costs one or
    two lookups."""
    for ch in text:
        if ch not in _BLANK_LETTERS and unicodedata.category(ch) not in _SHOWS_NOTHING:
            return False
    return True


def check_utf8(value: str, what: str) -> None:
    """Reject lone surrogates (SQLite, PostgreSQL and JSON all need valid UTF-8) and NUL
    characters (PostgreSQL cannot store them in text; refusing them everywhere keeps
    every backend accepting exactly the same input)."""
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains a NUL character (\\x00)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{what} is not valid UTF-8 (it contains a lone surrogate at position {exc.start})"
        ) from None


def check_text(text: Any, max_chars: int = DEFAULT_MAX_TEXT_CHARS, what: str = "text") -> str:
    if not isinstance(text, str):
        raise InvalidTypeError(f"{what} must be a str, not {type(text).__name__}")
    if is_blank(text):
        raise InvalidInputError(
            f"{what} must not be empty, whitespace or invisible characters only"
        )
    if len(text) > max_chars:
        raise TextTooLongError(
            f"{what} has {len(text):,} characters; the limit is {max_chars:,} "
            "(raise it with Memory(max_text_chars=...))"
        )
    check_utf8(text, what)
    return text


def check_id(value: Any, what: str, max_chars: int = MAX_ID_CHARS) -> str:
    """User ids, memory ids, session ids and speakers: short strings that show
    something (one of only invisible characters, ``"\\u200b"``, is refused as empty:
    it would print as nothing and pass for another)."""
    if not isinstance(value, str):
        raise InvalidTypeError(f"{what} must be a str, not {type(value).__name__}")
    if is_blank(value):
        raise InvalidInputError(f"{what} must not be empty or invisible characters only")
    if len(value) > max_chars:
        raise InvalidInputError(f"{what} is longer than {max_chars} characters")
    check_utf8(value, what)
    return value


def check_user_id(value: Any) -> str:
    return check_id(value, "user_id", MAX_USER_ID_CHARS)


def check_optional_name(value: Any, what: str) -> str | None:
    if value is None:
        return None
    return check_id(value, what)


def shown(value: Any) -> str:
    """``value`` for an error message: its repr, cut to 60 characters, and never an
    integer too long to print (Python refuses to turn one of over 4,300 digits into
    text, so the message itself would fail)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number of more than 19 digits"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_count(value: Any, what: str, *, zero: bool = False) -> int:
    """A whole number of results or rows: ``k`` and ``limit`` at least 1, ``offset``
    (``zero=True``) at least 0, and none above :data:`MAX_COUNT`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be an int, not {type(value).__name__}")
    if value < (0 if zero else 1):
        rule = "not be negative" if zero else "be positive"
        raise InvalidInputError(f"{what} must {rule}, got {shown(value)}")
    if value > MAX_COUNT:
        raise InvalidInputError(f"{what} must be at most {MAX_COUNT:,}, got {shown(value)}")
    return value


def check_options(value: Any, what: str) -> dict[str, Any]:
    """A mapping of named settings (``engine_options``, ``llm_options``, ...), copied;
    None is no settings."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"{what} must be a mapping, not {type(value).__name__}")
    return dict(value)


_PLAIN = (bool, int, float, str, type(None))


def check_keywords(
    func: Callable[..., Any], options: Mapping[str, Any], where: str, taken: Sequence[str] = ()
) -> None:
    """``options`` as keyword arguments of ``func`` (a backend's constructor), checked
    before it is called: every name one it takes (but those in ``taken``, which the
    caller passes itself), and a value of the annotated type where that is plain
    (bool, int, float, str or None). So ``store_options={"bogus": 1}`` is an error
    naming the option when the Memory is made, not a bare ``TypeError`` from the
    backend (or, for a model loaded lazily, at the first answer). A ``func`` that
    takes ``**kwargs`` accepts any name; a class is checked by its ``__init__``."""
    if isinstance(func, type):  # its __init__'s hints (a class's own are its fields)
        func = next(vars(k)["__init__"] for k in func.__mro__ if "__init__" in vars(k))
    params = inspect.signature(func).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    known = [n for n, p in params.items() if p.kind in named and n not in ("self", *taken)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = f"; known: {', '.join(known)}" if known else " (it takes none)"
        raise InvalidInputError(f"{where} has no options {unknown}{takes}")
    _check_plain_types(func, options, where)


def _check_plain_types(func: Callable[..., Any], options: Mapping[str, Any], where: str) -> None:
    """Each option whose parameter is annotated with plain types only (``int``,
    ``float | None``, ``bool | str``) holds one of them; others are the backend's to
    check (a path, a mapping)."""
    try:
        hints = get_type_hints(func)
    except Exception:  # a hint that names what only a type checker imports
        return
    for name, value in options.items():
        hint = hints.get(name)
        kinds = (get_args(hint) or (hint,)) if hint is not None else ()
        if kinds and all(k in _PLAIN for k in kinds) and not _plain_match(value, kinds):
            wanted = " or ".join("None" if k is type(None) else k.__name__ for k in kinds)
            raise InvalidTypeError(
                f"{where}: {name} must be {'an' if wanted[0] == 'i' else 'a'} {wanted}, "
                f"got {shown(value)} ({type(value).__name__})"
            )


def _plain_match(value: Any, kinds: tuple[type, ...]) -> bool:
    """``value`` is of one of ``kinds``: True and False are not numbers, 5 is a float."""
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int) and float in kinds:
        return True
    return isinstance(value, tuple(k for k in kinds if k is not bool))


def check_k(k: Any) -> int:
    return check_count(k, "k")


def parse_timestamp(value: Any, what: str = "timestamp") -> datetime:
    """Accept a datetime, a date or ISO-8601 text; ``None`` means now (UTC). ``what``
    names the argument in errors."""
    if value is None:
        return datetime.now(timezone.utc)
    if isinstance(value, datetime):
        return _in_range(value, value)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):  # Python 3.10's fromisoformat does not know "Z"
            text = text[:-1] + "+00:00"
        try:
            parsed = datetime.fromisoformat(text)
        except ValueError:
            raise InvalidInputError(
                f"{what} {value!r} is not ISO-8601 (for example 2023-05-08T13:56:00)"
            ) from None
        return _in_range(parsed, value)
    raise InvalidTypeError(f"{what} must be a datetime or ISO-8601 str, not {type(value).__name__}")


def _in_range(ts: datetime, raw: Any) -> datetime:
    """Times must exist in UTC too (0001-01-01T00:00+01:00 does not): they are ordered
    and exported as UTC, which must never fail after the memory was accepted."""
    try:
        ts.astimezone(timezone.utc) if ts.tzinfo else ts.replace(tzinfo=timezone.utc).timestamp()
    except (OverflowError, ValueError, OSError):
        raise InvalidInputError(f"timestamp {raw!r} is outside the range of UTC times") from None
    return ts


def _check_json_value(value: Any, path: str, depth: int = 0) -> None:
    if depth > MAX_METADATA_DEPTH:
        raise InvalidInputError(f"metadata is nested deeper than {MAX_METADATA_DEPTH} levels")
    if value is None or isinstance(value, (str, bool)):
        if isinstance(value, str):
            check_utf8(value, path)
        return
    if isinstance(value, int):
        if abs(value) >= _METADATA_INT_LIMIT:
            raise InvalidInputError(
                f"{path} has more than {MAX_METADATA_INT_DIGITS} digits "
                "(store a number that long as a string)"
            )
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{path} is {value}, which JSON cannot hold")
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_json_value(item, f"{path}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidTypeError(f"{path} has a non-string key {key!r}")
            check_utf8(key, f"{path} key")
            _check_json_value(item, f"{path}[{key!r}]", depth + 1)
        return
    raise InvalidTypeError(
        f"{path} holds a {type(value).__name__}; metadata must be plain JSON "
        "(dict, list, str, int, float, bool, None) so it comes back exactly as stored"
    )


def check_metadata(metadata: Any) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise InvalidTypeError(f"metadata must be a dict, not {type(metadata).__name__}")
    _check_json_value(metadata, "metadata")
    if len(json.dumps(metadata, ensure_ascii=False)) > MAX_METADATA_BYTES:
        raise InvalidInputError(
            f"metadata is larger than {MAX_METADATA_BYTES:,} characters as JSON"
        )
    return metadata


def build_memory(
    text: Any,
    *,
    speaker: Any = None,
    timestamp: Any = None,
    session_id: Any = None,
    metadata: Any = None,
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
) -> NewMemory:
    return NewMemory(
        text=check_text(text, max_text_chars),
        speaker=check_optional_name(speaker, "speaker"),
        timestamp=parse_timestamp(timestamp),
        session_id=check_optional_name(session_id, "session_id"),
        metadata=check_metadata(metadata),
    )


def check_changes(
    text: Any, metadata: Any, timestamp: Any, max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
) -> tuple[str | None, dict[str, Any] | None, datetime | None]:
    """An update's fields checked (``Memory.update`` and ``remem.Client``'s alike):
    each None is kept, not cleared; all three None is nothing to change, refused."""
    if text is None and metadata is None and timestamp is None:
        raise InvalidInputError("update needs text, metadata or timestamp to change")
    return (
        None if text is None else check_text(text, max_text_chars),
        None if metadata is None else check_metadata(metadata),
        None if timestamp is None else parse_timestamp(timestamp),
    )


_ITEM_KEYS = frozenset({"text", "speaker", "timestamp", "session_id", "metadata"})


def check_switch(value: Any, what: str) -> bool:
    """A True/False argument (``skip_blank``): 1, "yes" and None are not booleans."""
    if not isinstance(value, bool):
        raise InvalidTypeError(f"{what} must be True or False, not {shown(value)}")
    return value


def check_choice(value: Any, what: str, choices: tuple[str, ...]) -> str:
    """One of a few named choices (``on_conflict``)."""
    if not isinstance(value, str):
        raise InvalidTypeError(f"{what} must be a str, not {shown(value)}")
    if value not in choices:
        raise InvalidInputError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return value


def is_blank_item(item: Any, position: int, max_text_chars: int) -> bool:
    """For ``skip_blank``: whether an ``add_many`` item (or a table entry) is to be
    left out, its text a str that :func:`is_blank`. The rest of such an item is
    checked all the same (with a stand-in text), so skipping a blank turn never lets
    a malformed item through: only blankness is forgiven."""
    text = item.get("text") if isinstance(item, Mapping) else item
    if not isinstance(text, str) or not is_blank(text):
        return False
    if isinstance(item, Mapping):
        build_memory_item({**item, "text": "-"}, position, max_text_chars)
    return True


def build_memory_item(item: Any, position: int, max_text_chars: int) -> NewMemory:
    """One element of ``add_many``: a mapping with the same fields as ``add``'s arguments."""
    if isinstance(item, str):
        item = {"text": item}
    if not isinstance(item, Mapping):
        raise InvalidTypeError(f"item {position} must be a dict or str, not {type(item).__name__}")
    unknown = set(item) - _ITEM_KEYS
    if unknown:
        raise InvalidInputError(f"item {position} has unknown keys: {sorted(map(str, unknown))}")
    if "text" not in item:
        raise InvalidInputError(f"item {position} has no 'text'")
    try:
        return build_memory(
            item["text"],
            speaker=item.get("speaker"),
            timestamp=item.get("timestamp"),
            session_id=item.get("session_id"),
            metadata=item.get("metadata"),
            max_text_chars=max_text_chars,
        )
    except (InvalidInputError, InvalidTypeError) as exc:
        raise type(exc)(f"item {position}: {exc}") from None


def build_batch(
    items: Any, max_text_chars: int, *, skip_blank: bool = False
) -> tuple[list[NewMemory], list[int]]:
    """``add_many``'s items checked as one batch (one bad item refuses it, naming
    it): the memories to store and, with ``skip_blank``, the positions of the blank
    items left out (:func:`is_blank_item`)."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise InvalidTypeError("items must be a list of dicts (or of str)")
    items = list(items)
    if len(items) > MAX_BATCH:
        raise InvalidInputError(f"add_many takes at most {MAX_BATCH:,} items per call")
    skipped = [i for i, x in enumerate(items) if skip_blank and is_blank_item(x, i, max_text_chars)]
    left_out = set(skipped)
    new = [
        build_memory_item(x, i, max_text_chars) for i, x in enumerate(items) if i not in left_out
    ]
    return new, skipped


def check_path(path: Any, what: str = "path") -> str | os.PathLike[str]:
    """A file path: a str or an ``os.PathLike``."""
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidTypeError(f"{what} must be a str or path, not {type(path).__name__}")
    return path


def check_between(value: Any, what: str, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (``Memory.trace``'s ``limit``)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise InvalidInputError(f"{what} must be {low} to {high}, got {value}")
    return value
