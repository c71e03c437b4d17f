"""End-to-end LoCoMo QA: memory engines side by side with one reader.

Every engine answers through the public ``Memory.answer`` with the same LLM
instance, so F1 differences are the memory's. Per question a JSONL row is kept
(question, gold, prediction, evidence ids, tokens, calls, latency) for audits.

Two baselines run in the same process:
- ``full-context``: the whole conversation, truncated to the reader's window. The
  policy: keep the most recent turns that fit the window minus the instructions
  and the answer's tokens (a reader with a 2,048-token window sees the last few
  sessions only), in time order. It is the "no memory system" row.
- the engines' own rows (``hybrid`` is the retrieval baseline).

Readers side by side (``readers``): each question is recalled once and the same
recall is read by every reader (``none``, ``local``, ...), so the differences are the
readers'; a row's ``engine`` is then ``<engine>/<reader>``. This path calls
``Memory.recall`` and the reader, so ILSTMA's notes and its judge's prepared answer,
which only ``Memory.answer`` passes on, play no part in it.

Beside the official F1 each row keeps the gold answer's containment (the share of
its normalised tokens found in the reply; :func:`~remem_bench.qa_metrics.containment`)
and the reply's length in those tokens: F1 punishes a right answer said in a
sentence, containment does not, and length shows what containment does not punish.

Category 5 is asked as a plain question: offering the adversarial answer as one
of two options, as the official generation script does, would hand the reader the
false premise, and a memory layer is judged on refusing without such help. Its
score is the refusal rate. False refusals are reported on categories 1-4.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from string import Template
from typing import IO, Any

import numpy as np

from remem import LLM, Answer, Memory, Recall, create_llm
from remem.answer import Answerer
from remem.embed import create_embedder
from remem.llm.prompts import render

from .answercheck import held_words, invented_from
from .dategrade import date_right
from .embedcache import MemoEmbedder
from .locomo import Conversation, Question, load_locomo
from .metrics import evidence_recall, mean, percentile
from .qa_metrics import containment, locomo_f1, tokens

log = logging.getLogger("remem_bench")

FULL_CONTEXT = "full-context"
ALL_CATEGORIES = (1, 2, 3, 4, 5)


def run_locomo_qa(
    data_path: str,
    engines: Sequence[str],
    *,
    llm: str = "local",
    llm_options: dict[str, Any] | None = None,
    k: int = 10,
    max_context_tokens: int = 900,
    grounding: float = 0.0,
    answer_options: dict[str, Any] | None = None,
    conversations: Sequence[str] | None = None,
    limit: int | None = None,
    categories: Sequence[int] = ALL_CATEGORIES,
    judge: LLM | None = None,
    jsonl: str | None = None,
    resume: bool = False,
    resume_from: Sequence[str] = (),
    progress: Callable[[str], None] | None = None,
    readers: Sequence[str] = (),
) -> dict[str, Any]:
    """Answer the questions with every engine; ``resume`` keeps the complete
    (engine, conversation) blocks of an earlier ``jsonl`` and runs only the rest, so a
    full run (hours on 2 CPU cores) can be done in parts. ``resume_from`` names more
    JSONL files (parts run in parallel) whose complete blocks are taken in too; a
    block found complete in several files is taken once, from the first.
    ``readers`` names several readers to run over the same recall (the module's
    docstring); ``llm_options`` then go to the readers that take them."""
    convs = _conversations(data_path, conversations)
    reader = create_llm(llm, **(llm_options or {}))
    side = {r: _reader(r, llm, reader, llm_options or {}) for r in readers}
    embedder = MemoEmbedder(create_embedder("minilm"))
    plan = _plan(convs, categories, limit)
    labels = [f"{e}/{r}" for e in engines for r in side] if side else list(engines)
    sources = [jsonl] if resume and jsonl else []
    sources += list(resume_from)
    done, rows, kept = _resumed(sources, resume, labels, plan)
    out = _reopen(Path(jsonl), kept + rows) if jsonl else None
    started = time.time()
    try:
        for ci, conv in enumerate(convs):
            questions = plan[conv.sample_id]
            if progress:
                progress(f"[{ci + 1}/{len(convs)}] {conv.sample_id}: {len(questions)} questions")
            for name in engines:
                mine = [f"{name}/{r}" for r in side] if side else [name]
                if all((label, conv.sample_id) in done for label in mine):
                    continue
                opts = {
                    **(answer_options or {}),
                    "max_context_tokens": max_context_tokens,
                    "grounding": grounding,
                }
                if side:
                    run = _run_readers(name, conv, questions, side, embedder, k, opts, judge)
                else:
                    run = _run_engine(name, conv, questions, reader, embedder, k, opts, judge)
                _record(run, conv.sample_id, done, rows, out)
    finally:
        if out:
            out.close()
    return {
        "benchmark": "locomo-qa",
        "data": str(data_path),
        "reader": ", ".join(r.name for r in side.values()) if side else reader.name,
        "readers": list(side),
        "reader_seed": (llm_options or {}).get("seed"),
        "k": k,
        "max_context_tokens": max_context_tokens,
        "grounding": grounding,
        "answer_options": dict(answer_options or {}),
        "conversations": len(convs),
        "limit": limit,
        "wall_s": time.time() - started,
        "resumed_blocks": len(done),
        "engines": summarise(rows, labels),
        "paired": paired_differences(rows, labels),
        "jsonl": jsonl,
    }


def _conversations(data_path: str, conversations: Sequence[str] | None) -> list[Conversation]:
    """The data set's conversations, only the ``conversations`` named when any are."""
    convs = load_locomo(data_path)
    if conversations:
        wanted = set(conversations)
        convs = [c for c in convs if c.sample_id in wanted]
    return convs


