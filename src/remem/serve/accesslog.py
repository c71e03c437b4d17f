"""The servers' access log, without query strings.

uvicorn's access log writes each request line as the client sent it, path and query
string. Query strings hold user ids (the GET routes take ``?user_id=``) and whatever
else a client puts there, a key sent as ``?api_key=`` among them: refused by the
server (``key_in_url``), but logged all the same. So the log keeps the method, the
path and the status, and shows that a query string was sent, not what it held; a
key-shaped text in the path is masked as well.

A filter on the ``uvicorn.access`` logger rather than a log config handed to
uvicorn: it also applies when uvicorn is run by hand (``uvicorn --factory
remem.serve.http:app_from_env``), and a log config a deployment supplies keeps it.

The MCP SDK's own log gets the same treatment (:func:`hide_tool_errors`): it writes
every failed tool call as ``Tool 'name' failed: '<message>'`` at INFO, and a message
can quote a memory (an embedding or LLM endpoint whose error page echoes the
request). The agent gets the message; the log keeps the tool's name only, unless
``REMEM_LOG_CONTENT=1`` asks for content (``redact.py``).
"""

from __future__ import annotations

import logging

from ..keys import KEY_SHAPED, PREFIX
from ..redact import CONTENT_SWITCH, content_logged

ACCESS_LOGGER = "uvicorn.access"
HIDDEN_QUERY = "?[hidden]"
HIDDEN_KEY = f"{PREFIX}[hidden]"
TOOL_LOGGER = "mcp.server.mcpserver.server"
HIDDEN_MESSAGE = f"[message hidden; {CONTENT_SWITCH}=1 logs it]"


def scrub(path: str) -> str:
    """A request target fit for a log: the path with any key-shaped text masked,
    the query string replaced by :data:`HIDDEN_QUERY`."""
    path, sep, _ = path.partition("?")
    return KEY_SHAPED.sub(HIDDEN_KEY, path) + (HIDDEN_QUERY if sep else "")


class HideQueries(logging.Filter):
    """Scrubs the request target of uvicorn's access records, whose arguments are
    ``(client, method, path with query string, HTTP version, status)``."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], scrub(args[2]), *args[3:])
        return True


def hide_queries() -> None:
    """Put :class:`HideQueries` on uvicorn's access logger (once per process)."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not any(isinstance(f, HideQueries) for f in logger.filters):
        logger.addFilter(HideQueries())


class HideToolErrors(logging.Filter):
    """Drops the message from the SDK's ``"Tool %r failed: %r"`` and ``"Resource %r
    failed: %r"`` records (arguments: the name, the message), keeping the name."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if (
            isinstance(args, tuple)
            and len(args) == 2
            and str(record.msg).endswith("failed: %r")
            and not content_logged()
        ):
            record.args = (args[0], HIDDEN_MESSAGE)
        return True


def hide_tool_errors() -> None:
    """Put :class:`HideToolErrors` on the MCP SDK's server logger (once per process)."""
    logger = logging.getLogger(TOOL_LOGGER)
    if not any(isinstance(f, HideToolErrors) for f in logger.filters):
        logger.addFilter(HideToolErrors())
