"""RememStore under langgraph itself: BaseStore's semantics (namespaces, filters,
pages, list_namespaces, mixed batches, async), isolation, bad input, and a graph that
uses it from its nodes. langgraph ships no store conformance suite to import (its
tests are not in the wheel), so the semantics are checked here against its docs and
its InMemoryStore's behaviour."""

from __future__ import annotations

import asyncio
import itertools
import math
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchItem,
    SearchOp,
)

from remem import InvalidInputError, InvalidTypeError, Memory, TextTooLongError
from remem.integrations.langgraph import ITEM_KEY, RememStore


@pytest.fixture
def store(file_mem: Memory) -> RememStore:
    return RememStore(file_mem, index={"fields": ["text"]})


def _fill(store: RememStore) -> None:
    store.put(("u1", "prefs"), "food", {"text": "I love spicy Thai food", "kind": "pref", "n": 3})
    store.put(("u1", "facts"), "dog", {"text": "My dog Rex is a greyhound", "kind": "fact", "n": 5})
    store.put(
        ("u1", "facts", "travel"),
        "trip",
        {"text": "Hiking in the Dolomites in July", "kind": "fact", "n": 8, "tags": ["a", "b"]},
    )
    store.put(("u2", "facts"), "dog", {"text": "My dog is a poodle named Rex", "kind": "fact"})


def test_put_get_round_trip_and_times(store: RememStore, file_mem: Memory) -> None:
    assert isinstance(store, BaseStore)
    value = {"text": "I love spicy Thai food", "nested": {"a": [1, 2.5, None, True]}, "é": "ü"}
    store.put(("u1", "prefs"), "food", value)
    item = store.get(("u1", "prefs"), "food")
    assert isinstance(item, Item)
    assert item.value == value and item.key == "food" and item.namespace == ("u1", "prefs")
    assert item.created_at == item.updated_at
    assert item.created_at.tzinfo is not None
    time.sleep(0.01)
    store.put(("u1", "prefs"), "food", {"text": "Now I prefer mild food"})
    again = store.get(("u1", "prefs"), "food")
    assert again is not None
    assert again.value == {"text": "Now I prefer mild food"}
    assert again.created_at == item.created_at
    assert again.updated_at > item.updated_at
    # one memory per item: the old version is gone from remem too, and the item is a
    # memory like any other, holding its text to embed
    [hit] = file_mem.memories("u1")
    assert hit.text == "Now I prefer mild food"
    assert hit.metadata[ITEM_KEY]["value"] == {"text": "Now I prefer mild food"}
    assert store.get(("u1", "prefs"), "other") is None
    assert store.get(("u1", "other"), "food") is None


def test_items_survive_reopening_the_file(open_memory, tmp_path: Path) -> None:
    first = RememStore(open_memory(tmp_path / "s.db"))
    first.put(("u1", "notes"), "k", {"text": "kept on disk", "n": 1})
    before = first.get(("u1", "notes"), "k")
    first.memory.close()
    second = RememStore(open_memory(tmp_path / "s.db"))
    assert second.get(("u1", "notes"), "k") == before


def test_delete(store: RememStore, file_mem: Memory) -> None:
    _fill(store)
    store.delete(("u1", "facts"), "dog")
    assert store.get(("u1", "facts"), "dog") is None
    assert store.get(("u2", "facts"), "dog") is not None  # another user's same path
    store.delete(("u1", "facts"), "dog")  # deleting what is gone is no error
    assert file_mem.count("u1") == 2


def test_search_without_query_filters_and_pages(store: RememStore) -> None:
    _fill(store)
    keys = lambda items: [i.key for i in items]  # noqa: E731
    assert keys(store.search(("u1",))) == ["food", "dog", "trip"]  # the order put
    assert keys(store.search(("u1", "facts"))) == ["dog", "trip"]
    assert keys(store.search(("u1", "facts", "travel"))) == ["trip"]
    assert keys(store.search(("u1", "fac"))) == []  # labels match whole
    assert keys(store.search(("u1",), filter={"kind": "fact"})) == ["dog", "trip"]
    assert keys(store.search(("u1",), filter={"n": {"$gt": 3}})) == ["dog", "trip"]
    assert keys(store.search(("u1",), filter={"n": {"$gte": 3, "$lt": 8}})) == ["food", "dog"]
    assert keys(store.search(("u1",), filter={"n": {"$ne": 5}})) == ["food", "trip"]
    assert keys(store.search(("u1",), filter={"tags": ["a", "b"]})) == ["trip"]
    assert keys(store.search(("u1",), filter={"kind": "fact", "n": {"$lte": 5}})) == ["dog"]
    assert keys(store.search(("u1",), filter={"missing": {"$gt": 1}})) == []
    assert keys(store.search(("u1",), limit=2)) == ["food", "dog"]
    assert keys(store.search(("u1",), limit=2, offset=2)) == ["trip"]
    assert keys(store.search(("u1",), offset=5)) == []
    items = store.search(("u1",))
    assert all(isinstance(i, SearchItem) and i.score is None for i in items)


