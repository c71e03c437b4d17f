"""Time in recall: the window a question names, and which of two versions is newer.

Reading time words (``patterns.py`` finds them, ``tense.py`` gives bare ones their
direction, ``resolve.py`` and ``calendar.py`` turn them into days) is the bottom
layer: ``events.py`` reads the times a memory's words name at ingest, ``window.py``
the window a question names, by the same rules, and ``anchors.py`` the times
anchored on another event ("two days after the wedding"). ``stage.py`` is the
pipeline's time stage; ``stored.py`` keeps memories' event times in the store;
``arrange.py`` holds the reordering the stage applies.

The stage and the store are loaded on first use (:func:`__getattr__`), not here: the
reading modules sit below the question (``question.py``) and the lexical index
(``index/tokenize.py``), which import them, while the stage sits above both. Loading
it with the package would make every import of a reading module import the stage,
which imports the question back.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .stage import TimeStage
    from .stored import EVENT_TABLES, StoredEvents

__all__ = ["EVENT_TABLES", "StoredEvents", "TimeStage"]
_WHERE = {"TimeStage": ".stage", "StoredEvents": ".stored", "EVENT_TABLES": ".stored"}


def __getattr__(name: str) -> Any:
    """``from remem.time import TimeStage`` (and the store's names), loaded now."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(where, __name__), name)
