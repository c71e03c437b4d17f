"""A real OpenAI-compatible llama.cpp server for the tests, as its own process:
llama.cpp's ``llama-server`` code from the prebuilt ``xllamacpp`` wheel (no compile),
serving a GGUF on loopback until it is killed. Started by ``llama_server.py``:

    python tests/gguf_server.py --model M.gguf --port N [--n_ctx 1024] [--n_threads 1]
        [--seed 0] [--embedding]
"""

from __future__ import annotations

import argparse
import threading


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--n_ctx", type=int, default=1024)
    ap.add_argument("--n_threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--embedding", action="store_true")
    args = ap.parse_args()

    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.n_ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.n_threads  # 2 spinning threads crawl on a busy box
    params.cpuparams_batch.n_threads = args.n_threads
    params.sampling.seed = args.seed
    params.warmup = False
    params.embedding = args.embedding
    if args.embedding:  # /v1/embeddings refuses per-token vectors ("not OAI compatible")
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    server = xllamacpp.Server(params)
    print(f"listening on {server.listening_address}", flush=True)
    threading.Event().wait()  # serve until killed


if __name__ == "__main__":
    main()
