"""One typed configuration (``remem/config.py``): every ``*_options`` section of
``Memory(...)`` is a declared dataclass, resolved by one mechanism, and every wrong
value (an unknown name, a wrong type, a value out of range, options that are not a
mapping) is refused at the call with a RememError naming the option, before any file
is made. Every field of every section is declared and says why its default is what it
is."""

from __future__ import annotations

import inspect
from dataclasses import fields
from typing import Any

import pytest

from remem import InvalidInputError, InvalidTypeError, Memory, RememError
from remem.answer.reader import Answerer, AnswerOptions
from remem.config import MemoryConfig
from remem.engines.baselines import HybridConfig
from remem.engines.exact import ExactConfig
from remem.engines.ilstma.config import IlstmaConfig
from remem.engines.synapse.config import SynapseConfig
from remem.errors import InvalidOptionError
from remem.index.passages import PassagePlan
from remem.llm.options import LocalOptions, OpenAIOptions
from remem.options import Allowed, declared, reasons
from remem.store.options import PostgresOptions, SQLiteOptions
from remem.time.arrange import ArrangeConfig

#: every section's class: the argument it comes from, and (for a store or an LLM)
#: the path or llm that picks it
SECTIONS: dict[type, tuple[str, dict[str, Any]]] = {
    HybridConfig: ("engine_options", {"engine": "hybrid"}),
    SynapseConfig: ("engine_options", {"engine": "synapse"}),
    IlstmaConfig: ("engine_options", {"engine": "ilstma"}),
    ArrangeConfig: ("time_options", {}),
    ExactConfig: ("exact_options", {}),
    PassagePlan: ("passage_options", {}),
    AnswerOptions: ("answer_options", {}),
    SQLiteOptions: ("store_options", {}),
    PostgresOptions: ("store_options", {"path": "postgresql://u@localhost/remem"}),
    LocalOptions: ("llm_options", {"llm": "local"}),
    OpenAIOptions: ("llm_options", {"llm": "openai"}),
}


def _bad_values(kind: type, allowed: Allowed) -> list[Any]:
    """Values of the wrong type, and values just outside the declared range or
    choices."""
    wrong_type: dict[type, list[Any]] = {
        bool: [1, "yes"],
        int: ["5", 2.5, True],
        float: ["0.5", True, float("nan"), float("inf")],
        str: [5] if allowed.empty else [5, ""],
        object: [2.5, "no-such"],
    }
    out = [*wrong_type[kind], *([] if allowed.none else [None])]
    if allowed.path:
        out = [5, ""]
    step = 1 if kind is int else 1e-6
    for bound, delta in ((allowed.low, -step), (allowed.high, step)):
        if bound is not None:
            out.append(int(bound + delta) if kind is int else bound + delta)
    if allowed.choices and kind is str:
        out.append(f"no-such-{allowed.choices[0]}")
    return out


def test_every_field_of_every_section_is_declared_and_says_why():
    for cls in SECTIONS:
        spec = declared(cls)  # raises for a field without a declaration
        assert spec, cls.__name__
        why = reasons(cls)
        assert set(why) == set(spec), cls.__name__
        missing = sorted(name for name, text in why.items() if not text.strip())
        assert not missing, f"{cls.__name__}: no docstring under {missing}"


def test_the_walk_finds_a_field_without_a_reason():
    from dataclasses import dataclass

    from remem.options import number

    @dataclass(frozen=True)
    class Half:
        said: int = number(1, low=0)
        """why one."""
        silent: int = number(2, low=0)

    assert reasons(Half) == {"said": "why one.", "silent": ""}


@pytest.mark.parametrize("cls", list(SECTIONS), ids=lambda c: c.__name__)
def test_every_option_of_every_section_is_refused_when_wrong(cls):
    argument, extra = SECTIONS[cls]
    for option, (kind, allowed) in declared(cls).items():
        for bad in _bad_values(kind, allowed):
            with pytest.raises(InvalidOptionError, match=rf"\b{option} must be") as info:
                MemoryConfig.build(**extra, **{argument: {option: bad}})
            assert isinstance(info.value, InvalidInputError)
            assert isinstance(info.value, InvalidTypeError)  # both, as before
            message = str(info.value)
            assert argument in message or "engine '" in message, message


@pytest.mark.parametrize("cls", list(SECTIONS), ids=lambda c: c.__name__)
def test_an_unknown_option_of_every_section_is_refused_naming_it(cls):
    argument, extra = SECTIONS[cls]
    with pytest.raises(InvalidInputError, match=r"has no options \['bogus'\]; known: "):
        MemoryConfig.build(**extra, **{argument: {"bogus": 1}})


@pytest.mark.parametrize("argument", sorted({a for a, _ in SECTIONS.values()}))
def test_options_that_are_not_a_mapping_are_refused(argument):
    with pytest.raises(InvalidTypeError, match=rf"{argument} must be a mapping"):
        MemoryConfig.build(**{argument: [("depth", 5)]})


