"""The SYNAPSE engine end to end through ``Memory``: consolidation, concepts, merging,
persistence, deletion and the search contract of every variant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from remem import InvalidInputError, Memory
from remem.engines.synapse import VARIANTS
from remem.index.bm25 import BM25Index
from remem.index.tokenize import without_asking
from remem.types import Hit
from store_rows import synapse_db  # noqa: E402

SYN_TABLES = ("syn_mentions", "syn_concepts", "syn_aliases", "syn_state")


def _state(mem: Memory, user: str = "u") -> tuple[int, int]:
    return synapse_db(mem).graph_state(user)


def _dump(sql, db) -> dict[str, list[tuple]]:
    return {t: sorted(sql(db, f"SELECT * FROM {t}")) for t in SYN_TABLES}


# -- consolidation --------------------------------------------------------------------


def test_consolidates_every_five_memories(open_memory, db_path, sql, sentences):
    mem = open_memory(db_path, "synapse")
    ids = [mem.add(s, user_id="u") for s in sentences[:4]]
    assert _state(mem)[0] == -1
    assert sql(db_path, "SELECT COUNT(*) FROM syn_mentions")[0][0] == 0
    ids.append(mem.add(sentences[4], user_id="u"))
    fifth_seq = sql(db_path, "SELECT seq FROM memories WHERE id = ?", (ids[-1],))[0][0]
    assert fifth_seq == 4
    assert _state(mem)[0] == fifth_seq
    assert {r[0] for r in sql(db_path, "SELECT DISTINCT memory_id FROM syn_mentions")} == set(ids)
    # two more memories are not enough for the next window; consolidate() takes them
    mem.add(sentences[5], user_id="u")
    mem.add(sentences[6], user_id="u")
    assert _state(mem)[0] == 4
    assert mem._engine.consolidate("u") == 2
    assert _state(mem)[0] == 6
    assert sql(db_path, "SELECT COUNT(DISTINCT memory_id) FROM syn_mentions")[0][0] == 7
    assert mem._engine.consolidate("u") == 0
    assert _state(mem)[0] == 6


def test_concepts_only_for_labels_two_memories_share(open_memory, db_path, sql, sentences):
    mem = open_memory(db_path, "synapse")
    for s in sentences:  # one by one: four consolidation windows
        mem.add(s, user_id="u")
    assert _state(mem)[0] == len(sentences) - 1
    shared = {
        r[0]
        for r in sql(
            db_path,
            "SELECT label FROM syn_mentions WHERE user_id = 'u' GROUP BY label "
            "HAVING COUNT(DISTINCT memory_id) >= 2",
        )
    }
    aliases = dict(sql(db_path, "SELECT label, cid FROM syn_aliases WHERE user_id = 'u'"))
    concepts = dict(sql(db_path, "SELECT cid, label FROM syn_concepts WHERE user_id = 'u'"))
    assert shared, "the fixture sentences share some labels"
    assert set(aliases) == shared
    assert set(aliases.values()) == set(concepts)
    assert set(concepts.values()) <= shared
    once = {r[0] for r in sql(db_path, "SELECT label FROM syn_mentions")} - shared
    assert once and not (once & set(concepts.values()))


def test_near_duplicate_labels_merge_into_one_concept(open_memory, embedder, db_path, sql):
    v = embedder.embed(["color", "colour"])
    assert float(v[0] @ v[1]) >= 0.92  # premise: the embedder sees them as one word
    mem = open_memory(db_path, "synapse")
    mem.add_many(
        [
            "The colour of the new sofa is teal.",
            "I picked a colour for the hallway.",
            "Which color should the fence be?",
            "The color of the sky was odd tonight.",
            "The bus was late again.",
        ],
        user_id="u",
    )
    aliases = dict(sql(db_path, "SELECT label, cid FROM syn_aliases"))
    assert aliases["color"] == aliases["colour"]
    rows = sql(db_path, "SELECT cid, label FROM syn_concepts")
    assert rows == [(aliases["color"], "color")]  # the first label (sorted) is canonical


def test_labels_below_merge_threshold_stay_apart(open_memory, embedder, db_path, sql):
    v = embedder.embed(["wedding", "marriage"])
    assert float(v[0] @ v[1]) < 0.92
    mem = open_memory(db_path, "synapse")
    mem.add_many(
        [
            "The wedding cake had three tiers.",
            "Our wedding photos arrived.",
            "Their marriage lasted fifty years.",
            "Marriage counselling helped them.",
            "The bus was late again.",
        ],
        user_id="u",
    )
    aliases = dict(sql(db_path, "SELECT label, cid FROM syn_aliases"))
    assert aliases["wedding"] != aliases["marriage"]
    # ... unless the threshold says they are the same thing
    db2 = db_path.with_name("low.db")
    mem2 = open_memory(db2, "synapse", engine_options={"merge_threshold": 0.65})
    mem2.add_many(
        [
            "The wedding cake had three tiers.",
            "Our wedding photos arrived.",
            "Their marriage lasted fifty years.",
            "Marriage counselling helped them.",
            "The bus was late again.",
        ],
        user_id="u",
    )
    aliases2 = dict(sql(db2, "SELECT label, cid FROM syn_aliases"))
    assert aliases2["wedding"] == aliases2["marriage"]


# -- persistence ----------------------------------------------------------------------


def test_graph_survives_close_and_reopen(embedder, db_path, sql, sentences):
    queries = ["Which dog did I adopt?", "Where is my sister's wedding?"]
    with Memory(db_path, engine="synapse", embedder=embedder) as mem:
        mem.add_many(sentences, user_id="u")
        state = _state(mem)
        before = [[(h.id, h.score) for h in mem.search(q, user_id="u", k=5)] for q in queries]
    rows = _dump(sql, db_path)
    assert rows["syn_concepts"] and rows["syn_mentions"] and rows["syn_aliases"]
    with Memory(db_path, engine="synapse", embedder=embedder) as mem:
        assert _dump(sql, db_path) == rows
        assert _state(mem) == state
        after = [[(h.id, h.score) for h in mem.search(q, user_id="u", k=5)] for q in queries]
        assert _dump(sql, db_path) == rows  # searching writes nothing
    for b, a in zip(before, after, strict=True):
        assert [i for i, _ in a] == [i for i, _ in b]
        assert [s for _, s in a] == pytest.approx([s for _, s in b], abs=1e-6)


# -- deletion -------------------------------------------------------------------------

PETS = [
    "Biscuit the greyhound chased a squirrel at the beach.",
    "Biscuit the greyhound slept all afternoon.",
    "The cello lesson went well.",
    "Another cello lesson is booked for Friday.",
    "The boiler needs servicing.",
]


def _labels(sql, db, table):
    return {r[0] for r in sql(db, f"SELECT label FROM {table} WHERE user_id = 'u'")}


def test_delete_cascades_to_mentions_and_orphan_concepts(open_memory, db_path, sql):
    mem = open_memory(db_path, "synapse")
    ids = mem.add_many(PETS, user_id="u")
    assert {"biscuit", "greyhound", "cello", "lesson"} <= _labels(sql, db_path, "syn_concepts")
    rev = _state(mem)[1]

    assert mem.delete(ids[0], user_id="u")
    assert sql(db_path, "SELECT COUNT(*) FROM syn_mentions WHERE memory_id = ?", (ids[0],)) == [
        (0,)
    ]
    # still mentioned by the second memory: kept
    assert {"biscuit", "greyhound"} <= _labels(sql, db_path, "syn_concepts")
    assert _state(mem)[1] > rev

    assert mem.delete(ids[1], user_id="u")
    assert not {"biscuit", "greyhound"} & _labels(sql, db_path, "syn_concepts")
    assert not {"biscuit", "greyhound"} & _labels(sql, db_path, "syn_aliases")
    assert {"cello", "lesson"} <= _labels(sql, db_path, "syn_concepts")
    # invariants: every alias is mentioned, every concept has an alias
    assert _labels(sql, db_path, "syn_aliases") <= _labels(sql, db_path, "syn_mentions")
    cids = {r[0] for r in sql(db_path, "SELECT cid FROM syn_concepts")}
    assert cids == {r[0] for r in sql(db_path, "SELECT cid FROM syn_aliases")}

    # the engine follows: searches work and no deleted concept is activated
    rec = mem.recall("greyhound Biscuit", user_id="u", k=3)
    hits = rec.hits
    assert ids[0] not in {h.id for h in hits} and ids[1] not in {h.id for h in hits}
    assert not {"biscuit", "greyhound"} & {c for c, _ in rec.concepts}
    # a single new mention of a deleted label does not bring the concept back
    mem.add("A greyhound passed by.", user_id="u")
    assert mem._engine.consolidate("u") == 1
    assert "greyhound" not in _labels(sql, db_path, "syn_concepts")
    mem.add("Another greyhound passed by.", user_id="u")
    assert mem._engine.consolidate("u") == 1
    assert "greyhound" in _labels(sql, db_path, "syn_concepts")


def test_delete_user_leaves_no_trace(open_memory, db_path, sql, raw_bytes):
    mem = open_memory(db_path, "synapse")
    secret = [
        "Zephyrine fed the quokka at the wildlife park.",
        "Zephyrine wants a quokka tattoo.",
        "The quokka enclosure closes at five.",
        "Zephyrine booked the wildlife park again.",
        "Nothing else happened today.",
    ]
    mem.add_many(secret, user_id="u")
    mem.add_many(PETS, user_id="v")
    assert {"zephyrine", "quokka"} <= _labels(sql, db_path, "syn_concepts")
    assert b"quokka" in raw_bytes(db_path)
    assert mem.delete_user("u") == 5
    for t in SYN_TABLES:
        assert sql(db_path, f"SELECT COUNT(*) FROM {t} WHERE user_id = 'u'") == [(0,)]
    data = raw_bytes(db_path)
    for needle in (b"Zephyrine", b"zephyrine", b"quokka", b"wildlife", b"tattoo"):
        assert needle not in data, needle
    # the other user is untouched
    v_concepts = {r[0] for r in sql(db_path, "SELECT label FROM syn_concepts WHERE user_id='v'")}
    assert {"biscuit", "cello"} <= v_concepts
    assert mem.search("quokka", user_id="u", k=3) == []


def test_second_process_drops_erased_users_concepts(open_memory, db_path):
    """Two Memory objects on one file (as two processes). After A erases a user and the
    user starts over, B must not keep using the erased user's concepts."""
    a = open_memory(db_path, "synapse")
    b = open_memory(db_path, "synapse")
    a.add_many(PETS[:2] + ["Biscuit needs a new collar.", "I walked Biscuit.", "Rain again."], "u")
    b.search("greyhound", user_id="u", k=3)  # B now caches the user's semantic layer
    a.delete_user("u")
    fresh = [
        "The cello teacher praised my bowing.",
        "Cello practice ran late tonight.",
        "I restrung the cello before the concert.",
        "The concert hall was freezing.",
        "My teacher recommended a concert.",
    ]
    a.add_many(fresh, user_id="u")
    c = open_memory(db_path, "synapse")  # a third, fresh process as the reference
    expected = [lab for lab, _ in c.recall("cello teacher", user_id="u", k=3).concepts]
    assert "cello" in expected
    assert [lab for lab, _ in b.recall("cello teacher", user_id="u", k=3).concepts] == expected


