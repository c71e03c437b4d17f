"""The reader: the evidence fitted to a budget, one LLM call, the reply settled.

The pipeline is the same for every engine: recall (the engine's own flow, so
SYNAPSE's gate and ILSTMA's cache act), fit the evidence into a token budget,
order it, and ask the reader with the verification rule (answer only from memory,
else "Not mentioned in the conversation"). Questions about time get a prompt that
dates every memory and asks for relative times to be resolved.

Choices, each configurable on :class:`Answerer` (``answer_options`` on Memory):
- ``mode``, how the reader reads: ``generate`` (the LLM answers from the notes, the
  rest of this list), ``span`` (the extractive answer's sentence, cut by the LLM to
  the run of its words that answers, under a grammar: it cannot add words),
  ``extract`` (the sentence itself, no call), or ``routed`` (the sentence, or its
  date, when the question asks for a date or the sentence holds at least half of
  its content words, else ``generate``: :func:`routed_to_sentence`). ``auto`` (the
  default) takes the LLM's own ``answer_mode``: ``routed`` for the bundled small
  model, ``generate`` for a model behind an endpoint, ``extract`` without one
  (measured over the same retrieval:
  docs/notes/benchmark-history.md#readers-side-by-side-and-the-not-in-memory-verdict-issue-19);
- the budget counts the memory context only (not the fixed instructions), at most
  ``max_context_tokens`` by the LLM's own count (:func:`remem.tokens.clip_tokens`
  cuts what does not fit), best-ranked evidence first; the context lists it worst to
  best, so the best memory sits next to the question (``order="rank"``), or by time
  as SYNAPSE's paper orders its prompt (``order="time"``). With the bundled 135M
  reader the rank order was chosen on a subset and then held, for both engines, on
  the questions that played no part in choosing it
  (docs/notes/benchmark-history.md#evidence-order-rank-the-default-against-time);
- a gate refusal (SYNAPSE) answers without calling the LLM, and so does the
  calibrated "not in memory" verdict on the recall (``Recall.not_in_memory``,
  :mod:`remem.answer.verdict`; ``verdict=False`` ignores it). The verdict is what
  refuses; the older grounding check on the reply (``grounding``, the share of its
  words that must be in the evidence) is off by default since the verdict came: at
  0.5 it refused a further share of the answerable questions for fewer right
  answers (docs/notes/benchmark-history.md#the-grounding-checks-trade-off);
- with ``llm="none"`` the answer is extractive: the sentence of the best evidence
  that shares most words with the question;
- a degenerate reply (empty, a loop, echoed speaker labels, the question handed
  back; :func:`remem.answer.settle.degenerate`) is replaced by the extractive
  answer, which may refuse;
- the reply is then settled by :func:`remem.answer.settle.settle` (the framing
  stripped, the verification rule enforced, a date question answered with the date;
  that module says how and why);
- the reader decodes greedily (``temperature=0``), so an answer repeats exactly;
  a higher temperature samples (the benchmark's repeated runs use it to measure
  how much a result owes to one decoding), with the LLM's own seed.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any

from .. import words
from ..errors import InvalidInputError, LLMError
from ..index.tokenize import sentences
from ..llm import LLM, Completion, prompts
from ..llm.structured import parse_json, validate
from ..options import choice, number, switch
from ..question import Question, as_question
from ..redact import failure
from ..store.base import timestamp_epoch
from ..time.events import EventTime, event_times
from ..time.tense import PAST, Clauses, ahead, tense_of
from ..tokens import clip_tokens
from ..types import Hit, Recall
from . import nlp
from .kinds import doer_of, main_verbs, verb_lemmas, verbs_kin
from .manner import asks_manner, told_how
from .now import asks_left, names_left
from .settle import (
    REFUSAL,
    asked_keys,
    content_keys,
    date_span,
    degenerate,
    event_date,
    memory_date,
    note_date,
    settle,
    unwritten,
)
from .told import in_window, told_by_asked
from .typed import (
    ALONE,
    NEVER,
    REPLY_SHARE,
    Around,
    asked_by_kin,
    asks,
    asks_of_told,
    said_before,
    typed_answer,
)

__all__ = ["REFUSAL", "Answer", "Answerer", "extractive", "format_memory"]

log = logging.getLogger("remem.answer")


@dataclass(frozen=True)
class Answer:
    """What :meth:`remem.Memory.answer` returns.

    ``evidence`` are the memories the reader saw, best first; ``refused`` is True when
    the answer is "not in memory" (from the gate or from the reader);
    ``context_tokens`` counts the memory context given to the reader; ``llm_calls``
    and the token counts are this answer's alone.
    """

    text: str
    evidence: list[Hit]
    refused: bool
    cache_hit: bool | None
    context_tokens: int
    llm_calls: int
    latency_s: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: how each evidence memory was reached (anchor, edge path, cache, ...)
    explanations: dict[str, str] = field(default_factory=dict)
    #: the reader's own reply before the refusal checks (for audits); "" without one
    draft: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    #: the id of the memory the answer's words were taken from ("" when the reader
    #: wrote them, or refused)
    source_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "refused": self.refused,
            "cache_hit": self.cache_hit,
            "context_tokens": self.context_tokens,
            "llm_calls": self.llm_calls,
            "latency_s": self.latency_s,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "evidence": [h.to_dict() for h in self.evidence],
            "explanations": self.explanations,
            "timings": self.timings,
            "draft": self.draft,
            "source_id": self.source_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Answer:
        """The inverse of :meth:`to_dict`, for what a client reads from the HTTP API:
        keys it does not know are ignored, fields the data lacks keep their defaults."""
        known = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        known["evidence"] = [Hit.from_dict(h) for h in known.get("evidence", ())]
        return cls(**known)


def format_memory(hit: Hit, version: str = "") -> str:
    """``[8 May 2023] Ana: text``; ``version`` ("latest", "earlier") says which of two
    memories restating one thing is current (``versions``)."""
    when = note_date(hit.timestamp) + (f", {version}" if version else "")
    who = f"{hit.speaker}: " if hit.speaker else ""
    return f"[{when}] {who}{hit.text}"


_NEWER = re.compile(r"a newer version of ([0-9a-f]+)")
#: the time stage's note on the memory holding a slot's current value
#: (``time/current.py``: "a newer version of <id> (the current residence)")
_CURRENT = re.compile(r"a newer version of ([0-9a-f]+) \(the current ")


def replaced(explanations: Mapping[str, str]) -> dict[str, str]:
    """Superseded hit id -> the hit holding its slot's current value, for a question
    about that slot (the time stage's "(the current ...)" notes)."""
    out: dict[str, str] = {}
    for hid, why in explanations.items():
        for old in _CURRENT.findall(why or ""):
            out.setdefault(old, hid)
    return out


def versions(explanations: Mapping[str, str]) -> dict[str, str]:
    """Hit id -> "latest" / "earlier" for memories the time stage found to restate one
    thing (``time/arrange.py`` notes "a newer version of <id>"), so the reader is
    told which value is current."""
    out: dict[str, str] = {}
    for hid, why in explanations.items():
        for old in _NEWER.findall(why or ""):
            out.setdefault(hid, "latest")
            out[old] = "earlier"
    return out


def fit_lines(
    hits: Sequence[Hit],
    notes: Sequence[str],
    marks: Mapping[str, str],
    budget: int,
    count: Callable[[str], int],
) -> tuple[list[str], list[tuple[Hit, str]]]:
    """What of ``notes`` and ``hits`` fits ``budget`` tokens by ``count``, each line
    costing its tokens plus one for its line break: the notes (clipped, at most half
    the budget together), then the memories best first as :func:`format_memory`
    writes them (``marks``: a hit id's version note). A memory that does not fit is
    skipped (a shorter, lower-ranked one may still fit), but the best one is always
    kept, cut to what is left, so there is some evidence. The one fitting of memory
    into a budget: the reader's context (:meth:`Answerer.fit`) and the block
    ``Memory.context`` gives an agent (``answer/context.py``)."""

    def clip(text: str, tokens: int) -> str:
        return clip_tokens(text, max(1, tokens), count)

    lines: list[str] = []
    used = 0
    for note in (n for n in notes if n):
        room = budget // 2 - used
        if room <= 1:
            break
        note = clip(note, room - 1)
        lines.append(note)
        used += count(note) + 1
    kept: list[tuple[Hit, str]] = []
    for h in hits:
        line = format_memory(h, marks.get(h.id, ""))
        n = count(line) + 1
        if used + n > budget:
            if kept:
                continue  # a shorter, lower-ranked memory may still fit
            line = clip(line, budget - used - 1)
            n = count(line) + 1
        kept.append((h, line))
        used += n
    return lines, kept


class Answerer:
    def __init__(
        self,
        llm: LLM,
        *,
        max_context_tokens: int = 900,
        max_answer_tokens: int = 32,
        temporal_prompt: bool = True,
        grounding: float = 0.0,
        date_answers: bool = True,
        premise: bool = True,
        trim_restatement: bool = True,
        order: str = "rank",
        temperature: float = 0.0,
        verdict: bool = True,
        mode: str = "auto",
    ):
        if order not in ("time", "rank"):
            raise InvalidInputError(f"order must be 'time' or 'rank', not {order!r}")
        if mode not in (*MODES, "auto"):
            raise InvalidInputError(
                f"mode must be 'auto' or one of {', '.join(MODES)}, not {mode!r}"
            )
        # "auto": the way this model reads memory best (LLM.answer_mode)
        self.mode = llm.answer_mode if mode == "auto" else mode
        if self.mode not in MODES:
            raise InvalidInputError(f"{llm.name}: unknown answer_mode {self.mode!r}")
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not 0 <= temperature <= 2
        ):
            raise InvalidInputError(f"temperature must be a number in [0, 2], not {temperature!r}")
        self.temperature = float(temperature)
        self.verdict = verdict
        self.order = order
        self.llm = llm
        self.premise = premise
        self.trim_restatement = trim_restatement
        self.grounding = grounding
        self.date_answers = date_answers
        self.max_context_tokens = max_context_tokens
        self.max_answer_tokens = max_answer_tokens
        self.temporal_prompt = temporal_prompt

    def fit(
        self,
        hits: list[Hit],
        notes: Sequence[str] = (),
        marks: Mapping[str, str] | None = None,
    ) -> tuple[list[Hit], str, int]:
        """The evidence that fits the budget (best first), its context text (notes
        first, then the memories in ``order``), and that text's token count
        (:func:`fit_lines` chooses what fits, by the LLM's own count)."""
        lines, kept = fit_lines(
            hits, notes, marks or {}, self.max_context_tokens, self.llm.count_tokens
        )
        if self.order == "rank":  # best last, next to the question
            ordered = kept[::-1]
        else:  # naive times are UTC (as in storage); sorting mixed ones raw would raise
            ordered = sorted(kept, key=lambda x: timestamp_epoch(x[0].timestamp))
        text = "\n".join(lines + [line for _, line in ordered])
        return [h for h, _ in kept], text, self.llm.count_tokens(text) if text else 0

    def _settle(
        self, draft: str, question: Question, context: str, evidence: list[Hit]
    ) -> tuple[str, bool]:
        return settle(
            draft,
            question,
            context,
            self.grounding,
            date_answers=self.date_answers,
            lines=[(h.speaker, h.text) for h in evidence],
            premise=self.premise,
            trim_restatement=self.trim_restatement,
        )

    def answer(
        self,
        question: Question | str,
        recall: Recall,
        *,
        notes: Sequence[str] = (),
        prepared: str | None = None,
        extra_calls: int = 0,
        started: float | None = None,
        around: Around = ALONE,
    ) -> Answer:
        """Answer from ``recall``. ``prepared`` is an answer the engine's flow already
        produced (ILSTMA's LLM judge on a hit), which costs no further call.
        ``question`` is the one the pipeline read (a str is read here).
        ``around`` is what the typed reader may ask of the user's memories beyond
        the evidence (``typed.Around``: the turn said after one that asks, nearness
        in meaning, the rarity of words); ``Memory`` gives its own."""
        t0 = started if started is not None else time.perf_counter()
        question = as_question(question)
        evidence, context, ctx_tokens = self.fit(recall.hits, notes, versions(recall.explanations))
        base: dict[str, Any] = {
            "evidence": evidence,
            "cache_hit": recall.cache_hit,
            "context_tokens": ctx_tokens,
            "explanations": {h.id: recall.explanations.get(h.id, "") for h in evidence},
            "timings": dict(recall.timings),
        }
        if (
            recall.refuse
            or (self.verdict and recall.not_in_memory)
            or (not evidence and not context)
        ):
            return Answer(
                REFUSAL,
                refused=True,
                llm_calls=extra_calls,
                latency_s=time.perf_counter() - t0,
                **base,
            )
        if prepared is not None:
            text, refused = self._settle(prepared, question, context, evidence)
            return Answer(
                text,
                draft=prepared,
                refused=refused,
                llm_calls=extra_calls,
                latency_s=time.perf_counter() - t0,
                **base,
            )
        if (
            self.mode in ("extract", "span", "typed")
            or not self.llm.generates
            or (self.mode == "routed" and routed_to_sentence(question, evidence))
        ):
            return self._extract(question, evidence, base, extra_calls, t0, around)
        return self._generate(question, evidence, context, base, extra_calls, t0)

    def _generate(
        self,
        question: Question,
        evidence: list[Hit],
        context: str,
        base: dict[str, Any],
        extra_calls: int,
        t0: float,
    ) -> Answer:
        """The LLM's answer from the context, settled against the evidence; the
        extractive answer when the call fails or the reply is degenerate (neither an
        answer nor a refusal)."""
        c = self._complete(question, context)
        if c is None:
            text = extractive(question, evidence)
            return Answer(
                text,
                refused=text == REFUSAL,
                llm_calls=extra_calls,
                latency_s=time.perf_counter() - t0,
                **base,
            )
        if degenerate(c.text, question):
            # no answer and no refusal either: the evidence speaks instead
            text = extractive(question, evidence)
            refused = text == REFUSAL
        else:
            text, refused = self._settle(c.text, question, context, evidence)
        return Answer(
            text,
            draft=c.text,
            refused=refused,
            llm_calls=extra_calls + 1,
            latency_s=time.perf_counter() - t0,
            prompt_tokens=c.prompt_tokens,
            completion_tokens=c.completion_tokens,
            **base,
        )

    def _complete(self, question: Question, context: str) -> Completion | None:
        """One answering call (the temporal prompt for a question about time, with
        ``temporal_prompt``); None when the LLM does not generate or the call failed."""
        if not self.llm.generates:
            return None
        task = "answer"
        if self.temporal_prompt and question.temporal:
            task = "answer_temporal"
        messages = prompts.render(task, context=context, question=question.text)
        try:
            return self.llm.complete(
                messages,
                task="answer",
                max_tokens=self.max_answer_tokens,
                temperature=self.temperature,
                stop=["\n"],  # one line is the answer; small models ramble after it
            )
        except LLMError as exc:
            log.warning("reader failed (%s); answering extractively", failure(exc))
            return None

    def _extract(
        self,
        question: Question,
        evidence: list[Hit],
        base: dict[str, Any],
        extra_calls: int,
        t0: float,
        around: Around = ALONE,
    ) -> Answer:
        """The extractive answer (``mode="extract"``, or any mode without a generating
        LLM): with ``mode="typed"`` the span of the kind asked (``answer/typed.py``),
        with ``mode="span"`` the sentence cut by the reader to the words of it that
        answer, else the sentence. A question asking for a date gets the sentence's
        own date, else the time it tells resolved against when it was said, else its
        memory's day ("Saturday 8 March 2025")."""
        stale = replaced(base["explanations"])
        talk = _dialogue(question, evidence, around) if question.answer_type == "date" else None
        read = [*evidence, *talk.replies] if talk is not None else evidence
        sentence, hit = best_sentence(question, read, stale, talk)
        if hit is None and self.mode == "typed" and question.answer_type != "date":
            sentence, hit = asked_by_kin(question, evidence[:_EXTRACT_DEPTH], around)
        # what was left is read though no sentence shares a word: "I handed in my notice
        # at Pellridge Analytics" of "Which company did I leave?" (``now.left_asked``)
        typed = hit is not None or asks_left(question)
        if typed and self.mode == "typed" and question.answer_type != "date":
            sentence, hit = self._typed(question, evidence, around, (sentence, hit), stale)
            # a question about what was left: the memory answered from joins the
            # evidence when it is not there (read deeper by :meth:`_typed`, or a reply
            # read beside); for any other question a reply read beside stays outside
            unread = isinstance(hit, Hit) and all(h.id != hit.id for h in evidence)
            if unread and asks_left(question):
                base = {**base, "evidence": [*evidence, hit]}
            if isinstance(hit, Hit) and asks_manner(question):  # "How did they...?"
                sentence, hit = told_how(sentence, hit, around)
                if all(h.id != hit.id for h in base["evidence"]):  # a reply read beside
                    base = {**base, "evidence": [*base["evidence"], hit]}
        if hit is None:
            return Answer(
                REFUSAL,
                refused=True,
                llm_calls=extra_calls,
                latency_s=time.perf_counter() - t0,
                **base,
            )
        calls, c = extra_calls, None
        text = sentence
        if self.date_answers and question.answer_type == "date":
            # a date written out, else the time the sentence talks about resolved
            # against when it was said ("on Saturday"), else the day it was said
            teaser = talk.teasers.get(hit.id) if talk is not None else None
            # a reply to "When did you...?" tells a past time ("Sunday!")
            back = talk is not None and hit.id in talk.asked_past
            text = (
                date_span(sentence, question)
                or (event_date(sentence, hit.timestamp, question, back=True) if back else "")
                or memory_date(hit.text, sentence, hit.timestamp, question)
                or (event_date(teaser.text, teaser.timestamp, question) if teaser else "")
                or note_date(hit.timestamp)
            )
        elif self.mode == "span" and self.llm.generates:
            text, c = self._span(question, sentence)
            calls += c is not None
        return Answer(
            text,
            draft=c.text if c is not None else "",
            refused=False,
            source_id=hit.id if isinstance(hit, Hit) else "",
            llm_calls=calls,
            latency_s=time.perf_counter() - t0,
            prompt_tokens=c.prompt_tokens if c is not None else 0,
            completion_tokens=c.completion_tokens if c is not None else 0,
            **base,
        )

    def _typed(
        self,
        question: Question,
        evidence: list[Hit],
        around: Around,
        sentence: tuple[str, Any],
        stale: Collection[str] = (),
    ) -> tuple[str, Any]:
        """The typed reader's span and its memory; the extractive ``sentence`` (and
        its memory) when the question wants no typed answer; ("", None), a refusal,
        when memory never gave what it asks (``typed.NEVER``). Without the NLP
        pipeline installed, the sentence."""
        if not nlp.available():
            _warn_once(
                "the typed reader needs spaCy: pip install 'remem[local]'; answering with sentences"
            )
            return sentence
        found = typed_answer(question, evidence, around, stale)
        if asks_left(question) and around.deeper is not None and not names_left(evidence):
            # what was left was named while it was current, often long before the
            # leaving, whose turn says only "my current company": the recall read
            # again as deep once more (the demo's "Halden Logistics", 12th of 20),
            # whatever the first read found in memories that name nothing left ("Ines
            # says my bowing is smoother" is no company left)
            more = around.deeper(_LEFT_READS * len(evidence))
            deeper = len(more) > len(evidence)
            again = typed_answer(question, more, around, stale) if deeper else None
            found = found if again in (None, NEVER) else again
        return sentence if found is None else found

    def _span(self, question: Question, sentence: str) -> tuple[str, Completion | None]:
        """The words of ``sentence`` the reader picks as the answer, and its call: the
        reply is held by a JSON schema whose only strings are runs of the sentence's
        words (llama.cpp turns it into a grammar; a backend that cannot enforce it is
        checked after), so the reader can shorten the evidence but not add to it. The
        whole sentence when the reader fails, strays or the sentence has too many runs."""
        choices = spans(sentence, question)
        if len(choices) < 2:
            return sentence, None
        schema = {
            "type": "object",
            "properties": {"answer": {"type": "string", "enum": choices}},
            "required": ["answer"],
        }
        messages = prompts.render("answer_span", sentence=sentence, question=question.text)
        try:
            c = self.llm.complete(
                messages,
                task="answer",
                max_tokens=self.max_answer_tokens + 16,  # the JSON's own characters
                temperature=self.temperature,
                json_schema=schema,
            )
        except LLMError as exc:
            log.warning("span reader failed (%s); answering with the sentence", failure(exc))
            return sentence, None
        try:
            value = parse_json(c.text)
            validate(value, schema)
        except (ValueError, TypeError, KeyError):
            return sentence, c
        return str(value["answer"]), c


