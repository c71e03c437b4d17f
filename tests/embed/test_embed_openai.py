"""OpenAIEmbedder against a real OpenAI-compatible server (llama.cpp's own,
``tests/gguf_server.py --embedding`` on the bundled SmolLM2 GGUF, mean-pooled),
dead, dying and wrong endpoints; and, for replies no real server
here sends (broken JSON, rate limits, a wrong count, a changing size), a small
stdlib HTTP server that sends exactly those."""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from llama_server import Server, free_port
from remem import Memory
from remem.embed import create_embedder
from remem.embed.openai import OpenAIEmbedder
from remem.errors import EmbedderError

TEXTS = [
    "My sister is getting married in Lisbon next September.",
    "I planted tomatoes, basil and chillies on the balcony.",
    "The kitchen sink started leaking again on Tuesday night.",
    "I ran my first half marathon in just under two hours.",
    "Our book club is reading a long Russian novel this month.",
]


@pytest.fixture(scope="module")
def emb_server(llama_servers: Callable[..., Server]) -> Server:
    return llama_servers("--embedding")


def embedder(base_url: str, **kw: Any) -> OpenAIEmbedder:
    kw.setdefault("retries", 1)
    kw.setdefault("backoff_s", 0.01)
    kw.setdefault("timeout_s", 60.0)
    return OpenAIEmbedder("smollm2", base_url=base_url, api_key="", **kw)


def test_vectors_from_a_real_server(emb_server: Server, caplog: pytest.LogCaptureFixture) -> None:
    emb = embedder(emb_server.base_url + "/")
    assert emb.base_url == emb_server.base_url and emb.name == "openai:smollm2"
    with caplog.at_level(logging.INFO, logger="remem.embed.openai"):
        vecs = emb.embed(TEXTS)
    assert vecs.shape == (len(TEXTS), emb.dim) and emb.dim > 100
    assert vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, rtol=1e-5)
    assert len({v.tobytes() for v in vecs}) == len(TEXTS)  # different texts, different vectors
    # llama.cpp's server pools itself (one vector per text): nothing to mean-pool here
    assert not any("mean-pooling" in r.getMessage() for r in caplog.records)
    # the same text alone gives the same vector again (rows are not compared to the
    # batch's; splitting and ordering are checked on the scripted server below)
    one = emb.embed_one(TEXTS[3])
    assert float(one @ emb.embed_one(TEXTS[3])) == pytest.approx(1.0, abs=1e-5)
    assert emb.embed([]).shape == (0, emb.dim)


def test_memory_on_the_served_embedder(emb_server: Server, tmp_path) -> None:
    """The factory's ``openai`` name, through Memory: stored, searched, reopened."""
    emb = create_embedder("openai", model="smollm2", base_url=emb_server.base_url, retries=0)
    path = tmp_path / "m.db"
    assert emb.dim == 0  # learnt from the endpoint: Memory asks once when it opens
    with Memory(path=str(path), engine="dense", embedder=emb) as mem:
        assert emb.dim > 100
        ids = [mem.add(t, user_id="u1") for t in TEXTS]  # one text per request
        hits = mem.search(TEXTS[2], user_id="u1", k=3)
        assert hits[0].id == ids[2] and hits[0].score == pytest.approx(1.0, abs=1e-3)
    # reopened by a fresh embedder: the size comes from the file's record, no request
    dead = create_embedder("openai", model="smollm2", base_url=f"http://127.0.0.1:{free_port()}/v1")
    with Memory(path=str(path), engine="dense", embedder=dead) as mem:
        assert dead.dim == emb.dim and mem.count("u1") == len(TEXTS)
    fresh = create_embedder("openai", model="smollm2", base_url=emb_server.base_url)
    with Memory(path=str(path), engine="dense", embedder=fresh) as mem:
        assert mem.search(TEXTS[0], user_id="u1", k=1)[0].id == ids[0]


def test_a_fresh_memory_on_a_dead_endpoint_fails_at_open(tmp_path) -> None:
    dead = OpenAIEmbedder("m", base_url=f"http://127.0.0.1:{free_port()}/v1", retries=0)
    with pytest.raises(EmbedderError, match="refused"):
        Memory(path=str(tmp_path / "m.db"), engine="dense", embedder=dead)
    # nothing was left open or half-written: the same file opens with a working embedder
    with Memory(path=str(tmp_path / "m.db"), engine="bm25") as mem:
        assert mem.users() == []


