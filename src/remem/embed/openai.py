"""Embeddings from any OpenAI-compatible ``/v1/embeddings`` endpoint.

Works with OpenAI, Ollama, vLLM, llama.cpp's server and others. Configured by
arguments or the usual environment variables (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``REMEM_EMBED_MODEL``). Uses only the standard library so the
base install stays light.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence

import numpy as np

from ..errors import EmbedderError
from .base import Embedder, normalise


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
    ):
        self.model = model or os.environ.get("REMEM_EMBED_MODEL") or "text-embedding-3-small"
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        ).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.retries = retries
        self.name = f"openai:{self.model}"
        # The dimension is learnt from the first response unless given.
        self.dim = dim or 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        out = normalise(np.concatenate(parts))
        self.dim = out.shape[1]
        return out

    def _request(self, batch: list[str]) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": batch}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/embeddings", body, headers)
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    payload = json.load(resp)
                data = sorted(payload["data"], key=lambda d: d["index"])
                if len(data) != len(batch):
                    raise EmbedderError(
                        f"endpoint returned {len(data)} vectors for {len(batch)} texts"
                    )
                return np.asarray([d["embedding"] for d in data], dtype=np.float32)
            except urllib.error.HTTPError as exc:
                last = exc
                if exc.code < 500 and exc.code != 429:
                    break  # a client error will not heal by retrying
            except (urllib.error.URLError, TimeoutError, OSError, KeyError, ValueError) as exc:
                last = exc
            if attempt < self.retries:
                time.sleep(min(0.5 * 2**attempt, 8.0))
        raise EmbedderError(f"embedding endpoint {self.base_url} failed: {last}")
