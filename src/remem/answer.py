"""Grounded answering: memory in, a short answer or an honest refusal out.

The pipeline is the same for every engine: recall (the engine's own flow, so
SYNAPSE's gate and ILSTMA's cache act), fit the evidence into a token budget,
order it by time, and ask the reader with the verification rule (answer only from
memory, else "Not mentioned in the conversation"). Questions about time get a
prompt that dates every memory and asks for relative times to be resolved.

Choices, each configurable on :class:`Answerer` (``answer_options`` on Memory):
- the budget counts the memory context only (not the fixed instructions), at most
  ``max_context_tokens`` by the LLM's own count (:func:`remem.tokens.clip_tokens`
  cuts what does not fit), best-ranked evidence first; the context lists it worst to
  best, so the best memory sits next to the question (``order="rank"``), or by time
  as SYNAPSE's paper orders its prompt (``order="time"``). With the bundled 135M
  reader the rank order was chosen on a LoCoMo subset (where SYNAPSE gained most)
  and then held on the 1,784 questions that played no part in choosing it, by about
  +0.012 F1 for hybrid and SYNAPSE alike (docs/benchmarks.md);
- a gate refusal (SYNAPSE) answers without calling the LLM;
- with ``llm="none"`` the answer is extractive: the sentence of the best evidence
  that shares most words with the question;
- the reply is then settled (:func:`settle`, the one rule the benchmark's replay
  reuses): the framing small readers wrap answers in is stripped; the verification
  rule is enforced, not only asked for: a reply whose own content words (those not
  already in the question; numbers, dates and stopwords aside) are mostly absent
  from the evidence is replaced by the refusal (``grounding``, the share that must
  be present; 0 turns the check off), and so is one resting only on what memory
  says of someone other than the person asked about (``premise``); a question
  asking for a date gets the reply's date (``date_answers``), others lose a
  restatement of the question (``trim_restatement``). Small readers ignore the
  rule and name things memory never held, or answer a false premise from the
  right line about the wrong person; the checks catch that, at a false-refusal
  cost the QA benchmark reports. The rules were written from the drafts of a
  LoCoMo run and are measured on that same run (docs/benchmarks.md says so);
- the reader decodes greedily (``temperature=0``), so an answer repeats exactly;
  a higher temperature samples (the benchmark's repeated runs use it to measure
  how much a result owes to one decoding), with the LLM's own seed.
"""

from __future__ import annotations

import inspect
import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .errors import InvalidInputError, LLMError
from .index.tokenize import stem, tokenize
from .llm import LLM, prompts
from .store.base import timestamp_epoch
from .tokens import clip_tokens
from .types import Hit, Recall

log = logging.getLogger("remem.answer")

REFUSAL = "Not mentioned in the conversation"
# How readers say "the notes do not hold it" besides the requested phrase; a reply
# containing one is the refusal (small readers wrap the rule in their own words:
# "The date of the picnic is not specified").
_REFUSAL_MARKS = (
    "not mentioned",
    "no information",
    "not in memory",
    "not specified",
    "not provided",
    "not stated",
    "no mention",
    "does not mention",
    "doesn't mention",
    "not possible to",
    "cannot be determined",
    "can't be determined",
)
_TEMPORAL = re.compile(
    r"\b(when|what (?:date|day|year|month|time|week)|which (?:date|day|year|month)|"
    r"how long|how many (?:days|weeks|months|years)|ago|since|until)\b",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
# Words a grounded answer may add without the evidence saying them: dates and times
# (computed from the memories' dates), yes/no, and numbers written as words.
_FREE_WORDS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "year",
        "years",
        "month",
        "months",
        "week",
        "weeks",
        "day",
        "days",
        "ago",
        "last",
        "next",
        "yesterday",
        "today",
        "tomorrow",
        "yes",
        "no",
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "hundred",
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "once",
        "twice",
        # the reader's framing of a reply, not claims about the user
        "answer",
        "question",
        "date",
        "time",
        "note",
        "notes",
        "conversation",
    ]
)
_NUMBERISH = re.compile(r"^\d+(?:st|nd|rd|th|s)?$")


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
        }


