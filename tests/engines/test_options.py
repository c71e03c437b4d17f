"""Every option of every engine (and of the time stage) is checked when the Memory is
made: its type and its declared range or choices, with a message that names the option,
the value and what is allowed. Nothing is stored by a refused Memory, and an option
added without a declaration fails here."""

from __future__ import annotations

from typing import Any

import pytest

from remem import InvalidInputError, Memory
from remem.engines import engine_names
from remem.options import Allowed, declared
from remem.time.arrange import ArrangeConfig


def _engines_by_config(embedder) -> dict[type, str]:
    """One engine name per config class, over every registered engine (variants too:
    each one's preset options must pass the same checks)."""
    found: dict[type, str] = {}
    for name in engine_names():
        with Memory(":memory:", engine=name, embedder=embedder, llm="none") as mem:
            cls = type(mem._engine).config_class
            if cls is None:
                assert mem.engine_info.config == {}, name
                continue
            assert set(mem.engine_info.config) == set(declared(cls)), name
            found.setdefault(cls, name)
    return found


def _bad_values(kind: type, allowed: Allowed) -> list[Any]:
    """Values of the wrong type, and values just outside the declared range."""
    wrong_type: dict[type, list[Any]] = {
        bool: [1, "yes", None],
        int: ["5", 2.5, True, None],
        float: ["0.5", True, None, float("nan"), float("inf")],
        str: [5, None, ""],
    }
    out = list(wrong_type[kind])
    step = 1 if kind is int else 1e-6
    for bound, delta in ((allowed.low, -step), (allowed.high, step)):
        if bound is not None:
            out.append(kind(bound + delta) if kind is int else bound + delta)
    if allowed.choices:
        out.append("no-such-" + allowed.choices[0])
    return out


def test_every_engine_option_is_declared_and_checked(embedder, tmp_path):
    configs = _engines_by_config(embedder)
    assert {c.__name__ for c in configs} >= {"HybridConfig", "SynapseConfig", "IlstmaConfig"}
    db = tmp_path / "never.db"
    for cls, engine in configs.items():
        for option, (kind, allowed) in declared(cls).items():
            for bad in _bad_values(kind, allowed):
                with pytest.raises(InvalidInputError, match=rf"\b{option} must be") as info:
                    Memory(db, engine=engine, embedder=embedder, engine_options={option: bad})
                assert f"engine '{engine}'" in str(info.value)
                assert not db.exists()  # refused before anything was opened


def test_every_time_option_is_declared_and_checked(embedder, tmp_path):
    db = tmp_path / "never.db"
    for option, (kind, allowed) in declared(ArrangeConfig).items():
        for bad in _bad_values(kind, allowed):
            with pytest.raises(InvalidInputError, match=rf"time_options: {option} must be"):
                Memory(db, engine="bm25", embedder=embedder, time_options={option: bad})
            assert not db.exists()


@pytest.mark.parametrize(
    ("engine", "options", "message"),
    [
        ("synapse", {"consolidate_every": "x"}, "consolidate_every must be an int >= 1, got 'x'"),
        ("synapse", {"anchors": 0}, "anchors must be an int >= 1, got 0 (int)"),
        ("synapse", {"extractor": "gpt"}, "extractor must be one of 'lexical', 'llm'"),
        ("synapse", {"lexical_similarity": 1.5}, "lexical_similarity must be a number >= 0"),
        ("synapse", {"iterations": 10**30}, "more than 19 digits"),
        ("ilstma", {"judge": "oracle"}, "judge must be one of 'lexical', 'embedding', 'llm'"),
        ("ilstma", {"cache": "yes"}, "cache must be True or False, got 'yes' (str)"),
        ("ilstma", {"global_retriever": "nope"}, "global_retriever: unknown engine 'nope'"),
        ("hybrid", {"depth": 0}, "depth must be an int >= 1, got 0"),
        ("hybrid", {"constant": "60"}, "constant must be a number >= 0, got '60' (str)"),
    ],
)
def test_the_message_names_the_option_the_value_and_what_is_allowed(
    open_memory, embedder, engine, options, message
):
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Memory(":memory:", engine=engine, embedder=embedder, engine_options=options)


def test_options_at_their_bounds_work_end_to_end(open_memory):
    # the smallest values allowed: a consolidation at every add, one anchor per trigger
    mem = open_memory(":memory:", "synapse", engine_options={"consolidate_every": 1, "anchors": 1})
    mem.add("My cat is named Miso.", user_id="u")
    mem.add("Miso sleeps on the sofa.", user_id="u")
    assert mem.search("cat", user_id="u", k=2)[0].text == "My cat is named Miso."
    assert mem.engine_info.config["anchors"] == 1
    hybrid = open_memory(":memory:", "hybrid", engine_options={"depth": 1, "constant": 0})
    hybrid.add("My cat is named Miso.", user_id="u")
    assert hybrid.search("cat", user_id="u", k=1)[0].text == "My cat is named Miso."
    assert hybrid.engine_info.config == {
        "depth": 1,
        "constant": 0.0,
        "lexical_asking": True,
        "speaker_prior": 0.6,
    }


def test_a_refused_option_stores_nothing(open_memory, db_path):
    with pytest.raises(InvalidInputError):
        open_memory(db_path, "synapse", engine_options={"consolidate_every": "x"})
    mem = open_memory(db_path, "synapse")
    assert mem.users() == []
