"""Fuse the MiniLM graph's attention into onnxruntime's ``MultiHeadAttention`` op.

Why: the packaged model is a PyTorch export whose attention is a dozen separate
operators per layer (two scaled matrix products, the mask added, softmax, then an
``IsNaN``/``Where`` pass over the whole batch x heads x width x width score tensor).
That work grows with the width, so a long memory's word pieces (passages of about
200) embedded about 15-20% slower than a chat turn's. onnxruntime's fused CPU kernel
does the same computation in one pass: 5-12% more word pieces per second at widths
128-256 and 1-5% at 40, the same vectors (cosine 1.0 to six digits;
``scripts/minilm_shapes.py --fused``,
docs/notes/benchmark-history.md#efficiency-on-long-texts).

How: the rewrite reads and writes the model with ``protobuf`` (a dependency of
onnxruntime) through a schema of only the fields it touches; everything else - the
weights, shapes, metadata - passes through as unknown fields, byte for byte. It needs
no ``onnx`` package (whose import alone takes a second). A graph that does not have
the expected shape is left alone: :func:`fuse_attention` returns None and the caller
loads the model as it is.
"""

from __future__ import annotations

from functools import cache
from typing import Any

#: Where the score tensor's mask comes from, cast once for the fused op.
_MASK = "remem_attention_mask_i32"
_PASS_THROUGH = ("Reshape", "Transpose", "Mul")


