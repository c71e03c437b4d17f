"""Every integration over an encrypted PostgreSQL store with a key store (issue 40,
item 4): each framework's own entry point writes and reads through remem as over a
plain file, and the database holds neither the words nor the user's id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from remem import Memory

pytest.importorskip("psycopg")
pytest.importorskip("cryptography")

USER = "userqorvandel"  # in no memory text: a raw read must not show it
MASTER = "the integrations' master key"


@pytest.fixture
def sealed_mem(pg_url: str, embedder, tmp_path: Path, pg_sql) -> Iterator[Memory]:
    """A hybrid Memory over an encrypted PostgreSQL database; after the test, no
    table holds the user's id or the word 'cameras'."""
    opts = {"keyring": str(tmp_path / "keys")}
    with Memory(pg_url, embedder=embedder, llm="none", key=MASTER, store_options=opts) as m:
        yield m
    tables = [r[0] for r in pg_sql("SELECT tablename FROM pg_tables WHERE schemaname='public'")]
    raw = repr([pg_sql(f"SELECT * FROM {t}") for t in tables])
    assert USER not in raw and "cameras" not in raw


def test_langchain_retriever(sealed_mem: Memory) -> None:
    pytest.importorskip("langchain_core")
    from remem.integrations.langchain import RememRetriever

    sealed_mem.add("I collect vintage cameras", user_id=USER, speaker="Ana")
    docs = RememRetriever(memory=sealed_mem, user_id=USER, k=1).invoke("what do I collect?")
    assert [d.page_content for d in docs] == ["I collect vintage cameras"]
    assert docs[0].metadata["speaker"] == "Ana"


def test_llamaindex_memory_block(sealed_mem: Memory) -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.llms import ChatMessage

    from remem.integrations.llamaindex import RememMemoryBlock

    block = RememMemoryBlock(memory=sealed_mem, user_id=USER, roles=("user",))
    asyncio.run(block.aput([ChatMessage(role="user", content="I collect vintage cameras")]))
    assert [h.text for h in sealed_mem.memories(USER)] == ["I collect vintage cameras"]
    got = asyncio.run(block.aget([ChatMessage(role="user", content="what do I collect?")]))
    assert got.endswith("user: I collect vintage cameras")


def test_openai_agents_tools(sealed_mem: Memory) -> None:
    pytest.importorskip("agents")
    from agents.tool_context import ToolContext

    from remem.integrations.openai_agents import remem_tools

    tools = {t.name: t for t in remem_tools(sealed_mem, USER, k=1)}

    def call(name: str, arguments: dict) -> dict:
        raw = json.dumps(arguments)
        ctx = ToolContext(context=None, tool_name=name, tool_call_id="c1", tool_arguments=raw)
        return json.loads(asyncio.run(tools[name].on_invoke_tool(ctx, raw)))

    mid = call("remember", {"text": "I collect vintage cameras"})["id"]
    assert call("recall", {"query": "what do I collect?"})["memories"][0]["id"] == mid
    assert call("forget", {"memory_id": mid}) == {"deleted": True}
    assert sealed_mem.count(USER) == 0


def test_langgraph_store(sealed_mem: Memory) -> None:
    pytest.importorskip("langgraph")
    from remem.integrations.langgraph import RememStore

    store = RememStore(sealed_mem)
    store.put((USER, "hobbies"), "h1", {"text": "I collect vintage cameras"})
    store.put((USER, "prefs"), "p1", {"likes": "tea"}, index=False)
    hits = store.search((USER,), query="what do I collect?", limit=1)
    assert [h.key for h in hits] == ["h1"]
    assert store.list_namespaces() == [(USER, "hobbies"), (USER, "prefs")]
    assert sealed_mem.users() == [USER]