# -- search contract and variants ------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_end_to_end(open_memory, sentences, variant):
    mem = open_memory(":memory:", variant)
    items = [{"text": s, "metadata": {"i": i}} for i, s in enumerate(sentences)]
    ids = mem.add_many(items, user_id="u")
    assert _state(mem)[0] == len(sentences) - 1
    hits = mem.search("Which dog did I adopt?", user_id="u", k=5)
    assert len(hits) == 5
    assert all(isinstance(h, Hit) for h in hits)
    assert len({h.id for h in hits}) == 5 and {h.id for h in hits} <= set(ids)
    scores = [h.score for h in hits]
    assert all(isinstance(s, float) and math.isfinite(s) for s in scores)
    assert scores == sorted(scores, reverse=True)
    # the ablations may rank worse (no fan effect lets hub concepts flood activation),
    # but the one memory about a dog stays near the top
    assert any("greyhound" in h.text for h in hits[:3])
    if variant in ("synapse", "synapse-paper", "synapse-vectors"):
        assert "greyhound" in hits[0].text
    for h in hits:
        assert h.text == sentences[h.metadata["i"]]
    # k beyond the user's size returns every memory once; another user sees nothing
    assert len(mem.search("anything", user_id="u", k=100)) == len(sentences)
    assert mem.search("greyhound", user_id="nobody", k=5) == []
    trace = mem.recall("greyhound", user_id="nobody", k=5)
    assert trace.hits == [] and trace.explanations == {} and trace.refuse


