"""SYNAPSE dormancy: archiving beyond ``max_active_nodes``, the strict paper mode,
revival of archived memories a query reaches, the ``syn_activity`` bookkeeping
(persistence, deletion cascades, the v2 -> v3 migration) and the eager rebuild."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta

import numpy as np
import pytest

from remem import Memory
from remem.engines.synapse.graph import _prune_incoming
from remem.engines.synapse.storage import SYNAPSE_TABLES
from remem.store.sql import script
from remem.store.sqlite import MIGRATIONS, SCHEMA_VERSION
from store_rows import synapse_db  # noqa: E402

# Words no two filler memories share, so fillers never make a concept.
_WORD_LIST = """
aardvark abacus accordion acorn albatross alchemy almanac amethyst anchovy antler
apricot aqueduct armadillo artichoke asparagus avalanche badger bagpipe balloon bamboo
banjo barnacle basalt beacon beetle biscuit blizzard bobsled bonsai boomerang
bramble brisket buckwheat bugle burrito cactus caldera camel canoe caramel
carousel cashew catapult cauldron cavern cedar chameleon chandelier cheetah chestnut
chimney cinnamon clarinet cobalt coconut comet compass condor coral cormorant
cricket crocodile crumpet cymbal daffodil dandelion dolphin dragonfly dumpling eclipse
eggplant emerald falcon fennel ferret fiddle flamingo fossil gazebo geyser
ginger giraffe glacier gondola gorilla granite guitar hammock harpoon hazelnut
hedgehog hibiscus hummingbird iceberg iguana jackal jasmine jellyfish kayak kettle
lantern lemur lighthouse lobster lychee magnet mango marble meadow meteor
mongoose moose mosaic nectarine nutmeg oboe octopus orchid ostrich otter
paprika parsnip peacock pelican pepper piano pinecone plankton platypus pretzel
"""
WORDS = _WORD_LIST.split()
assert len(WORDS) == len(set(WORDS)) == 130

T0 = datetime(2024, 1, 1)
SMALL = {"consolidate_every": 5}

# The old memory the revival tests look for ("quokka" is in no other memory), and a
# second old memory sharing its labels "brass" and "xylophone", so both are concepts.
TARGET = "The brass xylophone and the quokka."
TWIN = "The brass xylophone and the narwhal."


def _filler(i: int) -> str:
    return f"The {WORDS[2 * i]} and the {WORDS[2 * i + 1]}."


def _texts(n: int, start: int = 0, special: dict[int, str] | None = None) -> list[str]:
    """Memories ``start .. start+n-1``: fillers, except the positions in ``special``."""
    special = special or {}
    return [special.get(i, _filler(i)) for i in range(start, start + n)]


def _items(texts: list[str], start: int = 0) -> list[dict]:
    return [
        {"text": t, "timestamp": T0 + timedelta(minutes=start + i)} for i, t in enumerate(texts)
    ]


def _open(open_memory, path=":memory:", **options) -> Memory:
    return open_memory(path, "synapse", engine_options={**SMALL, **options})


def _forty(mem: Memory, user: str = "u", special: dict[int, str] | None = None) -> list[str]:
    """40 memories (windows 0..7); by default memories 0 and 1 are TARGET and TWIN."""
    special = {0: TARGET, 1: TWIN} if special is None else special
    return mem.add_many(_items(_texts(40, special=special)), user_id=user)


def _graph(mem: Memory, user: str = "u"):
    """The user's graph, built (or reused) the engine's own way."""
    mem._engine.stats(user)
    return mem._engine._graphs[user][1]


def _active_ids(mem: Memory, graph, user: str = "u") -> set[str]:
    idx = mem._indexes.get(user)
    return {m for m, p in idx.pos.items() if graph.in_graph(p)}


def _cid(mem: Memory, label: str, user: str = "u") -> str:
    return str(mem._engine._layer(user).aliases[label])


# -- the bound ------------------------------------------------------------------------


@pytest.mark.parametrize("cap", [5, 12, 0])
def test_cap_bounds_the_active_graph(open_memory, cap):
    mem = _open(open_memory, max_active_nodes=cap)
    _forty(mem)
    n_concepts = len(mem._engine._layer("u").concepts)
    assert n_concepts == 2  # brass, xylophone: the fillers share no label
    total = 40 + n_concepts
    stats = mem._engine.stats("u")
    assert stats["active_nodes"] == stats["concepts"] + stats["episodes"]
    assert stats["archived"] == total - stats["active_nodes"]
    if cap:
        assert stats["active_nodes"] == cap
    else:  # 0 = unbounded: nothing is archived
        assert stats["active_nodes"] == total and stats["archived"] == 0
        assert stats["concepts"] == 2


def test_newest_memories_stay_active_and_concepts_win_ties(open_memory):
    mem = _open(open_memory, max_active_nodes=12)
    ids = _forty(
        mem,
        special={
            0: TARGET,
            1: TWIN,
            26: "The porcupine and the hibiscus.",
            28: "The porcupine and the iceberg.",
        },
    )
    g = _graph(mem)
    # windows 7 and 6 (memories 30..39) fill 10 of the 12 places; in window 5 the
    # concept "porcupine" (last mentioned there) wins the tie, then the newest memory
    assert g.concept_labels == ["porcupine"]
    assert g.archived_concepts == 2  # brass, xylophone: last mentioned in window 0
    assert _active_ids(mem, g) == set(ids[29:])
    # archived episodes are not nodes of the active graph at all
    idx = mem._indexes.get("u")
    assert g.n_nodes == 12 and g.raw_incoming.shape == (12, 12) and len(g.pagerank) == 12
    for memory_id in ids[:29]:
        assert g.node_of(idx.pos[memory_id]) is None


def test_strict_mode_archives_everything_dormant(open_memory):
    mem = _open(open_memory, archive_all_dormant=True, dormancy_windows=2)
    ids = _forty(
        mem,
        special={
            0: TARGET,
            1: TWIN,  # brass, xylophone: window 0
            2: "The marzipan and the hibiscus.",
            36: "The marzipan and the iceberg.",  # marzipan: last mentioned in window 7
            31: "The porcupine and the jackal.",
            33: "The porcupine and the jasmine.",  # porcupine: window 6
        },
    )
    g = _graph(mem)
    # no queries, no cap: only windows 6 and 7 (memories 30..39) and their concepts
    assert _active_ids(mem, g) == set(ids[30:])
    assert sorted(g.concept_labels) == ["marzipan", "porcupine"]
    stats = mem._engine.stats("u")
    assert stats == {"active_nodes": 12, "concepts": 2, "episodes": 10, "archived": 32}


# -- never unreachable, and revival ------------------------------------------------------


def test_archived_memory_is_still_found_by_its_anchor(open_memory):
    mem = _open(open_memory, max_active_nodes=12)
    ids = _forty(mem)
    assert ids[0] not in _active_ids(mem, _graph(mem))
    r = mem.recall("quokka", user_id="u", k=10)
    assert ids[0] in [h.id for h in r.hits]
    assert "anchor" in r.explanations[ids[0]]
    assert "bm25" in r.explanations[ids[0]]


def test_archived_unique_match_is_the_top_hit(open_memory):
    mem = _open(open_memory, max_active_nodes=12)
    ids = _forty(mem)
    assert mem.search("quokka", user_id="u", k=5)[0].id == ids[0]


def test_archived_anchor_is_recorded_with_default_anchors(open_memory):
    mem = _open(open_memory, max_active_nodes=12)
    ids = _forty(mem)
    mem.search("quokka", user_id="u", k=5)
    assert mem._engine._pending["u"].get(("m", ids[0])) == 7


# One anchor, so the query touches only the archived memory (with the default 30
# anchors its untouched twin would be reached and revived too). The cap of 14 leaves
# room for window 8 (5 memories), window 7's revived concepts (2) and memories.
REVIVE = {"max_active_nodes": 14, "anchors": 1}


def test_reached_archived_memory_revives_with_its_concepts(open_memory, db_path, sql):
    mem = _open(open_memory, db_path, **REVIVE)
    ids = _forty(mem)
    eng = mem._engine
    g = _graph(mem)
    assert ids[0] not in _active_ids(mem, g) and ids[1] not in _active_ids(mem, g)
    assert "brass" not in g.concept_labels and g.archived_concepts == 2
    brass, xylo = _cid(mem, "brass"), _cid(mem, "xylophone")

    hits = mem.search("quokka", user_id="u", k=3)
    assert hits[0].id == ids[0]
    pending = eng._pending["u"]
    # reached in window 7 (the window of memory 39), with the concepts it mentions
    assert pending[("m", ids[0])] == 7
    assert pending[("c", brass)] == 7 and pending[("c", xylo)] == 7
    assert ("m", ids[1]) not in pending  # the twin was not reached
    assert ids[0] not in _active_ids(mem, _graph(mem))  # back only from the next build
    assert sql(db_path, "SELECT COUNT(*) FROM syn_activity") == [(0,)]  # not written yet

    # five more memories: a consolidation, which writes the touches and (the graph
    # being cached) rebuilds the graph at once
    mem.add_many(_items(_texts(5, start=40), start=40), user_id="u")
    g = eng._graphs["u"][1]
    assert g.index_size == 45
    active = _active_ids(mem, g)
    assert ids[0] in active and ids[1] not in active
    assert {"brass", "xylophone"} <= set(g.concept_labels)
    assert g.n_nodes <= 14  # the active graph: concepts and linked episodes
    # the revived memory is linked again: to its concepts and its temporal neighbours
    node = g.node_of(mem._indexes.get("u").pos[ids[0]])
    assert g.raw_incoming[node, g.concept_labels.index("brass")] > 0
    assert g.raw_incoming[node].nnz > 0 and g.pagerank[node] > 0
    assert not {("m", ids[0]), ("c", brass), ("c", xylo)} & set(eng._pending.get("u", {}))
    rows = set(sql(db_path, "SELECT kind, ref, win FROM syn_activity WHERE user_id = 'u'"))
    assert {("m", ids[0], 7), ("c", brass, 7), ("c", xylo, 7)} <= rows


def test_touches_persist_through_close_and_reopen(open_memory, embedder, db_path, sql):
    mem = _open(open_memory, db_path, **REVIVE)
    ids = _forty(mem)
    assert mem.search("quokka", user_id="u", k=3)[0].id == ids[0]
    brass = _cid(mem, "brass")
    assert sql(db_path, "SELECT COUNT(*) FROM syn_activity") == [(0,)]
    mem.close()  # flushes the touches
    rows = set(sql(db_path, "SELECT user_id, kind, ref, win FROM syn_activity"))
    assert {("u", "m", ids[0], 7), ("u", "c", brass, 7)} <= rows
    assert not any(r[2] == ids[1] for r in rows)

    again = _open(open_memory, db_path, **REVIVE)
    g = _graph(again)
    active = _active_ids(again, g)
    # the only difference from before the search is the stored touch: the memory and
    # its concepts are active at once, the untouched twin is still archived
    assert ids[0] in active and ids[1] not in active
    assert "brass" in g.concept_labels
    assert g.n_nodes <= 14  # the active graph: concepts and linked episodes


def test_flush_writes_pending_touches(open_memory, db_path, sql):
    mem = _open(open_memory, db_path, **REVIVE)
    ids = _forty(mem)
    mem.search("quokka", user_id="u", k=3)
    mem._engine.flush("u")
    assert "u" not in mem._engine._pending
    assert ("m", ids[0], 7) in set(sql(db_path, "SELECT kind, ref, win FROM syn_activity"))
    assert mem._engine._layer("u").activity[("m", ids[0])] == 7


# -- deletion ------------------------------------------------------------------------


def _activity(sql, db, user):
    return set(sql(db, "SELECT kind, ref FROM syn_activity WHERE user_id = ?", (user,)))


def test_deletes_cascade_to_syn_activity(open_memory, db_path, sql):
    mem = _open(open_memory, db_path)
    u_ids = mem.add_many(_items(_texts(10, special={0: TARGET, 1: TWIN})), user_id="u")
    v_ids = mem.add_many(_items(_texts(10, start=20)), user_id="v")
    mem.search("brass xylophone", user_id="u", k=3)
    mem.search("anything", user_id="v", k=3)
    mem._engine.flush()
    u_rows, v_rows = _activity(sql, db_path, "u"), _activity(sql, db_path, "v")
    brass = _cid(mem, "brass")
    assert {("m", u_ids[0]), ("m", u_ids[1]), ("c", brass)} <= u_rows
    assert any(kind == "m" and ref in v_ids for kind, ref in v_rows)

    # a deleted memory loses its row; the rest stay
    assert mem.delete(u_ids[0], user_id="u")
    assert _activity(sql, db_path, "u") == u_rows - {("m", u_ids[0])}
    # deleting the last mention of a concept drops the concept and its row
    assert mem.delete(u_ids[1], user_id="u")
    left = _activity(sql, db_path, "u")
    assert ("m", u_ids[1]) not in left and ("c", brass) not in left
    assert left == {r for r in u_rows if r[0] == "m" and r[1] not in u_ids[:2]}

    # erasing a user removes all of its rows, and only its rows
    assert mem.delete_user("u") == 8
    assert _activity(sql, db_path, "u") == set()
    assert _activity(sql, db_path, "v") == v_rows


# -- migration -----------------------------------------------------------------------


def test_version_2_file_is_migrated_to_3(db_path, embedder, sql):
    con = sqlite3.connect(db_path, isolation_level=None)
    con.execute("BEGIN")
    MIGRATIONS[0][1](con)  # the store's own tables, then SYNAPSE's as version 2 made them
    script(SYNAPSE_TABLES.migrations["sqlite"][0][1])(con)
    con.execute("PRAGMA user_version = 2")
    con.execute("COMMIT")
    texts = ["Old trams climb the hills of Lisbon.", "We ate custard tarts in Lisbon."]
    vecs = embedder.embed(texts)
    con.execute("INSERT INTO users (user_id, epoch, next_seq, del_rev) VALUES ('u', 'e', 2, 0)")
    for i, (text, vec) in enumerate(zip(texts, vecs, strict=True)):
        con.execute(
            "INSERT INTO memories (id, user_id, seq, text, speaker, ts, ts_epoch, session_id, "
            "metadata, embedding, created_at) VALUES (?, 'u', ?, ?, NULL, "
            "'2023-01-01T00:00:00', 0, NULL, '{}', ?, 0)",
            (f"m{i}", i, text, vec.astype("<f4").tobytes()),
        )
        con.execute(
            "INSERT INTO syn_mentions (user_id, memory_id, label, kind) "
            "VALUES ('u', ?, 'lisbon', 'entity')",
            (f"m{i}",),
        )
    con.execute(
        "INSERT INTO syn_concepts (user_id, cid, label, kind, embedding, archived) "
        "VALUES ('u', 0, 'lisbon', 'entity', ?, 1)",
        (embedder.embed_one("lisbon").astype("<f4").tobytes(),),
    )
    con.execute("INSERT INTO syn_aliases (user_id, label, cid) VALUES ('u', 'lisbon', 0)")
    con.execute("INSERT INTO syn_state (user_id, consolidated_seq, rev) VALUES ('u', 1, 1)")
    con.close()

    with Memory(db_path, engine="synapse", embedder=embedder) as m:
        assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
        columns = {r[1] for r in sql(db_path, "PRAGMA table_info(syn_concepts)")}
        assert "archived" not in columns and {"cid", "label", "embedding"} <= columns
        tables = {r[0] for r in sql(db_path, "SELECT name FROM sqlite_master")}
        assert "syn_activity" in tables
        record = sql(db_path, "SELECT value FROM meta WHERE key = 'ext:synapse'")[0][0]
        assert json.loads(record)["version"] == 2
        assert [c.label for c in m._engine._layer("u").concepts] == ["lisbon"]
        assert {h.id for h in m.search("Lisbon", user_id="u", k=2)} == {"m0", "m1"}
        # the v2 archived flag means nothing now: the concept is in the graph
        assert _graph(m).concept_labels == ["lisbon"]
    version = sql(db_path, "SELECT value FROM meta WHERE key = 'schema_version'")
    assert version == [(str(SCHEMA_VERSION),)]
    # the new table works: the search's touches were written at close
    assert ("m", "m0") in {(r[0], r[1]) for r in sql(db_path, "SELECT kind, ref FROM syn_activity")}


# -- pruning without dedup -------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_prune_without_dedup_equals_dedup_on_duplicate_free_edges(seed):
    rng = np.random.default_rng(seed)
    n_nodes, keep = 15, 4
    pairs = np.array([(s, d) for s in range(n_nodes) for d in range(n_nodes) if s != d])
    chosen = pairs[rng.choice(len(pairs), size=120, replace=False)]
    s, d = chosen[:, 0].copy(), chosen[:, 1].copy()
    w = np.round(rng.random(len(s)), 1)  # coarse weights: ties, broken by lower source

    def triples(out):
        return set(zip(*(a.tolist() for a in out), strict=True))

    fast = _prune_incoming(s, d, w, keep, dedup=False)
    slow = _prune_incoming(s, d, w, keep, dedup=True)
    assert triples(fast) == triples(slow)
    expected = set()
    for dest in range(n_nodes):
        edges = sorted((-wi, si) for si, di, wi in zip(s, d, w, strict=True) if di == dest)
        expected |= {(int(si), dest, float(-nw)) for nw, si in edges[:keep]}
    assert triples(fast) == expected
    assert len(fast[0]) == len(triples(fast))
    for dest in range(n_nodes):
        assert int((fast[1] == dest).sum()) == min(keep, int((d == dest).sum()))
    # nothing to prune: the edges come back as given
    same = _prune_incoming(s, d, w, n_nodes, dedup=False)
    assert triples(same) == set(zip(s.tolist(), d.tolist(), w.tolist(), strict=True))


# -- eager rebuild ---------------------------------------------------------------------


def test_consolidation_rebuilds_a_cached_graph_eagerly(open_memory):
    mem = _open(open_memory)
    eng = mem._engine
    mem.add_many(_items(_texts(5)), user_id="u")
    mem.search("anything", user_id="u", k=3)
    assert eng._graphs["u"][1].index_size == 5
    new = mem.add_many(_items(_texts(5, start=5), start=5), user_id="u")
    key, g = eng._graphs["u"]  # no search since the add
    assert g.index_size == 10 and g.n_nodes == g.n_concepts + 10
    assert key[0] == synapse_db(mem).graph_state("u")[1]  # built for the current layer
    # a fresh build, not the old graph resized: the new memories are linked already
    node = g.node_of(mem._indexes.get("u").pos[new[-1]])
    assert g.raw_incoming[node].nnz > 0 and g.pagerank[node] > 0
    # a user whose graph this process never built gets one on the write path too, so
    # the first search after the write builds nothing
    mem.add_many(_items(_texts(5, start=10)), user_id="w")
    assert eng._graphs["w"][1].index_size == 5


# -- several processes -----------------------------------------------------------------


def test_processes_agree_on_the_active_set_after_deleting_the_newest_window(open_memory, db_path):
    opts = {"archive_all_dormant": True, "dormancy_windows": 2}
    a = _open(open_memory, db_path, **opts)
    ids = _forty(a)
    for memory_id in ids[35:]:
        assert a.delete(memory_id, user_id="u")
    b = _open(open_memory, db_path, **opts)
    assert _active_ids(a, _graph(a)) == _active_ids(b, _graph(b))
