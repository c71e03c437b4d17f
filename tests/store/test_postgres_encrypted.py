"""Encrypted PostgreSQL stores (``Memory(url, key=..., store_options={"keyring": DIR})``,
``store/envelope.py``): what a raw read of every table and a real ``pg_dump`` hold,
clear errors for a wrong master key or a plain/sealed mix-up, the same search results
as a plain store, and crypto-shredding: a dump taken before ``delete_user``, restored,
reads every other user but not the erased one. Real servers only (tests/pg.py)."""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from killing import run_or_kill
from remem import DatabaseKeyError, Memory
from remem.errors import InvalidInputError

pytest.importorskip("psycopg")
pytest.importorskip("cryptography")
from remem.store.envelope import USER_IDS_ENTRY, DirectoryKeyRing  # noqa: E402
from remem.store.postgres import PostgresStore  # noqa: E402

MARKER = "qorvandel"  # in no other text, id or metadata
MASTER = "a random master key, in real life 32 bytes from /dev/urandom"
ENGINES = ["hybrid", "dense", "bm25", "synapse", "ilstma"]
#: Tables that may hold a memory's words in clear: none (every table is read below,
#: so a new one that leaks fails the test).
NOT_SEALED_YET: set[str] = set()


def _fill(m: Memory, user: str) -> list[str]:
    ids = m.add_many(
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
    m.update(ids[0], user_id=user, text=f"{MARKER.capitalize()} Vance now takes metformin")
    for text in (
        f"I moved to {MARKER}ton last month.",  # the current facts' slots
        f"My phone is a {MARKER} X2.",
        f"Two days after the {MARKER} wedding I flew home.",  # a two-step time
    ):
        m.add(text, user_id=user, speaker=f"speaker{MARKER}")
    m.consolidate(user)
    m.recall(f"what does {MARKER.capitalize()} Vance take?", user_id=user, k=5)
    m.flush(user)
    return ids


def _dump_tables(pg_sql) -> dict[str, str]:
    """Every table of the database, every column, as text (a raw read behind remem)."""
    tables = [r[0] for r in pg_sql("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
    out = {}
    for t in tables:
        rows = pg_sql(f"SELECT * FROM {t}")
        out[t] = "\n".join(
            repr(v.decode("latin-1") if isinstance(v, (bytes, memoryview)) else v)
            for row in rows
            for v in (bytes(x) if isinstance(x, memoryview) else x for x in row)
        )
    return out


def _pg_dump(url: str) -> str:
    import pgserver

    bin_dir = Path(pgserver.__file__).parent / "pginstall" / "bin"
    done = subprocess.run(
        [str(bin_dir / "pg_dump"), "--no-owner", url],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _open(url: str, embedder, keys: Path | None, engine: str = "hybrid", **kw) -> Memory:
    options = {"keyring": str(keys)} if keys is not None else {}
    key = MASTER if keys is not None else None
    return Memory(
        url, engine=engine, embedder=embedder, llm="none", key=key, store_options=options, **kw
    )


@pytest.fixture
def other_db(pg_server):
    """A second fresh database: (url, pg_sql-like runner), dropped after the test."""
    name = pg_server.new_database()
    yield pg_server.url(name), (lambda q, p=(): pg_server.sql(q, p, dbname=name))
    pg_server.drop_database(name)


@pytest.mark.parametrize("engine", ENGINES)
def test_no_memory_text_in_the_tables_or_a_pg_dump(
    engine, pg_url, pg_sql, other_db, embedder, tmp_path
):
    """Memory text, speaker, session, metadata values and the update history are in
    no column of the core tables nor in a real pg_dump, for every engine; the derived
    tables that still hold words are among those named above. The control: the same
    writes to a plain store show every needle."""
    needles = [MARKER, MARKER.capitalize(), "insulin", "diabetes", "metformin"]
    plain_url, plain_sql = other_db
    with _open(plain_url, embedder, None, engine) as m:
        _fill(m, f"someone{MARKER}")
    plain = _dump_tables(plain_sql)
    assert all(f"someone{MARKER}" in plain[t] for t in ("users", "memories", "memory_history"))
    assert all(n in plain["memories"] + plain["memory_history"] for n in needles)
    assert f"the {MARKER} wedding" in plain["event_anchors"]
    assert f"{MARKER} x2" in plain["cur_slots"] and f"speaker{MARKER}" in plain["cur_slots"]
    user = f"someone{MARKER}"  # every user column holds a keyed hash of it instead
    with _open(pg_url, embedder, tmp_path / "keys", engine) as m:
        _fill(m, user)
        assert m.get(m.memories(user)[0].id, user).text.startswith(MARKER.capitalize())
        assert m.users() == [user]
        sealed = _dump_tables(pg_sql)
    leaks = {t for t, text in sealed.items() if any(n in text for n in needles)}
    assert leaks <= NOT_SEALED_YET, leaks
    assert {"memories", "memory_history", "user_names"} <= set(sealed) and sealed["memory_history"]
    dump = _pg_dump(pg_url)
    assert not [n for n in needles if n in dump]
    assert not list((tmp_path / "keys").glob("*someone*"))  # the key store names no one
    with _open(pg_url, embedder, tmp_path / "keys", engine) as m:  # a new process reads it
        assert m.users() == [user] and len(m.memories(user)) == 15
        assert m.export_data(user)["user_id"] == user  # exports name the user, not the hash
        # every call that takes a user id reaches the same rows (each hashes it once)
        query = f"what does {MARKER.capitalize()} Vance take?"
        assert m.search(query, user_id=user, k=1) and m.trace(query, user_id=user).recall.hits
        assert m.context(query, user_id=user) and m.stats(user)["memories"] == 15
        first = m.memories(user)[0]
        assert len(m.history(first.id, user)) >= 1 and m.get(first.id, user) is not None
        assert json.loads(next(m.export_lines(user)))["user_id"] == user


def test_a_wrong_master_key_is_a_clear_error(pg_url, embedder, tmp_path):
    keys = tmp_path / "keys"
    with _open(pg_url, embedder, keys) as m:
        m.add("Ana is allergic to penicillin", user_id="ana")
    with pytest.raises(DatabaseKeyError, match="master key does not open"):
        Memory(
            pg_url,
            embedder=embedder,
            llm="none",
            key="not the key",
            store_options={"keyring": str(keys)},
        )
    with pytest.raises(DatabaseKeyError, match="the key store is not"):
        _open(pg_url, embedder, tmp_path / "another deployment's keys")  # right master key
    with _open(pg_url, embedder, keys) as m:  # nothing was lost
        assert [h.text for h in m.memories("ana")] == ["Ana is allergic to penicillin"]


def test_plain_and_sealed_never_mix(pg_url, other_db, embedder, tmp_path):
    """No key for a sealed database, or a key for one holding plain memories: refused
    before anything is written; a key without a key store is refused before connecting."""
    with _open(pg_url, embedder, tmp_path / "keys") as m:
        m.add("sealed words", user_id="ana")
    with pytest.raises(DatabaseKeyError, match="seals each user"):
        _open(pg_url, embedder, None)
    plain_url, _ = other_db
    with _open(plain_url, embedder, None) as m:
        m.add("plain words", user_id="ana")
    with pytest.raises(DatabaseKeyError, match="holds plain memories"):
        _open(plain_url, embedder, tmp_path / "other-keys")
    with _open(plain_url, embedder, None) as m:
        assert m.count("ana") == 1
    with pytest.raises(InvalidInputError, match="keyring"):
        Memory(pg_url, embedder=embedder, llm="none", key=MASTER)
    with pytest.raises(InvalidInputError, match="pgvector"):
        PostgresStore(pg_url, key=MASTER, keyring=str(tmp_path / "keys"), vector="pgvector")


@pytest.mark.parametrize("engine", ["hybrid", "dense", "synapse"])
def test_search_results_equal_the_plain_stores(
    engine, pg_url, other_db, embedder, sentences, tmp_path
):
    plain_url, _ = other_db
    found = []
    for url, keys in ((plain_url, None), (pg_url, tmp_path / "keys")):
        with _open(url, embedder, keys, engine) as m:
            m.add_many([{"text": t, "speaker": "Ana"} for t in sentences], user_id="ana")
            m.consolidate("ana")
            hits = [
                m.search(q, user_id="ana", k=5)
                for q in ("What kind of dog did I adopt?", "Where is my sister getting married?")
            ]
            found.append([[(h.text, h.speaker, round(h.score, 6)) for h in hs] for hs in hits])
    assert found[0] == found[1] and found[0][0]


def test_delete_user_shreds_the_users_rows_in_an_earlier_dump(
    pg_url, pg_server, embedder, tmp_path
):
    """A real pg_dump taken before delete_user, restored into a fresh database after
    it: the erased user's rows are there but cannot be read; another user's can."""
    keys = tmp_path / "keys"
    with _open(pg_url, embedder, keys) as m:
        m.add("Ana is allergic to penicillin", user_id="ana", metadata={"ward": "cardio"})
        m.add("Bo plays the cello on Sundays", user_id="bo")
        dump = _pg_dump(pg_url)
        assert m.delete_user("ana") == 1
        assert m.count("bo") == 1
    restored = pg_server.new_database()
    try:
        import pgserver

        psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
        url = pg_server.url(restored)
        subprocess.run(
            [str(psql), "-q", "-v", "ON_ERROR_STOP=1", url],
            input=dump,
            text=True,
            check=True,
            capture_output=True,
        )
        assert pg_server.sql("SELECT COUNT(*) FROM memories", dbname=restored) == [(2,)]
        with _open(url, embedder, keys) as m:
            assert [h.text for h in m.memories("bo")] == ["Bo plays the cello on Sundays"]
            with pytest.raises(DatabaseKeyError, match="not in the key store"):
                m.memories("ana")
            with pytest.raises(DatabaseKeyError):
                m.search("allergic", user_id="ana")
    finally:
        pg_server.drop_database(restored)


class DictKms:
    """An application's key service in miniature (its own keyring object, as a KMS
    client would be): data keys in a dict, never in the database."""

    def __init__(self) -> None:
        self.keys: dict[str, bytes] = {}

    def get(self, user_id: str) -> bytes | None:
        return self.keys.get(user_id)

    def create(self, user_id: str) -> bytes:
        return self.keys.setdefault(user_id, secrets.token_bytes(32))

    def destroy(self, user_id: str) -> None:
        self.keys.pop(user_id, None)


def test_an_applications_keyring_object(pg_url, pg_sql, embedder):
    kms = DictKms()
    store = PostgresStore(pg_url, keyring=kms)
    with Memory(store=store, embedder=embedder, llm="none") as m:
        mid = m.add(f"{MARKER} likes rye bread", user_id="ana")
        # the user ids' hash secret, and the user's data key under the hash of "ana"
        assert len(kms.keys) == 2 and USER_IDS_ENTRY in kms.keys and "ana" not in kms.keys
        assert m.get(mid, "ana").text == f"{MARKER} likes rye bread"
        m.update(mid, user_id="ana", text=f"{MARKER} likes spelt bread", metadata={"k": "v"})
        assert [(v.text, v.metadata) for v in m.history(mid, "ana")] == [
            (f"{MARKER} likes rye bread", {}),
            (f"{MARKER} likes spelt bread", {"k": "v"}),
        ]
        assert MARKER not in repr(pg_sql("SELECT * FROM memories"))
        assert MARKER not in repr(pg_sql("SELECT * FROM memory_history"))
        m.delete_user("ana")
        assert list(kms.keys) == [USER_IDS_ENTRY]
        m.add("a new start", user_id="ana")  # a new key for the user made again
        assert m.memories("ana")[0].text == "a new start"


def test_the_key_store_directory(tmp_path):
    ring = DirectoryKeyRing(tmp_path / "k", MASTER)
    assert ring.get("ana") is None
    key = ring.create("ana")
    assert len(key) == 32 and ring.create("ana") == key  # a second create agrees
    assert DirectoryKeyRing(tmp_path / "k", MASTER).get("ana") == key
    files = sorted(p.name for p in (tmp_path / "k").iterdir())
    assert (
        len(files) == 2
        and "keyring.json" in files
        and key not in (tmp_path / "k" / files[0]).read_bytes()
    )
    assert (tmp_path / "k").stat().st_mode & 0o077 == 0
    ring.destroy("ana")
    assert ring.get("ana") is None and len(list((tmp_path / "k").iterdir())) == 1
    with pytest.raises(DatabaseKeyError):
        DirectoryKeyRing(tmp_path / "k", "another key")


def test_langgraph_items_are_sealed(pg_url, pg_sql, embedder, tmp_path):
    """The LangGraph store's items not indexed (their own table, through the hook):
    written, read, deleted on an encrypted store, with no word of them in the table
    (the control: two rows are there)."""
    pytest.importorskip("langgraph")
    from remem.integrations.langgraph import RememStore

    with _open(pg_url, embedder, tmp_path / "keys") as m:
        store = RememStore(m)
        ns = (f"ana{MARKER}", f"prefs{MARKER}")
        store.put(ns, f"food{MARKER}", {"likes": f"{MARKER} curry"}, index=False)
        store.put(ns, "drink", {"likes": "tea"}, index=False)
        assert store.get(ns, f"food{MARKER}").value == {"likes": f"{MARKER} curry"}
        rows = pg_sql("SELECT * FROM langgraph_items")
        raw = repr(rows)
        assert len(rows) == 2
        assert MARKER not in raw and "curry" not in raw
        store.delete(ns, f"food{MARKER}")
        assert store.get(ns, f"food{MARKER}") is None
        assert store.get(ns, "drink").value == {"likes": "tea"}
        assert pg_sql("SELECT COUNT(*) FROM langgraph_items") == [(1,)]
        assert store.list_namespaces() == [ns]  # the user's id, got back from its hash
        assert MARKER not in repr(pg_sql("SELECT * FROM user_names"))


NEW_MASTER = "another random master key, the one rotated to"
ROTATE = r"""
import os, sys
from remem.store.envelope import rotate_master
print("go", flush=True)
rotate_master(sys.argv[1], os.environ["TEST_OLD_KEY"], os.environ["TEST_NEW_KEY"])
print("done", flush=True)
"""


def _rotate_in_a_process(keys: Path, old: str, new: str, kill_after: float | None) -> float:
    """``rotate_master`` in a real process (keys in its environment), SIGKILLed
    ``kill_after`` seconds after it starts (None: run to the end); how long it ran."""
    master = {"TEST_OLD_KEY": old, "TEST_NEW_KEY": new}
    return run_or_kill(ROTATE, [str(keys)], master, kill_after)[1]


def _reads(url: str, embedder, keys: Path, master: str) -> dict[str, list[str]] | None:
    """Every user's memories through the key store opened with ``master`` (None: it
    does not open)."""
    try:
        m = Memory(
            url, embedder=embedder, llm="none", key=master, store_options={"keyring": str(keys)}
        )
    except DatabaseKeyError:
        return None
    with m:
        return {u: [h.text for h in m.memories(u)] for u in m.users()}


def test_a_master_key_rotation_killed_part_way_loses_nothing(pg_url, embedder, tmp_path):
    """``rotate_master`` (what ``remem rekey`` runs on a PostgreSQL store's key store)
    in real processes, SIGKILLed at points spread over a whole rotation's time: after
    each kill every user reads as before with the old master key or the new one (both
    while a rotation is under way), and running again finishes it; at the end only the
    new key opens the store, with every memory, and the data was never touched."""
    keys = tmp_path / "keys"
    with _open(pg_url, embedder, keys) as m:
        for u in ("ana", "bo", "cy"):
            m.add(f"{u} keeps the spare key under the blue pot", user_id=u)
        ring = DirectoryKeyRing(keys, MASTER)
        for i in range(400):  # other users' key files, so a rotation takes a while
            ring.create(f"ballast{i}")
    want = _reads(pg_url, embedder, keys, MASTER)
    assert want is not None and sorted(want) == ["ana", "bo", "cy"]
    whole = _rotate_in_a_process(keys, MASTER, NEW_MASTER, None)
    _rotate_in_a_process(keys, NEW_MASTER, MASTER, None)  # and back: the kills start here
    current, pending = MASTER, 0
    for step in range(1, 9):
        other = NEW_MASTER if current == MASTER else MASTER
        _rotate_in_a_process(keys, current, other, whole * step / 9)
        read = {k: _reads(pg_url, embedder, keys, k) for k in (MASTER, NEW_MASTER)}
        assert all(r in (None, want) for r in read.values()), read
        assert any(r == want for r in read.values()), read
        if (keys / "keyring.rotating.json").exists():
            pending += 1
            assert read[MASTER] == read[NEW_MASTER] == want  # either opens every key file
            _rotate_in_a_process(keys, current, other, None)  # finish it
        elif read[other] is None:  # killed before it began: the old key stays
            continue
        assert _reads(pg_url, embedder, keys, other) == want
        assert _reads(pg_url, embedder, keys, current) is None
        current = other
    assert pending >= 1, "no kill landed during a rotation: add ballast"
    _rotate_in_a_process(keys, current, MASTER if current == NEW_MASTER else NEW_MASTER, None)
    assert not list(keys.glob(".*"))  # a whole run clears what killed ones left


def test_remem_rekey_rewraps_a_postgres_stores_key_store(pg_url, embedder, tmp_path, monkeypatch):
    """The CLI: ``remem --key-file OLD rekey --new-key-file NEW`` with REMEM_KEYRING;
    run again after it finished, it has nothing left to do; a wrong old key changes
    nothing and says so."""
    from remem.cli import main

    keys, old, new = tmp_path / "keys", tmp_path / "old.key", tmp_path / "new.key"
    old.write_text(MASTER + "\n")
    new.write_text(NEW_MASTER + "\n")
    with _open(pg_url, embedder, keys) as m:
        m.add("Ana keeps the spare key under the blue pot", user_id="ana")
    monkeypatch.setenv("REMEM_KEYRING", str(keys))
    monkeypatch.delenv("REMEM_DB_KEY", raising=False)
    argv = ["--db", pg_url, "--key-file", str(old), "rekey", "--new-key-file", str(new)]
    assert main(argv) == 0
    assert main(argv) == 0  # already done: nothing to do
    assert _reads(pg_url, embedder, keys, NEW_MASTER) == {
        "ana": ["Ana keeps the spare key under the blue pot"]
    }
    assert _reads(pg_url, embedder, keys, MASTER) is None
    (tmp_path / "wrong.key").write_text("not a key of this store")
    wrong = ["--db", pg_url, "--key-file", str(tmp_path / "wrong.key"), "rekey"]
    assert main([*wrong, "--new-key-file", str(old)]) == 2
    assert _reads(pg_url, embedder, keys, NEW_MASTER) is not None


STOPPED = r"""
import os, sys, time
from remem import Memory
from remem.store.envelope import DirectoryKeyRing
from remem.store.postgres import PostgresStore
url, keys, step, user = sys.argv[1:5]


class StoppingRing(DirectoryKeyRing):
    # the real key store, which stops the process (for the parent to SIGKILL) right
    # after it made a user's key or destroyed it, inside the store's transaction
    armed = False

    def create(self, user_id):
        key = super().create(user_id)
        if self.armed and step == "create":
            print("stopped", flush=True)
            time.sleep(600)
        return key

    def destroy(self, user_id):
        super().destroy(user_id)
        if self.armed and step == "destroy":
            print("stopped", flush=True)
            time.sleep(600)


ring = StoppingRing(keys, os.environ["TEST_MASTER"])
with Memory(store=PostgresStore(url, keyring=ring), engine="synapse", llm="none") as m:
    ring.armed = True
    if step == "create":
        m.add("Cy keeps the spare key under the blue pot", user_id=user)
    else:
        m.delete_user(user)
"""


def _killed_at(url: str, keys: Path, step: str, user: str) -> None:
    """Run STOPPED in a real process and SIGKILL it where it stops (after making the
    user's data key, before the row's commit; or after destroying it, before the
    erase's commit)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TEST_MASTER": MASTER}
    argv = [sys.executable, "-c", STOPPED, url, str(keys), step, user]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "stopped\n"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def test_killed_between_making_a_users_key_and_its_first_row(pg_url, embedder, tmp_path):
    """The key is made, the row never committed: the user does not exist (not listed,
    no memories), nobody else lost anything, and the user's next add uses that key."""
    keys = tmp_path / "keys"
    with _open(pg_url, embedder, keys, "synapse") as m:
        m.add("Bo plays the cello on Sundays", user_id="bo")
    files = set(keys.glob("*.key"))
    _killed_at(pg_url, keys, "create", "cy")
    made = set(keys.glob("*.key")) - files
    assert len(made) == 1  # the orphan key: no row is sealed under it
    with _open(pg_url, embedder, keys, "synapse") as m:
        assert m.users() == ["bo"] and m.count("cy") == 0 and m.memories("cy") == []
        assert [h.text for h in m.memories("bo")] == ["Bo plays the cello on Sundays"]
        m.add("Cy keeps the spare key under the blue pot", user_id="cy")
        assert m.users() == ["bo", "cy"]
        assert [h.text for h in m.search("where is the spare key?", user_id="cy", k=1)] == [
            "Cy keeps the spare key under the blue pot"
        ]
    assert set(keys.glob("*.key")) - files == made  # the same key, not a second one


def test_killed_between_destroying_a_users_key_and_the_erase_commit(pg_url, embedder, tmp_path):
    """The key is gone, the erase rolled back: the user's rows are there but unreadable
    (a clear DatabaseKeyError, the user no longer listed: shredded), another user reads
    as before, and delete_user run again removes the rows."""
    keys = tmp_path / "keys"
    with _open(pg_url, embedder, keys, "synapse") as m:
        m.add("Ana is allergic to penicillin", user_id="ana")
        m.add("Ana's sister is called Iva", user_id="ana")
        m.add("Bo plays the cello on Sundays", user_id="bo")
    _killed_at(pg_url, keys, "destroy", "ana")
    with _open(pg_url, embedder, keys, "synapse") as m:
        assert m.count("ana") == 2  # the rows, rolled back
        with pytest.raises(DatabaseKeyError, match="not in the key store"):
            m.memories("ana")
        assert m.users() == ["bo"]
        assert [h.text for h in m.memories("bo")] == ["Bo plays the cello on Sundays"]
        assert m.delete_user("ana") == 2
        assert m.count("ana") == 0 and m.users() == ["bo"]
        m.add("Ana starts again", user_id="ana")
        assert [h.text for h in m.memories("ana")] == ["Ana starts again"]
