"""Grounded answering: memory in, a short answer or an honest refusal out.

Two parts, one module each, because they change for different reasons:

- :mod:`remem.answer.reader` drives the reader: the evidence fitted to a token
  budget and ordered, one LLM call under the verification rule (answer only from
  memory, else "Not mentioned in the conversation"), or the extractive answer when
  there is no LLM. It is about budgets, prompts and calls, and knows no English
  beyond the prompts it renders and the sentence it extracts.
- :mod:`remem.answer.settle` turns the reader's reply into the answer with English
  rules (framing stripped, refusals recognised, the grounding and premise checks, a
  date question answered with the date). The QA benchmark replays saved drafts
  through it, so a rule can change and be measured without running a reader again.

The rules' vocabularies are data, not code: plain word lists in
``remem/answer/data/`` (refusal marks, free words, pronouns, copulas), each with a
header saying what it is for; the word rules every stage shares (keys, asking and
personal words, whether a question asks for a date) are ``remem/words.py``'s.

:class:`Answerer` and :data:`REFUSAL` are public (docs/answers.md#reading-a-recall-yourself);
the rest is the reader's own.
"""

from ..words import asks_for_date, is_temporal
from .reader import Answer, Answerer, extractive, format_memory
from .settle import (
    REFUSAL,
    clean,
    date_span,
    degenerate,
    drop_restatement,
    grounded_share,
    is_refusal,
    misattributed,
    settle,
)

__all__ = [
    "REFUSAL",
    "Answer",
    "Answerer",
    "asks_for_date",
    "clean",
    "date_span",
    "degenerate",
    "drop_restatement",
    "extractive",
    "format_memory",
    "grounded_share",
    "is_refusal",
    "is_temporal",
    "misattributed",
    "settle",
]