def test_search_with_query_ranks_by_the_engine(store: RememStore) -> None:
    _fill(store)
    found = store.search(("u1",), query="what breed is the dog?")
    assert found[0].key == "dog" and found[0].namespace == ("u1", "facts")
    scores = [i.score for i in found]
    assert all(isinstance(s, float) for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert [i.key for i in store.search(("u1", "facts"), query="spicy Thai food")] == [
        "dog",
        "trip",
    ]  # the prefix holds, however well another item matches
    page = store.search(("u1",), query="what breed is the dog?", limit=1, offset=1)
    assert [i.key for i in page] == [found[1].key]
    hits = store.search(("u1",), query="mountains in summer", filter={"kind": "fact"})
    assert hits[0].key == "trip" and {i.key for i in hits} == {"dog", "trip"}


def test_the_text_to_embed_is_configurable(file_mem: Memory) -> None:
    value_a = {"text": "a volcano erupted in Iceland", "note": "knitting"}
    value_b = {"text": "knitting a scarf for winter", "note": "volcano volcano volcano"}
    by_text = RememStore(file_mem, index={"fields": ["text"]})
    by_text.put(("u1", "n"), "a", value_a)
    by_text.put(("u1", "n"), "b", value_b)
    assert by_text.search(("u1",), query="volcano")[0].key == "a"
    # per put, as LangGraph's put(index=[...]) says: now b's note is what is embedded
    by_text.put(("u1", "n"), "b", value_b, index=["note"])
    assert [h.text for h in file_mem.memories("u1")][-1] == "volcano volcano volcano"
    # the default embeds the whole value as JSON, and nested paths work
    whole = RememStore(file_mem)
    whole.put(("u2", "n"), "x", {"a": {"b": "deep text"}, "c": 1})
    assert file_mem.memories("u2")[0].text == '{"a": {"b": "deep text"}, "c": 1}'
    nested = RememStore(file_mem, index={"fields": ["a.b", "list[*].t"]})
    nested.put(("u3", "n"), "x", {"a": {"b": "deep"}, "list": [{"t": "one"}, {"t": "two"}]})
    assert file_mem.memories("u3")[0].text == "deep\none\ntwo"


def test_an_item_not_indexed_is_found_by_filters_but_not_ranked(store: RememStore) -> None:
    _fill(store)
    store.put(("u1", "facts"), "secret", {"text": "My dog Rex is a greyhound", "n": 9}, index=False)
    assert store.get(("u1", "facts"), "secret") is not None
    assert [i.key for i in store.search(("u1",), filter={"n": 9})] == ["secret"]
    found = store.search(("u1",), query="greyhound dog Rex")
    assert found[0].key == "dog"
    # as in LangGraph's InMemoryStore: unranked items come last, without a score
    assert found[-1].key == "secret" and found[-1].score is None
    assert all(i.score is not None for i in found[:-1])
    # a value with none of the fields to embed is stored, and not indexed either
    store.put(("u1", "facts"), "bare", {"other": "x"})
    assert store.search(("u1",), query="x", filter={"other": "x"})[0].score is None


def _put_unindexed(store: RememStore, user: str = "u1") -> None:
    """Both ways an item goes unindexed: none of the fields to embed, or index=False."""
    store.put((user, "prefs"), "theme", {"color": "dark"})
    store.put((user, "prefs"), "pin", {"text": "my PIN is 4321"}, index=False)


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_items_not_indexed_are_never_memories(open_memory, tmp_path: Path, engine: str) -> None:
    """As in LangGraph's own stores, an item not indexed is kept for get, list and
    filters, but no search, recall or answer of remem ever finds it (it used to be a
    memory "langgraph item theme" that answered "What is my favourite colour theme?")."""
    mem = open_memory(tmp_path / "s.db", engine)
    store = RememStore(mem, index={"fields": ["text"]})
    _put_unindexed(store)
    assert store.get(("u1", "prefs"), "theme").value == {"color": "dark"}  # type: ignore[union-attr]
    assert [i.key for i in store.search(("u1",))] == ["theme", "pin"]
    assert [i.key for i in store.search(("u1",), filter={"color": "dark"})] == ["theme"]
    assert [i.score for i in store.search(("u1",), query="colour theme")] == [None, None]
    assert store.list_namespaces() == [("u1", "prefs")]
    assert mem.memories("u1") == [] and mem.count("u1") == 0
    for question in ("What is my favourite colour theme?", "What is my PIN?"):
        assert mem.search(question, "u1") == []
        rec = mem.recall(question, "u1")
        assert rec.hits == [] and rec.not_in_memory is True
        ans = mem.answer(question, "u1")
        assert ans.refused is True and "langgraph" not in ans.text and "4321" not in ans.text


def test_an_item_moves_between_indexed_and_not(store: RememStore, file_mem: Memory) -> None:
    store.put(("u1", "n"), "k", {"text": "first indexed"})
    created = store.get(("u1", "n"), "k").created_at  # type: ignore[union-attr]
    store.put(("u1", "n"), "k", {"text": "now kept aside"}, index=False)
    assert file_mem.memories("u1") == []
    item = store.get(("u1", "n"), "k")
    assert item is not None and item.value == {"text": "now kept aside"}
    assert item.created_at == created
    store.put(("u1", "n"), "k", {"text": "indexed again"})
    assert [h.text for h in file_mem.memories("u1")] == ["indexed again"]
    assert [i.score is not None for i in store.search(("u1",), query="indexed")] == [True]
    store.put(("u1", "n"), "k", {"text": "aside again"}, index=False)
    store.delete(("u1", "n"), "k")
    assert store.get(("u1", "n"), "k") is None and store.search(("u1",)) == []
    assert file_mem.memories("u1") == []


def test_delete_user_erases_items_not_indexed(
    open_memory, tmp_path: Path, raw_bytes, embedder
) -> None:
    """Erasure takes them too, also from a process that never imports the store (the
    CLI, a server): the store records its table's erasure rule in the database."""
    db = tmp_path / "e.db"
    store = RememStore(open_memory(db))
    store.put(("u1", "n"), "k", {"secret": "zebra-quokka-7781"}, index=False)
    store.put(("u2", "n"), "k", {"secret": "kept-for-u2"}, index=False)
    store.memory.close()
    with Memory(db, embedder=embedder, llm="none") as plain:
        plain.delete_user("u1")
    assert b"zebra-quokka-7781" not in raw_bytes(db)
    again = RememStore(open_memory(db))
    assert again.get(("u1", "n"), "k") is None
    assert again.list_namespaces() == [("u2", "n")]
    again.memory.delete_user("u2")
    assert again.list_namespaces() == [] and b"kept-for-u2" not in raw_bytes(db)


def _legacy(mem: Memory, user: str, key: str, value: dict[str, Any]) -> str:
    """An item not indexed as remem up to 0.x kept it: a memory "langgraph item KEY"."""
    record = {
        "namespace": ["prefs"],
        "key": key,
        "value": value,
        "created_at": "2024-01-01T00:00:00+00:00",
        "updated_at": "2024-01-01T00:00:00+00:00",
        "indexed": False,
    }
    return mem.add(f"langgraph item {key}", user, metadata={ITEM_KEY: record})


def test_items_not_indexed_kept_as_memories_are_moved_out(file_mem: Memory) -> None:
    """A database written before: its "langgraph item X" memories leave the memories
    when the store first reads their user, or all at once with ``migrate()``."""
    _legacy(file_mem, "u1", "theme", {"color": "dark"})
    _legacy(file_mem, "u2", "font", {"size": 12})
    file_mem.add("a plain memory", "u2")
    store = RememStore(file_mem)
    assert store.get(("u1", "prefs"), "theme").value == {"color": "dark"}  # type: ignore[union-attr]
    assert file_mem.memories("u1") == []
    assert store.migrate() == 1  # u2's; u1's was moved by the get
    assert [h.text for h in file_mem.memories("u2")] == ["a plain memory"]
    item = store.get(("u2", "prefs"), "font")
    assert item is not None and item.value == {"size": 12}
    assert item.created_at.isoformat() == "2024-01-01T00:00:00+00:00"
    assert store.migrate() == 0
    assert file_mem.search("What is my favourite colour theme?", "u1") == []


def test_items_not_indexed_on_postgres(pg_url: str, embedder) -> None:
    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        store = RememStore(mem, index={"fields": ["text"]})
        _put_unindexed(store, "ana")
        store.put(("ana", "prefs"), "pin", {"text": "my PIN is 1111"}, index=False)
        assert store.get(("ana", "prefs"), "pin").value == {"text": "my PIN is 1111"}  # type: ignore[union-attr]
        assert [i.key for i in store.search(("ana",))] == ["theme", "pin"]
        assert mem.memories("ana") == [] and store.list_namespaces() == [("ana", "prefs")]
        mem.delete_user("ana")
        assert store.search(("ana",)) == [] and store.list_namespaces() == []


def test_list_namespaces(store: RememStore) -> None:
    _fill(store)
    store.put(("u1", "facts", "travel", "v1"), "k", {"text": "deep"})
    everything = [
        ("u1", "facts"),
        ("u1", "facts", "travel"),
        ("u1", "facts", "travel", "v1"),
        ("u1", "prefs"),
        ("u2", "facts"),
    ]
    assert store.list_namespaces() == everything
    assert store.list_namespaces(prefix=("u1",)) == everything[:4]
    assert store.list_namespaces(prefix=("u1", "facts")) == everything[:3]
    assert store.list_namespaces(prefix=("u2",)) == [("u2", "facts")]
    assert store.list_namespaces(suffix=("facts",)) == [("u1", "facts"), ("u2", "facts")]
    assert store.list_namespaces(prefix=("*", "facts")) == everything[:3] + [("u2", "facts")]
    assert store.list_namespaces(suffix=("travel", "*")) == [("u1", "facts", "travel", "v1")]
    assert store.list_namespaces(prefix=("u1",), suffix=("travel",)) == [("u1", "facts", "travel")]
    assert store.list_namespaces(max_depth=1) == [("u1",), ("u2",)]
    assert store.list_namespaces(prefix=("u1",), max_depth=2) == [("u1", "facts"), ("u1", "prefs")]
    assert store.list_namespaces(limit=2, offset=1) == everything[1:3]
    assert store.list_namespaces(prefix=("nobody",)) == []


def test_a_batch_of_mixed_operations_runs_in_order(store: RememStore) -> None:
    _fill(store)
    results = store.batch(
        [
            PutOp(("u1", "new"), "a", {"text": "brand new item", "n": 1}),
            GetOp(("u1", "new"), "a"),
            SearchOp(("u1",), filter={"n": 1}),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("u1", "new")),)),
            PutOp(("u1", "new"), "a", None),
            GetOp(("u1", "new"), "a"),
            GetOp(("u2", "facts"), "dog"),
            SearchOp(("u2",), query="poodle"),
        ]
    )
    assert results[0] is None
    assert isinstance(results[1], Item) and results[1].value == {"text": "brand new item", "n": 1}
    assert [i.key for i in results[2]] == ["a"]  # type: ignore[union-attr]
    assert results[3] == [("u1", "new")]
    assert results[4] is None and results[5] is None
    assert isinstance(results[6], Item) and results[6].namespace == ("u2", "facts")
    assert [i.key for i in results[7]] == ["dog"]  # type: ignore[union-attr]
    assert store.get(("u1", "new"), "a") is None


