"""A deleted memory leaves every in-process cache of every engine: the indexes, SYNAPSE's
layer and graph, ILSTMA's short-term memory (history, cache, relevant, summary,
profile) and notes, the named-times cache of the time stage. At once when this
process deletes it; at the next use of the user when another process does (the user's
fingerprint moved, as the indexes already notice).

What "in the process" means is checked by brute force: every string reachable from
the Memory object (its store, indexes, engine and the engine's retriever) is
collected, and the deleted text must be in none of them.
"""

from __future__ import annotations

import json
import types
from collections import deque
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem import Memory

ENGINES = ["dense", "bm25", "hybrid", "synapse", "ilstma"]
MARKER = "zqxvorpal"  # one word, in no other text
BASE = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
SECRET = f"My passport number is {MARKER}77 and I keep it in the blue drawer"
QUESTION = f"what is my passport number {MARKER}77 in the blue drawer"


def strings_held(root: Any) -> list[str]:
    """Every str (and bytes, decoded) reachable from ``root`` through containers and
    instance attributes; modules, classes and functions are not followed (they lead to
    the whole interpreter, this test's own literals included)."""
    out: list[str] = []
    seen: set[int] = set()
    stack = [root]
    skip = (
        types.ModuleType,
        type,
        types.FunctionType,
        types.BuiltinFunctionType,
        types.MethodType,
        int,
        float,
        complex,
        type(None),
    )
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, str):
            out.append(obj)
        elif isinstance(obj, (bytes, bytearray)):
            out.append(bytes(obj).decode("utf-8", "replace"))
        elif isinstance(obj, skip):
            continue
        elif isinstance(obj, np.ndarray):
            if obj.dtype == object:
                stack.extend(obj.ravel().tolist())
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset, deque)):
            stack.extend(obj)
        else:
            attrs = getattr(obj, "__dict__", None)
            if isinstance(attrs, dict):
                stack.append(attrs)
            for klass in type(obj).__mro__:
                for slot in getattr(klass, "__slots__", ()):
                    if isinstance(slot, str) and hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
    return out


def _holds_marker(mem: Memory) -> list[str]:
    return [s for s in strings_held(mem) if MARKER in s.lower()]


def _fill(mem: Memory, user: str = "u") -> str:
    """Ordinary turns around one secret, which is among the last seven (ILSTMA's
    history queue); returns the secret's id."""
    before = [f"we talked about the garden and the weather on day {i}" for i in range(8)]
    after = [f"the evening walk number {i} went along the river" for i in range(4)]
    for i, text in enumerate(before):
        mem.add(text, user, timestamp=BASE + timedelta(minutes=i))
    secret = mem.add(SECRET, user, timestamp=BASE + timedelta(minutes=8), speaker="Ana")
    for i, text in enumerate(after):
        mem.add(text, user, timestamp=BASE + timedelta(minutes=9 + i))
    return secret


def _use(mem: Memory, user: str = "u") -> None:
    """Every way the engines copy a memory into the process: search (indexes, the time
    stage's named-times cache), consolidation (SYNAPSE's layer and graph), recall
    (ILSTMA's cache, relevant dialogues, summary and profile)."""
    mem.consolidate(user)
    mem.search(QUESTION, user, k=5)
    mem.search(f"{QUESTION} last week", user, k=5, now=BASE + timedelta(days=3))
    mem.recall(QUESTION, user, k=5)
    mem.recall(f"{MARKER}77 blue drawer", user, k=5)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_delete_drops_the_text_from_every_cache_of_this_process(open_memory, engine):
    mem = open_memory(":memory:", engine)
    secret = _fill(mem)
    _use(mem)
    assert _holds_marker(mem)  # sanity: the process really held copies
    assert mem.delete(secret, "u")
    assert _holds_marker(mem) == []
    _use(mem)  # and nothing brings it back
    assert _holds_marker(mem) == []
    assert all(h.id != secret for h in mem.search(QUESTION, "u", k=20))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_delete_by_another_process_is_noticed_at_the_next_use(
    open_memory, engine, tmp_path: Path
):
    db = tmp_path / "shared.db"
    here, there = open_memory(db, engine), open_memory(db, engine)
    secret = _fill(here)
    _use(here)
    assert _holds_marker(here)
    assert there.delete(secret, "u")
    here.search("the garden", "u", k=3)  # any use of the user, a plain search too
    assert _holds_marker(here) == []
    _use(here)
    assert _holds_marker(here) == []


def test_ilstma_short_term_memory_forgets_a_memory_deleted_elsewhere(open_memory, tmp_path):
    """The public view first: history, cache and relevant segments, summary, profile."""
    db = tmp_path / "shared.db"
    here, there = open_memory(db, "ilstma"), open_memory(db, "ilstma")
    secret = _fill(here)
    assert any(MARKER in turn for turn in here.short_term("u")["history"])
    here.recall(QUESTION, "u", k=5)
    st = here.short_term("u")
    assert any(MARKER in d for d in st["cache"]) and any(MARKER in d for d in st["relevant"])
    assert there.delete(secret, "u")
    st = here.short_term("u")  # only looking, no question asked
    assert MARKER not in json.dumps(st)
    assert secret not in st["cache_ids"]


def test_ilstma_erased_and_recreated_user_starts_a_fresh_session(open_memory, tmp_path):
    db = tmp_path / "shared.db"
    here, there = open_memory(db, "ilstma"), open_memory(db, "ilstma")
    _fill(here)
    here.recall(QUESTION, "u", k=5)
    assert there.delete_user("u") == 13
    there.add("a brand new first memory", "u")
    st = here.short_term("u")
    assert MARKER not in json.dumps(st)
    assert st["questions"] == 0 and st["cache"] == [] and st["relevant"] == []


@pytest.mark.parametrize("engine", ["hybrid", "ilstma"])
def test_the_time_stage_keeps_nothing_a_deleted_memory_named(open_memory, engine, tmp_path):
    """The times a memory's words name are stored beside it (``remem.time.stored``),
    read per question by id, and go with the memory: the stage keeps none of them in
    process, so a delete here or in another process leaves no named time to find."""
    db = tmp_path / "shared.db"
    here, there = open_memory(db, engine), open_memory(db, engine)
    _fill(here)
    told = here.add("I met Ana at the blue drawer shop yesterday", "u", timestamp=BASE)
    question = f"{QUESTION} last week"
    later = BASE + timedelta(days=3)
    here.search(question, "u", k=5, now=later)
    there.search(question, "u", k=5, now=later)
    assert [e["words"] for e in there.get(told, "u").event_times] == ["yesterday"]
    assert here.delete(told, "u")
    time_stage: Any = next(s for s in there._recaller.stages if s.name == "time")
    assert time_stage.events.of("u", [told]) == {told: []}
    assert all(told != h.id for h in there.search(question, "u", k=5, now=later))
