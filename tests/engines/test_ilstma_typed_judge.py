"""ILSTMA's "typed" hit judge (engines/ilstma/judge.py ``TypedJudge``): the cache
answers when the typed reader, reading the cached dialogues alone, finds a confident
span of the kind the question wants. Real spaCy pipeline, real SQLite Memory."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from functools import partial

import pytest

from answer_cases import CELLO
from remem import Memory
from remem.answer import nlp
from remem.engines.ilstma.judge import TypedJudge
from remem.engines.ilstma.stm import Dialogue
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2024, 3, 1, 18, tzinfo=timezone.utc)

# one topic a turn; the name Priya's teacher goes by is in the reply to Remy's question
TALK = [
    *CELLO,
    ("Remy", "I repaired the vintage typewriter with a tiny screwdriver."),
    ("Priya", "The greenhouse tomatoes finally ripened after the heatwave."),
    ("Remy", "We watched a documentary about octopus camouflage together."),
    ("Priya", "The museum exhibit featured meteorites from Antarctica."),
    ("Remy", "My niece won a chess tournament in the spring."),
]
#: a name asked for, held by the cached reply "Her name is Ines Duarte"
NAME_ASKED = "What is the name of Priya's cello teacher?"
#: the judge's floors here (below the defaults, which are tuned on LoCoMo: the
#: tests are about what the judge does, not where its floors sit)
SCORE, SHARE = 5.0, 0.5
#: asked first: a miss that retrieves the cello turn and caches the turns around it
OPENING = "When did Priya start her cello lessons at the music school?"


def _memory(open_memory, **options) -> tuple[Memory, list[str]]:
    floors = {"typed_threshold": SCORE, "typed_share": SHARE}
    mem = open_memory(":memory:", "ilstma", engine_options={"judge": "typed", **floors, **options})
    ids = [
        mem.add(text, "p", speaker=who, timestamp=T0 + timedelta(minutes=i), session_id="s1")
        for i, (who, text) in enumerate(TALK)
    ]
    return mem, ids


def _opened(open_memory, **options) -> tuple[Memory, list[str]]:
    """A Memory whose first question missed and cached the turns around the cello turn."""
    mem, ids = _memory(open_memory, **options)
    first = mem.recall(OPENING, "p")
    assert first.cache_hit is False
    assert ids[2] in mem.short_term("p")["cache_ids"]
    return mem, ids


def test_a_name_asked_for_in_a_cached_dialogue_is_a_hit(open_memory):
    mem, ids = _opened(open_memory)
    r = mem.recall(NAME_ASKED, "p")
    assert r.cache_hit is True
    assert r.hits[0].id == ids[2]  # the dialogue the span was cut from comes first
    assert "retrieve_s" not in r.timings


def test_no_span_of_the_wanted_kind_in_the_cache_is_a_miss(open_memory):
    mem, _ = _opened(open_memory)
    cached = mem.short_term("p")["cache_ids"]
    # a name never given to what is asked about; a yes/no question wants no kind at all
    for question in ("What is the name of Priya's landlord?", "Did Priya enjoy the lessons?"):
        judge = _judge(mem, question)
        assert judge.judge(question, _dialogues(mem, cached), _no_vector) == []
        assert judge.span is None
    assert mem.recall("What is the name of Priya's landlord?", "p").cache_hit is False


def test_the_judge_returns_the_dialogue_its_span_came_from(open_memory):
    mem, ids = _opened(open_memory)
    question = NAME_ASKED
    cache = _dialogues(mem, mem.short_term("p")["cache_ids"])
    judge = _judge(mem, question)
    used = judge.judge(question, cache, _no_vector)
    assert [d.memory_id for d in used] == [ids[2]]
    assert judge.span is not None and "Ines Duarte" in judge.span.text
    assert judge.span.score >= SCORE and judge.span.share >= SHARE
    # the same span under a floor above its score, or above its share: a miss
    for strict in (
        TypedJudge(judge.find, judge.span.score + 0.01, SHARE),
        TypedJudge(judge.find, SCORE, judge.span.share + 0.01),
    ):
        assert strict.judge(question, cache, _no_vector) == [] and strict.span == judge.span


def test_an_empty_cache_is_a_miss_without_reading(open_memory):
    mem, _ = _memory(open_memory)
    judge = _judge(mem, NAME_ASKED)
    assert judge.judge(NAME_ASKED, [], _no_vector) == []


def test_without_the_reader_the_typed_judge_judges_lexically(open_memory, caplog):
    mem, ids = _opened(open_memory)
    mem._engine.ctx.spans = None  # what a Memory without spaCy's pipeline hands down
    with caplog.at_level(logging.WARNING, logger="remem.ilstma"):
        r = mem.recall("Ines Duarte played with the Porto symphony", "p")
        mem.recall("Ines Duarte played with the Porto symphony", "p")
    assert r.cache_hit is True and r.hits[0].id == ids[2]
    assert sum("typed hit judge needs spaCy" in m for m in caplog.messages) == 1


def test_typed_is_a_judge_setting_with_its_own_threshold(open_memory):
    mem, _ = _memory(open_memory, typed_threshold=7.5, typed_share=0.25)
    config = mem.engine_info.config
    assert config["judge"] == "typed" and config["typed_threshold"] == 7.5
    assert config["typed_share"] == 0.25
    assert config["hit_threshold"] == 0.6  # the lexical and embedding judges' own


def _judge(mem: Memory, question: str) -> TypedJudge:
    """The engine's typed judge for ``question`` (the reader the facade handed down)."""
    spans = mem._engine.ctx.spans
    assert spans is not None
    return TypedJudge(partial(spans, "p", as_question(question)), SCORE, SHARE)


def _dialogues(mem: Memory, ids: list[str]) -> list[Dialogue]:
    return [Dialogue(i, n, mem.get(i, "p").text) for n, i in enumerate(ids)]


def _no_vector():
    raise AssertionError("the typed judge needs no query embedding")