def test_async_methods(store: RememStore) -> None:
    async def go() -> tuple[Any, ...]:
        await store.aput(("u1", "a"), "k", {"text": "async value"})
        item = await store.aget(("u1", "a"), "k")
        found = await store.asearch(("u1",), query="async")
        spaces = await store.alist_namespaces(prefix=("u1",))
        results = await store.abatch([GetOp(("u1", "a"), "k"), PutOp(("u1", "a"), "k", None)])
        await store.adelete(("u1", "a"), "j")
        return item, found, spaces, results, await store.aget(("u1", "a"), "k")

    item, found, spaces, results, gone = asyncio.run(go())
    assert item.value == {"text": "async value"}
    assert [i.key for i in found] == ["k"]
    assert spaces == [("u1", "a")]
    assert results[0] == item and results[1] is None
    assert gone is None


def test_a_crash_mid_put_leaves_a_duplicate_that_the_newer_wins(store: RememStore) -> None:
    store.put(("u1", "n"), "k", {"text": "old"})
    [old] = store.memory.memories("u1")
    record = {**old.metadata[ITEM_KEY], "value": {"text": "newer"}}
    # what a put does before it deletes the old copy
    store.memory.add("newer", "u1", metadata={ITEM_KEY: record})
    assert store.get(("u1", "n"), "k").value == {"text": "newer"}  # type: ignore[union-attr]
    assert [i.value for i in store.search(("u1",))] == [{"text": "newer"}]
    store.put(("u1", "n"), "k", {"text": "final"})
    assert [h.text for h in store.memory.memories("u1")] == ["final"]