def _plan(
    convs: list[Conversation], categories: Sequence[int], limit: int | None
) -> dict[str, list[Question]]:
    """Each conversation's questions to ask: those of ``categories``, ``limit`` of
    them spread over the conversation when a limit is set."""
    plan = {}
    for conv in convs:
        questions = [q for q in conv.questions if q.category in categories]
        plan[conv.sample_id] = _spread(questions, limit) if limit is not None else questions
    return plan


def _record(
    run: Iterable[dict[str, Any]],
    sample_id: str,
    done: set[tuple[str, str]],
    rows: list[dict[str, Any]],
    out: IO[str] | None,
) -> None:
    """Take in a block's new rows as they come (a resumed block's are in already),
    each written and flushed to the JSONL at once so that a killed run loses none."""
    for row in run:
        if (row["engine"], sample_id) in done:
            continue
        rows.append(row)
        if out:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()


def _resumed(
    sources: list[str], resume: bool, labels: list[str], plan: dict[str, list[Question]]
) -> tuple[set[tuple[str, str]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(the (label, conversation) blocks already complete, their rows, the rows of the
    first file's blocks this run does not plan): a block is complete in a file that
    holds its planned questions in order; with ``resume`` the first source is the run's
    own JSONL, whose other rows are kept as they are."""
    done: set[tuple[str, str]] = set()
    rows: list[dict[str, Any]] = []
    planned = {(name, cid) for name in labels for cid in plan}
    kept: list[dict[str, Any]] = []  # the file's rows of blocks this run does not plan
    for i, source in enumerate(sources):
        if not Path(source).is_file():
            continue
        old = read_rows(source)
        if i == 0 and resume:
            kept = [r for r in old if (r["engine"], r["conversation"]) not in planned]
        for name in labels:
            for cid, qs in plan.items():
                if (name, cid) in done:
                    continue
                block = [r for r in old if r["engine"] == name and r["conversation"] == cid]
                if [r["question"] for r in block] == [q.question for q in qs]:
                    done.add((name, cid))
                    rows.extend(block)
    return done, rows, kept


def _reader(spec: str, llm: str, main: LLM, options: dict[str, Any]) -> LLM:
    """The LLM of the reader ``spec`` (``name`` or ``name@mode``, the Answerer's
    ``mode``: ``local@span``) for a side-by-side run: the run's own when it is the one
    ``--llm`` names, else a new one with the options its backend takes (threads and
    seed for ``local``, endpoint, model and seed for ``openai``, none for ``none``)."""
    name = spec.partition("@")[0]
    if name == llm:
        return main
    takes = {
        "local": {"n_threads", "seed"},
        "auto": {"n_threads", "seed"},
        "openai": {"base_url", "model", "seed"},
    }.get(name, set())
    return create_llm(name, **{k: v for k, v in options.items() if k in takes})


def _with_mode(opts: dict[str, Any], spec: str) -> dict[str, Any]:
    """The run's answer options with the reader's ``@mode``, when it names one."""
    mode = spec.partition("@")[2]
    return {**opts, "mode": mode} if mode else opts


@contextmanager
def _remembered(
    name: str, conv: Conversation, reader: LLM, embedder: Any, opts: dict[str, Any]
) -> Iterator[Memory]:
    """A throwaway Memory of engine ``name`` (``full-context`` stores with hybrid) that
    has been told the whole conversation, session by session."""
    engine = "hybrid" if name == FULL_CONTEXT else name
    with Memory(
        ":memory:", engine=engine, embedder=embedder, llm=reader, answer_options=opts
    ) as mem:
        for session in conv.sessions:
            mem.add_many([t.as_item() for t in session], user_id=conv.sample_id)
        yield mem


def _run_readers(
    name: str,
    conv: Conversation,
    questions: list[Question],
    readers: dict[str, LLM],
    embedder: Any,
    k: int,
    opts: dict[str, Any],
    judge: LLM | None,
) -> Iterator[dict[str, Any]]:
    """Rows of every reader over one recall per question (``full-context`` reads the
    whole conversation with each reader instead). A reader's latency is the recall's
    plus its own."""
    first = next(iter(readers.values()))
    with _remembered(name, conv, first, embedder, opts) as mem:
        if name == FULL_CONTEXT:
            for rname, llm in readers.items():
                full = FullContext(mem, conv.sample_id, llm, options=_with_mode(opts, rname))
                answers = full.answer_all([q.question for q in questions])
                for q, a in zip(questions, answers, strict=True):
                    yield _row(f"{name}/{rname}", conv, q, a, judge)
            return
        answerers = {r: Answerer(llm, **_with_mode(opts, r)) for r, llm in readers.items()}
        for q in questions:
            # one recall, read by every reader as Memory.answer reads it
            read = mem.answer_each(answerers, q.question, conv.sample_id, k)
            for rname, a in read.items():
                yield _row(f"{name}/{rname}", conv, q, a, judge)


def _reopen(path: Path, rows: list[dict[str, Any]]) -> IO[str]:
    """Rewrite ``path`` with ``rows`` through a temporary file and an atomic rename,
    then open it for appending: a run killed at any moment leaves either the old
    file or the new one whole, never a truncated mix. With ``--resume`` the rows
    include every block outside this run's plan, so a subset run (other
    conversations, other engines) never drops what earlier runs saved."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return open(path, "a", encoding="utf-8")  # noqa: SIM115


def _spread(questions: list[Question], limit: int) -> list[Question]:
    """About ``limit`` questions per conversation: each category gets
    ``max(1, round(limit * share))``, so every category is represented and the total
    can exceed ``limit`` by at most one per category. The first ones of each category
    are kept, so a subset run is reproducible (and ``--resume`` can match it)."""
    if len(questions) <= limit:
        return questions
    by_cat: dict[int, list[Question]] = {}
    for q in questions:
        by_cat.setdefault(q.category, []).append(q)
    share = {c: max(1, round(limit * len(v) / len(questions))) for c, v in by_cat.items()}
    keep = {id(q) for c, v in by_cat.items() for q in v[: share[c]]}
    return [q for q in questions if id(q) in keep]


def _run_engine(
    name: str,
    conv: Conversation,
    questions: list[Question],
    reader: LLM,
    embedder: Any,
    k: int,
    opts: dict[str, Any],
    judge: LLM | None,
) -> Iterator[dict[str, Any]]:
    """The block's rows, each as soon as its question is answered (the caller writes
    and flushes it at once)."""
    with _remembered(name, conv, reader, embedder, opts) as mem:
        if name == FULL_CONTEXT:
            full = FullContext(mem, conv.sample_id, reader, options=opts)
            for q, a in zip(
                questions, full.answer_all([q.question for q in questions]), strict=True
            ):
                yield _row(name, conv, q, a, judge)
            return
        for q in questions:
            yield _row(name, conv, q, mem.answer(q.question, conv.sample_id, k), judge)


class FullContext:
    """The reader over the whole conversation, newest turns kept when it overflows."""

    def __init__(
        self,
        mem: Memory,
        user_id: str,
        reader: LLM,
        answer_tokens: int = 48,
        options: dict[str, Any] | None = None,
    ):
        self.hits = list(reversed(mem.memories(user_id)))  # newest first = kept first
        # every message of the longer prompt (instructions and any worked examples),
        # plus room for the question and the chat template's tokens
        overhead = max(
            sum(reader.count_tokens(m["content"]) for m in render(t, context="", question=""))
            for t in ("answer", "answer_temporal")
        ) + 2 * reader.count_tokens(" ".join(["word"] * 40))
        budget = max(256, reader.context_window - overhead - answer_tokens - 64)
        # the run's answer options, except those the window itself fixes
        opts = {
            k: v
            for k, v in (options or {}).items()
            if k not in ("max_context_tokens", "max_answer_tokens", "order")
        }
        self.answerer = Answerer(
            reader, max_context_tokens=budget, max_answer_tokens=answer_tokens, **opts
        )

    def answer(self, question: str) -> Answer:
        return self.answerer.answer(question, Recall(self.hits, 1.0, False))

    def answer_all(self, questions: list[str]) -> list[Answer]:
        """Every question's answer, in the given order, computed grouped by prompt
        (plain, then about time). The long context is the same for every question, so
        llama.cpp reuses it from the previous call as long as the prompt's opening
        stays the same; asked in file order the two prompts alternate and each switch
        re-reads the whole window (~2,000 tokens). The order changes which prefix is
        reused, not what is asked."""
        order = sorted(range(len(questions)), key=lambda i: _about_time(questions[i]))
        answers: dict[int, Answer] = {i: self.answer(questions[i]) for i in order}
        return [answers[i] for i in range(len(questions))]


#: questions the reader likely asks with its prompt about time: the harness's own guess,
#: which only orders the calls (a wrong guess costs llama.cpp's prefix reuse, no answer)
_TIME_WORDS = re.compile(
    r"\b(when|what (?:date|day|year|month|time|week)|which (?:date|day|year|month)|"
    r"how long|how many (?:days|weeks|months|years)|ago|since|until)\b",
    re.I,
)


def _about_time(question: str) -> bool:
    return bool(_TIME_WORDS.search(question))


def scores(prediction: str, gold: object, category: int) -> dict[str, Any]:
    """A reply's scores against its gold answer (None for an adversarial question):
    the official F1, containment, the date grade (category 2), its length. One place,
    so a live run and a replay score alike."""
    return {
        "f1": locomo_f1(prediction, gold, category),
        "containment": containment(prediction, gold, category),
        "date_right": date_right(prediction, str(gold)) if category == 2 else None,
        "reply_tokens": len(tokens(prediction)),
    }


_HELD: dict[str, tuple[set[str], set[str]]] = {}


def _held(conv: Conversation) -> tuple[set[str], set[str]]:
    """The words of the conversation's turns (once per conversation)."""
    if conv.sample_id not in _HELD:
        _HELD[conv.sample_id] = held_words(t.text for t in conv.turns)
    return _HELD[conv.sample_id]


def _row(name: str, conv: Conversation, q: Question, a: Answer, judge: LLM | None) -> dict:
    gold = q.adversarial_answer if q.category == 5 else q.answer
    ids = [h.metadata.get("dia_id") for h in a.evidence]
    row = {
        "engine": name,
        "conversation": conv.sample_id,
        "category": q.category,
        "question": q.question,
        "gold": gold,
        "prediction": a.text,
        "draft": a.draft,
        "refused": a.refused,
        **scores(a.text, q.answer if q.category != 5 else None, q.category),
        "evidence_recall": evidence_recall(q.evidence, ids, len(ids)) if q.evidence else None,
        "evidence": ids,
        "context_tokens": a.context_tokens,
        "prompt_tokens": a.prompt_tokens,
        "llm_calls": a.llm_calls,
        "latency_s": a.latency_s,
        "cache_hit": a.cache_hit,
        # words of the answer no turn of the conversation holds: a hallucination
        "invented": [] if a.refused else invented_from(a.text, _held(conv)),
    }
    if judge is not None and q.category != 5:
        row["judge"] = judge_answer(judge, q.question, str(q.answer), a.text)
    return row


JUDGE_SCHEMA = {
    "type": "object",
    "properties": {"correct": {"type": "boolean"}},
    "required": ["correct"],
}


def judge_answer(judge: LLM, question: str, gold: str, prediction: str) -> float | None:
    """1.0 / 0.0 from an LLM judge (the configured endpoint), None when it fails:
    twice no JSON ``{"correct": true|false}``, or a failing backend. The prompt and
    the reading of the reply are the harness's own (``data/judge.txt``)."""
    values = {"question": question, "gold": gold, "prediction": prediction}
    messages = [
        {"role": role, "content": Template(text).substitute(values)} for role, text in _JUDGE_PROMPT
    ]
    try:
        for _ in range(2):  # one retry, told what was wrong: a small model may ramble
            reply = judge.complete(
                messages, task="judge", json_schema=JUDGE_SCHEMA, max_tokens=32
            ).text
            verdict = _correct(reply)
            if verdict is not None:
                return verdict
            messages = [*messages, {"role": "assistant", "content": reply[:2000]}, _AGAIN]
        log.warning("judge failed: no valid JSON")
    except Exception as exc:  # the score is optional; the run goes on
        log.warning("judge failed: %s", type(exc).__name__)  # its message may quote memories
    return None


def _correct(reply: str) -> float | None:
    """The judge's ``{"correct": true|false}`` (in a code fence, too), or None."""
    match = re.search(r"\{.*\}", reply, re.S)
    try:
        value = json.loads(match[0]) if match else None
    except json.JSONDecodeError:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("correct"), bool):
        return None
    return 1.0 if value["correct"] else 0.0


def _judge_prompt() -> list[tuple[str, str]]:
    """``data/judge.txt``'s (role, text) sections ("### system", "### user")."""
    text = (Path(__file__).parent / "data" / "judge.txt").read_text("utf-8")
    parts = re.split(r"^### (system|user)\s*$", text, flags=re.M)[1:]
    return [(role, body.strip()) for role, body in zip(parts[::2], parts[1::2], strict=True)]


_JUDGE_PROMPT = _judge_prompt()
_AGAIN = {
    "role": "user",
    "content": 'That reply was not valid. Reply with one JSON object only: {"correct": true} '
    'or {"correct": false}.',
}


def summarise(rows: list[dict[str, Any]], engines: Sequence[str]) -> dict[str, Any]:
    out = {}
    for name in engines:
        mine = [r for r in rows if r["engine"] == name]
        answerable = [r for r in mine if r["category"] != 5]
        adversarial = [r for r in mine if r["category"] == 5]
        judged = [r["judge"] for r in answerable if r.get("judge") is not None]
        hits = [r["cache_hit"] for r in mine if r["cache_hit"] is not None]
        out[name] = {
            "questions": len(mine),
            "f1": {
                str(c): mean(r["f1"] for r in mine if r["category"] == c) for c in ALL_CATEGORIES
            },
            "counts": {str(c): sum(r["category"] == c for r in mine) for c in ALL_CATEGORIES},
            "f1_1to4": mean(r["f1"] for r in answerable),
            "containment": {
                str(c): mean(
                    r["containment"]
                    for r in mine
                    if r["category"] == c and r.get("containment") is not None
                )
                for c in ALL_CATEGORIES[:4]
            },
            # category 2 graded by the time the answer states (bench/dategrade.py)
            "date_right_cat2": mean(
                float(r["date_right"]) for r in mine if r.get("date_right") is not None
            ),
            "date_graded_cat2": sum(r.get("date_right") is not None for r in mine),
            "containment_1to4": mean(
                r["containment"] for r in answerable if r.get("containment") is not None
            ),
            # the answers' own length: refusals, all alike, left out
            "reply_tokens_mean": mean(
                r["reply_tokens"] for r in answerable if "reply_tokens" in r and not r["refused"]
            ),
            "cat5_refusal": mean(float(r["refused"]) for r in adversarial),
            "false_refusal": mean(float(r["refused"]) for r in answerable),
            # answers (refusals aside) with a content word no turn holds
            "invented_rate": mean(
                float(bool(r["invented"])) for r in mine if "invented" in r and not r["refused"]
            ),
            "context_tokens_p50": percentile([r["context_tokens"] for r in mine], 50),
            "context_tokens_mean": mean(r["context_tokens"] for r in mine),
            "llm_calls_mean": mean(r["llm_calls"] for r in mine),
            "latency_p50_s": percentile([r["latency_s"] for r in mine], 50),
            "latency_p95_s": percentile([r["latency_s"] for r in mine], 95),
            "evidence_recall": mean(
                r["evidence_recall"] for r in answerable if r["evidence_recall"] is not None
            ),
            "judge_accuracy": mean(judged) if judged else None,
            "cache_hit_rate": mean(float(h) for h in hits) if hits else None,
        }
    return out


def paired_differences(
    rows: list[dict[str, Any]], engines: Sequence[str], base: str = "hybrid", n_boot: int = 2000
) -> dict[str, Any]:
    """Each engine's F1 (categories 1-4) minus ``base``'s on the same questions, with a
    95% paired-bootstrap interval: greedy decoding repeats exactly, so the spread that
    matters is over questions, not over reruns."""
    if base not in engines:
        return {}
    keyed = _keyed(rows, with_engine=False)
    ref = {k: r["f1"] for k, r in keyed if r["engine"] == base and r["category"] != 5}
    rng = np.random.default_rng(0)
    out = {}
    for name in engines:
        if name == base:
            continue
        pairs = [
            (r, r["f1"] - ref[k])
            for k, r in keyed
            if r["engine"] == name and r["category"] != 5 and k in ref
        ]
        if not pairs:
            continue
        mine = [r for r, _ in pairs]
        d = np.array([x for _, x in pairs])
        # The spread over independent repeats: each conversation is its own run of
        # ingest + questions, so the per-conversation differences show how much the
        # result moves from one history to the next.
        by_conv: dict[str, list[float]] = {}
        for r, x in zip(mine, d.tolist(), strict=True):
            by_conv.setdefault(r["conversation"], []).append(x)
        per_conv = {c: float(np.mean(v)) for c, v in by_conv.items()}
        out[name] = {
            "minus": base,
            "diff": float(d.mean()),
            "ci95": _bootstrap_ci(d, rng, n_boot),
            "questions": len(d),
            "per_conversation": per_conv,
            "conversations_better": sum(v > 0 for v in per_conv.values()),
            "conversations_worse": sum(v < 0 for v in per_conv.values()),
        }
    return out


def _keyed(
    rows: list[dict[str, Any]], *, with_engine: bool = True
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Each row with the key that pairs it across engines and runs: (engine,)
    conversation, question, category and which occurrence of that question it is
    (LoCoMo asks a few questions twice in one conversation, with different golds)."""
    seen: dict[tuple[Any, ...], int] = {}
    out = []
    for r in rows:
        q = (r["engine"], r["conversation"], r["question"], r["category"])
        n = seen.get(q, 0)  # counted per engine: each engine answers every question
        seen[q] = n + 1
        out.append(((*q, n) if with_engine else (*q[1:], n), r))
    return out


def _bootstrap_ci(d: np.ndarray, rng: np.random.Generator, n_boot: int) -> list[float]:
    """95% percentile-bootstrap interval of the mean of paired differences ``d``."""
    boots = d[rng.integers(0, len(d), size=(n_boot, len(d)))].mean(axis=1)
    return [float(np.percentile(boots, 2.5)), float(np.percentile(boots, 97.5))]


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file. A last line cut short (a run killed mid-write, or a
    part still appending while another reads it) is left out with a warning: its
    block is then incomplete and runs again. A broken line elsewhere is an error.
    A ``.gz`` file is read as gzip (saved runs are kept compressed in docs/results)."""
    raw = Path(path).read_bytes()
    if str(path).endswith(".gz"):
        raw = gzip.decompress(raw)
    lines = [x for x in raw.decode("utf-8").splitlines() if x.strip()]
    rows = []
    for i, line in enumerate(lines):
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            if i < len(lines) - 1:
                raise ValueError(f"{path}: line {i + 1} is not a JSON row") from None
            log.warning("%s: the last line is cut short; left out", path)
    return rows


def compare_runs(
    a: str | Path, b: str | Path, n_boot: int = 2000, exclude: Sequence[str | Path] = ()
) -> dict[str, Any]:
    """Two saved runs question by question: a rerun (does it repeat?) or a change (what
    did it move?). Per engine found in both: the questions both answered, how many got
    the identical prediction and the identical evidence, and ``b``'s F1 over categories
    1-4 minus ``a``'s on those questions with a 95% paired-bootstrap interval.
    ``exclude`` names runs whose questions are left out: a setting chosen on a subset
    run is then judged on the questions that played no part in choosing it."""
    rows_a = dict(_keyed(read_rows(a)))
    rows_b = dict(_keyed(read_rows(b)))
    left_out = {k for path in exclude for k, _ in _keyed(read_rows(path))}
    rows_a = {k: r for k, r in rows_a.items() if k not in left_out}
    rng = np.random.default_rng(0)
    out: dict[str, Any] = {}
    for name in dict.fromkeys(k[0] for k in rows_a):
        both = [k for k in rows_a if k[0] == name and k in rows_b]
        if not both:
            continue
        scored = [k for k in both if k[3] != 5]
        d = np.array([rows_b[k]["f1"] - rows_a[k]["f1"] for k in scored])
        out[name] = {
            "questions": len(both),
            "identical_predictions": sum(
                rows_a[k]["prediction"] == rows_b[k]["prediction"] for k in both
            ),
            "identical_evidence": sum(rows_a[k]["evidence"] == rows_b[k]["evidence"] for k in both),
            # the reader's own replies: equal when only the post-processing changed
            "identical_drafts": sum(rows_a[k].get("draft") == rows_b[k].get("draft") for k in both),
            "f1_1to4_a": mean(rows_a[k]["f1"] for k in scored),
            "f1_1to4_b": mean(rows_b[k]["f1"] for k in scored),
            "diff": float(d.mean()) if len(d) else 0.0,
            "ci95": _bootstrap_ci(d, rng, n_boot) if len(d) else [0.0, 0.0],
        }
    return {"a": str(a), "b": str(b), "exclude": [str(p) for p in exclude], "engines": out}


def write_jsonl_summary(path: str | Path) -> dict[str, Any]:
    """Re-summarise a saved JSONL (audits recompute the table from the rows)."""
    rows = read_rows(path)
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    return {"engines": summarise(rows, engines), "paired": paired_differences(rows, engines)}
