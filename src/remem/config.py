"""One typed configuration: everything ``Memory(...)`` is given, checked and resolved.

:meth:`MemoryConfig.build` takes :class:`~remem.Memory`'s keyword arguments and checks
every one of them before a model is loaded or a file created; each ``*_options``
section is resolved into the frozen dataclass that declares it (``remem/options.py``:
type, range or choices, and why each default), so a misspelt name, a wrong type or a
value out of range is an error naming the option at the call, one way for all:

==================  ==========================================================
``engine_options``  the engine's config class (``HybridConfig``, ``SynapseConfig``,
                    ``IlstmaConfig``; an engine registered without one checks its own)
``time_options``    :class:`~remem.time.arrange.ArrangeConfig`
``exact_options``   :class:`~remem.engines.exact.ExactConfig`
``passage_options`` :class:`~remem.index.passages.PassagePlan`
``store_options``   :class:`~remem.store.options.SQLiteOptions` or
                    :class:`~remem.store.options.PostgresOptions`, by the path
``llm_options``     :class:`~remem.llm.options.LocalOptions`,
                    :class:`~remem.llm.options.OpenAIOptions` (``none`` takes none)
``answer_options``  :class:`~remem.answer.reader.AnswerOptions`
==================  ==========================================================

An unknown name is an :class:`~remem.errors.InvalidInputError`, a wrong value an
:class:`~remem.errors.InvalidOptionError` (both an InvalidInputError and an
InvalidTypeError), options that are not a mapping an
:class:`~remem.errors.InvalidTypeError`; all are :class:`~remem.errors.RememError`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .answer.reader import AnswerOptions
from .answer.verdict import VerdictModel, verdict_model
from .embed import Embedder
from .engines import check_engine_name, check_engine_options
from .engines.exact import ExactConfig
from .errors import InvalidInputError, InvalidTypeError
from .index.passages import PassagePlan, passage_plan
from .llm import LLM, check_llm_name, check_llm_options
from .options import resolve
from .store import Store
from .store import store_options as check_store_options
from .store.cipher import check_key
from .store.options import PostgresOptions, SQLiteOptions
from .time.arrange import ArrangeConfig
from .validation import DEFAULT_MAX_TEXT_CHARS, check_count, check_options, check_path


@dataclass(frozen=True)
class MemoryConfig:
    """A Memory's settings, every one checked (see the module notes)."""

    #: where the memories live: ":memory:", a file path or a PostgreSQL URL
    target: str
    engine: str
    #: ``engine_options`` as given (the engine is made from them)
    engine_options: dict[str, Any]
    #: the engine's options resolved (None: an engine registered without a declaration)
    engine_config: object | None
    embedder: str | Embedder
    max_text_chars: int
    max_cached_users: int
    time: ArrangeConfig
    exact: ExactConfig
    #: None: every memory embedded whole (``passage_options={"max_pieces": 0}``)
    passages: PassagePlan | None
    #: None: a Store object was given, which is already configured
    store: SQLiteOptions | PostgresOptions | None
    llm: str | LLM
    #: ``llm_options`` as given (the bundled model is shared only when there are none)
    llm_options: dict[str, Any]
    #: the LLM's options resolved (None: an LLM object, or a backend without declaration)
    llm_config: object | None
    answer: AnswerOptions
    #: the "not in memory" verdict's model; None: the one the engine declares
    verdict: VerdictModel | None
    #: the SQLite file's encryption key (``store/cipher.py``); None: a plain file.
    #: Out of ``repr``, so no log or traceback of a config shows it.
    key: str | None = field(default=None, repr=False)

    @classmethod
    def build(
        cls,
        path: str | os.PathLike[str] = ":memory:",
        engine: str = "hybrid",
        *,
        embedder: str | Embedder = "minilm",
        engine_options: Mapping[str, Any] | None = None,
        max_text_chars: int = DEFAULT_MAX_TEXT_CHARS,
        max_cached_users: int = 256,
        store: Store | None = None,
        store_options: Mapping[str, Any] | None = None,
        llm: str | LLM = "auto",
        llm_options: Mapping[str, Any] | None = None,
        answer_options: Mapping[str, Any] | None = None,
        passage_options: Mapping[str, Any] | None = None,
        time_options: Mapping[str, Any] | None = None,
        exact_options: Mapping[str, Any] | None = None,
        verdict: str | VerdictModel | Mapping[str, Any] | None = None,
        key: str | bytes | None = None,
    ) -> MemoryConfig:
        """:class:`~remem.Memory`'s arguments (the same names and defaults: a test holds
        them together) checked, in about the order they are named; the first problem
        raises (see the module notes). Nothing is opened or loaded. With a ``store``
        object, ``store_options`` need only be a mapping: the store is already made."""
        text = str(check_path(path))
        target = text if text.startswith(("postgres", ":memory:")) else str(Path(path))
        max_text_chars = check_count(max_text_chars, "max_text_chars")
        max_cached_users = check_count(max_cached_users, "max_cached_users")
        if not isinstance(embedder, (str, Embedder)):
            raise InvalidTypeError(
                f"embedder must be a name or an Embedder, not {type(embedder).__name__}"
            )
        if not isinstance(llm, (str, LLM)):
            raise InvalidTypeError(f"llm must be a name or an LLM, not {type(llm).__name__}")
        engine_given = check_options(engine_options, "engine_options")
        store_given_options = check_options(store_options, "store_options")
        llm_given = check_options(llm_options, "llm_options")
        llm_config = _llm_config(llm, llm_given)
        answer_given = check_options(answer_options, "answer_options")
        return cls(
            target=target,
            engine=check_engine_name(engine),  # before opening anything: a typo costs nothing
            engine_options=engine_given,
            engine_config=check_engine_options(engine, engine_given),
            embedder=embedder,
            max_text_chars=max_text_chars,
            max_cached_users=max_cached_users,
            time=ArrangeConfig.from_options(time_options),
            exact=ExactConfig.from_options(exact_options),
            passages=passage_plan(passage_options),
            store=None if store is not None else check_store_options(target, store_given_options),
            llm=llm,
            llm_options=llm_given,
            llm_config=llm_config,
            answer=resolve(AnswerOptions, answer_given, "answer_options"),
            verdict=None if verdict is None else verdict_model(verdict, "verdict"),
            key=_key(key, target, store),
        )


def _key(key: str | bytes | None, target: str, store: Store | None) -> str | None:
    """The encryption key checked (text, not empty) for what it can encrypt: a SQLite
    file or a PostgreSQL database remem opens itself (a Store object is opened
    already, ``:memory:`` has no file); PostgreSQL's needs ``store_options``'
    ``keyring`` too, checked where the store opens."""
    if key is None:
        return None
    checked = check_key(key)
    if store is not None:
        raise InvalidInputError("key= opens the database at path; a Store object is open already")
    if target.startswith(":memory:"):
        raise InvalidInputError("key= encrypts a database file; ':memory:' has none")
    return checked


def _llm_config(llm: str | LLM, options: dict[str, Any]) -> object | None:
    """The LLM's name and options, checked without loading a model (that happens at
    its first use); options only go with a name: an LLM object is already made."""
    if isinstance(llm, str):
        check_llm_name(llm)
        return check_llm_options(llm, options)
    if options:
        raise InvalidInputError(
            "llm_options apply to an llm given by name; an LLM object is already configured"
        )
    return None
