"""What the servers' log filters leave in a record and what they take out."""

from __future__ import annotations

import logging

import pytest

from remem.serve.accesslog import HIDDEN_MESSAGE, HIDDEN_QUERY, HideScopes, HideToolErrors, scrub


def _record(msg: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("mcp.server.mcpserver.server", logging.INFO, "x", 1, msg, args, None)


def test_a_failed_tools_message_is_hidden_and_its_name_kept(monkeypatch):
    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    record = _record("Tool %r failed: %r", "add_memory", "HTTP 400: my PIN is 80417723")
    HideToolErrors().filter(record)
    assert record.getMessage() == f"Tool 'add_memory' failed: {HIDDEN_MESSAGE!r}"


def test_the_content_switch_keeps_the_message(monkeypatch):
    monkeypatch.setenv("REMEM_LOG_CONTENT", "1")
    record = _record("Resource %r failed: %r", "mem://x", "my PIN is 80417723")
    HideToolErrors().filter(record)
    assert "80417723" in record.getMessage()


@pytest.mark.parametrize("msg", ["Processing request of type %s", "Tool %r: %r"])
def test_other_records_pass_unchanged(monkeypatch, msg):
    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    args = ("CallToolRequest",) if msg.count("%") == 1 else ("a", "b")
    record = _record(msg, *args)
    HideToolErrors().filter(record)
    assert record.args == args


def test_scrub_hides_query_strings_and_keys():
    assert scrub("/v1/users?api_key=rmm_0123456789ab_secret") == "/v1/users?[hidden]"
    assert "secret" not in scrub("/v1/rmm_0123456789ab_secretsecret")


CRASH = "date value out of range: my PIN is 80417723"


def _crashed() -> logging.LogRecord:
    """The SDK's record of a crashed tool: its wrapper raised from the tool's error
    (the message in a constant: a frame shows its line of code, which is not content)."""
    try:
        try:
            raise OverflowError(CRASH)
        except OverflowError as exc:
            raise RuntimeError("Error executing tool search_memory") from exc
    except RuntimeError as wrapper:
        info = (RuntimeError, wrapper, wrapper.__traceback__)
    msg = "Tool %r raised an unexpected exception"
    return logging.LogRecord(
        "mcp.server.mcpserver.server", logging.ERROR, "x", 1, msg, ("search_memory",), info
    )


def test_a_crashed_tools_traceback_becomes_its_frames(monkeypatch):
    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    record = _crashed()
    HideToolErrors().filter(record)
    assert record.exc_info is None and record.exc_text is None
    text = logging.Formatter().format(record)
    assert text.startswith("Tool 'search_memory' raised an unexpected exception: ")
    assert text.endswith("OverflowError") and "_crashed" in text  # where, and what
    assert "80417723" not in text and "date value" not in text


def test_the_content_switch_keeps_a_crashed_tools_traceback(monkeypatch):
    monkeypatch.setenv("REMEM_LOG_CONTENT", "1")
    record = _crashed()
    HideToolErrors().filter(record)
    assert "80417723" in logging.Formatter().format(record)


def test_trace_records_keep_no_query_string_header_or_body():
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/v1/rmm_0123456789ab_secretsecret",
        "raw_path": b"/v1/rmm_0123456789ab_secretsecret?user_id=private-user",
        "query_string": b"user_id=private-user",
        "headers": "<...>",
        "state": {"anything": "private-user"},
        "client": ("127.0.0.1", 5000),
    }
    message = {"type": "http.request", "body": b"private-user", "more_body": False}
    record = logging.LogRecord(
        "uvicorn.asgi", 5, "x", 1, "%s %s %s", ("ASGI", scope, message), None
    )
    HideScopes().filter(record)
    text = record.getMessage()
    assert "private-user" not in text and "secret" not in text
    assert HIDDEN_QUERY in text and "'method': 'GET'" in text and "'more_body': False" in text
