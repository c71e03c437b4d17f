"""The typed reader's ranking: features, weights, and the fit that makes them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from remem.answer import nlp, rank
from remem.answer.spans import FITS
from remem.index.bm25 import BM25Index

ROOT = Path(__file__).resolve().parents[2]


def _fit_script():
    spec = importlib.util.spec_from_file_location("fit_reader", ROOT / "scripts/fit_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hand_weights_score_as_the_first_round_did():
    # fit + what it inherits + nearness - rank cost + the best origin's fit - costs
    cues = {"fit": 2.0, "inherited": 0.5, "near": 0.5, "rank": 2.0, "later": 0.0, "asked": 1.0}
    feats = {**cues, "long": 0.0, "speaker": 0.0, "o_role": 1.0}
    assert rank.score(feats, rank.HAND) == pytest.approx(2.0 + 0.5 + 0.5 - 0.1 + 1.5 - 0.7)
    assert rank.score({"unknown": 5.0}, rank.HAND) == 0.0
    assert set(FITS) <= {k[2:] for k in rank.HAND if k.startswith("o_")}


@pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")
def test_features_name_the_best_origin_and_the_parse_role_of_a_phrase():
    sent = next(nlp.parse("I bought a folding Brompton after the theft.").sents)
    span = sent[2:5]  # "a folding Brompton", the object
    cues = {"fit": 1.0, "inherited": 0.0, "near": 1.0, "rank": 0.0, "words": 3.0}
    feats = rank.features(span, ["chunk", "governed_verb"], cues)
    assert feats["o_governed_verb"] == 1.0 and "o_chunk" not in feats
    # a phrase a question word governs weighs its parse role apart from a bare chunk
    assert feats["origins"] == 1.0 and feats["a_dobj"] == 1.0
    assert rank.features(span, ["chunk"], cues)["d_dobj"] == 1.0
    assert feats["short"] == 0.75 and feats["long"] == 0.0
    # an entity of the kind asked is judged by its kind, not by its place in the parse
    assert rank.features(span, ["kind"], cues)["e_dobj"] == 1.0
    assert rank.features(span, ["sentence"], {**cues, "words": 30.0})["long"] == pytest.approx(
        np.log1p(26)
    )


def test_the_installed_weights_are_fitted_and_say_how():
    body = json.loads((ROOT / "src/remem/answer/data/reader_weights.json").read_text())
    assert body["command"].startswith("python scripts/fit_reader.py")
    # five LoCoMo conversations, and the answer-check sets, whose replies to a
    # question let the weights of what a reply inherits be fitted too
    assert len([c for c in body["trained_on"] if c.startswith("conv-")]) == 5
    # the fitted weights, and those set by hand for features the fit has not seen
    assert rank.weights() == {**rank.HAND_ONLY, **body["weights"]}
    fixed = _fit_script().FIXED - set(body.get("free", ()))
    assert all(body["weights"][k] == rank.HAND.get(k, 0.0) for k in fixed)


def test_rarity_is_high_for_a_word_few_memories_hold():
    bm25 = BM25Index()
    bm25.add(["a great time with a photo"] * 9 + ["my bullet journal keeps me sane"])
    assert bm25.rarity("bullet journal") > 0.6 > bm25.rarity("great photo")
    assert bm25.rarity("a word nobody said") == pytest.approx(1.0)
    assert bm25.rarity("the a") == 0.0  # no word the index keeps


def test_the_fit_raises_the_weight_of_what_marks_the_answer():
    fit = _fit_script()
    names = ["fit", "rarity"]
    rng = np.random.default_rng(0)
    groups = []
    for _ in range(60):
        x = rng.random((5, 2))
        y = np.zeros(5)
        y[int(np.argmax(x[:, 1]))] = 1.0  # the rarest candidate holds the answer
        groups.append((x, y, y > 0))
    w = fit.fit(groups, names)
    assert w[1] > rank.HAND.get("rarity", 0.0) + 1.0
    assert float(fit.report("train", groups, w).split("holds ")[1].split()[0]) >= 0.9


def test_a_refit_from_the_shipped_weights_moves_only_what_the_data_asks(tmp_path):
    """``--from shipped``: the fit starts from and is pulled towards the installed
    weights, so a feature the groups do not tell apart keeps its shipped weight;
    ``--cache``: the candidates read are kept and read back instead of again."""
    fit = _fit_script()
    names = ["fit", "rarity", "proper"]
    rng = np.random.default_rng(1)
    groups = []
    for _ in range(60):
        x = rng.random((5, 3))
        x[:, 2] = 1.0  # the same for every candidate: the softmax cannot see it
        y = np.zeros(5)
        y[int(np.argmax(x[:, 1]))] = 1.0
        groups.append((x, y, y > 0))
    start = {"fit": 0.3, "rarity": 0.2, "proper": 2.5}
    w = fit.fit(groups, names, frozenset(), start, 0.002)
    assert w[2] == pytest.approx(2.5)
    assert w[1] > 1.0
    cache = tmp_path / "candidates.json"
    cached = {"locomo": [{"conversation": "conv-26", "feats": [{"fit": 1.0}], "gains": [1.0]}]}
    cache.write_text(json.dumps({**cached, "checks": [], "held": []}))
    args = type("Args", (), {"cache": str(cache)})()
    assert fit.read_all(args, {}) == (cached["locomo"], [], [])
