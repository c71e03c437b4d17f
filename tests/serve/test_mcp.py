"""The MCP server, driven by the MCP SDK's own client over real transports.

stdio and streamable HTTP servers run as subprocesses (``python -m remem.serve.mcp``) over
real SQLite files; a few error-path checks use the SDK's in-process client.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

mcp = pytest.importorskip("mcp")

from mcp import Client, ClientSession, StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.shared._httpx_utils import create_mcp_http_client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

from crashing import LEAKS, SECRET, crashing  # noqa: E402
from remem import Memory  # noqa: E402
from remem.errors import InvalidInputError, LLMError  # noqa: E402
from remem.keys import KeyRing  # noqa: E402
from remem.serve.mcp import create_server  # noqa: E402
from remem.serve.tenant import TenantMemory  # noqa: E402

pytestmark = pytest.mark.anyio

TOOLS = {
    "add_memory",
    "add_memories",
    "update_memory",
    "memory_history",
    "search_memory",
    "recall_memory",
    "list_memories",
    "answer_question",
    "memory_context",
    "get_memory",
    "forget",
    "forget_user",
    "list_users",
}
REFUSAL = "Not mentioned in the conversation"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _server_env() -> dict[str, str]:
    env = {"REMEM_LLM": "none", "PYTHONUNBUFFERED": "1"}
    for name in ("PATH", "HOME", "PYTHONPATH", "TMPDIR", "LANG"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def _error(result: Any) -> str:
    assert result.is_error, result
    return result.content[0].text


# -- stdio ----------------------------------------------------------------------------


@asynccontextmanager
async def stdio_session(db: Path, *extra: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remem.serve.mcp", "--db", str(db), *extra],
        env=_server_env(),
        cwd=str(db.parent),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def test_stdio_tools_round_trip(tmp_path: Path) -> None:
    async with stdio_session(tmp_path / "mem.db") as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and len(tool.description) > 40
            assert tool.input_schema["type"] == "object"
        add = tools["add_memory"].input_schema
        assert set(add["required"]) == {"user_id", "text"}
        assert {"speaker", "timestamp", "session_id", "metadata"} <= set(add["properties"])
        assert tools["search_memory"].input_schema["properties"]["k"]["default"] == 10
        assert REFUSAL in tools["answer_question"].description

        added = _data(
            await s.call_tool(
                "add_memory",
                {
                    "user_id": "ana",
                    "text": "I adopted a retired racing greyhound named Biscuit.",
                    "speaker": "Ana",
                    "timestamp": "2023-05-08T13:56:00Z",
                    "metadata": {"source": "chat"},
                },
            )
        )
        mid = added["id"]
        batch = _data(
            await s.call_tool(
                "add_memories",
                {
                    "user_id": "ana",
                    "items": [
                        "My sister is getting married in Lisbon next September.",
                        {"text": "I've been learning the cello for six months.", "speaker": "Ana"},
                    ],
                },
            )
        )
        assert len(batch["ids"]) == 2

        hits = _data(await s.call_tool("search_memory", {"user_id": "ana", "query": "dog", "k": 2}))
        assert hits["hits"][0]["id"] == mid
        assert hits["hits"][0]["metadata"] == {"source": "chat"}
        assert len(hits["hits"]) == 2

        answer = _data(
            await s.call_tool(
                "answer_question", {"user_id": "ana", "question": "What is my dog called?"}
            )
        )
        assert isinstance(answer["text"], str) and answer["text"]
        assert isinstance(answer["refused"], bool)
        assert answer["refused"] == (answer["text"] == REFUSAL)
        assert isinstance(answer["evidence"], list)

        rec = _data(await s.call_tool("recall_memory", {"user_id": "ana", "query": "dog", "k": 2}))
        assert rec["hits"][0]["id"] == mid and isinstance(rec["refuse"], bool)
        assert rec["confidence"] >= 0.0 and isinstance(rec["explanations"], dict)
        empty = _data(await s.call_tool("recall_memory", {"user_id": "nobody", "query": "PIN"}))
        assert empty["hits"] == [] and empty["not_in_memory"] is True and empty["refuse"] is True
        listed = _data(await s.call_tool("list_memories", {"user_id": "ana"}))
        assert listed["count"] == 3
        assert [m["id"] for m in listed["memories"]] == [mid, *batch["ids"]]  # oldest first
        page = _data(
            await s.call_tool("list_memories", {"user_id": "ana", "limit": 1, "offset": 2})
        )
        assert [m["id"] for m in page["memories"]] == batch["ids"][1:]
        assert "offset" in _error(
            await s.call_tool("list_memories", {"user_id": "ana", "offset": -1})
        )

        got = _data(await s.call_tool("get_memory", {"user_id": "ana", "memory_id": mid}))
        assert got["text"].startswith("I adopted")
        assert _data(await s.call_tool("list_users", {})) == {"users": ["ana"]}

        # invalid input comes back as a tool error; the session goes on
        assert "empty" in _error(await s.call_tool("add_memory", {"user_id": "ana", "text": " "}))
        # the HTTP API's rules (``serve/schema.py``): k is checked before the library runs
        assert "greater than or equal to 1" in _error(
            await s.call_tool("search_memory", {"user_id": "ana", "query": "dog", "k": 0})
        )
        for tool, field in (
            ("search_memory", "query"),
            ("recall_memory", "query"),
            ("answer_question", "question"),
        ):
            asked = {"user_id": "ana", field: "my dog", "now": "2030-01-01T00:00:00"}
            got = _data(await s.call_tool(tool, asked))
            assert got.get("hits") or got.get("evidence") is not None
            bad = {"user_id": "ana", field: "dog", "now": "soonish"}
            assert "now 'soonish' is not ISO-8601" in _error(await s.call_tool(tool, bad))
        assert "valid string" in _error(
            await s.call_tool("add_memory", {"user_id": "ana", "text": 123})
        )
        assert "ISO-8601" in _error(
            await s.call_tool("add_memory", {"user_id": "ana", "text": "x", "timestamp": "soon"})
        )
        assert "item 1" in _error(
            await s.call_tool("add_memories", {"user_id": "ana", "items": ["ok", {"text": ""}]})
        )
        assert "user_id" in _error(await s.call_tool("forget_user", {"user_id": ""}))

        assert _data(await s.call_tool("forget", {"user_id": "ana", "memory_id": mid})) == {
            "deleted": True
        }
        assert "no memory" in _error(
            await s.call_tool("get_memory", {"user_id": "ana", "memory_id": mid})
        )
        assert _data(await s.call_tool("forget", {"user_id": "ana", "memory_id": mid})) == {
            "deleted": False
        }
        hits = _data(await s.call_tool("search_memory", {"user_id": "ana", "query": "dog"}))
        assert mid not in {h["id"] for h in hits["hits"]}
        assert len(hits["hits"]) == 2  # the failed batch stored nothing
        assert _data(await s.call_tool("forget_user", {"user_id": "ana"})) == {"deleted": 2}
        assert _data(await s.call_tool("list_users", {})) == {"users": []}


async def test_stdio_tenant_scopes_user_ids(tmp_path: Path, open_memory) -> None:
    db = tmp_path / "mem.db"
    async with stdio_session(db, "--tenant", "acme") as s:
        _data(await s.call_tool("add_memory", {"user_id": "bob", "text": "Bob likes tea."}))
        assert _data(await s.call_tool("list_users", {})) == {"users": ["bob"]}
    assert open_memory(db).users() == ["acme:bob"]


CRASHING = crashing("remem.serve.mcp")
"""``python -m remem.serve.mcp`` whose search fails unexpectedly, with a message a log
must never show (a ``-c`` script has no source lines a traceback could quote)."""


async def test_stdio_unexpected_error_is_one_content_free_stderr_line(tmp_path: Path) -> None:
    """The SDK logs a crashed tool with ``logger.exception``, and its Rich handler
    printed the whole traceback to stderr, the message in it."""
    db = tmp_path / "mem.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", CRASHING, "--db", str(db)],
        env=_server_env(),
        cwd=str(tmp_path),
    )
    errlog = tmp_path / "stderr.log"
    with open(errlog, "w") as err:
        async with (
            stdio_client(params, errlog=err) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            query = {"user_id": "ana", "query": f"my PIN is {SECRET}?"}
            text = _error(await s.call_tool("search_memory", query))
            assert text == "Error executing tool search_memory"
            # the session goes on
            _data(await s.call_tool("add_memory", {"user_id": "ana", "text": "I like tea."}))
            assert _data(await s.call_tool("list_users", {})) == {"users": ["ana"]}
    logged = errlog.read_text()
    assert logged.count("OverflowError") == 1, logged
    assert "search_memory" in logged and "unexpected" in logged, logged  # (Rich wraps lines)
    for leak in LEAKS:
        assert leak not in logged, (leak, logged)


# -- in-process: error mapping --------------------------------------------------------


async def test_unexpected_errors_stay_on_the_server(monkeypatch, mem: Memory) -> None:
    def crash(self, *args, **kwargs):
        raise RuntimeError("secret internals /etc/passwd")

    def llm_down(self, *args, **kwargs):
        raise LLMError("the LLM endpoint refused the request")

    monkeypatch.setattr(TenantMemory, "search", crash)
    monkeypatch.setattr(TenantMemory, "answer", llm_down)
    async with Client(create_server(mem, log_level="CRITICAL")) as c:
        text = _error(await c.call_tool("search_memory", {"user_id": "u", "query": "q"}))
        assert "secret" not in text and "RuntimeError" not in text
        assert "search_memory" in text
        text = _error(await c.call_tool("answer_question", {"user_id": "u", "question": "q?"}))
        assert "the LLM endpoint refused the request" in text
        assert _data(await c.call_tool("add_memory", {"user_id": "u", "text": "still works"}))


async def test_a_pending_erase_is_told_only_to_its_own_user(open_memory, tmp_path) -> None:
    """forget/forget_user answer as the HTTP routes do (the same tenant view): while one
    erase waits for another connection's snapshot, other users' and tenants' forgets of
    nothing answer plainly, and a retry reports the erase (issue 34, finding 7)."""
    db = tmp_path / "erase.db"
    mem = open_memory(db, "hybrid", store_options={"scrub_wait_ms": 50})
    async with (
        Client(create_server(mem, tenant="acme", log_level="CRITICAL")) as acme,
        Client(create_server(mem, tenant="other", log_level="CRITICAL")) as other,
    ):
        _data(await acme.call_tool("add_memory", {"user_id": "eve", "text": "eve's secret"}))
        reader = sqlite3.connect(db, isolation_level=None)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM memories").fetchone()
        try:
            assert "1 memory deleted, but" in _error(
                await acme.call_tool("forget_user", {"user_id": "eve"})
            )
            missing = {"user_id": "other", "memory_id": "nonexistent"}
            for c in (acme, other):
                assert _data(await c.call_tool("forget", missing)) == {"deleted": False}
                assert _data(await c.call_tool("forget_user", {"user_id": "nobody"})) == {
                    "deleted": 0
                }
            erased = _data(await other.call_tool("forget_user", {"user_id": "eve"}))
            assert erased == {"deleted": 0}  # another tenant's eve is not the one erased
            assert "1 memory (by an earlier call) deleted, but" in _error(
                await acme.call_tool("forget_user", {"user_id": "eve"})
            )
        finally:
            reader.execute("COMMIT")
            reader.close()
        assert _data(await acme.call_tool("forget_user", {"user_id": "eve"})) == {"deleted": 1}


def test_keys_and_a_fixed_tenant_exclude_each_other(mem: Memory) -> None:
    with pytest.raises(InvalidInputError):
        create_server(mem, tenant="acme", require_keys=True)


# -- streamable HTTP ------------------------------------------------------------------


@dataclass
class HttpServer:
    url: str
    db: Path
    proc: subprocess.Popen
    out: Path
    err: Path
    keys: dict[str, str]  # label -> key
    key_ids: dict[str, str]

    def output(self) -> str:
        return self.out.read_text(errors="replace") + self.err.read_text(errors="replace")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_server(tmp_path_factory, embedder) -> Iterator[HttpServer]:
    tmp = tmp_path_factory.mktemp("mcp_http")
    db = tmp / "mem.db"
    keys, key_ids = {}, {}
    with Memory(db, embedder=embedder, llm="none") as mem:
        for label, tenant in (("acme", "acme"), ("globex", "globex"), ("doomed", "acme")):
            keys[label], info = KeyRing.of(mem).create(tenant, label=label)
            key_ids[label] = info.key_id
    port = _free_port()
    out, err = tmp / "server.out", tmp / "server.err"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        proc = subprocess.Popen(
            [sys.executable, "-m", "remem.serve.mcp", "--db", str(db), "--transport", "http"]
            + ["--port", str(port)],
            stdout=fo,
            stderr=fe,
            env=_server_env(),
            cwd=tmp,
        )
    server = HttpServer(f"http://127.0.0.1:{port}/mcp", db, proc, out, err, keys, key_ids)
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the MCP server exited early:\n{server.output()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"the MCP server never listened:\n{server.output()}")
                time.sleep(0.2)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@asynccontextmanager
async def http_session(url: str, key: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else None
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def _post_initialize(url: str, key: str | None) -> httpx.Response:
    headers = {"Accept": "application/json, text/event-stream"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    return httpx.post(url, json=body, headers=headers, timeout=10)


def _raises_mcp_error(exc: BaseException) -> bool:
    if isinstance(exc, MCPError):
        return True
    return any(_raises_mcp_error(e) for e in getattr(exc, "exceptions", ()))


async def test_http_tenant_sees_its_own_users(http_server: HttpServer, embedder) -> None:
    url, keys = http_server.url, http_server.keys
    async with http_session(url, keys["acme"]) as s:
        assert {t.name for t in (await s.list_tools()).tools} == TOOLS
        mid = _data(
            await s.call_tool(
                "add_memory", {"user_id": "carol", "text": "Carol is allergic to penicillin."}
            )
        )["id"]
        hits = _data(await s.call_tool("search_memory", {"user_id": "carol", "query": "allergy"}))
        assert [h["id"] for h in hits["hits"]] == [mid]
        assert "carol" in _data(await s.call_tool("list_users", {}))["users"]
        assert "empty" in _error(await s.call_tool("add_memory", {"user_id": "c", "text": ""}))

    async with http_session(url, keys["globex"]) as s:
        hits = _data(await s.call_tool("search_memory", {"user_id": "carol", "query": "allergy"}))
        assert hits == {"hits": []}
        assert "no memory" in _error(
            await s.call_tool("get_memory", {"user_id": "carol", "memory_id": mid})
        )
        assert _data(await s.call_tool("forget", {"user_id": "carol", "memory_id": mid})) == {
            "deleted": False
        }
        assert "carol" not in _data(await s.call_tool("list_users", {}))["users"]
        rec = _data(await s.call_tool("recall_memory", {"user_id": "carol", "query": "allergy"}))
        assert rec["hits"] == []
        listed = _data(await s.call_tool("list_memories", {"user_id": "carol"}))
        assert listed == {"count": 0, "memories": []}

    with Memory(http_server.db, embedder=embedder, llm="none") as mem:  # stored under the tenant
        assert "acme:carol" in mem.users()
        assert mem.get(mid, user_id="acme:carol") is not None


async def test_http_rejects_missing_wrong_and_revoked_keys(
    http_server: HttpServer, embedder
) -> None:
    url, keys = http_server.url, http_server.keys
    acme = keys["acme"]
    wrong = acme[:-4] + ("AAAA" if not acme.endswith("AAAA") else "BBBB")
    for key in (None, wrong, "rmm_nope", "not a key at all"):
        response = _post_initialize(url, key)
        assert response.status_code == 401, (key, response.text)
        assert acme not in response.text
    assert _post_initialize(url, acme).status_code == 200

    with pytest.raises(BaseException) as info:
        async with http_session(url, wrong):
            pass
    assert _raises_mcp_error(info.value), info.value

    async with http_session(url, keys["doomed"]) as s:
        assert "users" in _data(await s.call_tool("list_users", {}))
        with Memory(http_server.db, embedder=embedder, llm="none") as mem:
            assert KeyRing.of(mem).revoke(http_server.key_ids["doomed"])
        with pytest.raises(MCPError):  # the open session dies with its key
            await s.call_tool("list_users", {})
    assert _post_initialize(url, keys["doomed"]).status_code == 401
    assert _post_initialize(url, acme).status_code == 200


async def test_http_server_never_logs_keys(http_server: HttpServer) -> None:
    url, keys = http_server.url, http_server.keys
    for key in keys.values():
        _post_initialize(url, key)
        _post_initialize(f"{url}?api_key={key}&user_id=private-user-7731", None)  # 401
    async with http_session(url, keys["globex"]) as s:
        _data(await s.call_tool("list_users", {}))
    time.sleep(0.3)
    output = http_server.output()
    assert "POST /mcp" in output  # the log is there and being written
    for key in keys.values():
        _, key_id, secret = key.split("_", 2)
        assert secret not in output
        assert key not in output
    assert json.dumps(keys) not in output
    assert "private-user-7731" not in output and "POST /mcp?[hidden]" in output


async def test_a_failing_endpoint_never_puts_memory_text_in_the_servers_logs(
    tmp_path: Path, caplog, capfd, monkeypatch
) -> None:
    """The SDK logs every failed tool call with its message ("Tool 'x' failed: ...")
    at INFO; an embedding endpoint whose error page echoes the request puts the
    memory into that message. The agent may read it (it sent the text); the log may not."""
    import logging

    from echo_llm_server import echo_llm_server
    from remem.embed.openai import OpenAIEmbedder

    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    caplog.set_level(logging.DEBUG)
    with echo_llm_server("echo_error") as url:
        emb = OpenAIEmbedder("echo", base_url=url, dim=8, retries=0, timeout_s=5)
        with Memory(tmp_path / "m.db", engine="bm25", embedder=emb, llm="none") as mem:
            async with Client(create_server(mem, log_level="DEBUG")) as c:
                result = await c.call_tool(
                    "add_memory", {"user_id": "bob", "text": "my PIN is 80417723"}
                )
                assert result.is_error
    out, err = capfd.readouterr()
    logged = caplog.text + out + err + "".join(str(r.__dict__) for r in caplog.records)
    assert "add_memory" in logged  # the failure was logged ...
    assert "80417723" not in logged  # ... without the memory
