"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Works with OpenAI, Ollama, vLLM, llama.cpp's server and others. Configured by
arguments or the usual environment variables (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``REMEM_EMBED_MODEL``). Transport (httpx, imported at the
first request), retries (``Retry-After`` honoured) and error messages are shared
with the chat client (``remem/_openai.py``).

Servers differ in what one input's ``embedding`` is. OpenAI, Ollama and vLLM send
one pooled vector. A llama.cpp server running a model without a pooling layer
(llama-cpp-python's server always, with a chat model) sends one vector per token;
those are mean-pooled here, as ``llama-server --pooling mean`` would, and the first
time it happens is logged: a chat model's pooled states are weak embeddings (and
that server's vectors for a text shift with the other texts of the request), so
serve a model trained for embeddings.

The vector size is learnt from the first reply (or given as ``dim``) and held to
afterwards; ``Memory`` asks for it once when it opens a new file, and reads it from
the file's record after that.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import env
from .._openai import endpoint, post_json
from ..errors import EmbedderError
from .base import Embedder, normalise

log = logging.getLogger(__name__)


class OpenAIEmbedder(Embedder):
    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dim: int | None = None,
        batch_size: int = 128,
        timeout_s: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.5,
    ):
        self.model = model or env.read("REMEM_EMBED_MODEL")
        self.base_url, self.api_key = endpoint(base_url, api_key)
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.name = f"openai:{self.model}"
        # The dimension is learnt from the first response unless given.
        self.dim = dim or 0
        self._pooled = False

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        return normalise(np.concatenate(parts))

    def _request(self, batch: list[str]) -> np.ndarray:
        payload = post_json(
            f"{self.base_url}/embeddings",
            {"model": self.model, "input": batch},
            api_key=self.api_key,
            timeout_s=self.timeout_s,
            retries=self.retries,
            backoff_s=self.backoff_s,
            error=EmbedderError,
            what="embedding",
            model=self.model,
        )
        try:
            data = sorted(payload["data"], key=lambda d: d["index"])
            vectors = [self._vector(d["embedding"]) for d in data]
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            failed = EmbedderError(
                f"{self.base_url}/embeddings sent no embeddings ({exc!r}): {str(payload)[:200]}"
            )
            failed.log_detail = "the endpoint sent no embeddings"  # the reply may echo texts
            raise failed from None
        if len(vectors) != len(batch):
            raise EmbedderError(f"endpoint returned {len(vectors)} vectors for {len(batch)} texts")
        sizes = {len(v) for v in vectors}
        if len(sizes) != 1 or (self.dim and sizes != {self.dim}):
            expected = f", expected {self.dim}" if self.dim else ""
            raise EmbedderError(f"endpoint returned vectors of sizes {sorted(sizes)}{expected}")
        self.dim = sizes.pop()  # learnt from the first reply, then held to
        return np.stack(vectors)

    def _vector(self, raw: Any) -> np.ndarray:
        with np.errstate(over="ignore"):  # past float32's range: inf, refused below
            vec = np.asarray(raw, dtype=np.float32)
        if vec.ndim == 2 and len(vec):  # one vector per token: mean-pool them
            if not self._pooled:
                log.info("%s sends one vector per token; mean-pooling them", self.base_url)
                self._pooled = True
            vec = vec.mean(axis=0)
        if vec.ndim != 1 or not len(vec) or not np.isfinite(vec).all():
            raise ValueError(f"not a vector of finite numbers (shape {vec.shape})")
        return vec
