"""LoCoMo's official QA score: normalisation, stemmed token F1 and the per-category rules,
checked on hand-computed cases."""

from __future__ import annotations

import math

import pytest

from remem_bench.qa_metrics import (
    containment,
    is_refusal_text,
    locomo_f1,
    multi_answer_f1,
    normalize_answer,
    token_f1,
    tokens,
)

# -- normalisation and tokens ---------------------------------------------------------


def test_normalize_drops_commas_case_punctuation_and_articles():
    assert normalize_answer("The cat, and a dog!") == "cat dog"
    assert normalize_answer("  An   Apple.  ") == "apple"
    # commas are removed, not turned into spaces (as the official scorer does)
    assert normalize_answer("1,000") == "1000"
    # the article words only, not letters inside words
    assert normalize_answer("Theatre and Andes") == "theatre andes"


def test_tokens_are_porter_stemmed():
    assert tokens("running dogs") == ["run", "dog"]
    assert tokens("The Painted, houses!") == ["paint", "hous"]


def test_normalize_casts_non_strings():
    assert normalize_answer(2023) == "2023"
    assert tokens(7) == ["7"]


# -- token F1 ---------------------------------------------------------------------------


def test_exact_match_is_one():
    assert token_f1("Lisbon", "Lisbon") == 1.0
    assert locomo_f1("a greyhound named Biscuit", "a greyhound named Biscuit", 4) == 1.0


def test_partial_overlap_hand_computed():
    # prediction tokens: she move to pari last year -> 6
    # gold tokens:       pari in 2022               -> 3
    # common: {pari} -> 1; precision 1/6, recall 1/3
    # F1 = 2 * (1/6 * 1/3) / (1/6 + 1/3) = (1/9) / (1/2) = 2/9
    assert token_f1("She moved to Paris last year", "Paris in 2022") == pytest.approx(2 / 9)
    assert locomo_f1("She moved to Paris last year", "Paris in 2022", 2) == pytest.approx(2 / 9)


def test_overlap_counts_a_multiset():
    # prediction: pari pari (2), gold: pari (1); common = min(2, 1) = 1
    # precision 1/2, recall 1/1 -> F1 = 2 * 0.5 / 1.5 = 2/3
    assert token_f1("Paris Paris", "Paris") == pytest.approx(2 / 3)


def test_articles_punctuation_and_commas_are_ignored():
    assert token_f1("The Eiffel Tower!", "eiffel, tower") == 1.0
    assert token_f1("a dog and the cat.", "Dog cat") == 1.0


def test_stemming_matches_inflections():
    assert token_f1("running", "run") == 1.0
    assert token_f1("She paints", "painting") == pytest.approx(2 / 3)  # she/paint vs paint
    assert token_f1("ran", "run") == 0.0  # Porter does not know irregular forms


def test_integer_gold_is_cast_to_str():
    assert token_f1("2023", 2023) == 1.0
    # prediction: in 2023 (2), gold: 2023 (1); precision 1/2, recall 1 -> F1 2/3
    assert locomo_f1("in 2023", 2023, 2) == pytest.approx(2 / 3)


def test_zero_overlap_and_empty_prediction_score_zero():
    assert token_f1("Lisbon", "Rome") == 0.0
    assert token_f1("", "Rome") == 0.0
    assert token_f1("the a an", "Rome") == 0.0  # only articles: nothing left
    assert locomo_f1("", "Rome", 4) == 0.0
    assert locomo_f1("", "Rome", 1) == 0.0


# -- per-category rules ---------------------------------------------------------------


def test_category_1_averages_the_best_match_of_each_gold_part():
    # gold parts: "Paris" (best 0 against "Rome") and "Rome" (1) -> (0 + 1) / 2
    assert locomo_f1("Rome", "Paris, Rome", 1) == pytest.approx(0.5)
    assert locomo_f1("rome, paris", "Paris, Rome", 1) == 1.0
    assert multi_answer_f1("rome, paris", "Paris, Rome") == 1.0
    # extra predicted parts do not lower the score (only gold parts are averaged)
    assert locomo_f1("Rome, Paris, Oslo", "Paris, Rome", 1) == 1.0
    # gold "Paris" vs prediction part "Paris France": precision 1/2, recall 1 -> 2/3;
    # gold "Rome" -> 1; mean (2/3 + 1) / 2 = 5/6
    assert locomo_f1("Paris France, Rome", "Paris, Rome", 1) == pytest.approx(5 / 6)