def test_a_crash_mid_put_out_of_the_table_leaves_a_row_that_goes_next(
    store: RememStore,
) -> None:
    """A put that indexes an item writes its memory before it drops the item's row: a
    crash between leaves both, the memory (newer) wins, and the next delete takes both."""
    store.put(("u1", "n"), "k", {"other": "aside"})
    row = store.search(("u1",))[0]
    record = {
        "namespace": ["n"],
        "key": "k",
        "value": {"text": "indexed now"},
        "created_at": row.created_at.isoformat(),
        "updated_at": datetime.now(timezone.utc).isoformat(),
        "indexed": True,
    }
    store.memory.add("indexed now", "u1", metadata={ITEM_KEY: record})  # then a crash
    assert store.get(("u1", "n"), "k").value == {"text": "indexed now"}  # type: ignore[union-attr]
    store.delete(("u1", "n"), "k")
    assert store.get(("u1", "n"), "k") is None and store.search(("u1",)) == []


def test_users_are_isolated(store: RememStore, file_mem: Memory) -> None:
    _fill(store)
    # u2's search for u1's exact words finds only u2's items
    for query in ("I love spicy Thai food", "Hiking in the Dolomites in July"):
        assert [i.namespace[0] for i in store.search(("u2",), query=query)] == ["u2"]
    assert store.search(("u3",), query="spicy Thai food") == []
    assert store.get(("u2", "prefs"), "food") is None
    assert store.list_namespaces(prefix=("u3",)) == []
    # deleting a user in remem takes their items, and only theirs
    file_mem.delete_user("u1")
    assert store.search(("u1",)) == []
    assert [i.key for i in store.search(("u2",))] == ["dog"]
    # memories the store did not write are not items
    file_mem.add("a plain memory", "u2")
    assert [i.key for i in store.search(("u2",))] == ["dog"]


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("not a dict", InvalidTypeError),
        ({"text": {1, 2}}, InvalidTypeError),
        ({"text": math.nan}, InvalidTypeError),
        ({1: "int key"}, InvalidTypeError),
        ({"text": "x" * 70_000}, InvalidInputError),  # metadata is capped at 64,000
    ],
)
def test_bad_values_raise_remems_errors_and_store_nothing(
    store: RememStore, file_mem: Memory, value: Any, error: type
) -> None:
    store.put(("u1", "n"), "keep", {"text": "kept"})
    with pytest.raises(error):
        store.put(("u1", "n"), "keep", value)
    with pytest.raises(error):  # a bad put anywhere in a batch: nothing of it runs
        store.batch([PutOp(("u1", "n"), "first", {"text": "ok"}), PutOp(("u1", "n"), "x", value)])
    assert [h.text for h in file_mem.memories("u1")] == ["kept"]
    assert store.get(("u1", "n"), "keep").value == {"text": "kept"}  # type: ignore[union-attr]