def is_refusal(text: str) -> bool:
    low = text.lower()
    return not low.strip() or any(m in low for m in _REFUSAL_MARKS)


def is_temporal(question: str) -> bool:
    return bool(_TEMPORAL.search(question))


def format_memory(hit: Hit) -> str:
    when = _date(hit.timestamp)
    who = f"{hit.speaker}: " if hit.speaker else ""
    return f"[{when}] {who}{hit.text}"


def _date(ts: datetime) -> str:
    return f"{ts.day} {ts:%B %Y}"


class Answerer:
    def __init__(
        self,
        llm: LLM,
        *,
        max_context_tokens: int = 900,
        max_answer_tokens: int = 32,
        temporal_prompt: bool = True,
        grounding: float = 0.5,
        date_answers: bool = True,
        premise: bool = True,
        trim_restatement: bool = True,
        order: str = "rank",
        temperature: float = 0.0,
    ):
        if order not in ("time", "rank"):
            raise InvalidInputError(f"order must be 'time' or 'rank', not {order!r}")
        if (
            isinstance(temperature, bool)
            or not isinstance(temperature, int | float)
            or not 0 <= temperature <= 2
        ):
            raise InvalidInputError(f"temperature must be a number in [0, 2], not {temperature!r}")
        self.temperature = float(temperature)
        self.order = order
        self.llm = llm
        self.premise = premise
        self.trim_restatement = trim_restatement
        self.grounding = grounding
        self.date_answers = date_answers
        self.max_context_tokens = max_context_tokens
        self.max_answer_tokens = max_answer_tokens
        self.temporal_prompt = temporal_prompt

    def fit(self, hits: list[Hit], notes: Sequence[str] = ()) -> tuple[list[Hit], str, int]:
        """The evidence that fits the budget (best first), its context text (notes
        first, then the memories in ``order``), and that text's token count.

        Notes (ILSTMA's summary and profile) get at most half the budget; the best
        memory is always kept, cut to what is left, so the reader sees some evidence."""
        budget = self.max_context_tokens
        lines: list[str] = []
        used = 0
        for note in (n for n in notes if n):
            room = budget // 2 - used
            if room <= 1:
                break
            note = self._clip(note, room - 1)
            lines.append(note)
            used += self.llm.count_tokens(note) + 1
        kept: list[tuple[Hit, str]] = []
        for h in hits:
            line = format_memory(h)
            n = self.llm.count_tokens(line) + 1
            if used + n > budget:
                if kept:
                    continue  # a shorter, lower-ranked memory may still fit
                line = self._clip(line, budget - used - 1)
                n = self.llm.count_tokens(line) + 1
            kept.append((h, line))
            used += n
        if self.order == "rank":  # best last, next to the question
            ordered = kept[::-1]
        else:  # naive times are UTC (as in storage); sorting mixed ones raw would raise
            ordered = sorted(kept, key=lambda x: timestamp_epoch(x[0].timestamp))
        text = "\n".join(lines + [line for _, line in ordered])
        return [h for h, _ in kept], text, self.llm.count_tokens(text) if text else 0

    def _clip(self, text: str, tokens: int) -> str:
        """``text`` cut (at a word) to at most ``tokens`` (at least 1) of the LLM's count."""
        return clip_tokens(text, max(1, tokens), self.llm.count_tokens)

    @staticmethod
    def check_options(options: Mapping[str, Any]) -> dict[str, Any]:
        """``answer_options`` checked when the Memory is made, not at the first answer."""
        known = set(inspect.signature(Answerer.__init__).parameters) - {"self", "llm"}
        unknown = set(options) - known
        if unknown:
            raise InvalidInputError(
                f"unknown answer_options {sorted(unknown)}; known: {sorted(known)}"
            )
        return dict(options)

    def _settle(
        self, draft: str, question: str, context: str, evidence: list[Hit]
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
        question: str,
        recall: Recall,
        *,
        notes: Sequence[str] = (),
        prepared: str | None = None,
        extra_calls: int = 0,
        started: float | None = None,
    ) -> Answer:
        """Answer from ``recall``. ``prepared`` is an answer the engine's flow already
        produced (ILSTMA's LLM judge on a hit), which costs no further call."""
        t0 = started if started is not None else time.perf_counter()
        evidence, context, ctx_tokens = self.fit(recall.hits, notes)
        base: dict[str, Any] = {
            "evidence": evidence,
            "cache_hit": recall.cache_hit,
            "context_tokens": ctx_tokens,
            "explanations": {h.id: recall.explanations.get(h.id, "") for h in evidence},
            "timings": dict(recall.timings),
        }
        if recall.refuse or (not evidence and not context):
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
        c = None
        if self.llm.generates:
            task = "answer"
            if self.temporal_prompt and is_temporal(question):
                task = "answer_temporal"
            messages = prompts.render(task, context=context, question=question)
            try:
                c = self.llm.complete(
                    messages,
                    task="answer",
                    max_tokens=self.max_answer_tokens,
                    temperature=self.temperature,
                    stop=["\n"],  # one line is the answer; small models ramble after it
                )
            except LLMError as exc:
                log.warning("reader failed (%s); answering extractively", exc)
        if c is None:
            text = extractive(question, evidence)
            return Answer(
                text,
                refused=text == REFUSAL,
                llm_calls=extra_calls,
                latency_s=time.perf_counter() - t0,
                **base,
            )
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


