"""``remem.Client`` and ``remem.AsyncClient``: ``Memory``'s methods over a remem
server's HTTP API (``remem serve``), for an agent that does not hold the memory
itself.

The parts, one job each:

* ``calls``: each method as one exchange (requests yielded, the result returned),
  written once for both clients;
* ``exchange``: the request type and the drivers that run an exchange;
* ``wire``: arguments checked by the library's rules and put as JSON;
* ``transport``: sending a request over httpx, the key, the 503 retries;
* ``failures``: the server's error codes back to the library's errors, Retry-After;
* ``clients``: the two classes, a line per method.

Needs httpx, the ``client`` extra: without it, importing this package raises
:class:`~remem.MissingDependencyError` saying what to install.
"""

from __future__ import annotations

from ..errors import MissingDependencyError

try:
    import httpx  # noqa: F401
except ImportError as exc:
    raise MissingDependencyError("remem.Client needs httpx: pip install 'remem[client]'") from exc

from .clients import AsyncClient, Client  # noqa: E402

__all__ = ["AsyncClient", "Client"]
