"""The OpenAI-compatible transport (``remem/_openai.py``) honours ``Retry-After``:
against a real loopback HTTP server that answers 429/503 naming a wait (in seconds,
or as an HTTP date), the chat client and the embedder wait that long (no longer
than the cap; a longer wait fails at once), then succeed. And httpx is loaded at
the first request, not before."""

from __future__ import annotations

import email.utils
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from remem._openai import RETRY_AFTER_CAP_S
from remem.embed.openai import OpenAIEmbedder
from remem.errors import EmbedderError, LLMError
from remem.llm.openai import OpenAILLM
from remem.retry_after import seconds

CHAT_OK = {
    "choices": [{"message": {"content": "hello"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 1},
}
EMBED_OK = {"data": [{"index": 0, "embedding": [3.0, 4.0]}]}

#: (status, headers, JSON body): one per request, in order
Reply = tuple[int, dict[str, str], Any]


class Server:
    """A loopback HTTP/1.1 server answering each POST with the next scripted reply,
    noting when each request arrived."""

    def __init__(self, replies: list[Reply]):
        self.replies = list(replies)
        self.arrived: list[float] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers["Content-Length"]))
                owner.arrived.append(time.monotonic())
                status, headers, body = owner.replies.pop(0)
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def gaps(self) -> list[float]:
        return [b - a for a, b in zip(self.arrived[:-1], self.arrived[1:], strict=True)]


@pytest.fixture
def serve() -> Iterator[Any]:
    made: list[Server] = []

    def make(replies: list[Reply]) -> Server:
        made.append(Server(replies))
        return made[-1]

    yield make
    for s in made:
        s.httpd.shutdown()
        s.httpd.server_close()


def test_chat_waits_the_seconds_a_429_names_then_succeeds(serve) -> None:
    srv = serve([(429, {"Retry-After": "1"}, {"error": "slow down"}), (200, {}, CHAT_OK)])
    llm = OpenAILLM("m", base_url=srv.base_url, api_key="", retries=2, backoff_s=0.01)
    out = llm.complete([{"role": "user", "content": "hi"}], task="t", max_tokens=4)
    assert out.text == "hello"
    (gap,) = srv.gaps()
    assert 1.0 <= gap < 2.0  # the named second, not the 0.01 s backoff


def test_embedder_waits_until_the_http_date_a_503_names(serve) -> None:
    # an HTTP date has whole seconds: 3 s ahead is between 2 and 3 s from now
    when = email.utils.formatdate(time.time() + 3, usegmt=True)
    srv = serve([(503, {"Retry-After": when}, {"error": "busy"}), (200, {}, EMBED_OK)])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=1, backoff_s=0.01)
    np.testing.assert_allclose(emb.embed(["a"]), [[0.6, 0.8]])
    (gap,) = srv.gaps()
    assert 1.9 <= gap < 3.5


def test_without_retry_after_the_backoff_decides(serve) -> None:
    srv = serve([(503, {}, "down"), (429, {}, "slow"), (200, {}, EMBED_OK)])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=2, backoff_s=0.2)
    emb.embed(["a"])
    first, second = srv.gaps()
    assert 0.2 <= first < 0.6 and 0.4 <= second < 0.9  # 0.2 s, then doubled


def test_a_refusal_that_does_not_heal_is_not_retried_whatever_it_names(serve) -> None:
    srv = serve([(400, {"Retry-After": "5"}, {"error": "bad request"})])
    llm = OpenAILLM("m", base_url=srv.base_url, retries=3, schema_mode="off")
    t0 = time.monotonic()
    with pytest.raises(LLMError, match="HTTP 400"):
        llm.complete([{"role": "user", "content": "hi"}], task="t", max_tokens=4)
    assert time.monotonic() - t0 < 1.0 and len(srv.arrived) == 1


def test_the_last_refusal_is_reported_without_a_wait_after_it(serve) -> None:
    srv = serve([(429, {"Retry-After": "1"}, "slow"), (429, {"Retry-After": "20"}, "slow")])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=1, backoff_s=0.01)
    t0 = time.monotonic()
    with pytest.raises(EmbedderError, match="failed after 2 tries: HTTP 429"):
        emb.embed(["a"])
    assert 1.0 <= time.monotonic() - t0 < 2.5  # the first wait, not the last's 20 s


def test_a_wait_longer_than_the_cap_fails_at_once_saying_so(serve) -> None:
    """Asking again before an hour has passed would only be refused again, and
    waiting an hour would hang the caller: the call fails now, naming the wait."""
    srv = serve([(429, {"Retry-After": "3600"}, {"error": "quota"})])
    llm = OpenAILLM("m", base_url=srv.base_url, retries=3, backoff_s=0.01)
    t0 = time.monotonic()
    with pytest.raises(LLMError, match=r"failed after 1 tries: HTTP 429.*wait 3600 s") as info:
        llm.complete([{"role": "user", "content": "hi"}], task="t", max_tokens=4)
    assert time.monotonic() - t0 < 1.0 and len(srv.arrived) == 1
    assert f"{RETRY_AFTER_CAP_S:.0f} s" in str(info.value)
    assert "quota" not in info.value.log_detail  # type: ignore[attr-defined]  # the body stays out


@pytest.mark.parametrize(
    "value, expected",
    [
        ("7", 7.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("86400", 86400.0),  # read as said: the caller decides what is too long
        ("2.5", None),  # RFC 9110's delay-seconds are whole
        ("-3", None),
        ("Sun, 21 Oct 1990 07:28:00 GMT", 0.0),  # long past
        ("Sun, 06 Nov 1994 08:49:47 GMT", 10.0),  # against a fixed now, below
        ("Sun, 06 Nov 1994 08:49:47 -0000", 10.0),  # no zone said: GMT, not local time
        (None, None),
        ("", None),
        ("soon", None),
        ("nan", None),
    ],
)
def test_retry_after_values(value: str | None, expected: float | None) -> None:
    now = 784111777.0  # Sun, 06 Nov 1994 08:49:37 GMT, RFC 9110's example date
    assert seconds(value, now=now) == expected


def test_httpx_is_loaded_at_the_first_request_not_before(serve) -> None:
    """``remem --version`` and ``remem count`` must not pay for httpx: importing remem
    and building the clients loads none of it; the first request does."""
    srv = serve([(200, {}, EMBED_OK)])
    script = f"""
import sys
import remem
from remem.llm import create_llm
from remem.embed.openai import OpenAIEmbedder
llm = create_llm("openai", model="m", base_url={srv.base_url!r})
emb = OpenAIEmbedder("m", base_url={srv.base_url!r})
print("httpx" in sys.modules)
emb.embed(["a"])
print("httpx" in sys.modules)
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    ).stdout.split()
    assert out == ["False", "True"]


def test_a_reply_cut_short_is_retried() -> None:
    """A reply whose body stops before its Content-Length (a proxy or server dying
    mid-write) is a transport failure like any other, tried again; over urllib it
    escaped the retries as ``http.client.IncompleteRead``."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer() -> None:
        for body, declared in ((b'{"data": [', 200), (json.dumps(EMBED_OK).encode(), None)):
            conn, _ = listener.accept()
            with conn:
                conn.recv(65536)  # the request (small: one text)
                length = declared if declared is not None else len(body)
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {length}\r\n\r\n".encode()
                conn.sendall(head + body)
        listener.close()

    threading.Thread(target=answer, daemon=True).start()
    emb = OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{port}/v1", retries=1, backoff_s=0.01)
    np.testing.assert_allclose(emb.embed(["a"]), [[0.6, 0.8]])