#: how the reader answers (``mode`` on :class:`Answerer`)
MODES = ("generate", "extract", "span", "routed", "typed")


@cache
def _warn_once(message: str) -> None:
    log.warning(message)


@dataclass(frozen=True)
class AnswerOptions:
    """What each of :class:`Answerer`'s settings (``Memory(answer_options=...)``)
    accepts, declared as the engines' options are (``remem/options.py``), so a
    wrong one is refused when the Memory is made. The defaults are the Answerer's;
    a test holds the two together. Token budgets reach a million, the largest
    context windows models have."""

    max_context_tokens: int = number(900, low=1, high=1_000_000)
    """the memory context's budget, by the LLM's own count (the fixed instructions
    aside): room for about ten memories, what the benchmarks' k=10 retrieves (their
    median context stayed under it:
    docs/notes/benchmark-history.md#end-to-end-answers-on-locomo-bundled-reader-all-1986-questions),
    inside the bundled model's
    2,048-token window with the instructions and the reply."""
    max_answer_tokens: int = number(32, low=1, high=1_000_000)
    """the reply's length: an answer from memory is a name, a date or a phrase, and a
    short budget stops a small model that would run on. Not tuned."""
    temporal_prompt: bool = switch(True)
    """whether a question about time gets the prompt that dates every memory and asks
    for relative times to be resolved (a date is unanswerable without the dates)."""
    grounding: float = number(0.0, low=0, high=1)
    """the share of the reply's words that must be in the evidence, else it refuses.
    Off (0) since the "not in memory" verdict refuses: at 0.5 it refused more of the
    answerable questions for fewer right answers
    (docs/notes/benchmark-history.md#the-grounding-checks-trade-off)."""
    date_answers: bool = switch(True)
    """whether a date question is answered with the reply's date alone: the date is
    what was asked, and the same drafts settled so scored higher for both engines
    (docs/notes/benchmark-history.md#how-the-answer-rules-moved-the-numbers-the-same-drafts-settled-again)."""
    premise: bool = switch(True)
    """whether a reply resting on a premise the evidence does not hold refuses: it
    refuses far more of the questions about what was never said for almost no F1,
    and an answer from the wrong person's line is what the verification rule exists
    to stop
    (docs/notes/benchmark-history.md#how-the-answer-rules-moved-the-numbers-the-same-drafts-settled-again)."""
    trim_restatement: bool = switch(True)
    """whether a restatement of the question is cut from the reply: it says nothing
    the question did not, and the same drafts settled so scored higher for both
    engines
    (docs/notes/benchmark-history.md#how-the-answer-rules-moved-the-numbers-the-same-drafts-settled-again)."""
    order: str = choice("rank", "rank", "time")
    """the context's order: best memory last, next to the question ("rank"), chosen
    over SYNAPSE's time order on a subset and held on the rest
    (docs/notes/benchmark-history.md#evidence-order-rank-the-default-against-time)."""
    temperature: float = number(0.0, low=0, high=2)
    """greedy decoding, so an answer repeats exactly; a higher one samples (the
    benchmark's repeated runs use it), 2 the most any common API takes."""
    verdict: bool = switch(True)
    """whether the calibrated "not in memory" verdict on the recall refuses without
    calling the LLM (:mod:`remem.answer.verdict`)."""
    mode: str = choice("auto", "auto", *MODES)
    """how the reader reads; "auto" takes the LLM's own ``answer_mode`` (``routed`` for
    the bundled small model, ``generate`` behind an endpoint, ``extract`` without one),
    each measured over the same retrieval
    (docs/notes/benchmark-history.md#readers-side-by-side-and-the-not-in-memory-verdict-issue-19)."""


