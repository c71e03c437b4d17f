"""Cutting long memories into passages (``index/passages.py``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from remem.index.passages import PassagePlan, split_passages


def words(text: str) -> int:
    return len(text.split())


def test_a_text_that_fits_is_one_passage():
    text = "One short answer. With two sentences."
    assert split_passages(text, words, PassagePlan(max_pieces=10)) == [(0, len(text))]
    assert split_passages("", words) == [(0, 0)]


def test_sentences_pack_into_windows_that_share_one_sentence():
    text = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota. Kappa lambda mu."
    spans = split_passages(text, words, PassagePlan(max_pieces=6, overlap=1))
    parts = [text[a:b] for a, b in spans]
    assert parts == [
        "Alpha beta gamma. Delta epsilon zeta.",
        "Delta epsilon zeta. Eta theta iota.",
        "Eta theta iota. Kappa lambda mu.",
    ]
    no_overlap = split_passages(text, words, PassagePlan(max_pieces=6, overlap=0))
    assert [text[a:b] for a, b in no_overlap] == [
        "Alpha beta gamma. Delta epsilon zeta.",
        "Eta theta iota. Kappa lambda mu.",
    ]


def test_lines_end_sentences_and_long_sentences_split_at_words():
    text = "Here is a plan:\n- buy boots\n- book the hut\n" + " ".join(["word"] * 9) + "."
    spans = split_passages(text, words, PassagePlan(max_pieces=4, overlap=0))
    parts = [text[a:b] for a, b in spans]
    assert parts[0] == "Here is a plan:"
    assert "- buy boots" in parts[1]
    assert all(words(p) <= 4 for p in parts)
    assert " ".join(p for p in parts).split() == text.split()  # every word, in order


@settings(max_examples=200, deadline=None)
@given(
    sentences=st.lists(
        st.lists(
            st.sampled_from(["cat", "sat", "on", "mat", "Lisbon", "2023"]), min_size=1, max_size=15
        ),
        min_size=1,
        max_size=30,
    ),
    max_pieces=st.integers(1, 20),
    overlap=st.integers(0, 2),
)
def test_every_word_is_in_a_passage_and_windows_stay_within_the_limit(
    sentences, max_pieces, overlap
):
    text = " ".join(" ".join(s) + "." for s in sentences)
    spans = split_passages(text, words, PassagePlan(max_pieces=max_pieces, overlap=overlap))
    assert spans[0][0] == 0 and spans[-1][1] <= len(text)
    assert all(a < b for a, b in spans)
    assert [a for a, _ in spans] == sorted(a for a, _ in spans)  # forward only
    covered = set()
    for a, b in spans:
        if len(spans) > 1:
            assert words(text[a:b]) <= max_pieces
        covered |= {i for i in range(a, b) if not text[i].isspace()}
    assert covered == {i for i, c in enumerate(text) if not c.isspace()}


def test_cutting_by_piece_offsets_gives_the_spans_of_counting_each_sentence():
    """The MiniLM tokenizer's piece offsets, from one call for all texts, cut every
    text as counting each sentence and word does (accents, emoji, CJK, a sentence
    longer than a window, lines, a speaker's prefix through ``embed_memories``)."""
    from remem.embed import create_embedder

    minilm = create_embedder("minilm")
    texts = [
        "Café déjà vu. Naïve résumé façade! " * 30,
        "Plan:\n- pack 🎒 boots\n- 東京で会いましょう。\n" + " ".join(["fantastical"] * 150),
        "short one.",
        "A sentence with numbers 3.14, 2,500 and 10:30am, (brackets) and 'quotes'. " * 25,
    ]
    starts = minilm.piece_starts(texts)
    assert starts is not None and [len(s) for s in starts] == [
        minilm.count_pieces(t) for t in texts
    ]
    for text, mine in zip(texts, starts, strict=True):
        for plan in (PassagePlan(50, 1), PassagePlan(128, 0), PassagePlan(200, 1)):
            by_sentence = split_passages(text, minilm.count_pieces, plan)
            assert split_passages(text, minilm.count_pieces, plan, mine) == by_sentence