def test_dead_endpoint_fails_fast_naming_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    emb = embedder(url)
    t0 = time.perf_counter()
    with pytest.raises(EmbedderError) as info:
        emb.embed(["hello"])
    assert time.perf_counter() - t0 < 3.0
    msg = str(info.value)
    assert url in msg and "failed after 2 tries" in msg and "refused" in msg.lower()


def test_wrong_path_is_not_found_and_not_retried(emb_server: Server) -> None:
    emb = embedder(f"http://127.0.0.1:{emb_server.port}/nothing-here/v1", retries=3, backoff_s=1)
    t0 = time.perf_counter()
    with pytest.raises(EmbedderError, match="not found") as info:
        emb.embed(["hello"])
    assert time.perf_counter() - t0 < 1.0
    assert "HTTP 404" in str(info.value) and "'smollm2'" in str(info.value)


def test_server_killed_mid_request(llama_servers: Callable[..., Server]) -> None:
    doomed = llama_servers("--embedding")
    emb = embedder(doomed.base_url, retries=0, timeout_s=30)
    emb.embed(["warm up"])
    result: dict[str, Any] = {}

    def long_request() -> None:
        try:
            result["vecs"] = emb.embed([f"{t} (copy {i})" for i in range(80) for t in TEXTS])
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result["error"] = exc

    worker = threading.Thread(target=long_request, daemon=True)
    worker.start()
    time.sleep(0.5)
    assert worker.is_alive(), f"the 400-text request ended early: {result}"
    doomed.kill()
    assert doomed.proc.returncode == -signal.SIGKILL
    worker.join(timeout=15)
    assert not worker.is_alive(), "the client hung after the server died"
    assert isinstance(result.get("error"), EmbedderError), result
    assert doomed.base_url in str(result["error"])


# -- replies no real server here sends ------------------------------------------------


class Scripted:
    """A loopback HTTP server answering POSTs with the next scripted (status, body)."""

    def __init__(self, replies: list[tuple[int, Any]]):
        self.replies = list(replies)
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.requests.append(
                    {
                        "path": self.path,
                        "auth": self.headers.get("Authorization"),
                        **json.loads(body),
                    }
                )
                status, reply = owner.replies.pop(0) if owner.replies else (500, "no more")
                data = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[Callable[[list[tuple[int, Any]]], Scripted]]:
    made: list[Scripted] = []

    def make(replies: list[tuple[int, Any]]) -> Scripted:
        made.append(Scripted(replies))
        return made[-1]

    yield make
    for s in made:
        s.close()


def ok(*vectors: list[float], reverse: bool = False) -> tuple[int, dict]:
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
    return 200, {"object": "list", "data": data[::-1] if reverse else data}


def test_out_of_order_data_is_sorted_and_the_key_is_sent(scripted) -> None:
    srv = scripted([ok([1.0, 0.0], [0.0, 2.0], reverse=True)])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, api_key="sk-test")
    vecs = emb.embed(["a", "b"])
    np.testing.assert_allclose(vecs, [[1.0, 0.0], [0.0, 1.0]])
    assert srv.requests[0]["path"] == "/v1/embeddings"
    assert srv.requests[0]["auth"] == "Bearer sk-test"
    assert srv.requests[0]["input"] == ["a", "b"] and srv.requests[0]["model"] == "m"


def test_one_vector_per_token_is_mean_pooled_and_said_once(
    scripted, caplog: pytest.LogCaptureFixture
) -> None:
    """llama-cpp-python's server sent a chat model's embeddings per token (llama.cpp's
    own server, used above, refuses that on /v1/embeddings): the rows are averaged."""
    per_token = {"object": "embedding", "index": 0, "embedding": [[1.0, 0.0], [0.0, 1.0]]}
    other = {"object": "embedding", "index": 1, "embedding": [[3.0, 4.0]]}
    srv = scripted([(200, {"object": "list", "data": [per_token, other]})] * 2)
    emb = OpenAIEmbedder("m", base_url=srv.base_url)
    with caplog.at_level(logging.INFO, logger="remem.embed.openai"):
        vecs = emb.embed(["a", "b"])
        emb.embed(["a", "b"])
    s = 2**-0.5
    np.testing.assert_allclose(vecs, [[s, s], [0.6, 0.8]], atol=1e-6)
    assert sum("mean-pooling" in r.getMessage() for r in caplog.records) == 1


