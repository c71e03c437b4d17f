"""Every constant of the ILSTMA engine, with the paper's value where it gives one.

Provenance: **paper** = stated by the paper (section 3); **choice** = the paper is
silent, vague or inconsistent and remem chose (the reason is given). Every field can
be overridden with ``Memory(engine="ilstma", engine_options={...})``; what each accepts
is declared with it (``remem/options.py``) and checked when the Memory is made.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import InvalidInputError, UnknownComponentError
from ...options import choice, number, resolve, switch, text
from .forgetting import ALPHA, BETA, MU, SPATIAL_FORMS, XI

#: the "typed" judge's floors (see ``typed_threshold`` and ``typed_share``)
TYPED_THRESHOLD = 6.0
TYPED_SHARE = 0.7


@dataclass(frozen=True)
class IlstmaConfig:
    # -- forgetting curve and prefetch score (3.6.1) -------------------------------
    beta: float = number(BETA)
    """paper: the curve's floor beta (the formula is under ``mu``)."""
    alpha: float = number(ALPHA)
    """paper: the curve's height alpha (the formula is under ``mu``)."""
    xi: float = number(XI)
    """paper: the curve's steepness xi (the formula is under ``mu``)."""
    mu: float = number(MU)
    """paper: S = beta + alpha / (1 + exp(xi (recallTimes - mu))), recallTimes in [1, 5]."""
    spatial: str = choice("intent", *SPATIAL_FORMS)
    """choice: Eq. 4's spatial term. "intent" = 1 - (2/pi) arctan(dis), which the text
    describes (in (0, 1], nearer scores higher); "printed" = (pi/2) arctan(dis), the
    formula as printed (it grows with distance). See ``forgetting.py``."""

    # -- short-term memory (3.3) ------------------------------------------------------
    cache_size: int = number(3, low=1)
    """paper: the cache segment holds the top-3 prefetched dialogues."""
    history_turns: int = number(7, low=0)
    """paper: the history segment is a queue of the 7 most recent turns."""
    offset: int = number(5, low=1)
    """choice (the paper gives none): prefetch scans table positions
    [c - offset, c + offset] around the recalled dialogue c; k = cache_size <= 2 offset."""
    prefetch_around: str = choice("first", "first", "all")
    """"first" (the paper: one recalled dialogue is the centre) or "all": when the
    index check recalls two dialogues (a disagreement), windows around each are
    scored together, distance counted to the nearer centre. "first" stays the
    default: "all" was measured and gained nothing
    (docs/notes/benchmark-history.md#prefetching-around-every-recalled-dialogue-tried-no-gain)."""
    segment_tokens: int = number(400, low=1)
    """choice: each segment is cut to this many tokens (``tokens.estimate_tokens``:
    about 4 characters each), so the short-term memory stays bounded (5 segments -> about
    2,000 tokens)."""

    # -- hit judgment (3.6.2) -----------------------------------------------------------
    judge: str = choice("lexical", "lexical", "embedding", "llm", "typed")
    """choice: offline hit judgment, no LLM. "lexical": the share of the question's
    IDF weight (the user's BM25 statistics) that one cached dialogue covers; no query
    embedding is computed on a hit, which is where the cache saves time. "embedding":
    the question's cosine to the best cached dialogue. "llm": the paper's judge (the
    Memory's LLM answers from the short-term memory and says whether that sufficed;
    its answer is then the answer); it falls back to "lexical" when no LLM generates
    or a call fails. Not the default: the bundled 135M model cannot judge
    sufficiency, a capable endpoint can. "typed": a hit when the typed extractive
    reader, reading the cached dialogues alone, finds a span of the kind the
    question wants, confident by ``typed_threshold`` and ``typed_share`` (a
    question wanting no typed answer misses); it falls back to "lexical" without
    spaCy. Not the default: on held-out conversations its hits are less precise
    than the lexical judge's, and reading the cache costs more than a miss's
    retrieval (docs/results/stop47/judge/README.md)."""
    hit_threshold: float = number(0.6, low=0)
    """choice: a cached dialogue must cover this share of the question (lexical), or
    reach this cosine (embedding), for a hit; calibrated for hit precision, the
    share of hits whose cached dialogue holds the evidence
    (docs/notes/benchmark-history.md#calibrating-the-offline-hit-judges-tried-the-floors-stay-out-of-reach)."""

    typed_threshold: float = number(TYPED_THRESHOLD)
    """choice: the typed reader's score (``remem.answer.rank``'s weighted sum) a span
    must reach for a "typed" hit. With ``typed_share``, chosen on the conversations
    where the reader's weights were fitted, from a grid of both floors on the lexical
    flow's cache states (``scripts/judge_curve.py``): the most precise setting whose
    hit rate is at least the lexical judge's there. On the held-out conversations no
    setting of the grid is as precise as the lexical judge, so "lexical" stays the
    default (docs/results/stop47/judge/README.md)."""
    typed_share: float = number(TYPED_SHARE, low=0)
    """choice: the share of the question's asked words the span's sentence must speak
    to (``remem.answer.typed.fit_share``) for a "typed" hit: the score alone ranks a
    question's candidates but does not say the cache is about it (measured with
    ``typed_threshold``)."""

    # -- index-checked retrieval (3.4) ---------------------------------------------------
    global_retriever: str = text("synapse")
    """choice: the paper's "global" retriever is FAISS through LangChain with an LLM
    logic step; offline it is any remem engine proposing its top-1. remem uses its
    strongest, SYNAPSE; ``ilstma-paper`` uses ``hybrid`` (BM25 + MiniLM fusion), the
    closest offline stand-in for the paper's FAISS retriever."""
    top_k_cosine: int = number(2, low=1)
    """paper: cosine similarity over "index + dialogue" proposes its top-2."""
    on_disagreement: str = choice("union", "cosine", "union")
    """When the global candidate is not among the cosine top-2, the paper recalls both
    cosine dialogues ("cosine", kept by ``ilstma-paper``). choice: remem recalls the
    global candidate and the cosine top-1 ("union"): the paper's rule recalls less
    evidence than plain hybrid retrieval of the same number of dialogues, because it
    drops the stronger retriever's answer exactly when the two disagree
    (docs/notes/benchmark-history.md#ilstma-retrieval-and-the-question-flow-no-llm)."""

    verify: str = choice("none", "none", "llm")
    """"llm": the paper's LLM logic step on the global retriever. When the candidate is
    not among the cosine top-k, the Memory's LLM is asked whether it answers the
    question: yes recalls it alone, no recalls the cosine dialogues; a failing call
    falls back to ``on_disagreement``. "none" (default) applies ``on_disagreement``."""

    # -- summaries and personality (3.5) --------------------------------------------------
    summary_group: int = number(5, low=1)
    """paper: dialogues are summarised in groups of 5."""
    summary_pieces: int = number(2, low=1)
    """choice (offline summariser): a group's summary is its most central dialogues
    (closest to the group's mean embedding), this many, first sentence each."""
    summary_merge: float = number(0.8, low=0)
    """choice: the overlap update - a new group summary merges into the previous one
    when their embeddings reach this cosine (near-duplicate pieces are overwritten by
    the newer one, the rest appended); otherwise it starts a new summary."""
    summary_max_pieces: int = number(8, low=1)
    """choice: a merged summary keeps at most this many pieces (the newest), so
    repeated merges do not grow it without end. Not tuned."""
    summariser: str = choice("extractive", "extractive", "llm")
    """choice: "extractive" (offline, the default: the bundled 135M model is useless
    for summaries) or "llm" (the paper's: the Memory's LLM writes and updates them).
    A failing LLM leaves the group for the next add, and after ``llm_attempts``
    failed rounds that group is summarised extractively, with a logged warning."""
    personality: str = choice("extractive", "extractive", "llm")
    """choice: "extractive" (offline first-person statements, derived from the
    memories, the default) or "llm" (the paper's: the Memory's LLM lists each
    speaker's traits per group; stored, because it is not cheap to redo). Failures
    are handled as for summaries."""
    llm_attempts: int = number(3, low=1)
    """choice: failed LLM rounds before a group is summarised (or profiled)
    extractively (see ``summariser``): a few, so a brief outage does not cost the
    LLM's summary. Not tuned."""
    personality_traits: int = number(8, low=0)
    """choice: the offline personality profile keeps a speaker's latest first-person
    statements of preference or habit (I love / I prefer / my favourite ...)."""

    cache: bool = switch(True)
    """switch: False = every question takes the miss path (the cache-off baseline)."""

    @classmethod
    def for_engine(cls, variant: str, options: Mapping[str, Any]) -> IlstmaConfig:
        """The settings of engine ``variant`` (a name of :data:`VARIANTS`) with the
        caller's ``options`` over its preset ones, every one checked (the global
        retriever against the engine registry)."""
        from .. import check_engine_name  # the registry imports this module

        cfg = resolve(cls, {**VARIANTS[variant], **options}, f"engine {variant!r}")
        try:
            check_engine_name(cfg.global_retriever)
        except UnknownComponentError as exc:
            raise InvalidInputError(f"engine {variant!r}: global_retriever: {exc}") from None
        if cfg.cache_size > 2 * cfg.offset:
            raise InvalidInputError(
                f"engine {variant!r}: cache_size must be at most 2 * offset (the prefetch "
                f"window around a dialogue), got cache_size {cfg.cache_size}, offset {cfg.offset}"
            )
        return cfg


#: Named variants: the default, the printed spatial term, the paper's retrieval rule
#: (hybrid as the global retriever, cosine top-2 on disagreement), and no cache.
VARIANTS: dict[str, dict[str, Any]] = {
    "ilstma": {},
    "ilstma-printed": {"spatial": "printed"},
    "ilstma-paper": {"global_retriever": "hybrid", "on_disagreement": "cosine"},
    "ilstma-nocache": {"cache": False},
    "ilstma-around": {"prefetch_around": "all"},
    "ilstma-llm": {"judge": "llm", "verify": "llm", "summariser": "llm", "personality": "llm"},
}