def test_category_1_whole_prediction_is_not_split_on_other_categories():
    # category 4 compares the whole strings: prediction "rome pari" vs gold "pari rome"
    assert locomo_f1("rome, paris", "Paris, Rome", 4) == 1.0
    # gold pari rome (2), prediction rome (1): precision 1, recall 1/2 -> 2/3
    assert locomo_f1("Rome", "Paris, Rome", 4) == pytest.approx(2 / 3)


def test_category_3_cuts_the_gold_at_the_first_semicolon():
    gold = "Paris; because she loves art"
    assert locomo_f1("Paris", gold, 3) == 1.0
    # the same gold uncut (category 2): pari because she love art -> 5 tokens,
    # precision 1, recall 1/5 -> F1 = 2 * 0.2 / 1.2 = 1/3
    assert locomo_f1("Paris", gold, 2) == pytest.approx(1 / 3)
    assert locomo_f1("because she loves art", gold, 3) == 0.0


@pytest.mark.parametrize(
    "prediction",
    [
        "Not mentioned in the conversation",
        "No information available",
        "NOT MENTIONED anywhere.",
        "Sorry, no information available about that.",
    ],
)
def test_category_5_scores_a_refusal_as_one(prediction):
    assert is_refusal_text(prediction)
    assert locomo_f1(prediction, None, 5) == 1.0
    assert locomo_f1(prediction, "Whiskers", 5) == 1.0


@pytest.mark.parametrize("prediction", ["Whiskers", "", "I don't know", "It is mentioned"])
def test_category_5_scores_anything_else_as_zero(prediction):
    assert not is_refusal_text(prediction)
    assert locomo_f1(prediction, None, 5) == 0.0
    assert locomo_f1(prediction, prediction, 5) == 0.0  # matching the gold earns nothing


@pytest.mark.parametrize("category", [1, 2, 3, 4])
def test_answerable_categories_need_a_gold_answer(category):
    with pytest.raises(ValueError, match="gold"):
        locomo_f1("Paris", None, category)


def test_scores_stay_in_unit_interval():
    cases = [("a b c", "c d e"), ("x", "x x x"), ("Paris, Rome", "Rome"), ("", "")]
    for p, g in cases:
        for c in (1, 2, 3, 4, 5):
            f = locomo_f1(p, g, c)
            assert 0.0 <= f <= 1.0 and not math.isnan(f)


@pytest.mark.parametrize(
    ("prediction", "gold", "category", "share"),
    [
        ("Ana moved to Paris on 8 May 2023", "8 May 2023", 2, 1.0),  # F1 0.6 here
        ("May 2023", "8 May 2023", 2, 2 / 3),
        ("She adopted Biscuit, a greyhound", "Biscuit", 4, 1.0),
        ("Not mentioned in the conversation", "Biscuit", 4, 0.0),
        ("painting", "Painted; she likes art", 3, 1.0),  # cut at ";", stemmed
        ("Paris", "Paris, Rome", 1, 0.5),
        ("Paris Paris", "Paris, Paris", 1, 1.0),  # counted as a multiset
    ],
)
def test_containment_is_the_share_of_gold_tokens_in_the_reply(prediction, gold, category, share):
    assert containment(prediction, gold, category) == pytest.approx(share)


def test_containment_has_no_score_without_a_gold_answer():
    assert containment("anything", "x", 5) is None
    assert containment("anything", None, 4) is None
    assert containment("anything", "the", 4) is None  # nothing left after normalising
    # F1 punishes the right answer said in a sentence; containment does not
    assert locomo_f1("Ana moved on 8 May 2023", "8 May 2023", 2) < 1.0
