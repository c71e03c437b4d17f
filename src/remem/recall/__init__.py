"""The recall pipeline (``pipeline.py``): every read of a ``Memory`` goes from the
question, read once, through the engine's candidates, the stages, the engine's
extras and the verdict to its result."""

from .pipeline import Recalled, Recaller
from .stages import Stage
from .trace import trace_view

__all__ = ["Recalled", "Recaller", "Stage", "trace_view"]
