"""The incremental BM25 index scores exactly like a fresh bm25s Lucene index."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.index.bm25 import BM25Index
from remem.index.tokenize import STOPWORDS, inflection_key, tokenize

VOCAB = [
    "cat",
    "dog",
    "park",
    "river",
    "coffee",
    "Lisbon",
    "guitar",
    "garden",
    "winter",
    "doctor",
    "kayak",
    "honey",
    "the",
    "and",
    "is",
    "a",
    "I",
    "of",
]


def reference_scores(docs: list[str], query: str) -> np.ndarray:
    """bm25s (method="lucene") over exactly these docs."""
    tokens = bm25s.tokenize(docs, stopwords="en", show_progress=False)
    retriever = bm25s.BM25(method="lucene")
    retriever.index(tokens, show_progress=False)
    q = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
    q = [t for t in q if t in retriever.vocab_dict]
    if not q:
        return np.zeros(len(docs), dtype=np.float32)
    return np.asarray(retriever.get_scores(q))


def _docs(rng: np.random.Generator, n: int) -> list[str]:
    out = []
    for _ in range(n):
        words = list(rng.choice(VOCAB, size=int(rng.integers(1, 12))))
        words.append(str(rng.choice(VOCAB[:12])))  # at least one non-stopword
        out.append(" ".join(words))
    return out


QUERIES = [
    "cat",
    "dog park",
    "coffee in Lisbon",
    "river river kayak",
    "the guitar and a garden",
    "winter doctor honey cat dog",
    "unknownword",
    "cat cat cat",
]


def test_the_stopwords_are_bm25s_own():
    """tokenize.py writes bm25s' English list out (importing it costs scipy)."""
    from bm25s.stopwords import STOPWORDS_EN

    assert frozenset(STOPWORDS_EN) == STOPWORDS


def test_matches_bm25s_on_fixed_corpus():
    docs = [
        "the cat sat on the mat",
        "dogs chase cats in the park park",
        "a quick brown fox jumps",
        "cat cat cat food",
        "park rangers love dogs",
        "Cat food: the CAT's favourite!",
    ]
    idx = BM25Index()
    idx.add(docs)
    for q in ["cat", "cat park dogs cat", "food", "fox", "nothing here", "CAT"]:
        np.testing.assert_allclose(idx.scores(q), reference_scores(docs, q), atol=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_matches_bm25s_random_corpus_incremental(seed):
    rng = np.random.default_rng(seed)
    docs = _docs(rng, 120)
    idx = BM25Index()
    # added in uneven batches, searched in between (statistics must stay current)
    cuts = sorted(rng.choice(np.arange(1, 120), size=6, replace=False).tolist()) + [120]
    start = 0
    for cut in cuts:
        idx.add(docs[start:cut])
        start = cut
        for q in QUERIES[:3]:
            np.testing.assert_allclose(idx.scores(q), reference_scores(docs[:cut], q), atol=1e-4)
    assert len(idx) == 120 and idx.size == 120
    for q in QUERIES:
        np.testing.assert_allclose(idx.scores(q), reference_scores(docs, q), atol=1e-4)


@pytest.mark.parametrize("seed", range(5))
def test_matches_bm25s_after_removals(seed):
    rng = np.random.default_rng(100 + seed)
    docs = _docs(rng, 80)
    idx = BM25Index()
    idx.add(docs)
    removed = set(rng.choice(80, size=25, replace=False).tolist())
    for p in removed:
        idx.remove(p)
    idx.remove(next(iter(removed)))  # removing twice is a no-op
    idx.remove(10_000)  # out of range is a no-op
    live = [p for p in range(80) if p not in removed]
    assert len(idx) == len(live) and idx.size == 80
    for q in QUERIES:
        got = idx.scores(q)
        assert got.shape == (80,)
        assert np.all(got[sorted(removed)] == 0.0)
        np.testing.assert_allclose(
            got[live], reference_scores([docs[p] for p in live], q), atol=1e-4
        )
    # adding after removals: new positions continue, statistics include them
    extra = _docs(rng, 10)
    idx.add(extra)
    live_docs = [docs[p] for p in live] + extra
    live_pos = live + list(range(80, 90))
    for q in QUERIES:
        np.testing.assert_allclose(
            idx.scores(q)[live_pos], reference_scores(live_docs, q), atol=1e-4
        )


@settings(max_examples=40, deadline=None)
@given(
    docs=st.lists(
        st.lists(st.sampled_from(VOCAB), min_size=1, max_size=8).map(" ".join),
        min_size=1,
        max_size=25,
    ),
    query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=4).map(" ".join),
    data=st.data(),
)
def test_matches_bm25s_property(docs, query, data):
    docs = [d + " kayak" for d in docs]  # no document made only of stopwords
    idx = BM25Index()
    idx.add(docs)
    dead = data.draw(st.sets(st.integers(0, len(docs) - 1), max_size=len(docs) - 1))
    for p in dead:
        idx.remove(p)
    live = [p for p in range(len(docs)) if p not in dead]
    got = idx.scores(query)
    np.testing.assert_allclose(
        got[live], reference_scores([docs[p] for p in live], query), atol=1e-4
    )
    assert np.all(got[sorted(dead)] == 0.0)