def test_vectors_variant_scores_half_cosine(open_memory, embedder, sentences):
    mem = open_memory(":memory:", "synapse-vectors")
    mem.add_many(sentences, user_id="u")
    q = "Which dog did I adopt?"
    hits = mem.search(q, user_id="u", k=5)
    cos = dict(
        zip(sentences, (embedder.embed(sentences) @ embedder.embed_one(q)).tolist(), strict=True)
    )
    for h in hits:
        assert h.score == pytest.approx(0.5 * max(cos[h.text], 0.0), abs=1e-5)


def test_nograph_scores_fuse_cosine_and_bm25(open_memory, embedder, sentences):
    """No graph: activation stays on the anchors, so an anchor scores
    w_s sim + w_a alpha sim with sim = (1 - x) cosine + x BM25 / max BM25, and a
    memory of no session is its own context: session support adds that score again
    times ``session_support``. (Fewer memories than ``anchors`` hold a question word,
    so the lexical share x is the full ``lexical_similarity``: ``lexical_peak``.)"""
    syn = open_memory(":memory:", "synapse-nograph")
    syn.add_many(sentences, user_id="u")
    q = "Which doctor told me about coffee?"
    # SYNAPSE's BM25: the asking word "which" left out, inflected forms as one term
    ref = BM25Index()
    ref.add(sentences)
    words = without_asking(q)
    assert words == "doctor told me about coffee"
    bm_scores = dict(zip(sentences, ref.scores(words, inflections=True).tolist(), strict=True))
    top = max(bm_scores.values())
    cos = dict(
        zip(sentences, (embedder.embed(sentences) @ embedder.embed_one(q)).tolist(), strict=True)
    )
    hits = syn.search(q, user_id="u", k=3)
    assert "coffee" in hits[0].text
    cfg = syn._engine.cfg
    x = cfg.lexical_similarity
    for h in hits:
        sim = (1 - x) * max(cos[h.text], 0.0) + x * bm_scores.get(h.text, 0.0) / top
        expected = (cfg.w_similarity + cfg.w_activation * cfg.alpha) * sim
        expected *= 1 + cfg.session_support
        assert h.score == pytest.approx(expected, abs=1e-5)