@pytest.mark.parametrize(
    ("argument", "options", "message"),
    [
        ("engine_options", {"depth": 0}, "engine 'hybrid': depth must be an int >= 1"),
        ("time_options", {"depth": -1}, "time_options: depth must be an int >= 0"),
        ("exact_options", {"max_holders": 0}, "exact_options: max_holders must be an int >= 1"),
        ("passage_options", {"overlap": 1.5}, "passage_options: overlap must be an int >= 0"),
        ("passage_options", {"score": "best"}, "passage_options: score must be one of 'max'"),
        ("answer_options", {"temperature": 3}, "answer_options: temperature must be a number"),
        ("store_options", {"timeout_ms": -1}, "store_options: timeout_ms must be an int >= 0"),
        ("store_options", {"bogus": 1}, r"store_options has no options \['bogus'\]"),
        ("llm_options", {"bogus": 1}, r"llm_options \(llm 'auto' is '\w+' here\) has no options"),
    ],
)
def test_each_section_is_refused_by_memory_before_a_file_is_made(
    tmp_path, embedder, argument, options, message
):
    db = tmp_path / "never.db"
    with pytest.raises(RememError, match=message):
        Memory(db, engine="hybrid", embedder=embedder, **{argument: options})
    assert not db.exists()
    assert list(tmp_path.iterdir()) == []


def test_postgres_options_are_checked_without_psycopg_or_a_server(tmp_path):
    url = "postgresql://u@localhost/remem"
    with pytest.raises(InvalidOptionError, match="vacuum_on_erase must be one of False, True"):
        MemoryConfig.build(url, store_options={"vacuum_on_erase": 1})
    with pytest.raises(InvalidInputError, match=r"no options \['timeout_ms'\]"):
        MemoryConfig.build(url, store_options={"timeout_ms": 5})  # SQLite's, not this one's
    config = MemoryConfig.build(url, store_options={"vacuum_on_erase": "full", "max_size": 3})
    assert isinstance(config.store, PostgresOptions)
    assert (config.store.vacuum_on_erase, config.store.max_size) == ("full", 3)
    with pytest.raises(InvalidInputError, match=r"no options \['vector'\]"):
        MemoryConfig.build(tmp_path / "x.db", store_options={"vector": "off"})


def test_the_config_holds_every_section_resolved():
    config = MemoryConfig.build(
        "mem.db",
        "synapse",
        engine_options={"anchors": 3},
        time_options={"depth": 10},
        exact_options={"lift": False},
        passage_options={"overlap": 0},
        store_options={"timeout_ms": 10},
        llm="openai",
        llm_options={"timeout_s": 5, "retries": 0},
        answer_options={"mode": "extract"},
        verdict="hybrid",
    )
    assert config.engine == "synapse" and config.engine_options == {"anchors": 3}
    assert isinstance(config.engine_config, SynapseConfig) and config.engine_config.anchors == 3
    assert config.time == ArrangeConfig(depth=10)
    assert config.exact == ExactConfig(lift=False)
    assert config.passages == PassagePlan(overlap=0)
    assert config.store == SQLiteOptions(timeout_ms=10)
    assert config.llm_options == {"timeout_s": 5, "retries": 0}  # as given, not defaults
    assert config.llm_config == OpenAIOptions(timeout_s=5.0, retries=0)
    assert config.answer == AnswerOptions(mode="extract")
    assert config.verdict is not None and config.verdict.family == "hybrid"
    assert MemoryConfig.build(passage_options={"max_pieces": 0}).passages is None
    assert MemoryConfig.build().passages == PassagePlan()


def test_memory_and_the_config_take_the_same_arguments_with_the_same_defaults():
    def taken(func: Any) -> dict[str, Any]:
        params = inspect.signature(func).parameters
        return {n: (p.kind, p.default) for n, p in params.items() if n not in ("self", "cls")}

    assert taken(MemoryConfig.build) == taken(Memory.__init__)


def _defaults(func: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    params = inspect.signature(func).parameters
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {
        n: p.default
        for n, p in params.items()
        if p.kind in named and n not in ("self", *skip)
    }  # fmt: skip


def test_each_backend_section_has_its_backends_options_and_defaults():
    from remem.llm.local import LocalLLM
    from remem.llm.openai import OpenAILLM
    from remem.store.sqlite import SQLiteStore

    pairs: list[tuple[type, Any, tuple[str, ...]]] = [
        # the key is Memory's own argument (key=), kept out of the options, which
        # are shown and logged
        (SQLiteOptions, SQLiteStore.__init__, ("path", "key")),
        (LocalOptions, LocalLLM.__init__, ()),
        (OpenAIOptions, OpenAILLM.__init__, ()),
        (AnswerOptions, Answerer.__init__, ("llm",)),
    ]
    try:
        from remem.store.postgres import PostgresStore
    except ImportError:  # psycopg is an extra
        pass
    else:
        pairs.append((PostgresOptions, PostgresStore.__init__, ("url", "key")))
    for cls, init, skip in pairs:
        declared_defaults = {f.name: f.default for f in fields(cls)}
        if cls is PostgresOptions:
            assert declared_defaults.pop("create") is True  # open_store's, ignored there
        assert declared_defaults == _defaults(init, skip), cls.__name__


def test_a_backend_registered_without_a_declaration_is_checked_by_its_arguments():
    from remem.llm import LLM, check_llm_options, register_llm
    from remem.llm.none import NoLLM

    def plain(*, depth: int = 1) -> LLM:
        return NoLLM()

    register_llm("plain-test", plain)
    try:
        assert check_llm_options("plain-test", {"depth": 2}) is None
        with pytest.raises(InvalidInputError, match=r"has no options \['bogus'\]"):
            check_llm_options("plain-test", {"bogus": 1})
    finally:
        from remem.llm import _FACTORIES

        _FACTORIES.pop("plain-test")