def settle(
    draft: str,
    question: str,
    context: str,
    grounding: float,
    *,
    date_answers: bool = True,
    lines: Sequence[tuple[str | None, str]] = (),
    premise: bool = True,
    trim_restatement: bool = True,
) -> tuple[str, bool]:
    """The reader's ``draft`` made the answer: cleaned, cut to its date when the
    question asks for one (``date_answers``) or else without the question restated
    before it (``trim_restatement``), and replaced by the refusal when it says
    it is not in memory, fails the grounding check (``grounding`` is the share of its
    own content words the context must hold; 0 turns it off) or, with ``premise``,
    rests on what memory says of someone other than the person asked about (see
    :func:`misattributed`; ``lines`` are the evidence as (speaker, text)). Returns
    (text, refused). The QA benchmark replays saved drafts through this same
    function, so a replay is the live rule."""
    text = clean(draft, keep_date=is_temporal(question))
    refused = (
        is_refusal(text)
        or (grounding > 0 and grounded_share(text, question, context) < grounding)
        or (premise and misattributed(text, question, lines))
    )
    if refused:
        return REFUSAL, True
    if date_answers and asks_for_date(question):
        text = date_span(text) or text
    elif trim_restatement:
        text = drop_restatement(text, question)
    return text, False


_COPULA = re.compile(r"\s(?:is|was|are|were|includes?|included)\s+", re.I)


def drop_restatement(text: str, question: str) -> str:
    """The answer without the question restated before it: "The name of Ana's
    teacher is Ines Duarte." asked "What is the name of Ana's teacher?" is "Ines
    Duarte". Only when everything before the first "is"/"was"/"are" is words of the
    question (so "No, she is not" or "Ana's sister is in Paris" asked who lives
    there stay whole)."""
    if re.match(r"\W*(?:yes|no)\b", text, re.I):  # "No, the cat is ..." answers yes/no
        return text
    asked = {_key(t) for t in tokenize(question)}
    # the last "is" whose head is all question words ("The name of the pup that was
    # adopted by James is Ned": the second one)
    for m in reversed(list(_COPULA.finditer(text))):
        head, rest = text[: m.start()], text[m.end() :].strip()
        said = [_key(t) for t in tokenize(head) if t not in _PERSONAL]  # "she" says nothing
        if rest and said and all(w in asked for w in said):
            return rest
    return text


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.I)
_SECOND_PERSON = re.compile(r"\b(?:you|you're|you've|you'd|you'll|your|yours|yourself)\b", re.I)


