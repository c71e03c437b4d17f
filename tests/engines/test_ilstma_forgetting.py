"""ILSTMA's forgetting curve and prefetch score (paper section 3.6.1) against values
computed by hand, and the validation of the engine's configuration."""

from __future__ import annotations

import math

import numpy as np
import pytest

from remem import Memory
from remem.engines.ilstma import IlstmaConfig
from remem.engines.ilstma.forgetting import prefetch_score, retention, spatial, strength
from remem.errors import InvalidInputError

S5 = -13.5 + 37.0 / (1.0 + math.exp(-6.0))  # Eq. 2 at n = 5: xi (n - mu) = -1.5 * 4


# -- memory strength (Eq. 2) ------------------------------------------------------------


def test_strength_at_the_ends_of_the_recall_range():
    assert strength(1) == pytest.approx(5.0, abs=1e-12)  # -13.5 + 37 / 2
    assert strength(5) == pytest.approx(S5, rel=1e-12)
    assert math.isclose(S5, 23.4085, abs_tol=1e-4)


def test_strength_clips_recall_times_to_one_and_five():
    assert strength(0) == strength(1)
    assert strength(-3) == strength(1)
    assert strength(6) == strength(5)
    assert strength(1000) == pytest.approx(S5, rel=1e-12)


def test_strength_grows_with_recalls_and_is_vectorised():
    n = np.array([1, 2, 3, 4, 5])
    s = strength(n)
    assert s.shape == (5,)
    assert np.all(np.diff(s) > 0)
    expected = [-13.5 + 37.0 / (1.0 + math.exp(-1.5 * (k - 1))) for k in n]
    np.testing.assert_allclose(s, expected, rtol=1e-12)


# -- retention (Eq. 1, 3) -----------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9])
def test_retention_is_one_without_elapsed_days(n):
    assert retention(0, n) == pytest.approx(1.0, abs=1e-15)


def test_retention_values():
    assert retention(1, 1) == pytest.approx(math.exp(-1 / 5), rel=1e-12)
    assert retention(10, 5) == pytest.approx(math.exp(-10 / S5), rel=1e-12)
    # negative elapsed time counts as none
    assert retention(-4, 2) == pytest.approx(1.0, abs=1e-15)


def test_retention_falls_with_days_and_rises_with_recalls():
    days = np.arange(0, 30)
    r = retention(days, 1)
    assert np.all(np.diff(r) < 0)
    assert np.all((r > 0) & (r <= 1))
    assert retention(7, 4) > retention(7, 2) > retention(7, 1)


# -- the spatial term and the prefetch score (Eq. 4) ----------------------------------------


def test_spatial_intent_values():
    assert spatial(0) == pytest.approx(1.0, abs=1e-15)
    assert spatial(1) == pytest.approx(0.5, abs=1e-15)  # 1 - (2 / pi)(pi / 4)
    assert spatial(-1) == pytest.approx(0.5, abs=1e-15)  # a distance: sign ignored
    d = np.arange(0, 200)
    s = spatial(d, "intent")
    assert np.all(np.diff(s) < 0)
    assert np.all((s > 0) & (s <= 1))


def test_spatial_printed_values():
    assert spatial(0, "printed") == pytest.approx(0.0, abs=1e-15)
    assert spatial(1, "printed") == pytest.approx(math.pi**2 / 8, rel=1e-12)
    d = np.arange(0, 200)
    s = spatial(d, "printed")
    assert np.all(np.diff(s) > 0)
    assert np.all(s < math.pi**2 / 4)


@pytest.mark.parametrize("form", ["intent", "printed"])
def test_prefetch_score_is_retention_plus_spatial(form):
    days = np.array([0, 1, 3, 10, 40])
    times = np.array([1, 2, 5, 3, 1])
    dis = np.array([0, 1, 2, 5, 3])
    got = prefetch_score(days, times, dis, form)
    np.testing.assert_allclose(got, retention(days, times) + spatial(dis, form), rtol=1e-12)
    assert prefetch_score(10, 5, 1, form) == pytest.approx(
        math.exp(-10 / S5) + float(spatial(1, form)), rel=1e-12
    )


def test_intent_score_is_in_zero_two():
    rng = np.random.default_rng(0)
    score = prefetch_score(
        rng.integers(0, 400, 500), rng.integers(0, 9, 500), rng.integers(0, 50, 500)
    )
    assert np.all((score > 0) & (score <= 2))
    assert prefetch_score(0, 1, 0) == pytest.approx(2.0)


@pytest.mark.parametrize("form", ["", "Intent", "arctan", None])
def test_unknown_spatial_form_raises(form):
    with pytest.raises(ValueError):
        spatial(1, form)
    with pytest.raises(ValueError):
        prefetch_score(0, 1, 1, form)


# -- configuration --------------------------------------------------------------------------


def test_defaults_and_variants():
    cfg = IlstmaConfig.for_engine("ilstma", {})
    assert (cfg.cache_size, cfg.history_turns, cfg.offset, cfg.top_k_cosine) == (3, 7, 5, 2)
    assert (cfg.spatial, cfg.judge, cfg.on_disagreement, cfg.cache) == (
        "intent",
        "lexical",
        "union",
        True,
    )
    assert cfg.global_retriever == "synapse"
    paper = IlstmaConfig.for_engine("ilstma-paper", {})
    assert (paper.global_retriever, paper.on_disagreement) == ("hybrid", "cosine")
    assert IlstmaConfig.for_engine("ilstma-printed", {}).spatial == "printed"
    assert IlstmaConfig.for_engine("ilstma-nocache", {}).cache is False


@pytest.mark.parametrize(
    "options",
    [
        {"spatial": "arctan"},
        {"judge": "oracle"},
        {"on_disagreement": "global"},
        {"cache_size": 11, "offset": 5},
        {"cache_size": 3, "offset": 1},
        {"cache_size": 0},
        {"offset": 0},
        {"no_such_option": 1},
    ],
)
def test_bad_options_raise_invalid_input(embedder, options):
    with pytest.raises(InvalidInputError):
        IlstmaConfig.for_engine("ilstma", options)
    with pytest.raises(InvalidInputError):
        Memory(":memory:", engine="ilstma", embedder=embedder, engine_options=options)


def test_cache_size_may_be_twice_the_offset(open_memory):
    mem = open_memory(":memory:", "ilstma", engine_options={"cache_size": 4, "offset": 2})
    assert (mem._engine.cfg.cache_size, mem._engine.cfg.offset) == (4, 2)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("painted", "paint"),
        ("painting", "paint"),
        ("paint", "paint"),
        ("stories", "story"),
        ("sunrises", "sunrise"),
        ("kids", "kids"),  # short words are left alone
    ],
)
def test_judge_stemmer(word, expected):
    from remem.engines.ilstma.judge import stem

    assert stem(word) == expected


def test_lexical_judge_covers_inflected_words():
    from remem.engines.ilstma.judge import LexicalJudge

    # uniform IDF over when, did, melanie, paint, sunrise: "painted" covers "paint"
    judge = LexicalJudge(lambda t: 1.0, 0.6)
    q = "When did Melanie paint a sunrise?"
    assert judge.coverage(q, "Melanie: I painted a sunrise") == pytest.approx(3 / 5)
    assert judge.coverage(q, "Melanie: I went hiking") == pytest.approx(1 / 5)