@cache
def _schema() -> tuple[Any, Any, Any]:
    """(Model, Node, OpsetId) message classes for the subset of onnx.proto used here
    (field numbers as in onnx.proto; proto2 keeps every other field as unknown)."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    F = descriptor_pb2.FieldDescriptorProto
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    file = descriptor_pb2.FileDescriptorProto(
        name="remem_onnx_subset.proto", package="remem_onnx_subset", syntax="proto2"
    )

    def message(name: str, *fields: tuple[str, int, int, int, str]) -> None:
        msg = file.message_type.add(name=name)
        for fname, number, label, ftype, type_name in fields:
            field = msg.field.add(name=fname, number=number, label=label, type=ftype)
            if type_name:
                field.type_name = f".remem_onnx_subset.{type_name}"

    message(
        "Attribute",
        ("name", 1, opt, F.TYPE_STRING, ""),
        ("i", 3, opt, F.TYPE_INT64, ""),
        ("type", 20, opt, F.TYPE_INT32, ""),
    )
    message(
        "Node",
        ("input", 1, rep, F.TYPE_STRING, ""),
        ("output", 2, rep, F.TYPE_STRING, ""),
        ("name", 3, opt, F.TYPE_STRING, ""),
        ("op_type", 4, opt, F.TYPE_STRING, ""),
        ("attribute", 5, rep, F.TYPE_MESSAGE, "Attribute"),
        ("domain", 7, opt, F.TYPE_STRING, ""),
    )
    message("ValueInfo", ("name", 1, opt, F.TYPE_STRING, ""))
    message("Tensor", ("name", 8, opt, F.TYPE_STRING, ""))
    message(
        "Graph",
        ("node", 1, rep, F.TYPE_MESSAGE, "Node"),
        ("initializer", 5, rep, F.TYPE_MESSAGE, "Tensor"),
        ("input", 11, rep, F.TYPE_MESSAGE, "ValueInfo"),
        ("output", 12, rep, F.TYPE_MESSAGE, "ValueInfo"),
    )
    message("OpsetId", ("domain", 1, opt, F.TYPE_STRING, ""), ("version", 2, opt, F.TYPE_INT64, ""))
    message(
        "Model",
        ("graph", 7, opt, F.TYPE_MESSAGE, "Graph"),
        ("opset_import", 8, rep, F.TYPE_MESSAGE, "OpsetId"),
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)

    def cls(name: str) -> Any:
        return message_factory.GetMessageClass(
            pool.FindMessageTypeByName(f"remem_onnx_subset.{name}")
        )

    return cls("Model"), cls("Node"), cls("OpsetId")


def fuse_attention(model_bytes: bytes, num_heads: int) -> bytes | None:
    """The model with each attention block (from the query, key and value projections
    to the heads merged back) replaced by one ``com.microsoft.MultiHeadAttention``
    node, the nodes nothing reads any more dropped; None when any block does not match
    the pattern of a BERT exported from PyTorch (then nothing is changed)."""
    Model, Node, OpsetId = _schema()
    model = Model()
    model.ParseFromString(model_bytes)
    nodes = list(model.graph.node)
    if "attention_mask" not in {i.name for i in model.graph.input}:
        return None
    try:
        replaced = _fused_blocks(_Wiring(nodes, Node), Node, num_heads)
    except LookupError:
        return None
    if not replaced:  # no Softmax: no attention block
        return None
    cast = Node(input=["attention_mask"], output=[_MASK], name=_MASK, op_type="Cast")
    cast.attribute.add(name="to", i=6, type=2)  # TensorProto.INT32
    # the fused node takes the merge's place: its inputs are all made before it
    _keep_read(model, [cast] + [replaced.get(id(n), n) for n in nodes])
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(OpsetId(domain="com.microsoft", version=1))
    return bytes(model.SerializeToString())


class _Wiring:
    """Who makes and who reads each tensor of a graph, and the steps that walk the
    attention pattern through them; each raises LookupError where it does not match."""

    def __init__(self, nodes: list[Any], Node: Any):
        self.nodes = nodes
        self.Node = Node
        self.made = {out: n for n in nodes for out in n.output}
        self.readers: dict[str, list[Any]] = {}
        for n in nodes:
            for name in n.input:
                self.readers.setdefault(name, []).append(n)

    def producer(self, name: str, op: str) -> Any:
        node = self.made.get(name)
        if node is None or node.op_type != op:
            raise LookupError(name)
        return node

    def only_reader(self, name: str, op: str) -> Any:
        found = self.readers.get(name, [])
        if len(found) != 1 or found[0].op_type != op:
            raise LookupError(name)
        return found[0]

    def projection(self, name: str) -> Any:
        """Back from a head-split tensor to the linear layer (MatMul + bias) making it."""
        node = self.made.get(name)
        while node is not None and node.op_type in _PASS_THROUGH:
            node = self.made.get(node.input[0])
        if node is None or node.op_type != "Add":
            raise LookupError(name)
        if self.made.get(node.input[0], self.Node()).op_type != "MatMul":
            raise LookupError(name)
        return node


def _fused_blocks(wiring: _Wiring, Node: Any, num_heads: int) -> dict[int, Any]:
    """For each Softmax, the fused attention node that replaces its block, keyed by
    the ``id`` of the block's last node (the Reshape merging the heads back): scores
    = MatMul(q, k) + mask, Where after the Softmax, MatMul with v, Transpose, Reshape.
    Raises LookupError when a block does not match."""
    replaced: dict[int, Any] = {}
    softmaxes = [n for n in wiring.nodes if n.op_type == "Softmax"]
    for i, softmax in enumerate(softmaxes):
        scores = wiring.producer(wiring.producer(softmax.input[0], "Add").input[0], "MatMul")
        q, k = wiring.projection(scores.input[0]), wiring.projection(scores.input[1])
        where = [r for r in wiring.readers.get(softmax.output[0], []) if r.op_type == "Where"]
        if len(where) != 1:
            raise LookupError(softmax.name)
        context = wiring.only_reader(where[0].output[0], "MatMul")
        v = wiring.projection(context.input[1])
        transpose = wiring.only_reader(context.output[0], "Transpose")
        merged = wiring.only_reader(transpose.output[0], "Reshape")
        fused = Node(
            input=[q.output[0], k.output[0], v.output[0], "", _MASK],
            output=[merged.output[0]],
            name=f"remem_fused_attention_{i}",
            op_type="MultiHeadAttention",
            domain="com.microsoft",
        )
        fused.attribute.add(name="num_heads", i=num_heads, type=2)  # AttributeProto.INT
        replaced[id(merged)] = fused
    return replaced


def _keep_read(model: Any, kept: list[Any]) -> None:
    """Set the graph's nodes to ``kept`` less every node whose outputs nothing reads
    (repeatedly: dropping one can orphan its inputs' makers), and drop the constants
    only the dropped nodes read (onnxruntime would warn about each)."""
    outputs = {o.name for o in model.graph.output}
    while True:
        read = {name for n in kept for name in n.input} | outputs
        alive = [n for n in kept if any(out in read for out in n.output)]
        if len(alive) == len(kept):
            break
        kept = alive
    del model.graph.node[:]
    model.graph.node.extend(kept)
    read = {name for n in kept for name in n.input} | outputs
    weights = [t for t in model.graph.initializer if t.name in read]
    del model.graph.initializer[:]
    model.graph.initializer.extend(weights)
