"""Components found through entry points: engines (``remem.engines``) and storage
extensions (``remem.extensions``), remem's own among them.

A distribution offers a component by declaring an entry point in one of the groups::

    [project.entry-points."remem.engines"]
    tiny = "remem_tiny_engine:TinyEngine"

The registries (``remem.engines``, ``remem.store.extension``) read their group the
first time they are needed and load each entry point through :func:`load`; what an
entry point's object must be is the registry's contract (see their docstrings and
docs/plugins.md). This module only finds and imports them.

Choices, and why:

* **The built-ins are entry points too**, declared in pyproject.toml *and* listed in
  code (:data:`BUILTIN_ENGINES`). An install made before a built-in was declared (an
  editable install's metadata is written once) would otherwise lose it; the code's
  list is merged with what the installed metadata says, and a name both give with
  the same target is loaded once.
* **A broken plugin breaks only itself.** An entry point that fails to import is
  logged as a warning and skipped; its registry remembers why, and says so when
  that name is asked for.
* **Finding is cheap, loading is not.** :func:`find` reads metadata and imports
  nothing of the plugins (``remem --help`` lists plugin engines that way); the
  registries load them once, on first need.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

log = logging.getLogger("remem.plugins")

ENGINES_GROUP = "remem.engines"
EXTENSIONS_GROUP = "remem.extensions"

BUILTIN_ENGINES: Mapping[str, str] = {
    "dense": "remem.engines.baselines:DenseEngine",
    "bm25": "remem.engines.baselines:BM25Engine",
    "hybrid": "remem.engines.baselines:HybridEngine",
    "synapse": "remem.engines.synapse:register",
    "ilstma": "remem.engines.ilstma:register",
}
"""remem's own ``remem.engines`` entry points, as pyproject.toml declares them (a test
holds the two together): used whatever the installed metadata says."""

BUILTIN_EXTENSIONS: Mapping[str, str] = {}
"""remem's own ``remem.extensions`` entry points: none (the engines' tables come with
the engines; the API keys' and LangGraph's tables attach when those are first used)."""

_BUILTINS = {ENGINES_GROUP: BUILTIN_ENGINES, EXTENSIONS_GROUP: BUILTIN_EXTENSIONS}
_OWN = "remem"


@dataclass(frozen=True)
class Plugin:
    """One entry point: its ``name``, its ``target`` (``module:attribute``) and the
    distribution that declares it (for messages)."""

    name: str
    target: str
    dist: str

    @property
    def builtin(self) -> bool:
        return self.dist == _OWN

    def load(self) -> Any:
        """Import the target's module and return the object it names."""
        return load_target(self.target)

    def describe(self) -> str:
        return f"{self.name!r} ({self.target}, from distribution {self.dist})"


def load_target(target: str) -> Any:
    """The object ``module:attribute`` (the attribute may be dotted) names."""
    from importlib import import_module

    module, _, attr = target.partition(":")
    obj: Any = import_module(module.strip())
    for part in filter(None, attr.strip().split(".")):
        obj = getattr(obj, part)
    return obj


def _dist_label(ep: Any) -> str:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "(unknown)"
    name = getattr(dist, "name", None) or "(unnamed)"
    return _OWN if name == _OWN else f"{name} {dist.version}"


def find(group: str) -> list[Plugin]:
    """The group's entry points: remem's own first (from code, see
    :data:`BUILTIN_ENGINES`), then the installed ones in metadata order. A name is
    kept once: an entry point repeating a kept one's target is dropped silently
    (remem's own metadata, or one distribution found twice on the path), one giving
    the name another target is dropped with a warning (the first one wins)."""
    from importlib.metadata import entry_points

    found = {name: Plugin(name, target, _OWN) for name, target in _BUILTINS[group].items()}
    for ep in entry_points(group=group):
        have = found.get(ep.name)
        if have is None:
            found[ep.name] = Plugin(ep.name, ep.value, _dist_label(ep))
        elif have.target != ep.value:
            log.warning(
                "%s: %r from distribution %s is ignored: %s already names it",
                group,
                ep.name,
                _dist_label(ep),
                have.describe(),
            )
    return list(found.values())


def installed_names(group: str) -> list[str]:
    """The names of the group's entry points that are not remem's own, sorted (read
    from metadata: nothing is imported)."""
    return sorted(p.name for p in find(group) if not p.builtin)


def load(plugin: Plugin, group: str) -> tuple[Any, str | None]:
    """``(object, None)``, or ``(None, why)`` when importing it failed (logged as a
    warning: one broken plugin must not break the rest)."""
    try:
        return plugin.load(), None
    except Exception as exc:
        why = f"{group} entry point {plugin.describe()} failed to load: {type(exc).__name__}: {exc}"
        log.warning("%s", why)
        return None, why