# ``routed``: the share of what the question asks about that the extractive sentence
# must hold for it to be the answer (below it the model reads the notes). Every value
# from half to all beat both the extractive and the generating reader on a replay of
# saved drafts; higher ones read a little better there but send a question whose
# sentence says one of its two words ("What breed is my dog?" of "My dog Biscuit is a
# three-year-old greyhound.") to the 135M model, which answered it from another memory
# (tests/fixtures/fact_set.json). Half keeps such sentences: a small model should not
# overrule evidence that names the question's subject. Chosen on one half of the
# conversations, held on the other:
# docs/notes/benchmark-history.md#readers-over-the-full-runs-own-recall-replayed-no-reader-calls.
_ROUTE_COVERAGE = 0.5


def routed_to_sentence(question: Question | str, evidence: Sequence[Hit]) -> bool:
    """Whether the ``routed`` reader answers with the extractive sentence: when the
    question asks for a date (the memory's own date, as the extractive reader gives
    it, beat the small model's date arithmetic for each engine on the held-out
    conversations:
    docs/notes/benchmark-history.md#readers-over-the-full-runs-own-recall-replayed-no-reader-calls),
    or when the sentence
    (read once, by :func:`best_sentence`) :func:`said` what the question asks or
    :func:`tells_of_window` the time it names."""
    q = as_question(question)
    if q.answer_type == "date":
        return True
    sentence, hit = best_sentence(q, evidence)
    return _covers(q, sentence, evidence) or tells_of_window(q, sentence, hit)


