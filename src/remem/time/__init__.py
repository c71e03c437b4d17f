"""Time in recall: the window a question names, and which of two versions is newer.

``stage.py`` is the pipeline's time stage (it owns the times memories' words name);
``engines/arrange.py`` holds the reordering it applies and ``timeexpr.py`` reads time
words (the time issue moves both here as event times arrive).
"""

from .stage import TimeStage

__all__ = ["TimeStage"]
