"""Encrypted SQLite files (``Memory(key=...)``, ``store/cipher.py``): no plaintext in
any file SQLite writes, for every engine and an extension's tables; a missing, wrong
or unexpected key, or a damaged file, is a clear error that changes nothing; and
encrypt, decrypt and rekey round trips, atomic against a real SIGKILL."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from killing import run_or_kill
from remem import DatabaseKeyError, Memory, StoreError
from remem.errors import InvalidInputError
from remem.keys import KeyRing
from remem.store.cipher import TMP_SUFFIX, rewrite
from remem.store.extension import Extension

apsw = pytest.importorskip("apsw", reason="the 'encrypt' extra (apsw-sqlite3mc)")

MARKER = "qorvandel"  # in no other text, id or metadata
KEY, NEW_KEY = "correct horse 'battery' staple", "a second passphrase"
ENGINES = ["hybrid", "dense", "bm25", "synapse", "ilstma"]

NOTES = Extension(
    "enc_notes",
    {"sqlite": [(1, "CREATE TABLE enc_notes (user_id TEXT NOT NULL, note TEXT NOT NULL)")]},
    user_tables=("enc_notes",),
    doc="a third party's table in the memory database (the storage extension hook)",
)


def _files(db: Path) -> bytes:
    """Every byte SQLite keeps for the database: the file, its WAL, the WAL's index."""
    return b"".join(
        p.read_bytes() for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")) if p.exists()
    )


def _leaks(raw: bytes, needles: list[str]) -> list[str]:
    return [
        f"{n} ({enc})" for n in needles for enc in ("utf-8", "utf-16-le") if n.encode(enc) in raw
    ]


def _fill(m: Memory, user: str) -> None:
    """Text everywhere a store keeps it: rows, metadata, speakers, sessions, the
    engines' own tables (SYNAPSE's concepts, ILSTMA's table and notes), an API key's
    tenant and an extension's table."""
    m.add_many(
        [
            {
                "text": f"{MARKER.capitalize()} Vance takes insulin for diabetes, note {i}",
                "speaker": f"speaker{MARKER}",
                "session_id": f"session{MARKER}",
                "metadata": {"ward": f"ward{MARKER}{i}"},
            }
            for i in range(12)
        ],
        user_id=user,
    )
    m.consolidate(user)
    m.recall(f"what does {MARKER.capitalize()} Vance take?", user_id=user, k=5)
    m.search(f"{MARKER} insulin", user_id=user, k=5)
    m.flush(user)
    KeyRing.of(m).create(f"tenant{MARKER}", label=f"label{MARKER}")
    with m.attach(NOTES).write(user) as tx:
        tx.run("INSERT INTO enc_notes (user_id, note) VALUES (?, ?)", (user, f"note{MARKER}"))


def _raw(db: Path, key: str | None) -> Any:
    """A connection of the cipher's own library (not remem's) to the file."""
    con = apsw.Connection(str(db))
    if key is not None:
        con.execute("PRAGMA key = '{}'".format(key.replace("'", "''")))
    return con


def _tables(db: Path, key: str | None) -> set[str]:
    con = _raw(db, key)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_no_plaintext_in_the_db_wal_or_shm(tmp_path: Path, embedder, engine: str) -> None:
    """The same writes into a plain file (the control: the needles are there) and an
    encrypted one (nowhere, while open with a full WAL and after close), and the
    encrypted file holds every table the plain one does."""
    user = f"user{MARKER}"
    needles = [MARKER, MARKER.capitalize(), "insulin", "diabetes", user]
    plain, secret = tmp_path / "plain.db", tmp_path / "secret.db"
    for path, key in ((plain, None), (secret, KEY)):
        with Memory(path, engine=engine, embedder=embedder, llm="none", key=key) as m:
            _fill(m, user)
            assert Path(f"{path}-wal").stat().st_size > 0  # the WAL holds the writes
            open_raw = _files(path)
        if key is None:
            assert _leaks(open_raw, needles), "control: a plain file holds the text"
        else:
            assert _leaks(open_raw, needles) == []
            assert _leaks(_files(path), needles) == []
    assert _tables(secret, KEY) == _tables(plain, None)
    assert "enc_notes" in _tables(secret, KEY)
    with Memory(secret, engine=engine, embedder=embedder, llm="none", key=KEY) as m:
        assert m.count(user) == 12
        assert MARKER.capitalize() in m.search("insulin", user_id=user, k=1)[0].text