def tells_of_window(question: Question, sentence: str, hit: Any) -> bool:
    """Whether ``sentence`` (the extractive answer's, of ``hit``) tells of a time
    inside the window the question names ("What did Ben do last Sunday?" and
    "Tonight I saw Khruangbin in concert", said that Sunday): the time is what the
    question asks about and the sentence holds it, though it shares none of the
    question's words; the small model reading all the notes answered it with a
    project nobody mentioned."""
    if question.window is None or not sentence or not isinstance(hit, Hit):
        return False
    return in_window(event_times(sentence, hit.timestamp), question)


def said(question: Question | str, evidence: Sequence[Hit]) -> bool:
    """Whether the extractive answer's sentence says at least half of what the
    question asks about (:func:`~remem.answer.settle.asked_keys`): then the
    sentence is the answer, and a small model reading all the notes would more often
    pick the wrong memory than improve on it ("Where do I work?" answered from the
    favourite band); below that the words of memory and question differ, and the
    model's reading of the notes does better than word overlap."""
    q = as_question(question)
    return _covers(q, best_sentence(q, evidence)[0], evidence)


def _covers(question: Question, sentence: str, evidence: Sequence[Hit]) -> bool:
    """:func:`said`'s test of an already chosen ``sentence``."""
    asked = asked_keys(question, " ".join({h.speaker for h in evidence if h.speaker}))
    if not sentence or not asked:
        return False
    return len(asked & content_keys(sentence)) / len(asked) >= _ROUTE_COVERAGE