def test_a_removed_documents_own_words_leave_the_index():
    """A deleted memory's words (a passport number) must not stay in the process:
    a word no live document holds leaves the vocabulary; shared words stay; scores
    stay those of the live documents, also when the word comes back."""
    idx = BM25Index()
    docs = ["the passport number xk4471 is in the drawer", "the drawer is blue", "kayak"]
    idx.add(docs)
    idx.remove(0)
    assert "xk4471" not in idx._vocab and "passport" not in idx._vocab
    assert "drawer" in idx._vocab
    held = " ".join(w for w in idx._tokens if w is not None)
    assert "xk4471" not in held
    idx.add(["a new passport xk4471"])
    live = [docs[1], docs[2], "a new passport xk4471"]
    for q in ("passport xk4471", "drawer", "kayak blue"):
        np.testing.assert_allclose(idx.scores(q)[1:], reference_scores(live, q), atol=1e-4)


def test_empty_and_all_removed():
    idx = BM25Index()
    assert idx.scores("cat").shape == (0,)
    idx.add(["cat dog", "cat"])
    idx.remove(0)
    idx.remove(1)
    assert len(idx) == 0
    np.testing.assert_array_equal(idx.scores("cat"), [0.0, 0.0])
    idx.add(["cat again"])
    s = idx.scores("cat")
    assert s[0] == 0 and s[1] == 0 and s[2] > 0


def test_custom_k1_b_change_scores():
    docs = ["cat cat cat cat dog", "cat", "dog park river"]
    a, b = BM25Index(), BM25Index(k1=0.5, b=0.2)
    a.add(docs)
    b.add(docs)
    assert not np.allclose(a.scores("cat"), b.scores("cat"))


def test_tokenize_matches_bm25s():
    texts = [
        "The Cat's pyjamas, aren't they?",
        "Lisbon in MAY — café & crème brûlée 2024",
        "a I x y ab",
        "snake_case and CamelCase words",
    ]
    for text in texts:
        ref = bm25s.tokenize([text], stopwords="en", return_ids=False, show_progress=False)[0]
        assert tokenize(text) == ref
    assert tokenize("the and of a") == []


# -- inflected forms as one term ------------------------------------------------------

FORMS = [
    "class", "classes", "doctor", "doctors", "bake", "baked", "baking", "gallery",
    "galleries", "stop", "stopped", "run", "running", "visit", "visited", "visits",
    "river", "kayak", "the", "and", "I",
]  # fmt: skip


@pytest.mark.parametrize(
    "forms",
    [
        ("class", "classes"),
        ("doctor", "doctors"),
        ("bake", "baked", "baking", "bakes"),
        ("gallery", "galleries"),
        ("stop", "stopped", "stopping", "stops"),
        ("run", "running", "runs"),
        ("try", "tries", "tried", "trying"),
        ("day", "days"),
        ("watch", "watches", "watched"),
        ("call", "called", "calls"),
        ("need", "needed", "needs"),
    ],
)
def test_inflected_forms_share_their_key(forms):
    assert len({inflection_key(f) for f in forms}) == 1, [inflection_key(f) for f in forms]


@pytest.mark.parametrize(
    "a, b",
    [
        ("organization", "organize"),  # derivations keep their own keys (Porter: "organ")
        ("university", "universal"),
        ("news", "new"),
        ("evening", "even"),
        ("thing", "th"),
        ("class", "clas"),
        ("bus", "bu"),
        ("2020s", "2020"),  # not a word: left as it is
    ],
)
def test_different_words_keep_different_keys(a, b):
    assert inflection_key(a) != inflection_key(b)