def _digest(db: Path) -> str:
    return hashlib.sha256(_files(db)).hexdigest()


@pytest.fixture
def encrypted(tmp_path: Path, embedder) -> Path:
    db = tmp_path / "enc.db"
    with Memory(db, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        m.add_many([f"{MARKER} memory {i} about the allotment" for i in range(40)], user_id="ana")
    return db


@pytest.mark.parametrize(
    ("key", "reason"), [(None, "missing"), ("not-this-passphrase", "wrong"), (KEY[:-1], "wrong")]
)
def test_missing_or_wrong_key_is_refused_and_changes_nothing(
    encrypted: Path, embedder, key: str | None, reason: str
) -> None:
    before = _digest(encrypted)
    with pytest.raises(DatabaseKeyError) as info:
        Memory(encrypted, engine="hybrid", embedder=embedder, llm="none", key=key)
    assert info.value.reason == reason
    assert KEY not in str(info.value) and (key is None or key not in str(info.value))
    assert _digest(encrypted) == before
    assert not Path(f"{encrypted}-wal").exists()
    with Memory(encrypted, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        assert m.count("ana") == 40


def test_a_key_for_a_plain_file_is_refused(tmp_path: Path, embedder) -> None:
    db = tmp_path / "plain.db"
    with Memory(db, engine="bm25", embedder=embedder, llm="none") as m:
        m.add("a plain memory", user_id="ana")
    before = _digest(db)
    with pytest.raises(DatabaseKeyError, match="remem encrypt") as info:
        Memory(db, engine="bm25", embedder=embedder, llm="none", key=KEY)
    assert info.value.reason == "unexpected"
    assert _digest(db) == before


def test_the_stdlib_cannot_read_an_encrypted_file(encrypted: Path) -> None:
    con = sqlite3.connect(encrypted)
    try:
        with pytest.raises(sqlite3.DatabaseError, match="not a database"):
            con.execute("SELECT count(*) FROM memories").fetchone()
    finally:
        con.close()


@pytest.mark.parametrize("keep", [0.001, 0.01, 0.5])
def test_a_truncated_file_is_a_store_error(
    encrypted: Path, tmp_path: Path, embedder, keep: float
) -> None:
    """Cut inside page 1 (the key cannot be checked), or after it (damaged): a
    StoreError at open, never a raw SQLCipher error, and the cut copy unchanged."""
    cut = tmp_path / "cut.db"
    shutil.copy(encrypted, cut)
    os.truncate(cut, max(int(cut.stat().st_size * keep), 64))
    before = _digest(cut)
    with pytest.raises(StoreError, match="damaged"):
        Memory(cut, engine="hybrid", embedder=embedder, llm="none", key=KEY)
    assert _digest(cut) == before


@pytest.mark.parametrize(
    ("path", "message"),
    [(":memory:", "memory"), ("postgresql://u@localhost/db", "PostgreSQL")],
)
def test_a_key_where_there_is_no_file_to_encrypt_is_refused(path: str, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        Memory(path, key=KEY, llm="none")


@pytest.mark.parametrize("key", ["", b"\xff\xfe", "a\x00b"])
def test_a_key_must_be_text(tmp_path: Path, key: str | bytes) -> None:
    with pytest.raises(InvalidInputError):
        Memory(tmp_path / "x.db", key=key, llm="none")
    assert not (tmp_path / "x.db").exists()


def _contents(db: Path, key: str | None, embedder) -> list[tuple]:
    with Memory(db, engine="hybrid", embedder=embedder, llm="none", key=key) as m:
        hits = m.search("allotment", user_id="ana", k=3)
        return [(h.id, h.text) for h in m.memories("ana")] + [(h.id,) for h in hits]


def test_encrypt_rekey_decrypt_round_trip(tmp_path: Path, embedder) -> None:
    db = tmp_path / "round.db"
    with Memory(db, engine="hybrid", embedder=embedder, llm="none") as m:
        m.add_many([f"{MARKER} memory {i} about the allotment" for i in range(20)], user_id="ana")
    want = _contents(db, None, embedder)
    version = sqlite3.connect(db).execute("PRAGMA user_version").fetchone()[0]

    rewrite(db, None, KEY)
    assert _leaks(_files(db), [MARKER]) == []
    assert _contents(db, KEY, embedder) == want
    rewrite(db, KEY, NEW_KEY)
    with pytest.raises(DatabaseKeyError):
        Memory(db, embedder=embedder, llm="none", key=KEY)
    assert _contents(db, NEW_KEY, embedder) == want
    rewrite(db, NEW_KEY, None)
    con = sqlite3.connect(db)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == version
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
    assert _contents(db, None, embedder) == want
    assert not Path(f"{db}{TMP_SUFFIX}").exists()


def test_rewrite_refuses_a_file_in_use_and_leaves_it(encrypted: Path, embedder) -> None:
    with Memory(encrypted, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        before = _digest(encrypted)
        with pytest.raises(StoreError, match="in use"):
            rewrite(encrypted, KEY, NEW_KEY)
        assert _digest(encrypted) == before
        assert m.count("ana") == 40
        m.add("written after the refused rekey", user_id="ana")
    assert not Path(f"{encrypted}{TMP_SUFFIX}").exists()
    with Memory(encrypted, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        assert m.count("ana") == 41


def test_rewrite_with_the_wrong_old_key_changes_nothing(encrypted: Path) -> None:
    before = _digest(encrypted)
    with pytest.raises(DatabaseKeyError):
        rewrite(encrypted, "not the key", NEW_KEY)
    with pytest.raises(DatabaseKeyError, match="encrypted"):
        rewrite(encrypted, None, NEW_KEY)
    assert _digest(encrypted) == before


# -- a rotation killed part-way ------------------------------------------------------------

CHILD = r"""
import os, sys
from remem.store.cipher import rewrite
old, new = os.environ["TEST_OLD_KEY"] or None, os.environ["TEST_NEW_KEY"] or None
print("go", flush=True)
rewrite(sys.argv[1], old, new)
print("done", flush=True)
"""


def _ballast(db: Path, key: str, mib: int) -> None:
    """Megabytes of random rows in a table of the file, so a rewrite takes long enough
    to be killed in the middle (the copy and the re-encryption take every page)."""
    con = _raw(db, key)
    try:
        con.execute("CREATE TABLE ballast (b BLOB)")
        con.execute("BEGIN")
        con.executemany("INSERT INTO ballast VALUES (?)", [(os.urandom(4096),)] * (mib * 256))
        con.execute("COMMIT")
    finally:
        con.close()


def _rotate(
    db: Path, old: str | None, new: str | None, kill_after: float | None
) -> tuple[bool, float]:
    """Run a rewrite (old and new key, None: plain; in the environment, never on a
    command line) in a real process, SIGKILLed ``kill_after`` seconds after it starts
    (None: let it finish); whether it finished, and how long it ran."""
    keys = {"TEST_OLD_KEY": old or "", "TEST_NEW_KEY": new or ""}
    return run_or_kill(CHILD, [str(db)], keys, kill_after)


def _opens_with(db: Path, key: str | None, embedder) -> int | None:
    try:
        with Memory(db, engine="hybrid", embedder=embedder, llm="none", key=key) as m:
            return m.count("ana")
    except DatabaseKeyError:
        return None


@pytest.mark.parametrize("keys", [(KEY, NEW_KEY), (KEY, None)], ids=["rekey", "decrypt-encrypt"])
def test_a_rotation_killed_part_way_leaves_one_readable_key(
    encrypted: Path, embedder, keys: tuple[str, str | None]
) -> None:
    """Killed at points spread over a whole rewrite's time, back and forth between two
    keys (or a key and a plain file): each time the file opens with the old key or
    the new one (never neither, never both), with every memory, and a killed run's
    leftover is cleared by the next."""
    _ballast(encrypted, KEY, 24)
    finished, whole = _rotate(encrypted, keys[0], keys[1], None)
    current = 1
    killed_midway = 0
    for step in range(1, 9):
        old, new = keys[current], keys[1 - current]
        done, _ = _rotate(encrypted, old, new, whole * step / 9)
        left = Path(f"{encrypted}{TMP_SUFFIX}").exists()
        counts = {k: _opens_with(encrypted, k, embedder) for k in keys}
        readable = [k for k, n in counts.items() if n is not None]
        assert len(readable) == 1, counts
        assert counts[readable[0]] == 40
        killed_midway += int(not done and left)
        current = keys.index(readable[0])
    assert killed_midway >= 1, "no kill landed during a rewrite: make the ballast larger"
    final = keys[current]
    for new in (keys[1 - current], KEY):  # a whole run, and back to KEY if need be
        if new != final:
            _rotate(encrypted, final, new, None)
            final = new
    assert not Path(f"{encrypted}{TMP_SUFFIX}").exists()
    assert _opens_with(encrypted, KEY, embedder) == 40


WRITER = r"""
import json, os, sys
from remem import Memory
path, engine = sys.argv[1], sys.argv[2]
with Memory(path, engine=engine, llm="none", key=os.environ["TEST_DB_KEY"]) as mem:
    n = mem.count("ana") // 5
    while True:  # until killed
        items = [{"text": f"qorvandel note {n} part {j}: the kettle is in cupboard {n}",
                  "metadata": {"batch": n}} for j in range(5)]
        ids = mem.add_many(items, user_id="ana")
        print(json.dumps({"batch": n, "ids": ids}), flush=True)
        n += 1
"""


def _write_until_killed(db: Path, engine: str, until: int) -> dict[int, list[str]]:
    """A writer process on the encrypted file, SIGKILLed while it writes batch
    ``until``; the batches it acknowledged."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TEST_DB_KEY": KEY}
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), engine], stdout=subprocess.PIPE, env=env, text=True
    )
    acked: dict[int, list[str]] = {}
    try:
        assert proc.stdout is not None
        while len(acked) < until:
            line = proc.stdout.readline()
            assert line, "the writer died on its own"
            row = json.loads(line)
            acked[row["batch"]] = row["ids"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
    return acked


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_writer_killed_on_an_encrypted_file_loses_nothing_and_leaks_nothing(
    tmp_path: Path, embedder, engine: str
) -> None:
    """SIGKILLed mid-ingest twice: the WAL it leaves (frames never checkpointed) holds
    no plaintext, the file passes SQLite's integrity check under the key, and every
    acknowledged batch is there, whole."""
    db = tmp_path / "killed.db"
    acked: dict[int, list[str]] = {}
    for round_ in (1, 2):
        acked.update(_write_until_killed(db, engine, 4 * round_))
        assert Path(f"{db}-wal").exists()
        assert _leaks(_files(db), [MARKER, "kettle", "cupboard"]) == []
    if engine == "hybrid":  # a rotation takes in what the killed writer left in the WAL
        acked.update(_write_until_killed(db, engine, 12))
        rewrite(db, KEY, NEW_KEY)
        rewrite(db, NEW_KEY, KEY)
    con = _raw(db, KEY)
    try:
        assert list(con.execute("PRAGMA integrity_check")) == [("ok",)]
    finally:
        con.close()
    with Memory(db, engine=engine, embedder=embedder, llm="none", key=KEY) as m:
        stored = m.memories("ana")
        have = {h.id for h in stored}
        assert all(i in have for ids in acked.values() for i in ids)
        sizes: dict[int, int] = {}
        for h in stored:
            sizes[h.metadata["batch"]] = sizes.get(h.metadata["batch"], 0) + 1
        assert set(sizes.values()) == {5}
        assert m.search("kettle cupboard 2", user_id="ana", k=3)


def test_cli_encrypt_rekey_decrypt_with_key_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Keys come from files (``--key-file``, ``--new-key-file``) or REMEM_DB_KEY."""
    from remem.cli import main

    db, k1, k2 = str(tmp_path / "cli.db"), tmp_path / "k1", tmp_path / "k2"
    k1.write_text(KEY + "\n")
    k2.write_text(NEW_KEY)
    run: Callable[..., int] = lambda *argv: main(["--db", db, "--engine", "bm25", *argv])  # noqa: E731
    assert run("add", f"{MARKER} lives by the river", "--user", "ana") == 0
    assert run("encrypt", "--new-key-file", str(k1)) == 0
    assert _leaks(_files(Path(db)), [MARKER]) == []
    capsys.readouterr()
    assert run("count", "--user", "ana") == 2
    assert "encrypted" in capsys.readouterr().err
    assert run("--key-file", str(k1), "count", "--user", "ana") == 0
    assert capsys.readouterr().out == "1\n"
    assert run("--key-file", str(k1), "rekey", "--new-key-file", str(k2)) == 0
    assert run("--key-file", str(k1), "count", "--user", "ana") == 2
    monkeypatch.setenv("REMEM_DB_KEY", NEW_KEY)
    capsys.readouterr()
    assert run("count", "--user", "ana") == 0
    assert capsys.readouterr().out == "1\n"
    assert run("decrypt") == 0
    monkeypatch.delenv("REMEM_DB_KEY")
    assert run("count", "--user", "ana") == 0
    assert KEY not in capsys.readouterr().err


def test_the_demo_runs_encrypted_and_its_bytes_hold_no_word(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``remem demo --encrypted``: the same answers, over a file in which none of the
    conversation's longer words can be found."""
    from remem.cli import main

    assert main(["demo", "--llm", "none", "--encrypted"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "The database is encrypted" in out and ", none appear in its" in out
    assert "ILSTMA cache" in out and "never-mentioned questions refused" in out


RACER = r"""
import json, os, sys, time
from remem import Memory
path, name, go = sys.argv[1], sys.argv[2], sys.argv[3]
while not os.path.exists(go):  # both open the new file at once
    time.sleep(0.005)
ids = []
with Memory(path, engine="hybrid", llm="none", key=os.environ["TEST_DB_KEY"]) as mem:
    for i in range(40):
        ids.append(mem.add(f"{name} note {i}", user_id="shared", metadata={"w": name, "i": i}))
        if i % 20 == 10:
            ids += mem.add_many([f"{name} batch {i} item {j}" for j in range(10)], user_id="shared")
print(json.dumps(ids), flush=True)
"""


def test_two_processes_writing_one_encrypted_file_at_once_lose_nothing(
    tmp_path: Path, embedder
) -> None:
    """Two writers open a new encrypted file at the same moment and interleave their
    adds: the cipher's connections wait for each other's locks (no "database is
    locked"), and every add is there once, in a dense sequence, in a sound file."""
    db, go = tmp_path / "shared.db", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TEST_DB_KEY": KEY}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(db), name, str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    time.sleep(3)  # both imported remem and wait
    go.touch()
    ids: list[str] = []
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
        ids += json.loads(out)
    assert len(ids) == len(set(ids)) == 2 * (40 + 2 * 10)
    with Memory(db, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        stored = m.memories("shared")
        assert {h.id for h in stored} == set(ids)
        for name in ("alpha", "beta"):
            mine = [h.metadata["i"] for h in stored if h.metadata.get("w") == name]
            assert mine == list(range(40))
    con = _raw(db, KEY)
    try:
        assert list(con.execute("PRAGMA integrity_check")) == [("ok",)]
        seqs = [r[0] for r in con.execute("SELECT seq FROM memories ORDER BY seq")]
        assert seqs == list(range(len(ids)))  # dense and unique: none lost or doubled
    finally:
        con.close()


def test_the_key_is_never_shown(tmp_path: Path, embedder) -> None:
    """Not in a config's repr, a Memory's or a store's (logs and tracebacks show them)."""
    from remem.config import MemoryConfig

    config = MemoryConfig.build(tmp_path / "shown.db", key=KEY)
    assert config.key == KEY and KEY not in repr(config)
    with Memory(tmp_path / "shown.db", embedder=embedder, llm="none", key=KEY) as m:
        assert KEY not in repr(m) and KEY not in str(vars(m._store))


def test_an_apsw_without_the_cipher_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain APSW (the same module name, no SQLite3 Multiple Ciphers) would ignore
    ``PRAGMA key`` and write the file in clear: it is refused before a file exists."""
    from remem.errors import MissingDependencyError

    monkeypatch.delattr(apsw, "mc_version")
    with pytest.raises(MissingDependencyError, match="apsw-sqlite3mc"):
        Memory(tmp_path / "clear.db", llm="none", key=KEY)
    assert not (tmp_path / "clear.db").exists()


def test_a_key_store_shreds_a_user_in_an_earlier_copy_of_the_file(tmp_path: Path, embedder) -> None:
    """``store_options={"keyring": DIR}``: each user's rows are sealed inside the
    encrypted file too. A copy of the file taken before ``delete_user``, put back:
    even with the file's key, the erased user's rows are there but unreadable, another
    user's read as before; and a raw read with the file's key shows no memory text."""
    db, keys = tmp_path / "mem.db", tmp_path / "keys"

    def memory() -> Memory:
        return Memory(
            db, embedder=embedder, llm="none", key=KEY, store_options={"keyring": str(keys)}
        )

    with memory() as m:
        m.add(f"{MARKER} Ana is allergic to penicillin", user_id="ana")
        m.add("Bo plays the cello on Sundays", user_id="bo")
    con = _raw(db, KEY)
    try:
        texts = [r[0] for r in con.execute("SELECT text FROM memories")]
    finally:
        con.close()
    assert len(texts) == 2 and not any(MARKER in t or "cello" in t for t in texts)
    backup = tmp_path / "backup.db"
    shutil.copyfile(db, backup)
    with memory() as m:
        assert m.delete_user("ana") == 1
    shutil.copyfile(backup, db)  # the backup restored
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    with memory() as m:
        assert m.count("ana") == 1  # the row is there
        with pytest.raises(DatabaseKeyError, match="not in the key store"):
            m.memories("ana")
        assert [h.text for h in m.memories("bo")] == ["Bo plays the cello on Sundays"]
    with pytest.raises(DatabaseKeyError, match="seals each user"):
        Memory(db, embedder=embedder, llm="none", key=KEY)  # the key store is needed


def test_rotating_the_key_of_a_file_with_a_key_store_alone_is_refused(
    tmp_path: Path, embedder
) -> None:
    """Its key store is wrapped by the file's key: a rekey of the file alone would
    leave it unopenable, and so would a decrypt."""
    db = tmp_path / "mem.db"
    opts = {"keyring": str(tmp_path / "keys")}
    with Memory(db, embedder=embedder, llm="none", key=KEY, store_options=opts) as m:
        m.add("Ana is allergic to penicillin", user_id="ana")
    before = _digest(db)
    for new in (NEW_KEY, None):
        with pytest.raises(StoreError, match="with its key store"):
            rewrite(db, KEY, new)
    assert _digest(db) == before
    with Memory(db, embedder=embedder, llm="none", key=KEY, store_options=opts) as m:
        assert m.count("ana") == 1


SEALED_CHILD = r"""
import os, sys
from remem.store.cipher import rekey_sealed
print("go", flush=True)
rekey_sealed(sys.argv[1], sys.argv[2], os.environ["TEST_OLD_KEY"], os.environ["TEST_NEW_KEY"])
"""


def _rekey_sealed_in_a_process(db: Path, old: str, new: str, kill_after: float | None) -> float:
    """``rekey_sealed`` (``remem rekey`` with REMEM_KEYRING) in a real process,
    SIGKILLed ``kill_after`` seconds after it starts (None: to the end)."""
    keys = {"TEST_OLD_KEY": old, "TEST_NEW_KEY": new}
    args = [str(db), str(db.parent / "keys")]
    return run_or_kill(SEALED_CHILD, args, keys, kill_after)[1]


def _sealed_reads(db: Path, key: str, embedder) -> dict[str, list[str]] | None:
    opts = {"keyring": str(db.parent / "keys")}
    try:
        m = Memory(db, embedder=embedder, llm="none", key=key, store_options=opts)
    except DatabaseKeyError:
        return None
    with m:
        return {u: [h.text for h in m.memories(u)] for u in m.users()}


def test_rekeying_a_file_with_a_key_store_killed_part_way_loses_nothing(
    tmp_path: Path, embedder
) -> None:
    """The file's key and its key store's master key rotated together, in real
    processes SIGKILLed at points spread over a whole run: after each kill exactly one
    key opens the file, and with it the key store and every user's memories; running
    again finishes the job."""
    from remem.store.envelope import DirectoryKeyRing

    db = tmp_path / "mem.db"
    opts = {"keyring": str(tmp_path / "keys")}
    with Memory(db, embedder=embedder, llm="none", key=KEY, store_options=opts) as m:
        for u in ("ana", "bo"):
            m.add(f"{u} keeps the spare key under the blue pot", user_id=u)
    want = _sealed_reads(db, KEY, embedder)
    assert want is not None and sorted(want) == ["ana", "bo"]
    _ballast(db, KEY, 12)
    ring = DirectoryKeyRing(tmp_path / "keys", KEY)
    for i in range(150):
        ring.create(f"ballast{i}")
    whole = _rekey_sealed_in_a_process(db, KEY, NEW_KEY, None)
    _rekey_sealed_in_a_process(db, NEW_KEY, KEY, None)
    current, midway = KEY, 0
    for step in range(1, 9):
        other = NEW_KEY if current == KEY else KEY
        _rekey_sealed_in_a_process(db, current, other, whole * step / 9)
        read = {k: _sealed_reads(db, k, embedder) for k in (KEY, NEW_KEY)}
        assert [r for r in read.values() if r is not None] == [want], read
        midway += int((tmp_path / "keys" / "keyring.rotating.json").exists())
        _rekey_sealed_in_a_process(db, current, other, None)  # finish it (or do it all)
        assert _sealed_reads(db, other, embedder) == want
        assert _sealed_reads(db, current, embedder) is None
        current = other
    assert midway >= 1, "no kill landed during a rotation: add ballast"


def test_cli_rekey_of_a_file_with_a_key_store(tmp_path: Path, embedder, monkeypatch) -> None:
    """``remem --key-file OLD rekey --new-key-file NEW`` with REMEM_KEYRING: the file
    and its key store both move to the new key; without REMEM_KEYRING it is refused,
    the file unchanged."""
    from remem.cli import main

    db = tmp_path / "mem.db"
    (tmp_path / "k1").write_text(KEY)
    (tmp_path / "k2").write_text(NEW_KEY)
    opts = {"keyring": str(tmp_path / "keys")}
    with Memory(db, embedder=embedder, llm="none", key=KEY, store_options=opts) as m:
        m.add("Ana is allergic to penicillin", user_id="ana")
    monkeypatch.delenv("REMEM_DB_KEY", raising=False)
    monkeypatch.delenv("REMEM_KEYRING", raising=False)
    argv = ["--db", str(db), "--key-file", str(tmp_path / "k1"), "rekey"]
    argv += ["--new-key-file", str(tmp_path / "k2")]
    before = _digest(db)
    assert main(argv) == 2
    assert _digest(db) == before
    monkeypatch.setenv("REMEM_KEYRING", str(tmp_path / "keys"))
    assert main(argv) == 0
    assert main(argv) == 0  # run again: nothing left to do
    assert _sealed_reads(db, NEW_KEY, embedder) == {"ana": ["Ana is allergic to penicillin"]}
    assert _sealed_reads(db, KEY, embedder) is None
