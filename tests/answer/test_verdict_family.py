"""Which "not in memory" model an engine's recalls are judged by (issue 35): the one
the engine declares (``Engine.verdict``), never one matched on its registered name;
the default family for an engine declaring none; ``Memory(verdict=...)`` over both,
checked before anything is opened."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import numpy as np
import pytest

from remem import Memory, engines
from remem.answer.verdict import (
    CALIBRATED,
    DEFAULT_FAMILY,
    FAMILIES,
    FEATURES,
    VerdictModel,
    judge,
    verdict_model,
)
from remem.engines import register_engine
from remem.engines.base import Engine, Scored
from remem.engines.baselines import HybridEngine
from remem.errors import InvalidInputError, InvalidTypeError, RememError, UnknownComponentError
from verdict_history import long_history

T0 = datetime(2023, 5, 8, 12, 0, tzinfo=timezone.utc)
DEFAULT = FAMILIES[DEFAULT_FAMILY]
#: refuses every named question (score ~1 over any threshold), never a self one
REFUSE_NAMED = {"named": [40.0, [0.0] * 5, 0.5], "self": [-40.0, [0.0] * 5, 0.5]}


class _Everything(Engine):
    """Ranks every memory of the user in the order it was added (a third-party
    engine). Not by id: ids are random, and a first k of Caroline's turns alone
    (1 in 2**k) named no one the question asks of, so the named verdict did not apply."""

    name = "everything"
    needs_query_vector = False

    def search(self, user_id: str, query: str, query_vec: np.ndarray | None, k: int):
        with self.ctx.indexes.use(user_id) as idx:
            ids = sorted(idx.pos, key=idx.pos.__getitem__)
        return [Scored(i, 1.0, "all") for i in ids[:k]]


class _DeclaresSynapse(_Everything):
    verdict = "synapse"


class _DeclaresOwn(_Everything):
    verdict = VerdictModel(REFUSE_NAMED, "everything")


class _DeclaresNonsense(_Everything):
    verdict = "no-such-family"


class _MyHybrid(HybridEngine):
    name = "my-hybrid"


def _synapse(variant: str):
    def make(ctx, **options):
        from remem.engines.synapse import SynapseEngine

        return SynapseEngine(ctx, variant=variant, **options)

    return make


@pytest.fixture(autouse=True)
def _registered(monkeypatch):
    """These engines are registered for this module's tests only (a test walking every
    registered engine elsewhere must not meet the one declaring nonsense)."""
    engines.engine_names()  # the entry points loaded first, so the copy holds them
    monkeypatch.setattr(engines, "_FACTORIES", dict(engines._FACTORIES))
    monkeypatch.setattr(engines, "_SETTINGS", dict(engines._SETTINGS))
    register_engine("declares-none", _Everything)
    register_engine("declares-synapse", _DeclaresSynapse)
    register_engine("declares-own", _DeclaresOwn)
    register_engine("declares-nonsense", _DeclaresNonsense)
    register_engine("renamed-hybrid", HybridEngine)
    register_engine("my-hybrid", _MyHybrid)
    register_engine("renamed-synapse", _synapse("synapse"))
    register_engine("renamed-paper", _synapse("synapse-paper"))


def _two_people(mem: Memory) -> None:
    long_history(mem, "u", T0)  # the named model reads no shorter history
    for who, text in (
        ("Melanie", "I ran a charity race for mental health last Saturday."),
        ("Caroline", "That's great, Melanie! How did it go?"),
    ):
        mem.add(text, "u", speaker=who, timestamp=T0)


@pytest.mark.parametrize(
    ("engine", "family"),
    [("hybrid", "hybrid"), ("synapse", "synapse")]
    + [
        (e, None)
        for e in ("synapse-paper", "synapse-nofan", "synapse-llm", "ilstma", "dense", "bm25")
    ],
)
def test_built_ins_get_a_fitted_family_only_where_it_was_fitted(open_memory, engine, family):
    """hybrid and synapse were fitted on themselves; a variant ranking otherwise was
    never fitted, so it gets the default (what it silently got before, now said)."""
    mem = open_memory(engine=engine)
    assert mem.verdict_model is (FAMILIES[family] if family else DEFAULT)


def test_options_that_change_the_ranking_leave_the_fitted_family(open_memory):
    tuned = open_memory(engine="synapse", engine_options={"anchors": 3})
    assert tuned.verdict_model is DEFAULT
    assert open_memory(engine="synapse", engine_options={}).verdict_model is FAMILIES["synapse"]


def test_a_third_party_engine_declaring_a_family_gets_that_model(open_memory):
    mem = open_memory(engine="declares-synapse")
    assert mem.verdict_model is FAMILIES["synapse"]
    _two_people(mem)
    rec = mem.recall("What did Caroline realize after her charity race?", "u")
    expected = judge(rec.details["verdict"], FAMILIES["synapse"])
    assert rec.absent == expected.score and rec.not_in_memory is expected.not_in_memory


def test_a_third_party_engine_declaring_its_own_model_gets_it(open_memory):
    mem = open_memory(engine="declares-own")
    assert mem.verdict_model.family == "everything"
    _two_people(mem)
    rec = mem.recall("What did Melanie realize after her charity race?", "u")
    assert rec.not_in_memory is True  # hybrid's model answers it; this one refuses


def test_an_engine_declaring_nothing_gets_the_default(open_memory):
    mem = open_memory(engine="declares-none")
    assert mem.verdict_model is DEFAULT and DEFAULT.family == DEFAULT_FAMILY == "hybrid"
    _two_people(mem)
    rec = mem.recall("What did Melanie realize after her charity race?", "u")
    assert rec.absent == judge(rec.details["verdict"]).score


def test_an_engine_declaring_an_unknown_family_is_refused_when_made(tmp_path):
    with pytest.raises(UnknownComponentError, match="declares-nonsense.*no-such-family"):
        Memory(tmp_path / "m.db", engine="declares-nonsense", llm="none")


@pytest.mark.parametrize(
    ("engine", "family"),
    [
        ("renamed-hybrid", "hybrid"),
        ("my-hybrid", "hybrid"),
        ("renamed-synapse", "synapse"),
        ("renamed-paper", None),
    ],
)
def test_a_variant_registered_under_another_name_keeps_its_model(open_memory, engine, family):
    """The model follows what the engine is, not the name it is registered under
    (before, "renamed-synapse" got hybrid's by its name)."""
    assert open_memory(engine=engine).verdict_model is (FAMILIES[family] if family else DEFAULT)


@pytest.mark.parametrize(
    "override",
    ["synapse", FAMILIES["synapse"], FAMILIES["synapse"].as_dict()],
    ids=["name", "model", "mapping"],
)
def test_the_override_replaces_what_the_engine_declares(open_memory, override):
    mem = open_memory(engine="hybrid", verdict=override)
    assert mem.verdict_model.models == FAMILIES["synapse"].models


def test_the_override_decides_the_recalls_verdict(open_memory):
    plain = open_memory(engine="hybrid")
    strict = open_memory(engine="hybrid", verdict=REFUSE_NAMED)
    assert strict.verdict_model.family == "custom"
    for mem in (plain, strict):
        _two_people(mem)
    question = "What did Melanie realize after her charity race?"
    assert plain.recall(question, "u").not_in_memory is False
    assert strict.recall(question, "u").not_in_memory is True
    assert strict.answer(question, "u").refused is True


GOOD = CALIBRATED["hybrid"]["named"]


@pytest.mark.parametrize(
    ("override", "error", "says"),
    [
        ("hybird", UnknownComponentError, "unknown verdict family 'hybird'"),
        ("", UnknownComponentError, "unknown verdict family"),
        (3, InvalidTypeError, "verdict must be"),
        (["named"], InvalidTypeError, "verdict must be"),
        ({"named": GOOD}, InvalidInputError, "exactly the models named, self"),
        ({"named": GOOD, "self": GOOD, "other": GOOD}, InvalidInputError, "exactly"),
        ({"named": GOOD, "self": (0.0, (1.0,) * 4, 0.5)}, InvalidInputError, "4 weights"),
        ({"named": GOOD, "self": (0.0, (1.0,) * 5, 1.5)}, InvalidInputError, "threshold"),
        ({"named": GOOD, "self": (0.0, (1.0,) * 5, math.nan)}, InvalidInputError, "finite"),
        ({"named": GOOD, "self": (math.inf, (1.0,) * 5, 0.5)}, InvalidInputError, "finite"),
        ({"named": GOOD, "self": ("0", (1.0,) * 5, 0.5)}, InvalidTypeError, "bias"),
        ({"named": GOOD, "self": (0.0, "abcde", 0.5)}, InvalidTypeError, "weights"),
        ({"named": GOOD, "self": (0.0, (True,) * 5, 0.5)}, InvalidTypeError, "weight"),
        ({"named": GOOD, "self": (0.0, (1.0,) * 5)}, InvalidInputError, "bias, weights"),
    ],
)
def test_bad_overrides_are_refused_before_anything_opens(tmp_path, override, error, says):
    path = tmp_path / "m.db"
    with pytest.raises(error, match=says) as caught:
        Memory(path, engine="hybrid", llm="none", verdict=override)
    assert isinstance(caught.value, RememError)
    assert not path.exists()


def test_judge_takes_a_model_never_an_engine_name():
    values = dict.fromkeys(FEATURES, 0.5) | {"named": 1.0}
    assert judge(values) == judge(values, DEFAULT) == judge(values, verdict_model("hybrid"))
    with pytest.raises(InvalidTypeError, match="VerdictModel"):
        judge(values, "synapse")  # type: ignore[arg-type]


def test_the_fitted_families_are_the_calibrated_constants():
    for name, models in CALIBRATED.items():
        assert dict(FAMILIES[name].models) == models and FAMILIES[name].family == name
        # what calibrate_verdict.py prints (JSON lists) is the same model
        assert VerdictModel(FAMILIES[name].as_dict()).models == FAMILIES[name].models
