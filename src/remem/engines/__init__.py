"""Retrieval engines behind one :class:`Engine` interface, picked by name.

Variants with preset options register names of their own (for example a later
``synapse-nofan``), so a benchmark row or a config file names one string.

Where the names come from:

* **Entry points** in the group ``remem.engines`` (:mod:`remem.plugins`), remem's own
  among them, exactly as a third-party distribution declares its engine::

      [project.entry-points."remem.engines"]
      tiny = "remem_tiny_engine:TinyEngine"

  An entry point's object is either an :class:`Engine` subclass, registered under
  the entry point's name (its options are its ``config_class``'s fields, none without
  one; its ``tables`` are registered as storage extensions, so every Memory erases
  them), or a function called once with no arguments that registers one or more
  engines itself with :func:`register_engine` (and their tables with
  ``register_extension``), the entry point's name among them: SYNAPSE's and ILSTMA's
  ``register`` add their variants that way. They are loaded once, the first time a
  name is needed (:func:`engine_names`, :func:`check_engine_name`,
  :func:`create_engine`, :func:`register_engine`); one that fails to load is logged
  and skipped, and asking for its name says why.
* **register_engine** from Python, at any time (a later registration of a name
  replaces the earlier one).
* **A dotted path**, ``"package.module:attribute"``, for an engine registered
  nowhere: the attribute is an :class:`Engine` subclass or a factory
  ``factory(ctx, **options) -> Engine``, imported when the name is first checked.
  It works wherever a name does (``Memory(engine=...)``, ``remem --engine``, the
  servers' settings) and is not listed by :func:`engine_names`.

docs/plugins.md walks through writing and packaging an engine.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from .. import plugins
from ..errors import UnknownComponentError
from ..options import NoOptions, resolve
from ..store.extension import register_extension
from .base import Engine, EngineContext, Scored
from .baselines import BM25Engine, DenseEngine, HybridConfig, HybridEngine  # noqa: F401

__all__ = [
    "Engine",
    "EngineContext",
    "Scored",
    "check_engine_name",
    "check_engine_options",
    "create_engine",
    "engine_names",
    "register_engine",
]

_FACTORIES: dict[str, Callable[..., Engine]] = {}
_SETTINGS: dict[str, Callable[[Mapping[str, Any]], object]] = {}
#: a name whose entry point failed to load -> why (said when the name is asked for)
_BROKEN: dict[str, str] = {}
#: dotted paths already imported -> their factory (not listed by engine_names)
_DOTTED: dict[str, Callable[..., Engine]] = {}
#: entry points already loaded (or tried), so none loads twice
_SEEN: set[plugins.Plugin] = set()
_LOCK = threading.RLock()
_done = False
_loading = False


def _load_plugins() -> None:
    """Load the ``remem.engines`` entry points not loaded yet, once per process. The
    first caller loads them while other threads wait; a plugin's own calls back into
    the registry, made while it loads, see what is registered so far."""
    global _done, _loading
    if _done:
        return
    with _LOCK:  # reentrant: the loading thread's own calls pass, others wait
        if _done or _loading:
            return
        _loading = True
        try:
            for plugin in plugins.find(plugins.ENGINES_GROUP):
                if plugin not in _SEEN:
                    _SEEN.add(plugin)
                    _load_plugin(plugin)
        finally:
            _loading = False
            _done = True


def _rescan() -> None:
    """Read the entry points again at the next need, loading only new ones (for
    tests that put a distribution on the path after the first read)."""
    global _done
    with _LOCK:
        _done = False


def _load_plugin(plugin: plugins.Plugin) -> None:
    obj, why = plugins.load(plugin, plugins.ENGINES_GROUP)
    if why is None:
        try:
            if isinstance(obj, type) and issubclass(obj, Engine):
                _register_class(plugin.name, obj)
            elif callable(obj):
                obj()
                if plugin.name not in _FACTORIES:
                    why = f"{plugin.describe()} registered no engine of that name"
            else:
                why = (
                    f"{plugin.describe()} is {type(obj).__name__}, neither an Engine "
                    "subclass nor a function that registers engines"
                )
        except Exception as exc:
            why = f"{plugin.describe()} failed to register: {type(exc).__name__}: {exc}"
        if why is not None:
            plugins.log.warning("remem.engines entry point %s", why)
    if why is not None and plugin.name not in _FACTORIES:
        _BROKEN[plugin.name] = why


def _class_settings(name: str, cls: type[Engine]) -> Callable[[Mapping[str, Any]], object]:
    return partial(resolve, cls.config_class or NoOptions, where=f"engine {name!r}")


def _register_class(name: str, cls: type[Engine]) -> None:
    for ext in cls.tables:
        register_extension(ext)
    _register(name, cls, _class_settings(name, cls))


def _register(
    name: str,
    factory: Callable[..., Engine],
    settings: Callable[[Mapping[str, Any]], object] | None,
) -> None:
    with _LOCK:
        _FACTORIES[name] = factory
        _BROKEN.pop(name, None)
        if settings is not None:
            _SETTINGS[name] = settings
        else:
            _SETTINGS.pop(name, None)


def register_engine(
    name: str,
    factory: Callable[..., Engine],
    settings: Callable[[Mapping[str, Any]], object] | None = None,
) -> None:
    """Make ``factory(ctx, **options)`` the engine called ``name``. ``settings(options)``,
    when given, checks the options without making the engine (raising for a bad one),
    so :class:`~remem.Memory` refuses them before it opens anything; without it they
    are first checked when the engine is made."""
    _load_plugins()  # so a name registered here replaces a plugin's, never the reverse
    _register(name, factory, settings)


def check_engine_options(name: str, options: Mapping[str, Any]) -> object | None:
    """What ``settings`` (see :func:`register_engine`) makes of ``options`` for engine
    ``name`` (the built-in engines: their resolved config); None for an engine
    registered without. Raises InvalidInputError unless the options suit it."""
    check = _SETTINGS.get(check_engine_name(name))
    return check(options) if check is not None else None


def engine_names() -> list[str]:
    """The registered engines' names, sorted (entry points loaded first)."""
    _load_plugins()
    return sorted(_FACTORIES)


