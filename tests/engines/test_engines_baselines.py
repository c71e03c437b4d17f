"""The baseline engines (dense, BM25, hybrid RRF) and the engine registry."""

from __future__ import annotations

import numpy as np
import pytest

from remem import UnknownComponentError
from remem.engines import check_engine_name, create_engine, engine_names
from remem.engines.baselines import BM25Engine, DenseEngine, HybridEngine
from remem.engines.fusion import rrf


def test_registry():
    assert {"dense", "bm25", "hybrid"} <= set(engine_names())
    assert check_engine_name("hybrid") == "hybrid"
    with pytest.raises(UnknownComponentError, match="choose one of"):
        check_engine_name("synapse-typo")
    with pytest.raises(UnknownComponentError):
        check_engine_name(3)


def test_create_engine_types(mem):
    ctx = mem._engine.ctx
    assert isinstance(create_engine("dense", ctx), DenseEngine)
    assert isinstance(create_engine("bm25", ctx), BM25Engine)
    h = create_engine("hybrid", ctx, depth=5, constant=10.0)
    assert isinstance(h, HybridEngine) and h.depth == 5 and h.constant == 10.0
    assert BM25Engine.needs_query_vector is False and DenseEngine.needs_query_vector is True


def test_rrf_hand_computed():
    fused = rrf([np.array([2, 0, 1]), np.array([0, 3])], constant=60.0)
    assert fused[0] == pytest.approx(1 / 62 + 1 / 61)
    assert fused[2] == pytest.approx(1 / 61)
    assert fused[1] == pytest.approx(1 / 63)
    assert fused[3] == pytest.approx(1 / 62)
    assert rrf([]) == {}


def test_dense_scores_are_cosines(open_memory, embedder, sentences):
    m = open_memory(":memory:", "dense")
    m.add_many(sentences, user_id="u")
    q = "a question about pets"
    hits = m.search(q, user_id="u", k=len(sentences))
    vecs = embedder.embed(sentences)
    qv = embedder.embed_one(q)
    expected = {s: float(v @ qv) for s, v in zip(sentences, vecs, strict=True)}
    for h in hits:
        assert h.score == pytest.approx(expected[h.text], abs=1e-4)
        assert -1.0 <= h.score <= 1.0


def test_bm25_scores_positive(open_memory, sentences):
    m = open_memory(":memory:", "bm25")
    m.add_many(sentences, user_id="u")
    hits = m.search("coffee doctor heart", user_id="u", k=10)
    assert hits and all(h.score > 0 for h in hits)
    assert "coffee" in hits[0].text


def test_hybrid_is_rrf_of_dense_and_bm25(open_memory, sentences):
    dense = open_memory(":memory:", "dense")
    bm25 = open_memory(":memory:", "bm25")
    hybrid = open_memory(":memory:", "hybrid")
    for m in (dense, bm25, hybrid):
        m.add_many(sentences, user_id="u")
    q = "Which doctor told me about coffee?"
    d = [h.text for h in dense.search(q, user_id="u", k=100)]
    b = [h.text for h in bm25.search(q, user_id="u", k=100)]
    expected: dict[str, float] = {}
    for ranking in (d, b):
        for rank, text in enumerate(ranking, start=1):
            expected[text] = expected.get(text, 0.0) + 1.0 / (60.0 + rank)
    hits = hybrid.search(q, user_id="u", k=5)
    assert len(hits) == 5
    best = sorted(expected.values(), reverse=True)[:5]
    assert [h.score for h in hits] == pytest.approx(best)
    for h in hits:
        assert h.score == pytest.approx(expected[h.text])


def test_hybrid_k_larger_than_depth(open_memory, sentences):
    m = open_memory(":memory:", "hybrid", engine_options={"depth": 2})
    m.add_many(sentences, user_id="u")
    assert len(m.search("anything about my family", user_id="u", k=8)) == 8


def test_hybrid_finds_memory_that_only_dense_sees(open_memory, sentences):
    m = open_memory(":memory:", "hybrid")
    m.add_many(sentences, user_id="u")
    hits = m.search("What pet do I own?", user_id="u", k=3)
    assert any("greyhound" in h.text for h in hits)


def test_hybrid_lexical_ranking_leaves_asking_words_out(open_memory):
    """ "What did" matches every chatty turn; left out, the one turn holding the
    question's rare word ranks higher in the lexical channel, and so in the fusion."""
    told = (
        "Hey Mel! I wanted to tell you about my school event last week. It was awesome, "
        "I talked about my journey and a big crowd came to listen."
    )
    chatty = [f"Cool! What did {w} look like?" for w in ("it", "that", "the cake", "the hat")]
    others = [f"I love painting {w} in the morning light." for w in ("roses", "boats", "hills")]
    others += [f"My kids and I went {w} on the weekend." for w in ("hiking", "swimming", "out")]
    others += [f"Thanks for the tips about {w}, it helps." for w in ("books", "tea", "yoga")]
    scores = []
    for lexical_asking in (False, True):
        mem = open_memory(engine="hybrid", engine_options={"lexical_asking": lexical_asking})
        mem.add_many(
            [{"text": t, "speaker": "Caroline"} for t in [*others, *chatty, told]], user_id="u"
        )
        hits = mem.search("When did Caroline give a speech at a school?", "u", k=20)
        scores.append({h.text: h.score for h in hits}[told])
    assert scores[1] < scores[0]