def test_explanations_and_confidence(open_memory, sentences):
    mem = open_memory(":memory:", "synapse")
    mem.add_many(sentences, user_id="u")
    hits = mem.search("Which dog did I adopt?", user_id="u", k=5)
    trace = mem.recall("Which dog did I adopt?", user_id="u", k=5)
    assert [h.id for h in trace.hits] == [h.id for h in hits]  # recall ranks as search
    assert set(trace.explanations) == {h.id for h in hits}
    assert trace.explanations[hits[0].id].startswith("anchor (")
    assert 0.0 < trace.confidence <= 1.0
    assert trace.refuse == (trace.confidence < mem._engine.cfg.gate_tau)
    quick = mem.recall("Which dog did I adopt?", user_id="u", k=5, explain=False)
    assert quick.confidence == trace.confidence and quick.refuse == trace.refuse
    assert all(not why.startswith("anchor") for why in quick.explanations.values())


def test_unknown_option_raises(embedder):
    for name in ("synapse", "synapse-paper"):
        with pytest.raises(InvalidInputError, match="no options"):
            Memory(":memory:", engine=name, embedder=embedder, engine_options={"nope": 1})
    mem = Memory(":memory:", engine="synapse", embedder=embedder, engine_options={"anchors": 3})
    try:
        assert mem._engine.cfg.anchors == 3
        assert np.isclose(mem._engine.cfg.spread, 0.8)
    finally:
        mem.close()


