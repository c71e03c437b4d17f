"""What the MiniLM model costs per word piece at a batch shape, and whether fusing its
attention would help (development script; docs/benchmarks.md, "Efficiency on long
texts").

    .venv/bin/python scripts/minilm_shapes.py [--fused]

Times single-threaded onnxruntime sessions (as remem's batch workers run them) on
random ids at batch x width shapes, in alternation, 3 rounds, best round kept, and
prints word pieces per second. ``--fused`` also times the model as remem loads it, its
attention fused into onnxruntime's ``MultiHeadAttention`` op
(``remem.embed.attention``), beside the packaged one, after checking the pooled vectors
agree (cosine > 0.9999).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np
import onnxruntime as ort

from remem.embed.attention import fuse_attention
from remem.embed.onnx_minilm import OnnxMiniLM, find_model_file

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
        fused = fuse_attention(find_model_file().read_bytes(), OnnxMiniLM.heads)
        assert fused is not None, "the packaged model's graph did not match"
        paths["fused"] = tempfile.mkstemp(suffix=".onnx")[1]
        with open(paths["fused"], "wb") as out:
            out.write(fused)
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
