"""The server's error codes back to the library's errors, and Retry-After read."""

from __future__ import annotations

import email.utils

import pytest

from remem import (
    ErasureIncompleteError,
    InvalidInputError,
    RemoteError,
    StoreError,
    UnknownComponentError,
)
from remem.client.failures import Retry, error_for, retry_after_seconds
from remem.serve.httperrors import _ERRORS


@pytest.mark.parametrize(("kind", "status", "code"), _ERRORS, ids=[c for _, _, c in _ERRORS])
def test_every_code_the_server_sends_comes_back_as_the_error_it_came_from(kind, status, code):
    err = error_for(status, {"error": {"code": code, "message": "m", "deleted": 3}})
    # an unknown engine or embedder shares invalid_input: the client cannot tell them apart
    assert type(err) is (InvalidInputError if kind is UnknownComponentError else kind)
    assert str(err) == "m"


def test_an_incomplete_erasure_keeps_what_the_call_did():
    err = error_for(503, {"error": {"code": "erasure_incomplete", "message": "m", "deleted": True}})
    assert isinstance(err, ErasureIncompleteError) and err.result is True


def test_codes_without_a_library_error_are_remote_errors():
    err = error_for(401, {"error": {"code": "unauthorized", "message": "a key is required"}})
    assert isinstance(err, RemoteError) and not isinstance(err, StoreError)
    assert (err.status, err.code, err.log_detail) == (401, "unauthorized", "HTTP 401 unauthorized")
    assert error_for(502, "<html>").code == ""


def test_retry_after_in_seconds_or_as_a_date():
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds(date, now=1_000_000) == 30.0
    assert retry_after_seconds(date, now=2_000_000) == 0.0


def test_only_503_is_retried_and_only_so_often():
    retry = Retry(retries=2, max_wait=10, backoff=0.5)
    assert retry.delay(500, "1", 0) is None
    assert retry.delay(503, "3", 0) == 3.0
    assert retry.delay(503, None, 1) == 1.0  # backoff, doubling
    assert retry.delay(503, "3", 2) is None
    assert retry.delay(503, "11", 0) is None
