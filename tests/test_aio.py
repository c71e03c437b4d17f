"""``remem.AsyncMemory``: every method of ``Memory``, awaitable, with its signature;
many calls of one event loop at once on one shared instance; the loop left free
while a call works. The shared methods' results are tests/client/test_faces.py's."""

from __future__ import annotations

import asyncio
import inspect
import threading

import pytest

from remem import AsyncMemory, InvalidInputError, Memory, StoreError
from remem.aio import LEFT_OUT


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_every_method_of_memory_is_awaitable_with_its_signature():
    missing = _public(Memory) - _public(AsyncMemory) - set(LEFT_OUT)
    assert not missing, f"add a line to AsyncMemory (remem/aio.py) or to LEFT_OUT: {missing}"
    for name in _public(Memory) - set(LEFT_OUT):
        bound = getattr(AsyncMemory.of(None), name)  # type: ignore[arg-type]
        assert inspect.iscoroutinefunction(bound), name
        want = list(inspect.signature(getattr(Memory, name)).parameters)[1:]
        assert list(inspect.signature(bound).parameters) == want, name
        assert bound.__doc__ == getattr(Memory, name).__doc__


def test_many_calls_of_one_loop_share_one_instance(embedder):
    async def run() -> None:
        async with AsyncMemory(":memory:", llm="none", embedder=embedder) as mem:
            ids = await asyncio.gather(
                *(mem.add(f"note {i}: the cat likes sardines", f"u{i % 4}") for i in range(40))
            )
            assert len(set(ids)) == 40
            counts = await asyncio.gather(*(mem.count(f"u{i}") for i in range(4)))
            assert counts == [10, 10, 10, 10]
            found = await asyncio.gather(
                *(mem.search("sardines", f"u{i % 4}", k=3) for i in range(20))
            )
            assert all(len(hits) == 3 for hits in found)
        assert mem.memory._closed

    asyncio.run(run())


def test_calls_run_off_the_loop(open_memory):
    mem = open_memory()
    threads: list[str] = []
    real = mem._store.count

    def count(user_id: str) -> int:
        threads.append(threading.current_thread().name)
        return real(user_id)

    mem._store.count = count  # type: ignore[method-assign]
    assert asyncio.run(AsyncMemory.of(mem).count("bob")) == 0
    assert threads and threads[0] != threading.current_thread().name


def test_errors_are_the_library_errors(open_memory):
    amem = AsyncMemory.of(open_memory())

    async def run() -> None:
        with pytest.raises(InvalidInputError):
            await amem.add("  ", "bob")
        await amem.close()
        with pytest.raises(StoreError, match="closed"):
            await amem.search("anything", "bob")

    asyncio.run(run())
    assert repr(amem).startswith("AsyncMemory(")
