"""A process SIGKILLed while it writes a SQLite file (the library default, no server
in between), restarted on the same file and killed again: every add it acknowledged
is there afterwards, no batch is half there, the file is sound, and the engine's
derived state (SYNAPSE's graph, ILSTMA's table and notes) opens and goes on working."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from remem import Memory

BATCH = 5
ACKED_PER_ROUND = 6
ROUNDS = 3

CHILD = r"""
import json, sys
from remem import Memory
path, engine, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
with Memory(path, engine=engine, llm="none") as mem:
    n = mem.count("ana") // size  # carry on after the last whole batch
    while True:  # until killed
        items = [
            {"text": f"Ana note {n} part {j}: the blue kettle is in cupboard {n}",
             "speaker": "Ana", "metadata": {"batch": n, "part": j}}
            for j in range(size)
        ]
        ids = mem.add_many(items, user_id="ana")
        if n % 2:
            mem.search(f"where is the kettle {n}", user_id="ana", k=3)
        print(json.dumps({"batch": n, "ids": ids}), flush=True)
        n += 1
"""


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_killed_writer_loses_no_acknowledged_add(tmp_path: Path, engine: str) -> None:
    path = str(tmp_path / "killed.db")
    acked: dict[int, list[str]] = {}
    for _ in range(ROUNDS):  # killed, restarted on the same file, killed again...
        acked.update(_write_until_killed(path, engine, len(acked) + ACKED_PER_ROUND))

    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()

    with Memory(path, engine=engine, llm="none") as mem:
        stored = mem.memories("ana")
        by_id = {h.id: h for h in stored}
        for batch, ids in acked.items():  # everything acknowledged is there
            assert all(i in by_id for i in ids), f"batch {batch} lost"
        batches: dict[int, int] = {}
        for h in stored:  # and whatever got in, got in whole
            batches[h.metadata["batch"]] = batches.get(h.metadata["batch"], 0) + 1
        assert set(batches.values()) == {BATCH}
        assert sorted(batches) == list(range(len(batches)))  # in order, no gaps
        # beyond the acknowledged: at most the one each kill interrupted after its commit
        assert 0 <= len(batches) - len(acked) <= ROUNDS

        # the derived state opens and keeps working after the crashes
        hits = mem.search("blue kettle cupboard 3", user_id="ana", k=5)
        assert hits and all(h.id in by_id for h in hits)
        new = mem.add_many(
            [{"text": "Ana moved the kettle to the shelf", "metadata": {"batch": -1}}],
            user_id="ana",
        )
        assert mem.consolidate("ana") >= 0
        assert mem.recall("where is the kettle now?", user_id="ana", k=3).hits
        assert mem.delete(new[0], user_id="ana") is True
        assert mem.count("ana") == len(stored)


def _write_until_killed(path: str, engine: str, until: int) -> dict[int, list[str]]:
    """Run the writer until batch ``until - 1`` is acknowledged, then SIGKILL it (no
    warning, no cleanup) while it writes the next one."""
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, path, engine, str(BATCH)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    acked: dict[int, list[str]] = {}
    deadline = time.monotonic() + 180
    try:
        assert proc.stdout is not None and proc.stderr is not None
        while True:
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"the writer died on its own: {proc.stderr.read()[-2000:]}")
            row = json.loads(line)
            acked[row["batch"]] = row["ids"]
            if row["batch"] + 1 >= until:
                break
            assert time.monotonic() < deadline, "the writer is too slow"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    return acked


SECRET = "zqxkilledscrub"  # in no other text, id or name

ERASER = r"""
import json, sys
from remem import Memory
from remem.errors import ErasureIncompleteError
path = sys.argv[1]
with Memory(path, engine="bm25", llm="none", store_options={"scrub_wait_ms": 50}) as mem:
    mem.add_many([f"{sys.argv[2]} secret number {i}" for i in range(3)], user_id="victim")
    mem.add("an ordinary memory", user_id="keeper")
    print("added", flush=True)
    sys.stdin.readline()  # the test's reader takes its snapshot meanwhile
    try:
        print(json.dumps({"scrubbed": mem.delete_user("victim")}), flush=True)
    except ErasureIncompleteError as exc:
        print(json.dumps({"pending": exc.result}), flush=True)
    sys.stdin.readline()  # killed here, its scrub still pending