_MAX_SPAN_WORDS = 8
_MAX_SPANS = 300


def _quotable(run: str) -> bool:
    """Whether ``run`` can be a string of the grammar: llama-cpp-python's schema
    converter escapes a double quote or backslash inside an enum wrongly, and the
    broken grammar aborts the process (seen in a benchmark run: 'a track called
    "Savana."')."""
    return '"' not in run and "\\" not in run


def spans(sentence: str, question: Question | str = "") -> list[str]:
    """The runs of one to eight words of ``sentence`` (punctuation at their ends
    dropped) that hold a content word the ``question`` does not (so neither "a" nor
    the question's own words alone can be the answer), shortest first, then the whole
    sentence; [] when there would be more than 300 (a grammar that large slows the
    reader more than it helps)."""
    words = sentence.split()
    asked = as_question(question).keys if question else frozenset()
    out: dict[str, None] = {}
    for n in range(1, min(_MAX_SPAN_WORDS, len(words)) + 1):
        for i in range(len(words) - n + 1):
            run = " ".join(words[i : i + n]).strip(".,;:!?\"'()[]")
            if run and _quotable(run) and content_keys(run) - asked:
                out.setdefault(run, None)
    if _quotable(sentence):
        out.setdefault(sentence.strip(), None)
    return list(out) if len(out) <= _MAX_SPANS else []


# The extractive choice: the top five memories are read, and a sentence that asks
# (ends with "?") ranks below a statement sharing as many words with the question,
# since a question in a chat ("Do you have a favourite bird?") rarely holds the
# answer; before, the top three were read alike. A "when" question reads every memory
# of the context: its answer is a sentence that names both the thing and a time, rarer
# than one sharing words, and the rest of the context is where the telling turn sits
# when a chattier one outranks it. Both chosen on one half of the conversations of a
# saved full run's recall and held on the other:
# docs/notes/benchmark-history.md#readers-over-the-full-runs-own-recall-replayed-no-reader-calls.
_EXTRACT_DEPTH = 5
#: how many times the evidence a question about what was left reads when the
#: evidence names nothing left (:meth:`Answerer._typed`): once more as deep
_LEFT_READS = 2
_QUESTION_PENALTY = 0.5


def _asked_keys(question: Question) -> frozenset[str]:
    """The keys a sentence shares with the question: its content words but the asking
    ones ("when I win" does not share "When did ...?") and the unit a date question
    asks by ("our busiest day" does not share "On what day ...?")."""
    return question.keys - words.ASKING - words.date_unit(question.text)


@dataclass(frozen=True)
class Dialogue:
    """What the turns beside the evidence tell a "when" question (:func:`_dialogue`):
    the replies to its asking turns with the fit each inherits, and each memory's
    teaser."""

    replies: list[Hit] = field(default_factory=list)
    inherited: dict[str, float] = field(default_factory=dict)
    teasers: dict[str, Hit] = field(default_factory=dict)
    #: the replies to a turn that asked when (:data:`_WHEN_ASKED`)
    asked_when: frozenset[str] = frozenset()
    #: those of them asked in the past tense ("When did you do it?"): a time they
    #: tell with no tense of its own is a past one ("Sunday!")
    asked_past: frozenset[str] = frozenset()
    #: the replies of the evidence to a turn that asked of the question's words, not
    #: when ("And what's happening with the striking competition?" / "It's on
    #: Saturday 16 May"): they inherit nothing, but their day may tell finer what a
    #: coarser time told (:func:`_finer`)
    answering: frozenset[str] = frozenset()


def _dialogue(question: Question, evidence: Sequence[Hit], around: Around) -> Dialogue:
    """For a "when" question, the turns beside the evidence that tell a time:
    the reply to a turn that asks, inheriting the words that turn shares with the
    question ("When do you start?" / "This coming Monday."), and for a memory that
    names no time, the turn its speaker said just before the other's question it
    answers, when that turn names one ("Guess what I finally did last Sunday." /
    "Bought another motorbike?" / "Picked up a Honda in Carlisle.")."""
    q = _asked_keys(question)
    doing = main_verbs(question.text)
    have = {h.id for h in evidence}
    asking = [h for h in evidence if asks(h.text)]
    after = around.neighbours(asking) if around.neighbours is not None and asking else {}
    replies: list[Hit] = []
    inherited: dict[str, float] = {}
    asked_when: set[str] = set()
    asked_past: set[str] = set()
    answering: set[str] = set()

    def replied(reply: Hit, fit: float, when: str | None) -> None:
        """``reply`` inherits ``fit``; when ``when`` (the sentence that asked it) is not
        None, it was asked when, in the past tense if that sentence is."""
        inherited[reply.id] = max(inherited.get(reply.id, 0.0), fit)
        if when is not None:
            asked_when.add(reply.id)
            if tense_of(when) == PAST:
                asked_past.add(reply.id)

    for h in asking:
        n = after.get(h.id)
        said = sentences(h.text)
        shared = _shared_asking(said[-1], q, doing)
        if not shared and _refers_back(said[-1]):  # "A van?! When did you get it?"
            shared = len(q & content_keys(" ".join(said[:-1])))
        if n is not None and n.speaker != h.speaker and shared:
            dated = words.answer_type(said[-1]) == "date"
            replied(n, REPLY_SHARE * shared, said[-1] if dated else None)
            if n.id not in have:  # read after the evidence
                replies.append(n)
                have.add(n.id)
    for reply, asker in _replies_to_asking(evidence, around):
        # the evidence holds the reply, not the turn that asked: "When did you do the
        # assessment?" / "Sunday! The final assessment was..."; "And what's happening
        # with the striking competition?" / "It's on Saturday 16 May at Tenbury"
        last = sentences(asker.text)[-1]
        shared = _shared_asking(last, q, doing)
        if shared and words.answer_type(last) == "date":
            replied(reply, REPLY_SHARE * shared, last)
        elif shared:  # asked of it, not when: its day may tell the same thing finer
            answering.add(reply.id)
    for told, reply in _asked_when_after(evidence, around):
        shared = len(q & content_keys(told.text))
        if shared:  # "We've made the league final!" / "When is it?" / "On Tuesday."
            # the reply tells the time of what was told: it stands as the told turn does
            shared += told_by_asked(told.text, told, q)
            replied(reply, float(shared), "")  # asked when ("When is it?"), tense unread
            if reply.id not in have:
                replies.append(reply)
                have.add(reply.id)
    teasers = _teasers(question, [*evidence, *replies], around)
    return Dialogue(
        replies,
        inherited,
        teasers,
        frozenset(asked_when),
        frozenset(asked_past),
        frozenset(answering),
    )


