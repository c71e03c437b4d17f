"""``remem.serve.settings.Settings``: one object for the CLI and both servers, read
from the environment in one place and handed to the HTTP workers the same way."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from remem import env
from remem.cli import build_parser
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


def test_the_cli_takes_its_defaults_from_the_settings(monkeypatch):
    for v in env.VARIABLES:
        monkeypatch.delenv(v.name, raising=False)
    s = Settings()
    serve = build_parser().parse_args(["serve"])
    assert (serve.db, serve.engine, serve.llm) == (s.db, s.engine, "none")
    assert (serve.host, serve.port, serve.workers) == (s.host, s.port, s.workers)
    assert (serve.max_body_bytes, serve.key_cache, serve.pool_size) == (
        s.max_body_bytes,
        s.key_cache_s,
        s.pool_size,
    )
    mcp = build_parser().parse_args(["mcp"])
    assert (mcp.transport, mcp.host, mcp.port, mcp.llm) == ("stdio", s.mcp_host, s.mcp_port, "auto")
    monkeypatch.setenv("REMEM_LLM", "openai")
    monkeypatch.setenv("REMEM_DB", "env.db")
    for argv in (["serve"], ["mcp"], ["ask", "q", "--user", "u"]):
        args = build_parser().parse_args(argv)
        assert (args.db, args.llm) == ("env.db", "openai")


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
