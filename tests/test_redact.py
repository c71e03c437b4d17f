"""What a log line may say about a failure: the type and a content-free detail, never
the message, unless REMEM_LOG_CONTENT=1 asks for it."""

from __future__ import annotations

from remem.errors import LLMError
from remem.redact import content_logged, failure, frames

SECRET = "PIN 80417723"


def _raised() -> LLMError:
    try:
        exc = LLMError(f"endpoint said: cannot process {SECRET}")
        exc.log_detail = "HTTP 400"
        raise exc
    except LLMError as caught:
        return caught


def test_a_failure_is_named_by_type_and_detail_only(monkeypatch):
    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    assert not content_logged()
    exc = _raised()
    assert failure(exc) == "LLMError (HTTP 400)"
    assert failure(ValueError(SECRET)) == "ValueError"
    where = frames(exc)
    assert "_raised" in where and "test_redact.py" in where  # where it happened ...
    assert SECRET not in where  # ... not what it said


def test_the_content_switch_adds_the_message(monkeypatch):
    monkeypatch.setenv("REMEM_LOG_CONTENT", "1")
    assert content_logged()
    exc = _raised()
    assert SECRET in failure(exc) and SECRET in frames(exc)
    monkeypatch.setenv("REMEM_LOG_CONTENT", "0")
    assert SECRET not in failure(exc)