def test_a_text_too_long_to_embed_is_refused(open_memory, tmp_path: Path) -> None:
    store = RememStore(open_memory(tmp_path / "t.db", max_text_chars=100))
    with pytest.raises(TextTooLongError):
        store.put(("u1", "n"), "k", {"text": "y" * 101})
    store.put(("u1", "n"), "k", {"text": "y" * 101}, index=False)  # not embedded: fine
    assert store.get(("u1", "n"), "k") is not None


@pytest.mark.parametrize(
    "namespace", [(), ("u1.x", "n"), ("u1", ""), ("u1", 5), ("langgraph", "n")]
)
def test_bad_namespaces_raise_langgraphs_error(store: RememStore, namespace: Any) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "k", {"text": "x"})
    with pytest.raises(InvalidNamespaceError):  # also when batch is called directly
        store.batch([PutOp(namespace, "k", {"text": "x"})])
    assert store.memory.users() == []


def test_other_bad_input(store: RememStore, file_mem: Memory) -> None:
    _fill(store)
    with pytest.raises(InvalidInputError, match="user id"):
        store.search((), query="dog")  # a search names its user
    with pytest.raises(InvalidInputError):
        store.search(("u1",), filter={"n": {"$regex": "x"}})
    with pytest.raises(InvalidTypeError):
        store.search(("u1",), query=5)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        store.search(("u1",), limit="5")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        store.search(("u1",), offset=-1)
    with pytest.raises(InvalidInputError):
        store.list_namespaces(max_depth=0)
    with pytest.raises(InvalidTypeError):
        store.batch(["get"])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match="user_id"):  # remem's limit on user ids
        store.batch([PutOp(("u1", "n"), "ok", {"text": "x"}), GetOp(("u" * 600, "n"), "k")])
    with pytest.raises(InvalidTypeError):
        store.batch([GetOp(("u1", "n"), 5)])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        store.put(("u1", "n"), "k", {"text": "x"}, index="text")  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError):
        store.put(("u1", "n"), "k", {"text": "x"}, ttl=5)
    with pytest.raises(InvalidTypeError):
        RememStore("mem.db")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="fields"):
        RememStore(file_mem, index={"dims": 384, "embed": "openai:x", "fields": ["text"]})
    with pytest.raises(InvalidTypeError):
        RememStore(file_mem, index={"fields": "text"})
    assert file_mem.count("u1") == 3


