"""Time in recall: the window a question names, and which of two versions is newer.

``stage.py`` is the pipeline's time stage (it owns the times memories' words name);
``arrange.py`` holds the reordering it applies; ``timeexpr.py`` (still at the package's
bottom layer) reads time words.
"""

from .stage import TimeStage

__all__ = ["TimeStage"]