def _keyed(text: str) -> str:
    return " ".join(inflection_key(t) for t in tokenize(text))


def _form_docs(rng: np.random.Generator, n: int) -> list[str]:
    return [" ".join(rng.choice(FORMS, size=int(rng.integers(1, 10)))) for _ in range(n)]


@pytest.mark.parametrize("seed", range(4))
def test_inflections_score_as_an_index_of_keys_would(seed):
    """scores(inflections=True) over the words as written equals plain BM25 over the
    same memories with every word replaced by its key: a stemmed index, built at
    query time from the unstemmed one - also after removals and later adds."""
    rng = np.random.default_rng(seed)
    docs = _form_docs(rng, 60)
    idx = BM25Index()
    idx.add(docs)
    removed = set(rng.choice(60, size=15, replace=False).tolist())
    for p in removed:
        idx.remove(p)
    docs += _form_docs(rng, 10)
    idx.add(docs[60:])
    live = [p for p in range(70) if p not in removed]
    keyed = BM25Index()
    keyed.add([_keyed(docs[p]) for p in live])
    for q in ["classes", "doctor baked", "the running galleries", "stops visits kayak", "x"]:
        got = idx.scores(q, inflections=True)
        assert np.all(got[sorted(removed)] == 0.0)
        np.testing.assert_allclose(got[live], keyed.scores(_keyed(q)), atol=1e-5)


def test_inflections_reach_forms_the_plain_scores_miss():
    idx = BM25Index()
    idx.add(["I take a BodyPump class on Mondays", "my doctor moved", "nothing here"])
    assert idx.scores("fitness classes")[0] == 0.0
    got = idx.scores("fitness classes", inflections=True)
    assert got[0] > 0 and got[1] == got[2] == 0.0
    assert idx.scores("doctors", inflections=True)[1] > 0


def test_a_forgotten_form_leaves_the_forms_table():
    idx = BM25Index()
    idx.add(["classes start", "one class"])
    idx.remove(0)
    idx.remove(1)
    assert idx._forms == {} and not idx.scores("class", inflections=True).any()


def test_holders_are_the_live_documents_with_the_word_as_written():
    idx = BM25Index()
    idx.add(["Order A035X shipped", "order a035x late", "classes", "Order A036X"])
    assert idx.holders("a035x").tolist() == [0, 1]
    assert idx.holders("class").tolist() == []  # no other inflected form
    idx.remove(0)
    assert idx.holders("a035x").tolist() == [1]
    idx.remove(1)
    assert idx.holders("a035x").tolist() == [] and idx.holders("nowhere").tolist() == []


def test_relative_lengths_are_over_the_live_documents_median():
    """``relative_lengths`` (SYNAPSE's ``neighbour_length``): a document's token count
    over the median of the live ones; a removed document counts 0 and leaves the
    median."""
    idx = BM25Index()
    idx.add(["red fox", "quick brown fox jumps", "lazy dog sleeps all day long", "cat"])
    lengths = [len(tokenize(t)) for t in ["red fox", "quick brown fox jumps", "cat"]]
    median = float(np.median(lengths))
    idx.remove(2)
    rel = idx.relative_lengths()
    assert rel.tolist() == pytest.approx([2 / median, 4 / median, 0.0, 1 / median])
    assert BM25Index().relative_lengths().size == 0
    # by group (who said it): each against its own group's median
    by = BM25Index()
    by.add(
        [
            "red fox lazy dog",
            "red fox",
            "oak elm ash yew fir pine beech birch",
            "deer hare wolf bear",
        ]
    )
    rel = by.relative_lengths(np.array([0, 0, 1, 1]))
    assert rel.tolist() == pytest.approx([4 / 3, 2 / 3, 8 / 6, 4 / 6])
    # kept between calls, made again when a document comes or goes
    by.add(["red"])
    rel = by.relative_lengths(np.array([0, 0, 1, 1, 0]))
    assert rel.tolist() == pytest.approx([4 / 2, 2 / 2, 8 / 6, 4 / 6, 1 / 2])
    by.remove(4)
    assert by.relative_lengths(np.array([0, 0, 1, 1, 0]))[4] == 0
    for pos in (0, 1, 3):
        idx.remove(pos)
    assert (idx.relative_lengths() == 0).all()
