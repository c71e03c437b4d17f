"""``Memory.trace``: the recall plus the part of SYNAPSE's graph the query activated,
read from the same activation (real engine, real SQLite file, real embedder)."""

from __future__ import annotations

import pytest

from remem import InvalidInputError, InvalidTypeError
from sample_conversation import RECURRING

QUERY = "What is the name of my greyhound?"


def _bob(mem, user: str = "bob") -> list[str]:
    ids = mem.add_many(
        [
            {"text": t, "speaker": "Bob", "session_id": s, "timestamp": f"2023-05-0{i + 1}T10:00"}
            for i, (t, s) in enumerate(RECURRING)
        ],
        user_id=user,
    )
    mem.consolidate(user)
    return ids


def test_trace_draws_the_activation_the_recall_ran(open_memory, db_path):
    mem = open_memory(db_path, "synapse")
    ids = _bob(mem)
    trace = mem.trace(QUERY, user_id="bob", k=3, limit=30)
    rec = mem.recall(QUERY, user_id="bob", k=3)
    assert trace.graph is True
    # the same recall: same hits, same explanations
    assert [h.id for h in trace.recall.hits] == [h.id for h in rec.hits]
    assert trace.recall.explanations == rec.explanations
    assert trace.recall.hits[0].text.startswith(("I adopted", "Biscuit"))
    nodes = {n["id"]: n for n in trace.nodes}
    assert 0 < len(nodes) <= 30
    # every hit in the graph is a node, with its rank
    for rank, hit in enumerate(trace.recall.hits, 1):
        assert nodes[hit.id]["rank"] == rank
        assert nodes[hit.id]["label"] == hit.text
        assert nodes[hit.id]["kind"] == "episode"
    # concepts shared by two memories are in the neighbourhood, labelled by their words
    concepts = [n for n in trace.nodes if n["kind"] == "concept"]
    assert concepts and all(n["id"].startswith("c:") for n in concepts)
    assert any("biscuit" in n["label"].lower() or "greyhound" in n["label"] for n in concepts)
    # episodes carry the memory's own fields; only this user's memories appear
    for n in trace.nodes:
        if n["kind"] == "episode":
            assert n["id"] in ids and n["session_id"] in {"s1", "s2", "s3", "s4"}
        assert n["activation"] >= 0.0
        assert n["anchor"] in {"", "bm25", "dense", "bm25+dense", "concept"}
    # edges join drawn nodes and carried activation; the top hit's anchor says so
    assert trace.edges
    for e in trace.edges:
        assert e["source"] in nodes and e["target"] in nodes
        assert e["carried"] > 0 and e["weight"] > 0
    assert "bm25" in nodes[trace.recall.hits[0].id]["anchor"]
    # the activation a node shows is the one the ranking used: the highest of the
    # first ``gate_depth`` hits' is the recall's confidence
    depth = mem._engine.cfg.gate_depth
    lit = max(nodes[h.id]["activation"] for h in rec.hits[:depth])
    assert lit == pytest.approx(rec.confidence)
    as_dict = trace.to_dict()
    assert set(as_dict) == {"recall", "graph", "nodes", "edges"}
    assert as_dict["recall"]["hits"][0]["id"] == rec.hits[0].id


def test_trace_never_shows_another_users_memories(open_memory, db_path):
    mem = open_memory(db_path, "synapse")
    mine = set(_bob(mem, "bob"))
    theirs = set(_bob(mem, "eve"))  # the same words: the graphs must stay apart
    trace = mem.trace(QUERY, user_id="bob", k=8, limit=200)
    episodes = {n["id"] for n in trace.nodes if n["kind"] == "episode"}
    assert episodes and episodes <= mine and not episodes & theirs
    assert not {e["source"] for e in trace.edges} & theirs
    assert mem.trace(QUERY, user_id="nobody").nodes == []


def test_trace_limit_bounds_the_drawing(open_memory):
    mem = open_memory(":memory:", "synapse")
    _bob(mem)
    small = mem.trace(QUERY, user_id="bob", k=2, limit=3)
    assert len(small.nodes) <= 3
    assert {n["id"] for n in small.nodes} >= {h.id for h in small.recall.hits}


def test_engine_without_a_graph_says_so(open_memory):
    mem = open_memory(":memory:", "hybrid")
    _bob(mem)
    trace = mem.trace(QUERY, user_id="bob", k=3)
    assert trace.graph is False and trace.nodes == [] and trace.edges == []
    assert [h.id for h in trace.recall.hits] == [
        h.id for h in mem.recall(QUERY, user_id="bob", k=3).hits
    ]


@pytest.mark.parametrize(
    ("limit", "error"), [(0, InvalidInputError), (201, InvalidInputError), ("5", InvalidTypeError)]
)
def test_bad_limit_is_refused_before_any_work(open_memory, limit, error):
    mem = open_memory(":memory:", "synapse")
    _bob(mem)
    with pytest.raises(error, match="limit"):
        mem.trace(QUERY, user_id="bob", limit=limit)
    with pytest.raises(InvalidInputError):
        mem.trace("", user_id="bob")
