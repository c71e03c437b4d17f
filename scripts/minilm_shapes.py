"""What the MiniLM model costs per word piece at a batch shape, and whether fusing its
attention would help (development script; docs/benchmarks.md, "Efficiency on long
texts").

    .venv/bin/pip install onnx sympy   # only for --fused (not remem dependencies)
    .venv/bin/python scripts/minilm_shapes.py [--fused]

Times single-threaded onnxruntime sessions (as remem's batch workers run them) on
random ids at batch x width shapes, in alternation, 3 rounds, best round kept, and
prints word pieces per second. ``--fused`` also rewrites the packaged model's attention
(the exported graph's matmul / mask / softmax / IsNaN-Where per layer) into
onnxruntime's fused ``com.microsoft.MultiHeadAttention`` op and times it beside the
original, after checking the pooled vectors agree (cosine > 0.9999).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import onnxruntime as ort

from remem.embed.onnx_minilm import find_model_file

SHAPES = [(16, 40), (2, 40), (2, 128), (2, 202), (8, 202), (1, 256)]


def session(path: str) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.enable_mem_pattern = False
    opts.log_severity_level = 3
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def feeds(batch: int, width: int, pad: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 20000, (batch, width)).astype(np.int64)
    mask = np.ones_like(ids)
    if pad:
        mask[-1, width - pad :] = 0
        ids[mask == 0] = 0
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def fuse_attention(src: str, dst: str) -> int:
    import onnx
    from onnx import TensorProto, helper

    model = onnx.load(src)
    g = model.graph
    made = {o: n for n in g.node for o in n.output}
    used: dict[str, list] = {}
    for n in g.node:
        for i in n.input:
            used.setdefault(i, []).append(n)

    def projection(name: str):  # back through reshapes, transposes and the scale
        n = made[name]
        while n.op_type in ("Reshape", "Transpose", "Mul"):
            n = made[n.input[0]]
        return n

    new = [helper.make_node("Cast", ["attention_mask"], ["mask_i32"], to=TensorProto.INT32)]
    for i, softmax in enumerate([n for n in g.node if n.op_type == "Softmax"]):
        scores = made[made[softmax.input[0]].input[0]]
        q, k = projection(scores.input[0]), projection(scores.input[1])
        where = next(c for c in used[softmax.output[0]] if c.op_type == "Where")
        context = used[where.output[0]][0]
        v = projection(context.input[1])
        reshape = used[used[context.output[0]][0].output[0]][0]
        new.append(
            helper.make_node(
                "MultiHeadAttention",
                [q.output[0], k.output[0], v.output[0], "", "mask_i32"],
                [reshape.output[0]],
                domain="com.microsoft",
                num_heads=12,
                name=f"fused_attention_{i}",
            )
        )
        g.node.remove(reshape)
    g.node.extend(new)
    outputs = {o.name for o in g.output}
    while True:  # drop what nothing reads any more
        read = {i for n in g.node for i in n.input} | outputs
        dead = [n for n in g.node if not any(o in read for o in n.output)]
        if not dead:
            break
        for n in dead:
            g.node.remove(n)
    ready = {i.name for i in g.input} | {i.name for i in g.initializer} | {""}
    order, rest = [], list(g.node)
    while rest:  # topological order
        step = [n for n in rest if all(i in ready for i in n.input)]
        for n in step:
            order.append(n)
            ready.update(n.output)
            rest.remove(n)
    del g.node[:]
    g.node.extend(order)
    model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    onnx.save(model, dst)
    return len(new) - 1


def pooled(sess: ort.InferenceSession, f: dict[str, np.ndarray]) -> np.ndarray:
    hidden = sess.run(None, f)[0]
    w = f["attention_mask"][..., None]
    v = (hidden * w).sum(1) / w.sum(1)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fused", action="store_true")
    ap.add_argument("--seconds", type=float, default=1.5)
    args = ap.parse_args()
    paths = {"packaged": str(find_model_file())}
    if args.fused:
        paths["fused"] = tempfile.mkstemp(suffix=".onnx")[1]
        print("attention blocks fused:", fuse_attention(paths["packaged"], paths["fused"]))
    sessions = {name: session(p) for name, p in paths.items()}
    if args.fused:
        f = feeds(3, 50, pad=20)
        agree = (pooled(sessions["packaged"], f) * pooled(sessions["fused"], f)).sum(1)
        print("cosine of pooled vectors, fused against packaged:", agree.round(6).tolist())
        assert agree.min() > 0.9999
    for batch, width in SHAPES:
        best: dict[str, float] = {}
        f = feeds(batch, width)
        for _ in range(3):
            for name, sess in sessions.items():
                sess.run(None, f)
                t0, runs = time.perf_counter(), 0
                while time.perf_counter() - t0 < args.seconds:
                    sess.run(None, f)
                    runs += 1
                rate = runs * batch * width / (time.perf_counter() - t0)
                best[name] = max(best.get(name, 0.0), rate)
        print(f"batch {batch:2d} x width {width:3d}:", {k: round(v) for k, v in best.items()})


if __name__ == "__main__":
    main()
