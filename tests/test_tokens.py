"""The one token estimate and the one clip (:mod:`remem.tokens`): a clip is a whole-word
prefix marked " ...", never over its budget by the count it is given, and as long as
that count allows."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from remem.llm import estimate_tokens as llm_estimate_tokens
from remem.tokens import ELLIPSIS, clip_tokens, estimate_tokens

TEXT = "My sister moved to Paris last spring and loves the bakeries near her flat."


def words_count(text: str) -> int:
    """A counter unlike the default: one token per whitespace word."""
    return len(text.split())


@pytest.mark.parametrize(
    ("text", "tokens"),
    [("", 0), (" ", 1), ("abcd", 1), ("abcde", 2), ("one two three", 4), ("x" * 400, 100)],
)
def test_estimate_is_about_four_characters_a_token(text, tokens):
    assert estimate_tokens(text) == tokens


def test_the_llm_layer_uses_the_same_estimate():
    assert llm_estimate_tokens is estimate_tokens


def test_text_within_the_budget_is_kept_as_it_is():
    assert clip_tokens(TEXT, estimate_tokens(TEXT)) == TEXT
    assert clip_tokens("  spaced   out  ", 100) == "  spaced   out  "
    assert clip_tokens(TEXT, 100, count=words_count) == TEXT


def test_empty_text():
    assert clip_tokens("", 0) == ""
    assert clip_tokens("", 5) == ""
    assert clip_tokens("", 5, count=words_count) == ""


def test_a_cut_text_is_whole_words_and_the_ellipsis():
    out = clip_tokens(TEXT, 10)
    assert out == "My sister moved to Paris last spring ..."  # 40 characters
    assert estimate_tokens(out) == 10
    # the longest such prefix: one more word would not fit
    assert estimate_tokens("My sister moved to Paris last spring and ...") > 10


def test_a_custom_count_sets_the_cut():
    out = clip_tokens(TEXT, 5, count=words_count)
    assert out == "My sister moved to ..."  # four words and "...": five
    assert words_count(out) == 5


def test_whole_word_prefix_keeps_the_text_s_own_spacing():
    assert clip_tokens("one  two\nthree four five six", 4) == "one  two ..."


def test_a_single_very_long_word_is_cut_by_characters():
    word = "x" * 400
    out = clip_tokens(word, 10)
    assert out == "x" * 36 + ELLIPSIS  # 40 characters: 10 tokens
    assert clip_tokens(word + " tail", 10) == out
    assert clip_tokens("  " + word, 10) == out  # the word, not the space before it
    assert clip_tokens(word, 1) == "xxxx"  # no room for the ellipsis: the word alone
    assert clip_tokens(word, 0) == ""
    assert clip_tokens(word, 2, count=words_count) == word  # one word fits that count
    assert clip_tokens(f"{word} {word}", 1, count=words_count) == word


def test_nothing_fits_a_zero_budget():
    assert clip_tokens(TEXT, 0) == ""
    assert clip_tokens(TEXT, 0, count=words_count) == ""
    assert clip_tokens("   ", 0) == ""


@given(st.text(max_size=300), st.integers(min_value=0, max_value=80))
def test_never_over_the_budget_with_the_default_count(text, budget):
    out = clip_tokens(text, budget)
    assert estimate_tokens(out) <= budget
    assert out == text or out.endswith(ELLIPSIS) or text.lstrip().startswith(out)


@given(
    st.lists(st.text(st.characters(whitelist_categories=("L", "N")), min_size=1), max_size=40),
    st.integers(min_value=0, max_value=30),
)
def test_never_over_the_budget_with_a_custom_count(words, budget):
    text = " ".join(words)
    out = clip_tokens(text, budget, count=words_count)
    assert words_count(out) <= budget
    if out != text and budget >= 2:  # room for a word and the ellipsis
        assert out == " ".join(words[: budget - 1]) + ELLIPSIS