def _about(speaker: str | None, text: str, speakers: set[str]) -> str | None:
    """Whose the line's content is, when its pronouns say so: the speaker's in the
    first person ("my grandma"), the other one's in the second person between two
    people ("what got you into running?"); None when mixed or third person."""
    first, second = bool(_FIRST_PERSON.search(text)), bool(_SECOND_PERSON.search(text))
    if first and not second:
        return speaker
    if second and not first and speaker in speakers and len(speakers) == 2:
        return next(p for p in speakers if p != speaker)
    return None


def misattributed(answer: str, question: str, lines: Sequence[tuple[str | None, str]]) -> bool:
    """True when the answer comes from what memory says of someone else than the one
    person the question asks about: the question names exactly one of the evidence's
    speakers, and every evidence line that best supports the answer's own words is,
    by its pronouns, about another person. A false premise is the usual shape of an
    unanswerable question ("What is Melanie's grandma's country?" when Caroline said
    "a gift from my grandma in Sweden"), and small readers answer it from the line
    anyway. Answers without content words of their own (yes/no, dates, numbers) and
    lines whose owner is unclear are never judged."""
    speakers = {sp for sp, _ in lines if sp}
    named = [p for p in speakers if re.search(rf"\b{re.escape(p)}\b", question, re.I)]
    if len(named) != 1:
        return False
    asked = {_key(t) for t in tokenize(question)}
    own = {
        _key(t) for t in tokenize(answer) if not _NUMBERISH.match(t) and t not in _FREE_WORDS
    } - asked
    if not own:
        return False
    support = [(len(own & {_key(t) for t in tokenize(text)}), sp, text) for sp, text in lines]
    best = max((n for n, _, _ in support), default=0)
    if best == 0:
        return False
    owners = {_about(sp, text, speakers) for n, sp, text in support if n == best}
    return None not in owners and named[0] not in owners


_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_YEAR = r"(?:1[89]|20)\d{2}"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_DATE_SPAN = re.compile(
    # an optional relative lead ("the week before", "last Sunday of"), then the date
    rf"(?:(?:the\s+)?(?:(?:first|second|third|last|next|same|previous|following)\s+)?"
    rf"(?:day|week|weekend|month|year|{_WEEKDAY})s?\s+(?:before|after|of|prior\s+to)\s+)?"
    rf"(?:{_DAY}\s+(?:of\s+)?{_MONTH}(?:,?\s+{_YEAR})?"
    rf"|{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?"
    rf"|(?:(?:early|mid|late)[-\s]+)?(?:{_MONTH}|spring|summer|autumn|fall|winter)"
    rf"(?:\s+of)?,?\s+{_YEAR}"
    rf"|(?<=\bin\s){_MONTH}"  # "in July"
    rf"|(?P<iso>{_YEAR}-\d{{2}}-\d{{2}})"
    rf"|{_YEAR})\b",
    re.I,
)
_DATE_QUESTION = re.compile(
    r"^\W*(?:when\b|(?:what|which|on what|in what)\s+(?:date|day|year|month|week)\b)", re.I
)


def asks_for_date(question: str) -> bool:
    """ "When ...?" / "Which year ...?": the answer is a point in time (unlike "how
    long", whose answer is a duration)."""
    return bool(_DATE_QUESTION.search(question))


def date_span(text: str) -> str:
    """The first date in ``text`` with its relative lead ("the week before 9 June
    2023"), an ISO date written as the notes write dates; "" when there is none.
    Readers answer "When did Ana move?" with a sentence around the date ("Ana moved
    to Paris on 8 May 2023."); the date is the answer."""
    m = _DATE_SPAN.search(text)
    if not m:
        return ""
    if m.group("iso"):
        try:
            when = datetime.strptime(m.group("iso"), "%Y-%m-%d")
        except ValueError:
            return m.group(0)
        return text[m.start() : m.start("iso")] + _date(when)
    return m.group(0)


