"""What the servers' log filters leave in a record and what they take out."""

from __future__ import annotations

import logging

import pytest

from remem.serve.accesslog import HIDDEN_MESSAGE, HideToolErrors, scrub


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
