"""Time in recall: the window a question names, and which of two versions is newer.

``stage.py`` is the pipeline's time stage; ``stored.py`` keeps the times memories' words
name (``events.py`` reads them at ingest) in the store, beside the memories;
``arrange.py`` holds the reordering it applies; ``timeexpr.py`` (still at the package's
bottom layer) reads time words.
"""

from .stage import TimeStage
from .stored import EVENT_TABLES, StoredEvents

__all__ = ["EVENT_TABLES", "StoredEvents", "TimeStage"]