def grounded_share(answer: str, question: str, context: str) -> float:
    """Share of the answer's own content words (stemmed) that occur in the context;
    1.0 when it has none (a yes/no, a number, a date)."""
    asked = {_key(t) for t in tokenize(question)}
    known = {_key(t) for t in tokenize(context)}
    own = [
        w
        for t in _words(answer)
        if not _NUMBERISH.match(t) and t not in _FREE_WORDS and (w := _key(t)) not in asked
    ]
    if not own:
        return 1.0
    return sum(w in known for w in own) / len(own)


def _words(text: str) -> list[str]:
    """Content words plus yes/no, which the BM25 stopword list would drop."""
    low = text.lower()
    extra = [w for w in ("yes", "no") if re.search(rf"\b{w}\b", low)]
    return tokenize(text) + extra


# What a reader puts before its answer: "The answer to the question is:", "A:", a
# note's "[8 May 2023]" or "Ana:" echoed from the context's format.
_PREAMBLE = re.compile(
    r"^(?:(?:the\s+)?(?:final\s+)?answer(?:\s+to\s+(?:the|this|your)\s+question)?"
    r"(?:\s+is)?\s*(?::\s*|\s+(?=\S))"
    r"|a\s*:\s*)",
    re.I,
)
_ECHOED_LABEL = re.compile(r"^(?:\[[^\]\n]{1,40}\]\s*|[A-Z][\w'.-]{0,30}:(?:\s+|$))")
_WRAPPERS = "\"'*`“”‘’ "


def clean(text: str, *, keep_date: bool = True) -> str:
    """The reader's first line without the framing small models add around an answer
    (a preamble, an echoed note date or speaker label, quotes, markdown bold). Left
    in, the framing dilutes token F1 and, having no support in the notes, trips the
    grounding check on answers that are in fact grounded. A note date alone in
    brackets ("[15 July 2023]") is the answer to a question about time
    (``keep_date``), and an echo with nothing to say otherwise; a speaker label alone
    ("Ana:") says nothing."""
    text = text.strip()
    line = text.splitlines()[0].strip() if text else ""
    for _ in range(8):  # a reply may stack them: "The answer is: [date] Ana: ..."
        before = line
        line = _PREAMBLE.sub("", line, count=1).strip()
        label = _ECHOED_LABEL.match(line)
        if label:
            rest = line[label.end() :].strip()
            lone_date = label.group(0).startswith("[") and keep_date
            line = rest or (label.group(0).strip().strip("[]") if lone_date else "")
        line = line.strip(_WRAPPERS)
        if line == before:
            break
    return line


# Words that tie a question to any sentence about the same person ("my", "did"):
# sharing only these says nothing about the answer.
_PERSONAL = frozenset(
    [
        "my",
        "me",
        "mine",
        "your",
        "yours",
        "our",
        "ours",
        "their",
        "theirs",
        "them",
        "his",
        "her",
        "hers",
        "its",
        "we",
        "you",
        "they",
        "he",
        "she",
        "did",
        "does",
        "do",
        "have",
        "has",
        "had",
        "was",
        "were",
        "been",
    ]
)


def _key(token: str) -> str:
    """A word's light stem with a final "e" dropped, so "move" meets "moved" and
    "name" meets "named" (the stemmer leaves "move" and cuts "moved" to "mov")."""
    return stem(token).rstrip("e") or token


def _content_keys(text: str) -> set[str]:
    return {_key(t) for t in tokenize(text) if t not in _PERSONAL}


def extractive(question: str, evidence: list[Hit]) -> str:
    """Without a reader: the sentence of the top evidence sharing most (stemmed)
    content words with the question, ties to the better-ranked memory; a refusal
    when none shares one, since then nothing in memory speaks to the question."""
    q = _content_keys(question)
    best, best_score = "", 0.0
    for rank, h in enumerate(evidence[:3]):
        for sentence in _SENTENCE.split(h.text):
            overlap = len(q & _content_keys(sentence))
            score = overlap - 0.01 * rank
            if overlap and score > best_score:
                best, best_score = sentence, score
    return best.strip() or REFUSAL