def test_batches_are_split_and_joined_in_order(scripted) -> None:
    srv = scripted([ok([1.0, 0.0], [0.0, 1.0]), ok([1.0, 1.0], [2.0, 0.0]), ok([0.0, 3.0])])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, batch_size=2)
    vecs = emb.embed(["a", "b", "c", "d", "e"])
    assert [r["input"] for r in srv.requests] == [["a", "b"], ["c", "d"], ["e"]]
    s = 2**-0.5
    np.testing.assert_allclose(vecs, [[1, 0], [0, 1], [s, s], [1, 0], [0, 1]], atol=1e-6)


def test_rate_limit_and_broken_json_are_retried(scripted) -> None:
    srv = scripted([(429, {"error": "slow down"}), (200, b"<html>proxy</html>"), ok([3.0, 4.0])])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=2, backoff_s=0.01)
    np.testing.assert_allclose(emb.embed(["a"]), [[0.6, 0.8]])
    assert len(srv.requests) == 3


def test_retries_are_bounded_and_the_last_reason_is_given(scripted) -> None:
    srv = scripted([(503, "down")] * 3)
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=2, backoff_s=0.01)
    with pytest.raises(EmbedderError, match=r"failed after 3 tries: HTTP 503"):
        emb.embed(["a"])
    assert len(srv.requests) == 3


def test_a_bad_key_says_what_to_check(scripted) -> None:
    srv = scripted([(401, {"error": "bad key"})])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=3, backoff_s=0.01)
    with pytest.raises(EmbedderError, match="OPENAI_API_KEY"):
        emb.embed(["a"])
    assert len(srv.requests) == 1  # not retried


@pytest.mark.parametrize(
    "reply, match",
    [
        ((200, {"object": "list"}), "sent no embeddings"),
        ((200, {"data": [{"index": 0, "embedding": "abc"}]}), "sent no embeddings"),
        ((200, {"data": [{"index": 0, "embedding": []}]}), "sent no embeddings"),
        ((200, {"data": [{"index": 0, "embedding": [1.0, None]}]}), "sent no embeddings"),
        ((200, {"data": [{"index": 0, "embedding": [10**400, 0]}]}), "sent no embeddings"),
        (ok([1.0, 0.0], [1.0]), "sizes"),
        (ok([1.0, 0.0]), "1 vectors for 2 texts"),
    ],
)
def test_malformed_replies_are_clear_errors(scripted, reply, match) -> None:
    srv = scripted([reply])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=0)
    with pytest.raises(EmbedderError, match=match):
        emb.embed(["a", "b"] if "2 texts" in match or match == "sizes" else ["a"])


def test_a_changed_vector_size_is_refused(scripted) -> None:
    srv = scripted([ok([1.0, 0.0]), ok([1.0, 0.0, 0.0])])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=0)
    emb.embed(["a"])
    assert emb.dim == 2
    with pytest.raises(EmbedderError, match=r"sizes \[3\], expected 2"):
        emb.embed(["b"])


def test_a_memo_wrapped_endpoint_embedder_learns_its_size_too(scripted, tmp_path) -> None:
    from remem.embed.base import MemoEmbedder

    srv = scripted([ok([1.0, 0.0, 0.0]), ok([0.0, 1.0, 0.0])])
    memo = MemoEmbedder(OpenAIEmbedder("m", base_url=srv.base_url, retries=0))
    assert memo.dim == 0
    with Memory(path=str(tmp_path / "m.db"), engine="dense", embedder=memo) as mem:
        assert memo.dim == 3
        mem.add("hello", user_id="u")
        assert mem.count("u") == 1


def test_huge_components_make_a_unit_vector_or_an_error_never_zeros_or_infinity(scripted) -> None:
    """Finite in JSON is not finite in float32 (issue 34): components past float32's
    range are refused; ones whose square overflows it still make a unit vector."""
    srv = scripted([ok([1e30, 1e30], [3e-30, 4e-30]), ok([1e39, 0.0])])
    emb = OpenAIEmbedder("m", base_url=srv.base_url, retries=0)
    s = 2**-0.5
    np.testing.assert_allclose(emb.embed(["a", "b"]), [[s, s], [0.6, 0.8]], rtol=1e-6)
    with pytest.raises(EmbedderError, match="sent no embeddings"):
        emb.embed(["c"])