"""


@pytest.mark.parametrize("other", ["open_before", "opened_after"])
def test_a_scrub_left_pending_by_a_killed_process_is_finished_by_another(
    tmp_path: Path, raw_bytes, other: str
) -> None:
    """A process killed while its erase's scrub is pending (another connection's snapshot
    held the erased pages in the WAL) leaves the text in the files; the next write by
    any process, one already running or one that opens the file later, finishes the
    scrub at once, not when the file's last connection closes (issue 34, finding 8)."""
    path = tmp_path / "killed.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", ERASER, str(path), SECRET],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    mem: Memory | None = None
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == "added\n", proc.stderr.read()[-2000:]
        if other == "open_before":  # a long-running worker on the same file
            mem = Memory(path, engine="bm25", llm="none")
        reader = sqlite3.connect(path, isolation_level=None)
        reader.execute("BEGIN")
        assert reader.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 4
        proc.stdin.write("\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline()) == {"pending": 3}
        reader.execute("COMMIT")
        reader.close()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert SECRET.encode() in raw_bytes(path)  # the killed process left it there

        if mem is None:
            mem = Memory(path, engine="bm25", llm="none")
        mem.add("a later, unrelated write", user_id="keeper")
        raw = raw_bytes(path)  # the file still open: SQLite's last-close checkpoint is moot
        assert SECRET.encode() not in raw and b"victim" not in raw
        assert not mem._store.scrub_pending
        assert mem.count("victim") == 0 and mem.count("keeper") == 2
        mem.scrub()  # nothing left to do
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        if mem is not None:
            mem.close()


MOVER = r"""
import json, os, signal, sys
from remem import Memory
from remem.time.current import SlotBook
if len(sys.argv) > 2:  # killed the moment its add is committed, before anything else
    SlotBook.added = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)
with Memory(sys.argv[1], engine="bm25", llm="none") as mem:
    n = mem.count("ana")
    while True:  # until killed
        ids = mem.add_many(
            [f"I moved to Town{n}", f"We had soup number {n}"], user_id="ana"
        )
        print(json.dumps({"batch": n, "ids": ids}), flush=True)
        n += 2
"""


def test_a_killed_writer_leaves_no_memory_without_its_slot_rows(tmp_path: Path) -> None:
    """The slots a memory sets are written in its add's transaction: however the
    process is killed, every stored memory that says where Ana lives has its row, the
    chain links each town to the next, and the marker says every memory was read. The
    last round is killed the moment its add commits (where a second transaction for
    the slots would have come)."""
    path = str(tmp_path / "moves.db")
    acked = 0
    for round_ in range(ROUNDS + 1):
        right_after = ["after-commit"] if round_ == ROUNDS else []
        proc = subprocess.Popen(
            [sys.executable, "-c", MOVER, path, *right_after],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None and proc.stderr is not None
        for _ in range(0 if right_after else ACKED_PER_ROUND):
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"the writer died on its own: {proc.stderr.read()[-2000:]}")
            acked += 1
        if not right_after:
            os.kill(proc.pid, signal.SIGKILL)
        assert proc.wait(timeout=60) == -signal.SIGKILL
    con = sqlite3.connect(path)
    try:
        moves = con.execute(
            "SELECT id, seq FROM memories WHERE user_id = 'ana' AND text LIKE 'I moved%' "
            "ORDER BY seq"
        ).fetchall()
        slots = dict(con.execute("SELECT memory_id, value FROM cur_slots").fetchall())
        links = dict(con.execute("SELECT memory_id, superseded_by FROM cur_superseded"))
        (top,) = con.execute("SELECT MAX(seq) FROM memories").fetchone()
        marker = con.execute("SELECT seq FROM cur_state WHERE user_id = 'ana'").fetchall()
    finally:
        con.close()
    assert len(moves) >= acked + 1  # the last one's add committed, then the kill
    assert set(slots) == {m for m, _ in moves}
    assert links == {a: b for (a, _), (b, _) in zip(moves, moves[1:], strict=False)}
    assert marker == [(top,)]
