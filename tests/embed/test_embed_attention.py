"""The MiniLM graph's attention fused into onnxruntime's MultiHeadAttention op
(``remem.embed.attention``): the same vectors as the model as exported, and a graph of
another shape left alone."""

from __future__ import annotations

import pytest

from remem.embed.attention import _schema, fuse_attention
from remem.embed.onnx_minilm import OnnxMiniLM, find_model_file

LONG = (
    "We went through the budget line by line, and after the rent, the car payment and "
    "the groceries there was about four hundred dollars left each month. "
) * 12  # over the 256-piece window: truncated, the widest batch the model runs
TEXTS = [
    "Hi!",
    "I adopted a retired racing greyhound named Biscuit last spring.",
    LONG,
    "ok",
    "Can you suggest a hotel for my upcoming trip to Miami?",
    LONG[: len(LONG) // 3],
] * 6  # mixed lengths in one call: padded batches on the threaded path


@pytest.fixture(scope="module")
def model_bytes() -> bytes:
    return find_model_file().read_bytes()


def test_packaged_model_runs_fused_and_gives_the_same_vectors(embedder):
    plain = OnnxMiniLM(fuse=False)
    try:
        fused_vecs, plain_vecs = embedder.embed(TEXTS), plain.embed(TEXTS)
        assert embedder.attention_fused is True and plain.attention_fused is False
        cosine = (fused_vecs * plain_vecs).sum(axis=1)
        assert cosine.min() > 0.99999
        # one query at a time (the query session) agrees too
        assert float(embedder.embed_one(LONG) @ plain.embed_one(LONG)) > 0.99999
    finally:
        plain.close()


def test_every_attention_block_is_fused_and_the_dead_nodes_dropped(model_bytes):
    Model = _schema()[0]
    before, after = Model(), Model()
    before.ParseFromString(model_bytes)
    fused = fuse_attention(model_bytes, 12)
    assert fused is not None
    after.ParseFromString(fused)
    ops_before = [n.op_type for n in before.graph.node]
    ops_after = [n.op_type for n in after.graph.node]
    assert ops_after.count("MultiHeadAttention") == ops_before.count("Softmax") == 6
    for gone in ("Softmax", "IsNaN", "Where", "GatherND"):
        assert gone not in ops_after
    assert len(ops_after) < len(ops_before)
    # every weight a kept node reads is still there, and no other
    read = {i for n in after.graph.node for i in n.input}
    names = {t.name for t in after.graph.initializer}
    assert names <= read
    weights_before = {t.name for t in before.graph.initializer}
    assert {i for n in after.graph.node for i in n.input if i in weights_before} <= names


def _edited(model_bytes: bytes, edit) -> bytes:
    Model = _schema()[0]
    model = Model()
    model.ParseFromString(model_bytes)
    edit(model)
    return model.SerializeToString()


def test_a_graph_of_another_shape_is_left_alone(model_bytes):
    def no_mask_input(model):
        kept = [i for i in model.graph.input if i.name != "attention_mask"]
        del model.graph.input[:]
        model.graph.input.extend(kept)

    def no_attention(model):
        for n in model.graph.node:
            if n.op_type == "Softmax":
                n.op_type = "Relu"

    def where_not_fed(model):  # the first block's softmax no longer feeds its Where
        softmax = next(n for n in model.graph.node if n.op_type == "Softmax")
        for n in model.graph.node:
            if n.op_type == "Where" and softmax.output[0] in n.input:
                n.op_type = "Max"

    for edit in (no_mask_input, no_attention, where_not_fed):
        assert fuse_attention(_edited(model_bytes, edit), 12) is None


def test_bytes_that_are_not_a_model_fall_back_to_the_plain_load(tmp_path):
    from remem.errors import EmbedderError

    bogus = tmp_path / "model.onnx"
    bogus.write_bytes(b"\x00\x01 not a protobuf")
    embedder = OnnxMiniLM(bogus)
    with pytest.raises(EmbedderError, match="cannot load ONNX model"):
        embedder.embed(["hello"])
    assert embedder.attention_fused is None


def test_the_fused_model_leaves_no_file_behind(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    embedder = OnnxMiniLM()
    try:
        assert embedder.embed(TEXTS[:3]).shape == (3, 384)
        assert embedder.attention_fused is True
        assert list(tmp_path.iterdir()) == []
    finally:
        embedder.close()


def test_no_writable_temporary_folder_loads_the_fused_model_from_memory(tmp_path, monkeypatch):
    import tempfile

    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    monkeypatch.setattr(tempfile, "tempdir", str(not_a_folder))
    embedder, plain = OnnxMiniLM(), OnnxMiniLM(fuse=False)
    try:
        v = embedder.embed(TEXTS[:6])
        assert embedder.attention_fused is True
        assert (v * plain.embed(TEXTS[:6])).sum(axis=1).min() > 0.99999
    finally:
        embedder.close()
        plain.close()
