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

uvicorn's trace level (``--log-level trace``) logs every ASGI scope and message of
a request on ``uvicorn.asgi``: the scope holds the query string and the raw path.
:class:`HideScopes` keeps only fields known to hold no content (method, path as
scrubbed above, status, addresses, sizes) at every level: "never logged at any
level" covers trace, and a filter also holds when uvicorn is run by hand.

The MCP SDK's own log gets the same treatment (:func:`hide_tool_errors`): it writes
every failed tool call as ``Tool 'name' failed: '<message>'`` at INFO, and a message
can quote a memory (an embedding or LLM endpoint whose error page echoes the
request). The agent gets the message; the log keeps the tool's name only, unless
``REMEM_LOG_CONTENT=1`` asks for content (``redact.py``). A tool that crashed is
logged with its traceback, whose last line is the message: that record keeps the
frames only, like the HTTP server's line for an unexpected error.
"""

from __future__ import annotations

import logging

from ..keys import KEY_SHAPED, PREFIX
from ..redact import CONTENT_SWITCH, content_logged, frames

ACCESS_LOGGER = "uvicorn.access"
TRACE_LOGGER = "uvicorn.asgi"
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


KEPT_FIELDS = frozenset(
    {"type", "asgi", "http_version", "scheme", "method", "server", "client", "root_path"}
    | {"status", "more_body", "code", "reason_phrase"}
)
"""The fields of an ASGI scope or message that :class:`HideScopes` keeps as they are:
none of them holds what a client sent beyond its method."""
PLACEHOLDERS = frozenset({"headers", "body", "bytes", "text"})
"""Fields uvicorn itself replaces by a size (``<12 bytes>``), kept when replaced."""


def _kept(value: object) -> object:
    """An ASGI scope or message (a dict) reduced to what a log may hold; anything
    else as it is (the client's address, a request counter)."""
    if not isinstance(value, dict):
        return value
    out = {k: v for k, v in value.items() if k in KEPT_FIELDS}
    out.update({k: v for k, v in value.items() if k in PLACEHOLDERS and isinstance(v, str)})
    if isinstance(value.get("path"), str):
        out["path"] = scrub(value["path"])
    if value.get("query_string"):
        out["query_string"] = HIDDEN_QUERY
    return out


class HideScopes(logging.Filter):
    """Reduces the ASGI scopes and messages of uvicorn's trace records (``"%s [%d]
    Started scope=%s"``, ``Receive %s``, ``Send %s``) to :data:`KEPT_FIELDS`, the
    path scrubbed and a query string shown as sent, not as what it held."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(_kept(a) for a in record.args)
        return True


def _add_once(name: str, kind: type[logging.Filter]) -> None:
    logger = logging.getLogger(name)
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())


def hide_queries() -> None:
    """Put :class:`HideQueries` on uvicorn's access logger and :class:`HideScopes` on
    its trace logger (once per process)."""
    _add_once(ACCESS_LOGGER, HideQueries)
    _add_once(TRACE_LOGGER, HideScopes)


class HideToolErrors(logging.Filter):
    """Drops the message from the SDK's ``"Tool %r failed: %r"`` and ``"Resource %r
    failed: %r"`` records (arguments: the name, the message), keeping the name; and
    from the records it logs with a traceback (a tool that crashed: ``"Tool %r raised
    an unexpected exception"``), whose traceback becomes the frames of what was
    raised, without its message (:func:`remem.redact.frames`), in the record's one
    line: a log handler prints a traceback with the message, and the SDK's Rich
    handler on stderr did, for ``remem mcp`` over stdio."""

    def filter(self, record: logging.LogRecord) -> bool:
        if content_logged():
            return True
        args = record.args
        if isinstance(args, tuple) and len(args) == 2 and str(record.msg).endswith("failed: %r"):
            record.args = (args[0], HIDDEN_MESSAGE)
        if record.exc_info and record.exc_info[1] is not None:
            record.msg, record.args = "%s: %s", (record.getMessage(), frames(cause(record)))
            record.exc_info, record.exc_text = None, None
        return True


def cause(record: logging.LogRecord) -> BaseException:
    """The exception a record's traceback is about: the first of its chain of causes
    (the SDK wraps a tool's exception in its own, ``raise ... from exc``)."""
    assert record.exc_info is not None and record.exc_info[1] is not None
    exc: BaseException = record.exc_info[1]
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return exc


def hide_tool_errors() -> None:
    """Put :class:`HideToolErrors` on the MCP SDK's server logger (once per process)."""
    _add_once(TOOL_LOGGER, HideToolErrors)