def _shared_asking(asking: str, keys: frozenset[str], doing: frozenset[str]) -> float:
    """What a turn's asking sentence shares with the question: its words, and one more
    for a verb of the question's doing said in another word of its kin, which no word
    shares ("When did you catch him?" for "What day did we trap my red-tail?")."""
    shared = len(keys & content_keys(asking))
    if doing and any(
        words.word_key(v) not in keys and any(verbs_kin(v, d) for d in doing)
        for v in main_verbs(asking)
    ):
        shared += 1
    return shared


def _replies_to_asking(evidence: Sequence[Hit], around: Around) -> list[tuple[Hit, Hit]]:
    """(reply, the turn before it) for each memory of ``evidence`` that does not ask
    and follows the other speaker's turn that asks."""
    plain = [h for h in evidence if not asks(h.text)]
    prior = said_before(plain, around)
    return [(h, a) for h in plain if (a := prior.get(h.id)) is not None and asks(a.text)]


def _asked_when_after(evidence: Sequence[Hit], around: Around) -> list[tuple[Hit, Hit]]:
    """(what was told, the reply) for each memory of ``evidence`` that does not ask,
    when the other speaker asks next when it is, of what was told (:func:`asks_of_told`:
    naming nothing of their own, or one thing and a pronoun: "We've made the league
    final!" / "No way! When is it?"; "I have BEES." / "When did they arrive?"), and
    its speaker replies ("On Tuesday, at the Kestrel Inn"): the reply tells when what
    was told is."""
    neighbours = around.neighbours
    plain = [h for h in evidence if not asks(h.text)]
    if neighbours is None or not plain:
        return []
    nxt = neighbours(plain)
    asking = {
        h.id: a
        for h in plain
        if (a := nxt.get(h.id)) is not None and a.speaker != h.speaker and asks(a.text)
        and asks_of_told(a.text) and words.answer_type(sentences(a.text)[-1]) == "date"
    }  # fmt: skip
    replies = neighbours(list(asking.values())) if asking else {}
    out = []
    for h in plain:
        a = asking.get(h.id)
        r = replies.get(a.id) if a is not None else None
        if r is not None and r.speaker == h.speaker:
            out.append((h, r))
    return out


#: what a reply's first sentence adds to what it inherits of the turn that asked it,
#: when that turn asked when, for a "when" question (:func:`_dialogue`)
_WHEN_ASKED = 1.0


def _teasers(question: Question, evidence: Sequence[Hit], around: Around) -> dict[str, Hit]:
    """Each memory of ``evidence`` that names no time of its own -> the other's
    question it answers, when that question names one and shares a word with the
    one asked ("How did the half marathon go yesterday?" / "Brilliant, a personal
    best."; not "Is that the brother who went to Malta last year?"),
    else its speaker's turn just before that question, when that turn names one
    (:func:`_dialogue`)."""
    before = around.before
    plain = [
        h
        for h in evidence
        if not any(unwritten(event_times(p, h.timestamp), question) for p in sentences(h.text))
    ]
    if before is None or not plain:
        return {}
    asked = {i: a for i, a in said_before(plain, around).items() if asks(a.text)}
    keys = _asked_keys(question)
    timed = {
        i: a
        for i, a in asked.items()
        if keys & content_keys(a.text) and unwritten(event_times(a.text, a.timestamp), question)
    }  # the question names the time of what is asked: "How did the race go yesterday?"
    rest = [a for i, a in asked.items() if i not in timed]
    earlier = before(rest) if rest else {}
    speaker = {h.id: h.speaker for h in plain}
    return timed | {
        i: teaser
        for i, a in asked.items()
        if i not in timed
        and (teaser := earlier.get(a.id)) is not None
        and teaser.speaker == speaker[i]
        and unwritten(event_times(teaser.text, teaser.timestamp), question)
    }  # fmt: skip


