"""remem inside the agent frameworks people already use: thin adapters over the
public :class:`remem.Memory` API, one module per framework.

- :mod:`.langchain`: :class:`RememRetriever`, a LangChain ``BaseRetriever``;
- :mod:`.langgraph`: :class:`RememStore`, a LangGraph ``BaseStore``;
- :mod:`.llamaindex`: :class:`RememMemoryBlock`, a LlamaIndex memory block;
- :mod:`.openai_agents`: :func:`remem_tools`, OpenAI Agents SDK function tools.

Nothing is imported here: each framework is an optional extra
(``pip install 'remem[integrations]'`` installs them all), and a module whose
framework is missing raises :class:`~remem.errors.MissingDependencyError` naming
the extra to install. The names above resolve on first use (PEP 562).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .langchain import RememRetriever
    from .langgraph import RememStore
    from .llamaindex import RememMemoryBlock
    from .openai_agents import remem_tools

_LAZY = {
    "RememRetriever": ".langchain",
    "RememStore": ".langgraph",
    "RememMemoryBlock": ".llamaindex",
    "remem_tools": ".openai_agents",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_LAZY[name], __name__), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = ["RememMemoryBlock", "RememRetriever", "RememStore", "remem_tools"]
