"""The recall pipeline (recall/pipeline.py): every engine gets the stages, the
question is read once, stages are added or left out in one place, an engine's extras
reach the Recall, and deletes reach every stage."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from remem import question as question_module
from remem.answer.verdict import verdict_model
from remem.engines.base import (
    Activation,
    Engine,
    Found,
    Scored,
    ShortTermFlow,
)
from remem.engines.exact import ExactConfig
from remem.question import Question
from remem.recall import Recaller
from remem.time.arrange import ArrangeConfig

FEB = datetime(2024, 2, 20, 19, tzinfo=timezone.utc)
SATURDAY = datetime(2024, 3, 2, 10, tzinfo=timezone.utc)
WEDNESDAY = datetime(2024, 3, 6, 12, tzinfo=timezone.utc)


class InsertionOrder(Engine):
    """Ranks every memory in the order it was added: it knows nothing of time."""

    name = "insertion"
    needs_query_vector = False

    def search(self, user_id: str, query: str, query_vec: np.ndarray | None, k: int):
        with self.ctx.indexes.use(user_id) as idx:
            return [Scored(i, 1.0 / (1 + n)) for n, i in enumerate(idx.ids[:k])]


class WithExtras(InsertionOrder):
    """An engine with the optional Recalls protocol: a gate and two extras."""

    name = "extras"

    def __init__(self, ctx, **options):
        super().__init__(ctx, **options)
        self.calls: list[tuple[int, int]] = []

    def candidates(self, user_id, question: Question, query_vec, k: int, depth: int) -> Found:
        self.calls.append((k, depth))
        hits = self.search(user_id, question.text, query_vec, depth)
        flow = ShortTermFlow(cache_hit=True, notes=["Summary: a walk"], answer="a hike")
        return Found(
            hits, 0.25, True, [Activation(concepts=[("hike", 0.9)]), flow], details={"n": 1}
        )


class Reverse:
    name = "reverse"

    def __init__(self) -> None:
        self.forgotten: list[tuple[str, list[str]]] = []

    def depth(self, question, k):
        return k

    def __call__(self, user_id, question, hits, k):
        return list(reversed(hits))[:k]

    def forget(self, user_id, ids):
        self.forgotten.append((user_id, list(ids)))

    def forget_user(self, user_id):
        self.forgotten.append((user_id, ["*"]))


@pytest.fixture
def history(open_memory):
    mem = open_memory()
    concert = mem.add("We went to a concert downtown", "u", timestamp=FEB)
    hike = mem.add("We went on a long hike in the hills", "u", timestamp=SATURDAY)
    return mem, concert, hike


def _recaller(mem, engine_class, stages=None) -> Recaller:
    ctx = mem._engine.ctx
    return Recaller(
        engine_class(ctx),
        ctx,
        time=ArrangeConfig(),
        exact=ExactConfig(),
        verdict=verdict_model(None, "test"),
        stages=stages,
    )


def test_an_engine_that_only_ranks_still_gets_the_time_stage(history):
    mem, concert, hike = history
    pipe = _recaller(mem, InsertionOrder)
    q = pipe.read("What did we do last Saturday?", WEDNESDAY)
    assert [h.id for h in pipe.rank("u", q, 2)] == [hike, concert]
    rec = pipe.recall("u", q, 2, explain=True).recall
    assert [h.id for h in rec.hits] == [hike, concert]
    assert "made last saturday" in rec.explanations[hike].lower()
    # without a time in the question the engine's order stands
    plain = pipe.read("What did we do?", WEDNESDAY)
    assert [h.id for h in pipe.rank("u", plain, 2)] == [concert, hike]


def test_stages_are_added_replaced_or_left_out_in_one_place(history):
    mem, concert, hike = history
    q = Question("What did we do?", None, None, None, ())
    assert [h.id for h in _recaller(mem, InsertionOrder, []).rank("u", q, 2)] == [concert, hike]
    reverse = Reverse()
    assert [h.id for h in _recaller(mem, InsertionOrder, [reverse]).rank("u", q, 2)] == [
        hike,
        concert,
    ]


def test_the_optional_protocol_and_its_extras_reach_the_recall(history):
    mem, concert, hike = history
    pipe = _recaller(mem, WithExtras)
    q = pipe.read("What did we do last Saturday?", WEDNESDAY)
    out = pipe.recall("u", q, 1, explain=False)
    engine = pipe.engine
    assert isinstance(engine, WithExtras)
    assert engine.calls == [(1, ArrangeConfig().depth)]  # the time stage asked for depth
    rec = out.recall
    assert [h.id for h in rec.hits] == [hike]  # the stages ran on the candidates
    assert (rec.confidence, rec.refuse) == (0.25, True)  # the engine's own gate
    assert rec.concepts == [("hike", 0.9)] and rec.cache_hit is True
    assert rec.details["n"] == 1 and "verdict" in rec.details
    assert (out.notes, out.prepared) == (["Summary: a walk"], "a hike")


def test_a_question_is_read_once_per_call(history, monkeypatch):
    mem, *_ = history
    calls = []
    real = question_module.time_window

    def counted(text, clock):
        calls.append(text)
        return real(text, clock)

    monkeypatch.setattr(question_module, "time_window", counted)
    mem.search("What did we do last Saturday?", "u", k=2, now=WEDNESDAY)
    assert len(calls) == 1
    mem.recall("What did we do last Saturday?", "u", k=2, now=WEDNESDAY)
    assert len(calls) == 2


def test_deletes_reach_every_stage(history):
    mem, concert, hike = history
    reverse = Reverse()
    mem._recaller.stages.append(reverse)
    assert mem.delete(concert, "u")
    mem.delete_user("u")
    assert reverse.forgotten == [("u", [concert]), ("u", ["*"])]