def test_graph_is_built_on_the_write_path_not_by_the_first_search(open_memory, monkeypatch):
    """After an add that consolidates, the first search finds the graph built; after
    adds that leave episodes out of a write-built graph, the first search builds it
    over every episode (as with no graph), and later searches reuse it."""
    import remem.engines.synapse.engine as syn

    builds = []
    real = syn.build_graph
    monkeypatch.setattr(syn, "build_graph", lambda *a, **k: builds.append(1) or real(*a, **k))
    mem = open_memory(":memory:", "synapse")
    texts = [f"Note {i}: the greyhound Biscuit ran on the beach number {i}." for i in range(12)]
    mem.add_many(texts[:10], user_id="u")  # consolidates: the graph is built here
    assert len(builds) == 1
    mem.search("greyhound beach", user_id="u", k=3)
    assert len(builds) == 1  # the first search built nothing
    assert mem.stats("u")["episodes"] == 10
    mem.add_many(texts[10:], user_id="u")  # two more: no consolidation
    mem.search("greyhound beach", user_id="u", k=3)
    assert len(builds) == 1  # a graph a search already used: reused as before
    other = open_memory(":memory:", "synapse")
    other.add_many(texts[:10], user_id="v")
    other.add_many(texts[10:], user_id="v")  # the write-built graph lacks two episodes
    builds.clear()
    other.search("greyhound beach", user_id="v", k=3)
    assert len(builds) == 1 and other.stats("v")["episodes"] == 12
    other.search("greyhound beach", user_id="v", k=3)
    assert len(builds) == 1


def test_a_long_memory_links_to_its_most_distinctive_labels_only(open_memory, sql, db_path):
    def word(i: int) -> str:
        return f"zq{chr(97 + i // 26)}{chr(97 + i % 26)}ter"

    words = " ".join(word(i) for i in range(60))
    mem = open_memory(db_path, "synapse", engine_options={"mention_budget": 10})
    ids = mem.add_many(
        [f"Trip notes for Zanzibar and Kilimanjaro: {words}.", "Short note about Zanzibar."]
        + [f"Filler {i} about {word(i)} things." for i in range(8)],
        user_id="u",
    )
    mem.consolidate("u")
    labels = [
        r[0] for r in sql(db_path, f"SELECT label FROM syn_mentions WHERE memory_id = '{ids[0]}'")
    ]
    assert len(labels) == 10
    assert "zanzibar" in labels and "kilimanjaro" in labels  # entities first
    # the words other memories share (low IDF) are the ones left out
    assert not {word(i) for i in range(8)} & set(labels)


def test_the_gate_reads_the_highest_activation_among_the_top_hits(embedder, sentences):
    """``gate_depth``: the paper's gate reads the top hit's activation (depth 1); the
    default reads the highest of the first three, so a first hit ranked by similarity
    at activation 0 does not refuse what the next ones hold. Deeper never lowers it."""
    seen = []
    for depth in (1, 3, 10):
        mem = Memory(
            ":memory:", engine="synapse", embedder=embedder, engine_options={"gate_depth": depth}
        )
        mem.add_many(sentences, user_id="u")
        found = [
            mem.recall(q, user_id="u", k=10) for q in ("Which dog did I adopt?", "Where do I work?")
        ]
        seen.append([r.confidence for r in found])
        assert all(r.refuse == (r.confidence < mem._engine.cfg.gate_tau) for r in found)
        mem.close()
    for shallow, deep in zip(seen, seen[1:], strict=False):
        assert all(a <= b + 1e-9 for a, b in zip(shallow, deep, strict=True))
    assert seen[1][0] > seen[0][0]  # the adopted dog's first hit is not the most lit
    with pytest.raises(InvalidInputError):
        Memory(":memory:", engine="synapse", embedder=embedder, engine_options={"gate_depth": 0})
