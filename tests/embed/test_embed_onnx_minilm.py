"""The offline MiniLM ONNX embedder."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem import UnknownComponentError
from remem.embed import create_embedder, embedder_names
from remem.embed.base import normalise
from remem.embed.onnx_minilm import OnnxMiniLM, plan_batches

TEXTS = [
    "Hi!",
    "I adopted a retired racing greyhound named Biscuit last spring.",
    "The weather is nice.",
    "My sister is getting married in Lisbon next September, and the whole family is flying "
    "over from Toronto for a week of celebrations, dinners and a boat trip along the river.",
    "ok",
    "Quarterly revenue grew by twelve percent compared to last year.",
] * 7  # 42 texts of mixed lengths: several batches, the threaded path


def test_shape_dtype_unit_length(embedder):
    assert isinstance(embedder, OnnxMiniLM)
    assert embedder.dim == 384 and embedder.name == "all-MiniLM-L6-v2"
    v = embedder.embed(TEXTS)
    assert v.shape == (len(TEXTS), 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.all(np.isfinite(v))


def test_empty_input(embedder):
    assert embedder.embed([]).shape == (0, 384)


def test_deterministic(embedder):
    a = embedder.embed(TEXTS[:6])
    b = embedder.embed(TEXTS[:6])
    np.testing.assert_allclose(a, b, atol=1e-6)
    np.testing.assert_allclose(
        embedder.embed_one(TEXTS[1]), embedder.embed_one(TEXTS[1]), atol=1e-6
    )


def test_batch_equals_one_by_one(embedder):
    batch = embedder.embed(TEXTS)
    for text, vec in zip(TEXTS[:6], batch[:6], strict=True):
        single = embedder.embed_one(text)
        assert float(single @ vec) > 0.999
    # repeated texts in different batches get the same vector
    for i in range(6, len(TEXTS)):
        assert float(batch[i] @ batch[i % 6]) > 0.999


def test_order_preserved_despite_length_sorting(embedder):
    texts = ["short", "a much much longer sentence about a trip to the mountains", "mid one"]
    fwd = embedder.embed(texts)
    rev = embedder.embed(texts[::-1])
    np.testing.assert_allclose(fwd, rev[::-1], atol=1e-5)


def test_similar_sentences_score_higher(embedder):
    a, b, c = embedder.embed(
        [
            "I adopted a dog from the animal shelter.",
            "We got a rescue puppy last week.",
            "The quarterly tax report is due on Friday.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.2
    assert float(a @ b) > float(b @ c) + 0.2


def test_long_text_is_truncated_not_rejected(embedder):
    v = embedder.embed(["word " * 5000])
    assert v.shape == (1, 384)
    assert abs(float(np.linalg.norm(v)) - 1.0) < 1e-5


def test_create_embedder_shared_and_unknown():
    assert create_embedder("minilm") is create_embedder("minilm")
    assert {"minilm", "openai", "sentence-transformers"} <= set(embedder_names())
    with pytest.raises(UnknownComponentError, match="no-such"):
        create_embedder("no-such")


def test_normalise_handles_zero_rows():
    out = normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])


def test_plan_batches_examples():
    assert plan_batches([], 4, 4.0) == []
    assert plan_batches([5], 4, 4.0) == [(0, 1)]
    # equal lengths and no overhead pressure: full batches
    assert plan_batches([10] * 8, 4, 1000.0) == [(0, 4), (4, 8)]
    # one huge text at the end is split off instead of padding everything to it
    spans = plan_batches([3, 3, 3, 3, 3, 400], 32, 4.0)
    assert spans[-1] == (5, 6)


def test_plan_batches_caps_padded_tokens_of_long_texts_only():
    # short texts (up to long_from) keep full batches: their embeddings never change
    assert plan_batches([100] * 8, 8, 1000.0, max_tokens=200, long_from=128) == [(0, 8)]
    # long ones: at most max_tokens padded tokens a run (one text when even that is over)
    assert plan_batches([256] * 8, 8, 1000.0, 1024, 128) == [(0, 4), (4, 8)]
    assert plan_batches([300, 2000], 8, 1000.0, 1024, 128) == [(0, 1), (1, 2)]


@settings(max_examples=150, deadline=None)
@given(
    lengths=st.lists(st.integers(1, 300), max_size=80).map(sorted),
    max_batch=st.integers(1, 40),
    overhead=st.floats(0.0, 500.0),
    max_tokens=st.one_of(st.none(), st.integers(1, 4000)),
    long_from=st.integers(0, 300),
)
def test_plan_batches_covers_every_index_once_in_order(
    lengths, max_batch, overhead, max_tokens, long_from
):
    spans = plan_batches(lengths, max_batch, overhead, max_tokens, long_from)
    covered = [i for a, b in spans for i in range(a, b)]
    assert covered == list(range(len(lengths)))
    assert all(0 < b - a <= max_batch for a, b in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    if max_tokens is not None:
        for a, b in spans:
            longest = lengths[b - 1]
            assert b - a == 1 or longest <= long_from or (b - a) * longest <= max_tokens


def test_serial_long_embeds_long_calls_the_same(embedder):
    """``serial_long`` runs a call holding long texts one batch at a time on the
    all-cores session (less memory); the vectors are the same, in the same order."""
    long_text = " ".join(
        f"Sentence {i} tells of a trip to the mountains with my aunt." for i in range(40)
    )
    texts = ["short", long_text, "mid length sentence about a cat", long_text[:400], *TEXTS[:20]]
    serial = OnnxMiniLM(serial_long=True, workers=2)
    try:
        got = serial.embed(texts)
    finally:
        serial.close()
    want = embedder.embed(texts)
    assert got.shape == want.shape
    assert np.min(np.sum(got * want, axis=1)) > 0.999
