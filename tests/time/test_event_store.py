"""Event times stored at ingest (``remem.time.stored``): written with the memory, read
back on every hit, erased with it (rows and file bytes), backfilled lazily for files
written before them, and used by the time stage."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import pytest

from remem.time.stored import EXTRACTOR

SAID = datetime(2023, 5, 24, 16, 0, tzinfo=timezone.utc)  # a Wednesday
RECITAL = "The recital was on 12/1/2022 and my niece played the cello."
#: the recital's year as its stored event time starts (the extractor may pad the day)
RECITAL_ISO = "2022-1"


def _count(sql, db: Path, user: str) -> int:
    return sql(db, "SELECT COUNT(*) FROM event_times WHERE user_id = ?", (user,))[0][0]


def test_add_writes_the_event_times_and_hits_carry_them(open_memory, db_path, sql):
    mem = open_memory(db_path, "hybrid")
    told = mem.add(RECITAL, "u", timestamp=SAID)
    plain = mem.add("I like green tea.", "u", timestamp=SAID)
    ids = mem.add_many(
        [
            {"text": "I finally beat the game last weekend.", "timestamp": SAID},
            {"text": "Yesterday I ran 5k; two weeks ago I ran 3k.", "timestamp": SAID},
        ],
        "u",
    )
    hit = mem.get(told, "u")
    assert hit is not None
    (e,) = hit.event_times
    assert e["start"].startswith(RECITAL_ISO) and e["start"] < e["end"]
    assert e["granularity"] in ("day", "week")
    assert set(e) == {"start", "end", "granularity", "words"} and "12/1/2022" in e["words"]
    assert mem.get(plain, "u").event_times == ()  # type: ignore[union-attr]
    assert [len(h.event_times) for h in mem.memories("u")] == [1, 0, 1, 2]
    assert [h.event_times for h in mem.search("niece cello recital", "u", k=1)] == [(e,)]
    assert mem.recall("niece cello recital", "u", k=1).hits[0].event_times == (e,)
    assert _count(sql, db_path, "u") == 4
    # the user was complete from the first add: no backfill ever needed
    assert sql(db_path, "SELECT extractor FROM event_users WHERE user_id = 'u'") == [(EXTRACTOR,)]
    rows = sql(db_path, "SELECT ordinal, words FROM event_times WHERE memory_id = ?", (ids[1],))
    assert sorted(n for n, _ in rows) == [0, 1]
    assert sorted(w for _, w in rows) == ["Yesterday", "two weeks ago"]


def test_an_import_writes_the_event_times(open_memory, tmp_path, sql):
    src, dst = open_memory(tmp_path / "a.db"), open_memory(tmp_path / "b.db")
    src.add(RECITAL, "u", timestamp=SAID)
    src.export_table("u", tmp_path / "u.json")
    (new,) = dst.import_table(tmp_path / "u.json", "v")
    assert _count(sql, tmp_path / "b.db", "v") == 1
    assert dst.get(new, "v").event_times == src.memories("u")[0].event_times  # type: ignore[union-attr]


def test_delete_and_delete_user_erase_the_rows_and_their_bytes(
    open_memory, db_path, sql, raw_bytes
):
    """The stored start times (ISO text, in no memory's text or time) are the marker."""
    mem = open_memory(db_path, "hybrid")
    one = mem.add(RECITAL, "a", timestamp=SAID)
    mem.add("I finally beat the game last weekend.", "a", timestamp=SAID)
    other = mem.add(RECITAL.replace("12/1/2022", "11/3/2021"), "b", timestamp=SAID)
    gone_a = mem.get(one, "a").event_times[0]["start"][:19].encode()  # type: ignore[union-attr]
    gone_b = mem.get(other, "b").event_times[0]["start"][:19].encode()  # type: ignore[union-attr]
    assert gone_a in raw_bytes(db_path) and gone_b in raw_bytes(db_path)
    assert mem.delete(one, "a")
    assert gone_a not in raw_bytes(db_path)
    assert _count(sql, db_path, "a") == 1
    assert mem.delete_user("b") == 1
    assert gone_b not in raw_bytes(db_path)
    assert _count(sql, db_path, "b") == 0
    assert sql(db_path, "SELECT COUNT(*) FROM event_users WHERE user_id = 'b'") == [(0,)]
    mem.close()
    assert gone_a not in raw_bytes(db_path) and gone_b not in raw_bytes(db_path)


def test_a_file_without_event_times_is_backfilled_per_user_on_first_use(open_memory, db_path, sql):
    """A file written before the extension (simulated: its rows and marks removed) gets
    each user's rows when that user is first read, and only then."""
    mem = open_memory(db_path, "hybrid")
    told = mem.add(RECITAL, "u", timestamp=SAID)
    mem.add("I finally beat the game last weekend.", "w", timestamp=SAID)
    mem.close()
    con = sqlite3.connect(db_path)
    con.execute("DELETE FROM event_times")
    con.execute("DELETE FROM event_users")
    con.commit()
    con.close()
    mem = open_memory(db_path, "hybrid")
    assert _count(sql, db_path, "u") == 0  # opening reads nothing
    hit = mem.get(told, "u")
    assert hit is not None and len(hit.event_times) == 1
    assert _count(sql, db_path, "u") == 1 and _count(sql, db_path, "w") == 0
    assert sql(db_path, "SELECT user_id, extractor FROM event_users") == [("u", EXTRACTOR)]


def test_an_older_extractor_s_rows_are_read_again(open_memory, db_path, sql):
    mem = open_memory(db_path, "hybrid")
    told = mem.add(RECITAL, "u", timestamp=SAID)
    mem.close()
    con = sqlite3.connect(db_path)
    con.execute("UPDATE event_users SET extractor = 0")
    con.execute("UPDATE event_times SET words = 'stale'")
    con.commit()
    con.close()
    mem = open_memory(db_path, "hybrid")
    assert "12/1/2022" in mem.get(told, "u").event_times[0]["words"]  # type: ignore[union-attr]
    assert sql(db_path, "SELECT extractor FROM event_users") == [(EXTRACTOR,)]


def test_the_http_api_sends_the_event_times(open_memory, db_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from remem.serve.http import create_app

    mem = open_memory(db_path, "hybrid")
    told = mem.add(RECITAL, "u", timestamp=SAID)
    app = create_app(mem, keyless=True)
    with TestClient(app, base_url="http://127.0.0.1:8090") as client:
        got = client.get(f"/v1/memories/{told}", params={"user_id": "u"})
        assert got.status_code == 200, got.text
        (e,) = got.json()["event_times"]
        assert e == mem.get(told, "u").event_times[0]  # type: ignore[union-attr]
        found = client.post("/v1/search", json={"query": "cello recital", "user_id": "u", "k": 1})
        assert found.status_code == 200, found.text
        assert found.json()["hits"][0]["event_times"] == [e]


# -- the time stage --------------------------------------------------------------------

ASKED = datetime(2024, 3, 6, 12, 0, tzinfo=timezone.utc)  # Wednesday 6 March 2024


def _day_question(open_memory, told_text: str, told_at: datetime) -> tuple[str, list, dict]:
    """Memories made in the padded window of "last Saturday" (Friday 1 to Sunday 3
    March) that tell of nothing, and one that tells of the Saturday."""
    mem = open_memory(":memory:", "hybrid")
    for i, day in enumerate([1, 1, 3, 3]):
        mem.add(
            f"Chore {i}: what I did was clean the garage and fix a shelf.",
            "u",
            timestamp=datetime(2024, 3, day, 10 + i, tzinfo=timezone.utc),
        )
    told = mem.add(told_text, "u", timestamp=told_at)
    rec = mem.recall("What did I do last Saturday?", "u", k=5, now=ASKED)
    return told, [h.id for h in rec.hits], rec.explanations


def test_a_memory_that_tells_of_the_named_day_goes_ahead_of_the_padded_window(open_memory):
    """Asked "what did I do last Saturday?" on Wednesday 6 March, the memory said on
    Monday 4 March that tells of "last weekend" (1-4 March, Saturday among them) goes
    ahead of the memories merely made in the window around Saturday."""
    told, got, why = _day_question(
        open_memory,
        "I went hiking in the hills last weekend.",
        datetime(2024, 3, 4, 18, 0, tzinfo=timezone.utc),
    )
    assert got[0] == told
    assert "told of Saturday 2 March 2024 to Sunday 3 March 2024 ('last weekend')" in why[told]


def test_a_memory_that_tells_of_saturday_ahead_of_time_ranks_first(open_memory):
    told, got, why = _day_question(
        open_memory,
        "I'm going hiking on Saturday",
        datetime(2024, 2, 28, 12, 0, tzinfo=timezone.utc),  # Wednesday 28 February
    )
    assert got[0] == told
    assert "told of Saturday 2 March 2024" in why[told]


def test_postgres_stores_backfills_and_erases_the_event_times(pg_url, pg_sql, embedder):
    from remem import Memory

    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        one = mem.add(RECITAL, "a", timestamp=SAID)
        two = mem.add("I finally beat the game last weekend.", "a", timestamp=SAID)
        (e,) = mem.get(one, "a").event_times  # type: ignore[union-attr]
        assert e["start"].startswith(RECITAL_ISO)
        assert pg_sql("SELECT COUNT(*) FROM event_times WHERE user_id = 'a'") == [(2,)]
        # rows and marks gone (as in a database written before them): read again on use
        pg_sql("DELETE FROM event_times")
        pg_sql("DELETE FROM event_users")
    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        assert mem.get(one, "a").event_times == (e,)  # type: ignore[union-attr]
        assert pg_sql("SELECT COUNT(*) FROM event_times WHERE user_id = 'a'") == [(2,)]
        assert mem.delete(one, "a")
        assert pg_sql("SELECT memory_id FROM event_times") == [(two,)]
        assert mem.delete_user("a") == 1
        assert pg_sql("SELECT COUNT(*) FROM event_times") == [(0,)]
        assert pg_sql("SELECT COUNT(*) FROM event_users") == [(0,)]
