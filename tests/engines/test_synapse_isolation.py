"""Contextual isolation: evidence that shares no word with the question and is far from
it in embedding space, but is linked through a concept to a memory the question matches.
Similarity-only engines miss it; SYNAPSE's graph brings it into the top 3."""

from __future__ import annotations

from datetime import datetime, timedelta

import numpy as np
import pytest

from remem.index.tokenize import tokenize

QUESTION = "What is happening in Porto this summer?"
ANCHOR = "My sister Meera is getting married in Porto this June."
EVIDENCE = "Meera asked me to calligraph the invitation envelopes."
# Unrelated memories that share no label with each other (so they form no concepts),
# several of them closer to the question (events, summer things) than the evidence is.
FILLERS = [
    "I adopted a retired racing greyhound last spring.",
    "I've been learning the cello for six months.",
    "The kitchen sink leaked again on Tuesday.",
    "Grandma's lemon tart is the best dessert ever.",
    "I switched jobs and now work as a data engineer.",
    "The doctor told me to cut back on coffee.",
    "The book club is reading a long Russian novel.",
    "I planted tomatoes, basil and chillies on the balcony.",
    "The beach volleyball league restarts next week.",
    "Holiday flights got expensive this year.",
    "A street fair is planned downtown.",
    "The local football team signed a new striker.",
    "A jazz festival is coming to the riverside park.",
    "Ice cream sales go up when it gets hot.",
    "The swimming pool reopens after renovation.",
    "The farmers market opens earlier on weekends.",
    "The cinema is showing a retrospective of old westerns.",
    "The laptop battery died during the quarterly presentation.",
    "I ran a half marathon in just under two hours.",
    "The neighbours' baby cries around three a.m.",
    "I'm allergic to penicillin.",
    "A telescope arrived for the tenth birthday.",
    "I failed the driving test twice before passing.",
    "The pub quiz question about volcanoes won the night.",
    "I volunteer at the animal shelter on Saturdays.",
]
# The anchor first, the evidence later, a month apart each: the two are not temporal
# neighbours, so only the shared concept ("meera") can connect them.
TEXTS = [ANCHOR, *FILLERS[:8], EVIDENCE, *FILLERS[8:]]


def _items():
    t0 = datetime(2024, 1, 1)
    return [
        {"text": t, "timestamp": (t0 + timedelta(days=30 * i)).isoformat()}
        for i, t in enumerate(TEXTS)
    ]


@pytest.fixture(scope="module")
def premise(embedder):
    vecs = embedder.embed(TEXTS)
    cos = vecs @ embedder.embed_one(QUESTION)
    order = [TEXTS[i] for i in np.argsort(-cos, kind="stable")]
    return {"cos": dict(zip(TEXTS, cos.tolist(), strict=True)), "dense_order": order}


def test_premise_evidence_is_isolated_from_the_question(premise):
    assert not set(tokenize(QUESTION)) & set(tokenize(EVIDENCE))  # no shared word
    assert set(tokenize(QUESTION)) & set(tokenize(ANCHOR))
    assert premise["cos"][EVIDENCE] < 0.15
    assert premise["dense_order"][0] == ANCHOR
    # below the dense top 10: not even one of SYNAPSE's (default 10) dense anchors
    assert premise["dense_order"].index(EVIDENCE) >= 10


@pytest.mark.parametrize("engine", ["bm25", "dense", "hybrid", "synapse-nograph"])
def test_similarity_engines_miss_the_evidence(open_memory, premise, engine):
    mem = open_memory(":memory:", engine)
    mem.add_many(_items(), user_id="u")
    top3 = [h.text for h in mem.search(QUESTION, user_id="u", k=3)]
    assert top3[0] == ANCHOR
    assert EVIDENCE not in top3


def test_synapse_reaches_the_evidence_through_a_concept(open_memory, premise):
    mem = open_memory(":memory:", "synapse")
    mem.add_many(_items(), user_id="u")
    hits = mem.search(QUESTION, user_id="u", k=3)
    texts = [h.text for h in hits]
    assert texts[0] == ANCHOR
    assert EVIDENCE in texts
    hit = hits[texts.index(EVIDENCE)]
    why = mem.recall(QUESTION, user_id="u", k=3).explanations[hit.id]
    assert 'concept "meera"' in why
    assert "activation:" in why and why.endswith("anchor (bm25+dense)")
    assert hits[0].id in why  # the path runs back to the memory the question matched


@pytest.mark.parametrize(("options", "reached"), [({}, False), ({"w_anchored": 0.2}, True)])
def test_the_walk_anchored_at_the_question_reaches_the_evidence(
    open_memory, premise, options, reached
):
    """Without the paper's PageRank (blind to the question) the evidence drops out of
    the top 10: the spreading activation reaches it through "meera" but lateral
    inhibition silences it. A walk restarting at the question's anchors brings it back
    into the top 3, with no help from the global PageRank."""
    mem = open_memory(":memory:", "synapse", engine_options={"w_pagerank": 0.0, **options})
    mem.add_many(_items(), user_id="u")
    texts = [h.text for h in mem.search(QUESTION, user_id="u", k=10)]
    assert texts[0] == ANCHOR
    assert (EVIDENCE in texts[:3]) is reached
    assert (EVIDENCE in texts) is reached
