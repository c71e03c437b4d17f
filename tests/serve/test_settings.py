"""``remem.serve.settings.Settings``: one object for the CLI and both servers, read
from the environment in one place and handed to the HTTP workers the same way."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import types
from typing import Any

import pytest

from remem import env
from remem.cli import main
from remem.serve.settings import HTTP_PORT, MAX_BODY_BYTES, MCP_PORT, Settings


def test_defaults():
    s = Settings()
    assert (s.db, s.engine, s.llm) == ("remem.db", "hybrid", "auto")
    assert (s.host, s.port, s.mcp_host, s.mcp_port) == ("127.0.0.1", 8080, "127.0.0.1", 8765)
    assert (HTTP_PORT, MCP_PORT) == (8080, 8765)
    assert s.max_body_bytes == MAX_BODY_BYTES == 8 * 1024 * 1024
    assert (s.workers, s.cors_origins, s.key_cache_s, s.pool_size) == (1, (), 0.0, 0)
    assert Settings.from_env({}) == s


def test_the_reader_defaults_to_auto_but_to_none_for_the_http_server():
    assert Settings.from_env({}).llm == "auto"
    assert Settings.from_env({}, http=True).llm == "none"
    for http in (False, True):  # a named reader wins either way
        assert Settings.from_env({"REMEM_LLM": "local"}, http=http).llm == "local"


def test_from_env_reads_every_variable():
    s = Settings.from_env(
        {
            "REMEM_DB": "x.db",
            "REMEM_ENGINE": "synapse",
            "REMEM_LLM": "openai",
            "REMEM_SERVE_MAX_BODY": "2000",
            "REMEM_SERVE_CORS": "https://a.example, https://b.example",
            "REMEM_SERVE_KEY_CACHE_S": "2.5",
            "REMEM_SERVE_POOL": "4",
        }
    )
    assert (s.db, s.engine, s.llm) == ("x.db", "synapse", "openai")
    assert s.max_body_bytes == 2000 and s.key_cache_s == 2.5 and s.pool_size == 4
    assert s.cors_origins == ("https://a.example", "https://b.example")


@pytest.mark.parametrize("http", [False, True])
def test_to_env_round_trips_what_the_workers_read(http):
    s = Settings(
        db="postgresql://h/db",
        engine="ilstma",
        llm="local",
        max_body_bytes=123,
        cors_origins=("https://a.example", "https://b.example"),
        key_cache_s=1.5,
        pool_size=3,
    )
    handed = Settings.from_env(s.to_env(), http=http)
    fields = ("db", "engine", "llm", "max_body_bytes", "cors_origins", "key_cache_s", "pool_size")
    assert {f: getattr(handed, f) for f in fields} == {f: getattr(s, f) for f in fields}
    assert set(s.to_env()) <= {v.name for v in env.VARIABLES}


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Settings().port = 1  # type: ignore[misc]


def _settings(monkeypatch, argv: list[str]) -> Settings:
    """The Settings ``remem serve`` or ``remem mcp`` would serve with, caught before
    any server starts."""
    seen: list[Settings] = []
    monkeypatch.setitem(sys.modules, "remem.serve.http", types.SimpleNamespace(serve=seen.append))
    monkeypatch.setattr("remem.serve.mcp.run", lambda settings: seen.append(settings) or 0)
    assert main(argv) == 0
    (settings,) = seen
    return settings


def _ask_options(monkeypatch, argv: list[str]) -> dict[str, Any]:
    """The database and reader ``remem ask`` would open its Memory with."""
    seen: dict[str, Any] = {}

    def opened(g: Any, **settings: Any) -> Any:
        seen.update(db=g.db, **settings)
        raise LookupError("caught before any Memory opens")

    monkeypatch.setattr("remem.cli._memory", opened)
    assert main(argv) == 1
    return seen


def test_the_cli_takes_its_defaults_from_the_settings(monkeypatch):
    for v in env.VARIABLES:
        monkeypatch.delenv(v.name, raising=False)
    s = Settings()
    serve = _settings(monkeypatch, ["serve"])
    assert serve == dataclasses.replace(s, llm="none")
    mcp = _settings(monkeypatch, ["mcp"])
    assert mcp == s and (mcp.mcp_transport, mcp.llm) == ("stdio", "auto")
    assert _ask_options(monkeypatch, ["ask", "q", "--user", "u"]) == {"db": s.db, "llm": "auto"}
    monkeypatch.setenv("REMEM_LLM", "openai")
    monkeypatch.setenv("REMEM_DB", "env.db")
    for argv in (["serve"], ["mcp"]):
        got = _settings(monkeypatch, argv)
        assert (got.db, got.llm) == ("env.db", "openai")
    assert _ask_options(monkeypatch, ["ask", "q", "--user", "u"]) == {
        "db": "env.db",
        "llm": "openai",
    }


def test_every_serve_option_reaches_the_settings(monkeypatch):
    for v in env.VARIABLES:
        monkeypatch.delenv(v.name, raising=False)
    got = _settings(monkeypatch, [
        "--db", "a.db", "--engine", "bm25", "serve", "--path", "b.db", "--host", "0.0.0.0",
        "--port", "9000", "--workers", "3", "--llm", "local", "--max-body-bytes", "100",
        "--cors", "https://a.example, https://b.example", "--key-cache", "1.5",
        "--pool-size", "4", "--log-level", "debug",
    ])  # fmt: skip
    assert got == Settings(
        db="b.db", engine="bm25", llm="local", host="0.0.0.0", port=9000, workers=3,
        max_body_bytes=100, cors_origins=("https://a.example", "https://b.example"),
        key_cache_s=1.5, pool_size=4, log_level="debug",
    )  # fmt: skip


_OPEN_AND_LIST = """
import sys
from remem.serve.settings import Settings
mem = Settings(db=sys.argv[1], llm="none").open_memory()
print("onnxruntime" in sys.modules, mem.count("u"))
mem.close()
"""


def test_a_servers_memory_has_its_model_loaded_when_it_opens(tmp_path):
    """A Memory loads the embedding model on its first embedding (so ``remem count``
    never does); a server's is loaded at start, so the server is ready when it
    listens: its first writes do not queue behind the model (its own process, to see
    what was imported)."""
    r = subprocess.run(
        [sys.executable, "-c", _OPEN_AND_LIST, str(tmp_path / "served.db")],
        capture_output=True, text=True, timeout=300,
        env={k: v for k, v in os.environ.items() if not k.startswith("REMEM_")},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "0"]