def best_sentence(
    question: Question | str,
    evidence: Sequence[Hit | str],
    replaced_by: Mapping[str, str] | None = None,
    talk: Dialogue | None = None,
) -> tuple[str, Any]:
    """The sentence :func:`extractive` answers with and the evidence item it is from
    (None, with "", when no sentence shares a content word with the question).
    ``replaced_by``: superseded hit id -> the hit holding the current value of what
    the question asks (:func:`replaced`): a sentence of the first answers with the
    second ("I live in Lisbon" shares "live" with "Where do I live now?", the answer
    is "I moved to Porto"). ``talk``: what the turns beside the evidence tell a "when"
    question (:func:`_dialogue`): a reply's first sentence shares what its asking turn
    does, and a memory whose time was told in a teaser names it."""
    asked = as_question(question)
    q = _asked_keys(asked)
    best, best_score, source = "", 0.0, None
    when = asked.answer_type == "date"
    dated: list[tuple[float, str, Hit, list[EventTime]]] = []  # sharing a word, timed
    best_times: list[EventTime] = []  # the times the best sentence is dated by
    doing = main_verbs(asked.text) if when else frozenset()
    doer = doer_of(asked.text) if doing else ""
    for rank, h in enumerate(evidence if when else evidence[:_EXTRACT_DEPTH]):
        parts = sentences(h if isinstance(h, str) else h.text)
        timed = [event_times(p, h.timestamp) for p in parts] if isinstance(h, Hit) else []
        speaker = (h.speaker or "").lower() if isinstance(h, Hit) else ""
        before = 0.0
        for at, sentence in enumerate(parts):
            told_of = _untimed(sentence, timed[at]) if when and timed else sentence
            overlap: float = len(q & content_keys(told_of))
            own = unwritten(timed[at], asked) if isinstance(h, Hit) else []
            shared = overlap
            if doing and own:  # a time told of the doing asked (:func:`_doing_told`)
                overlap += _doing_told(sentence, doing, q, before, (doer, speaker))
            before = shared
            replied = False  # a reply's sentence that shares its asking turn's words
            if talk is not None and isinstance(h, Hit) and (at == 0 or (overlap and own)):
                # a reply, by its asking turn: its first sentence, and a later one
                # that speaks of the question's words and tells a time ("How's Marisol
                # getting on at the new club?" / "Loving it. She's got her first gala
                # with them on 25 April."; not "First gig soon")
                overlap += talk.inherited.get(h.id, 0.0)
                replied = h.id in talk.inherited or h.id in talk.answering
                if at == 0 and h.id in talk.asked_when:  # asked when, it tells when:
                    overlap += _WHEN_ASKED  # "When did you get home?" / "On Thursday"
            asks = _QUESTION_PENALTY if sentence.rstrip().endswith("?") else 0.0
            if isinstance(h, Hit):
                window = in_window(timed[at], asked)
                if not (overlap or window or (replied and own)):
                    continue  # the speaker alone, or a time alone, says nothing asked
                overlap += told_by_asked(sentence, h, q) + window
                told = _when_told(parts, timed, at, asked) if when else 0.0
                if when and not told and talk is not None and h.id in talk.teasers:
                    told = _NEIGHBOUR_TIME  # its time told in a teaser (:func:`_dialogue`)
                if rank >= _EXTRACT_DEPTH and not told:
                    continue  # read that deep for a time only: its day alone is no answer
                if when and _undated_plan(sentence, asked, told, (timed, at)):
                    overlap *= _PLANNED_SHARE  # "I'm going to set up an aquarium", no day
                overlap += told
            score = overlap - asks - 0.01 * rank
            if overlap and score > best_score:
                best, best_score, source = sentence.strip(), score, h
                if when and isinstance(h, Hit):  # its own, else a neighbour's
                    best_times = own or _neighbour_times(timed, at, asked)
            if when and own and isinstance(h, Hit) and (q & content_keys(sentence) or replied):
                dated.append((score, sentence.strip(), h, own))
    if when and isinstance(source, Hit):
        best, source = _finer(best, source, best_times, dated)
    if replaced_by and isinstance(source, Hit):
        hits = {h.id: h for h in evidence if isinstance(h, Hit)}
        first, seen = source.id, {source.id}
        while source.id in replaced_by and replaced_by[source.id] in hits:
            source = hits[replaced_by[source.id]]
            if source.id in seen:  # a cycle cannot arise from the notes; stop anyway
                break
            seen.add(source.id)
        if source.id != first:
            parts = sentences(source.text) or [source.text]
            best = max(parts, key=lambda t: len(q & content_keys(t))).strip()
    return (best, source) if best else ("", None)


def _untimed(sentence: str, times: Sequence[EventTime]) -> str:
    """``sentence`` without the words of the times it tells: "the first of June"
    shares no "first" with "What was my first day at the startup?", whose answer is
    the day of the thing asked, not a day that happens to be a first."""
    for e in times:
        sentence = sentence.replace(e.words, " ")
    return sentence


def _finer(
    best: str,
    source: Hit,
    times: list[EventTime],
    dated: list[tuple[float, str, Hit, list[EventTime]]],
) -> tuple[str, Hit]:
    """For a "when" question, the best sentence, or one sharing a word with the
    question that names a day inside the coarser time the best is dated by
    (``times``: its own, else a neighbour's, as memory_date reads them: "My
    grandmother's turning 90 in June" / "The party's on Saturday the 6th of June"),
    or a reply's that inherits the words of the turn asking it ("And what's happening
    with the striking competition?" / "It's on Saturday 16 May at Tenbury"):
    the day is the same event told more precisely; the best scored of them. The best
    sentence when it names a day or no time."""
    coarse = [e for e in times if e.granularity != "day"]
    if not coarse or len(coarse) < len(times):
        return best, source
    inside = [
        (score, sentence, hit)
        for score, sentence, hit, times in dated
        if sentence != best
        and any(
            e.granularity == "day" and c.start <= e.start < c.end for e in times for c in coarse
        )
    ]
    if not inside:
        return best, source
    _, sentence, hit = max(inside, key=lambda x: x[0])
    return sentence, hit


#: what a sentence saying "it" or "they" takes of the words the sentence before it
#: shares with a "when" question: what it refers to ("I've finally bought an old
#: bike to restore. Collected it yesterday evening")
_CARRY = 0.5
#: what the question's own doing adds to a sentence that says it, by its verb or one
#: of its kin (:func:`kinds.verbs_kin`): asked "When did I pick up the bike?", the
#: sentence that collected it says when, not the one that bought it
_EVENT_VERB = 1.0
#: the pronouns that refer back to a thing or a person said before
_BACK = frozenset({"it", "they", "them", "he", "she", "him", "her", "this", "that"})


def _event_verb(
    sentence: str, doing: frozenset[str], keys: frozenset[str], doer: tuple[str, str] = ("", "")
) -> float:
    """What ``sentence`` adds for saying the question's doing (``doing``, its verbs'
    lemmas): :data:`_EVENT_VERB` when a verb of it is one of them or their kin, and
    one more when that verb is kin only (the shared words did not count it). Not a
    verb whose subject is someone other than the one the question asks of
    (``doer``: the question's named subject and the sentence's speaker): "I picked
    up a foster dog" is not when Gordon collected her."""
    for t in nlp.parse(sentence):
        if t.pos_ != "VERB" or _done_by_other(t, doer):
            continue
        lemmas = verb_lemmas(t)
        if any(lemma in doing for lemma in lemmas):
            return _EVENT_VERB
        if any(verbs_kin(lemma, v) for lemma in lemmas for v in doing):
            shared = words.word_key(lemmas[0]) in keys or words.word_key(t.lower_) in keys
            return _EVENT_VERB + (0.0 if shared else 1.0)
    return 0.0


#: the pronouns of someone other than the one asking and those with them
_OTHERS = frozenset({"he", "she", "they"})


def _done_by_other(verb: Any, doer: tuple[str, str]) -> bool:
    """Whether ``verb``'s subject is named, or is "I" or "we" of the speaker, and is
    not the question's doer (``doer``: (name, speaker), lower case; no name: False).
    Asked of the one asking ("i": "When did I pass my test?"), a name or "he",
    "she", "they" is another ("Tamsin from work passed last year")."""
    name, speaker = doer
    if not name:
        return False
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is None:
        return False
    if name == "i":  # "She rang her first full peal last month": not my first
        return subject.pos_ == "PROPN" or subject.lower_ in _OTHERS
    if subject.lower_ in ("i", "we"):
        return bool(speaker) and speaker != name
    return subject.pos_ == "PROPN" and subject.lower_ != name


