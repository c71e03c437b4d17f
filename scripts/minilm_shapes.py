"""What the MiniLM model costs per word piece at a batch shape, and whether fusing its
attention helps (development script;
docs/notes/benchmark-history.md#efficiency-on-long-texts).

    .venv/bin/python scripts/minilm_shapes.py [--fused]

Times the single-threaded onnxruntime session remem's batch workers run
(``OnnxMiniLM._open_session(1)``, the model as packaged) on random ids at batch x width
shapes, in alternation, 3 rounds, best round kept, and prints word pieces per second.
``--fused`` also times the session with its attention fused into onnxruntime's
``MultiHeadAttention`` op (``remem.embed.attention``, remem's default), after checking
both embed a few texts alike (cosine > 0.9999).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from remem.embed.onnx_minilm import OnnxMiniLM

SHAPES = [(16, 40), (2, 40), (2, 128), (2, 202), (8, 202), (1, 256)]
TEXTS = ["Hi!", "I adopted a retired racing greyhound named Biscuit last spring.", "ok " * 300]


def feeds(batch: int, width: int) -> dict[str, np.ndarray]:
    ids = np.random.default_rng(0).integers(1000, 20000, (batch, width)).astype(np.int64)
    return {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": 0 * ids}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fused", action="store_true")
    ap.add_argument("--seconds", type=float, default=1.5)
    args = ap.parse_args()
    embedders = {"packaged": OnnxMiniLM(fuse=False)}
    if args.fused:
        embedders["fused"] = OnnxMiniLM()
        agree = (embedders["packaged"].embed(TEXTS) * embedders["fused"].embed(TEXTS)).sum(1)
        print("cosine, fused against packaged:", agree.round(6).tolist())
        assert embedders["fused"].attention_fused and agree.min() > 0.9999
    sessions = {name: e._open_session(1) for name, e in embedders.items()}
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