class _State(TypedDict, total=False):
    message: str
    question: str
    found: list[str]
    answer: str


def test_a_graph_remembers_and_recalls_through_the_store(file_mem: Memory) -> None:
    """A LangGraph graph, compiled with the store, writes and searches it from its nodes;
    the chat model is langchain-core's own fake, so the graph runs offline."""
    model = GenericFakeChatModel(messages=itertools.cycle([AIMessage("You live in Porto.")]))
    seen_prompts: list[str] = []

    def remember(state: _State, config: RunnableConfig, *, store: BaseStore) -> dict:
        user = config["configurable"]["user_id"]
        store.put((user, "memories"), f"m{len(store.search((user,)))}", {"text": state["message"]})
        return {}

    def recall(state: _State, config: RunnableConfig, *, store: BaseStore) -> dict:
        user = config["configurable"]["user_id"]
        items = store.search((user, "memories"), query=state["question"], limit=2)
        return {"found": [i.value["text"] for i in items]}

    def answer(state: _State) -> dict:
        prompt = "Memories:\n" + "\n".join(state["found"]) + "\nQuestion: " + state["question"]
        seen_prompts.append(prompt)
        return {"answer": model.invoke(prompt).content}

    graph = StateGraph(_State)
    graph.add_node(remember)
    graph.add_node(recall)
    graph.add_node(answer)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", "answer")
    graph.add_edge("answer", END)
    app = graph.compile(store=RememStore(file_mem, index={"fields": ["text"]}))

    ana = {"configurable": {"user_id": "ana"}}
    app.invoke({"message": "I play tennis on Sundays", "question": "what sport?"}, ana)
    out = app.invoke({"message": "I moved to Porto last year", "question": "Where do I live?"}, ana)
    assert out["found"][0] == "I moved to Porto last year"
    assert out["answer"] == "You live in Porto."
    assert "I moved to Porto last year" in seen_prompts[-1]
    # another user, through the async path: sees only their own memory
    bea = {"configurable": {"user_id": "bea"}}
    out = asyncio.run(
        app.ainvoke({"message": "I live in Faro", "question": "Where do I live?"}, bea)
    )
    assert out["found"] == ["I live in Faro"]
    assert file_mem.count("ana") == 2 and file_mem.count("bea") == 1