def _doing_told(
    sentence: str,
    doing: frozenset[str],
    keys: frozenset[str],
    before: float,
    doer: tuple[str, str] = ("", ""),
) -> float:
    """What a sentence telling a time of its own adds for a "when" question whose
    doing is ``doing`` (its verbs' lemmas): :func:`_event_verb` unless it asks ("you
    attended the parade, right?"), and :data:`_CARRY` of the words the sentence
    before it shares with the question (``before``) when it says "it" for them. Not
    for a sentence without a time: the doing alone does not say when."""
    asks = sentence.rstrip().endswith("?")
    told = 0.0 if asks else _event_verb(sentence, doing, keys, doer)
    return told + (_CARRY * before if _refers_back(sentence) else 0.0)


def _refers_back(sentence: str) -> bool:
    """Whether ``sentence`` says "it", "they"... (:data:`_BACK`) as a verb's subject
    or object: what it speaks of was named before it."""
    return any(
        t.lower_ in _BACK and t.dep_ in ("nsubj", "dobj", "nsubjpass", "pobj")
        for t in nlp.parse(sentence)
    )


#: what a sentence that plans the thing asked keeps of its score, for a question
#: asking when it happened (:func:`_planned`)
_PLANNED_SHARE = 0.5


def _undated_plan(
    sentence: str,
    question: Question,
    told: float,
    where: tuple[Sequence[Sequence[EventTime]], int],
) -> bool:
    """Whether, asked when something happened, ``sentence`` plans or wishes it
    (:func:`_planned`) and names no day: no time of its own (``told`` below one) nor
    a day in the sentence beside it (``where``: its memory's sentences' times and its
    place among them, :func:`_neighbour_day`)."""
    timed, at = where
    return (
        question.asks_past
        and told < 1
        and not _neighbour_day(timed, at, question)
        and _planned(sentence, question)
    )


def _planned(sentence: str, question: Question) -> bool:
    """Whether ``sentence`` speaks of what the question asks about as a plan: a word
    of its topic sits in a clause in the future tense ("so I'm going to set up an
    aquarium", ``time.tense``) or under a wish (:func:`_wished`). Asked when it
    happened ("When did I set up my fish tank?"), a plan naming no day does not
    say; "I finally set it up last Saturday" does. A plan naming its day, or whose
    neighbour names one ("Gordon's booked my first quarter peal attempt! Saturday
    the 16th of May"), is read as any sentence ("We're going to a baseball game next
    Sunday": the day it happened, as far as memory tells)."""
    topic = question.topic_keys
    return ahead(sentence, lambda word: words.word_key(word) in topic) or _wished(sentence, topic)


#: verbs whose infinitive tells what is wished or meant, not done ("Gideon wants me to
#: ring my first quarter peal before the summer's out")
_WISHING = frozenset({"want", "hope", "plan", "aim", "intend", "wish", "expect", "mean", "like"})


def _wished(sentence: str, topic: frozenset[str]) -> bool:
    """Whether a word of the question's topic sits under an infinitive that a verb of
    wishing governs (:data:`_WISHING`): "wants me to ring my first quarter peal" names
    the ringing as wished, not rung."""
    for t in nlp.parse(sentence):
        if words.word_key(t.text) not in topic:
            continue
        for head in [t, *t.ancestors]:
            if (
                head.dep_ in ("xcomp", "ccomp")
                and head.head.lemma_ in _WISHING
                and any(c.lower_ == "to" for c in head.children)
            ):
                return True
    return False


#: what a time in the clause of the thing asked adds (below one shared word: it
#: breaks ties between sentences that each name a time)
_EVENT_WORD = 0.25


def names_time(sentence: str, times: Sequence[EventTime], question: Question) -> float:
    """Whether ``sentence`` (whose event times are ``times``) names a time of its own,
    one the question does not write: a "when" question is answered by the sentence
    that says when ("I started volunteering here about a year ago") before one that
    only speaks of the same thing ("I'm volunteering at a homeless shelter"), whose
    answer could only be the day it was said."""
    found = unwritten(times, question)
    if not found:
        return 0.0
    return 1.0 + _EVENT_WORD * any(event_word(sentence, e, question) for e in found)


#: what a time named by the sentence next to the one asked about adds, of
#: :func:`names_time`'s: the answer takes it from there too (``memory_date``), but
#: a neighbour's time is less often the asked thing's than the sentence's own
_NEIGHBOUR_TIME = 0.5


def _when_told(
    parts: Sequence[str], timed: Sequence[Sequence[EventTime]], at: int, question: Question
) -> float:
    """What sentence ``at`` of a memory (its sentences ``parts``, their event times
    ``timed``) adds to a "when" question's score: its own time (:func:`names_time`),
    else part of a neighbour's, the one before first ("Guess what I did this week?
    I applied to adoption agencies!"), as ``settle.memory_date`` answers."""
    own = names_time(parts[at], timed[at], question)
    if own:
        return own
    return _NEIGHBOUR_TIME if _neighbour_times(timed, at, question) else 0.0


def _neighbour_times(
    timed: Sequence[Sequence[EventTime]], at: int, question: Question
) -> list[EventTime]:
    """The times the sentences beside sentence ``at`` name that the question does not
    write, the one before first (``timed``: each sentence's event times)."""
    return [
        e
        for near in (at - 1, at + 1)
        if 0 <= near < len(timed)
        for e in unwritten(timed[near], question)
    ]


def _neighbour_day(timed: Sequence[Sequence[EventTime]], at: int, question: Question) -> bool:
    """Whether a sentence beside sentence ``at`` of a memory names a day the question
    does not write (``timed``: each sentence's event times): a plan told with its day
    in the next breath ("Gordon's booked my first quarter peal attempt! Saturday the
    16th of May") names its day as one told in the same sentence does."""
    return any(e.granularity == "day" for e in _neighbour_times(timed, at, question))


def event_word(sentence: str, event: EventTime, question: Question) -> bool:
    """Whether the clause around ``event`` shares a word of the question other than
    its names: the time of the thing asked ("When did Priya start at Brightwater?":
    "I start at Brightwater next Monday", not "an interview at Brightwater on
    Thursday", which shares only the name)."""
    at = sentence.find(event.words)
    if at < 0:
        return False
    lo, hi = Clauses(sentence).around(at, at + len(event.words))
    return bool(question.topic_keys & content_keys(sentence[lo:hi]))


def extractive(question: Question | str, evidence: Sequence[Hit | str]) -> str:
    """Without a reader: the sentence of the top evidence sharing most (stemmed)
    content words with the question, a statement before a question, ties to the
    better-ranked memory; a refusal
    when none shares one, since then nothing in memory speaks to the question.
    ``evidence`` are hits or their texts, best first (the benchmark's replay has
    only the texts)."""
    return best_sentence(question, evidence)[0] or REFUSAL
