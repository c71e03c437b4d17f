"""``remem.AsyncMemory``: :class:`~remem.Memory`'s methods, awaitable.

Built on threads, not native coroutines: each call runs the very ``Memory`` method
in a worker thread (``asyncio.to_thread``, the event loop's default executor) and
the coroutine waits for it. A native port would duplicate every read and write path
for little gain: the work is SQLite, ONNX and numpy, which release the GIL, so calls
from one event loop overlap in threads as far as the cores allow, and ``Memory`` is
already safe to share between threads (its caches and writes take their own locks).
One ``AsyncMemory`` may therefore be shared by every task of one event loop.
Concurrent calls measured against the sync class: ``scripts/bench_async.py``, its
figures in docs/benchmarks.md#asyncmemory-under-concurrent-calls.

The integrations' async paths call remem through it. The servers do not: the HTTP
routes are plain functions FastAPI already runs in its thread pool, and the MCP
tools call a ``TenantMemory`` (scoping and JSON included) in one thread hop.

Each method is one line of the class below (``add = _InThread(Memory.add)``): the
signature, the docstring and the type checker's view all come from ``Memory``'s
method, so a method added to ``Memory`` is one line here (``tests/test_aio.py``
fails until it is added or listed as left out, with the reason).
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from .memory import Memory

P = ParamSpec("P")
R = TypeVar("R")


class _InThread(Generic[P, R]):
    """A ``Memory`` method as an awaitable method of :class:`AsyncMemory`: the call
    runs in a worker thread on the instance's ``Memory``."""

    def __init__(self, method: Callable[Concatenate[Memory, P], R]) -> None:
        self.method = method
        self.__doc__ = method.__doc__
        # the bound method's own (without ``self``), for help() and the editors
        signature = inspect.signature(method)
        self.signature = signature.replace(parameters=list(signature.parameters.values())[1:])

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> _InThread[P, R]: ...

    @overload
    def __get__(self, obj: AsyncMemory, owner: type[Any]) -> Callable[P, Awaitable[R]]: ...

    def __get__(self, obj: AsyncMemory | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        method, memory = self.method, obj.memory

        @functools.wraps(method)
        async def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return await asyncio.to_thread(method, memory, *args, **kwargs)

        call.__signature__ = self.signature  # type: ignore[attr-defined]
        return call


class AsyncMemory:
    """:class:`~remem.Memory` for asyncio code: the same methods, awaitable.

    >>> async def main():
    ...     async with AsyncMemory(":memory:") as mem:
    ...         await mem.add("I'm moving to Lisbon in May", user_id="u1")
    ...         return (await mem.search("where to?", user_id="u1", k=1))[0].text

    ``AsyncMemory(...)`` takes ``Memory``'s arguments and opens one (opening reads
    only the database's header; the embedding model loads on first use, in a worker
    thread like every call); ``AsyncMemory.of(mem)`` shares an open one, so sync and
    async code can use one memory. Closing either closes both. ``memory`` is the
    ``Memory`` underneath, for its quick attributes (``engine_info``, ``path``).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.memory = Memory(*args, **kwargs)

    @classmethod
    def of(cls, memory: Memory) -> AsyncMemory:
        """An ``AsyncMemory`` over an open ``Memory`` (shared, not copied)."""
        out = cls.__new__(cls)
        out.memory = memory
        return out

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"Async{self.memory!r}"

    # -- the methods: one line each (the table of what AsyncMemory offers) --------------

    add = _InThread(Memory.add)
    add_many = _InThread(Memory.add_many)
    update = _InThread(Memory.update)
    history = _InThread(Memory.history)
    delete = _InThread(Memory.delete)
    delete_user = _InThread(Memory.delete_user)
    scrub = _InThread(Memory.scrub)
    search = _InThread(Memory.search)
    recall = _InThread(Memory.recall)
    trace = _InThread(Memory.trace)
    answer = _InThread(Memory.answer)
    context = _InThread(Memory.context)
    short_term = _InThread(Memory.short_term)
    stats = _InThread(Memory.stats)
    flush = _InThread(Memory.flush)
    export_table = _InThread(Memory.export_table)
    export_data = _InThread(Memory.export_data)
    import_table = _InThread(Memory.import_table)
    import_data = _InThread(Memory.import_data)
    export_jsonl = _InThread(Memory.export_jsonl)
    import_jsonl = _InThread(Memory.import_jsonl)
    attach = _InThread(Memory.attach)
    warm_up = _InThread(Memory.warm_up)
    ping = _InThread(Memory.ping)
    consolidate = _InThread(Memory.consolidate)
    get = _InThread(Memory.get)
    memories = _InThread(Memory.memories)
    count = _InThread(Memory.count)
    users = _InThread(Memory.users)
    close = _InThread(Memory.close)


#: ``Memory``'s public names ``AsyncMemory`` leaves out, and why (a test holds every
#: other public method of ``Memory`` to be one of its methods)
LEFT_OUT = {
    "llm": "a property that loads the model: use memory.llm, or await a call that loads it",
    "verdict_model": "a plain attribute: read it from memory",
    "engine_info": "a plain attribute: read it from memory",
    "engine_name": "a plain attribute: read it from memory",
    "path": "a plain attribute: read it from memory",
    "max_text_chars": "a plain attribute: read it from memory",
    "export_lines": "a lazy iterator that reads the store as it is iterated: use "
    "export_jsonl, or iterate memory.export_lines in a thread",
    "user_ref": "a pure function with no I/O: call memory.user_ref",
    "answer_each": "takes reader objects built in this process: call memory.answer_each "
    "in a thread",
}