def check_engine_name(name: object) -> str:
    """``name`` when it names an engine (a registered name, or an importable
    ``module:attribute`` path); else UnknownComponentError saying why."""
    if not isinstance(name, str):
        raise UnknownComponentError(f"engine must be a name (str), not {type(name).__name__}")
    _load_plugins()
    if name in _FACTORIES:
        return name
    if name in _BROKEN:
        raise UnknownComponentError(f"engine {name!r} is not available: {_BROKEN[name]}")
    if ":" in name:
        _dotted(name)
        return name
    raise UnknownComponentError(
        f"unknown engine {name!r}; choose one of {', '.join(engine_names())} "
        "(or name an Engine class as 'package.module:Class')"
    )


def _dotted(path: str) -> Callable[..., Engine]:
    """The factory a ``module:attribute`` path names, imported once."""
    with _LOCK:
        if path in _DOTTED:
            return _DOTTED[path]
        try:
            obj = plugins.load_target(path)
        except Exception as exc:
            raise UnknownComponentError(
                f"engine {path!r} cannot be imported: {type(exc).__name__}: {exc}"
            ) from exc
        if isinstance(obj, type) and issubclass(obj, Engine):
            for ext in obj.tables:
                register_extension(ext)
            _SETTINGS[path] = _class_settings(path, obj)
        elif not callable(obj) or isinstance(obj, type):
            raise UnknownComponentError(
                f"engine {path!r} names {obj!r}, neither an Engine subclass nor a factory function"
            )
        _DOTTED[path] = obj
        return obj


def create_engine(name: str, ctx: EngineContext, **options: Any) -> Engine:
    name = check_engine_name(name)
    factory = _FACTORIES.get(name) or _DOTTED[name]
    engine = factory(ctx, **options)
    if name in _DOTTED and not isinstance(engine, Engine):
        raise UnknownComponentError(
            f"engine {name!r}: its factory returned {type(engine).__name__}, not an Engine"
        )
    return engine
