"""What is true now (``time/current.py``): slots read at ingest, superseded values
kept and marked, the current value first for a present-tense question."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from remem.time.current import (
    UNKNOWN,
    SlotFact,
    SlotRow,
    decide,
    ended,
    link,
    question_mode,
    read_slots,
    same_value,
)

JAN, JUN, SEP = "2023-01-10T10:00:00Z", "2023-06-10T10:00:00Z", "2023-09-10T10:00:00Z"
NOW = "2023-12-01T00:00:00Z"


def _slots(db, user: str = "u") -> list[tuple]:
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return con.execute(
            "SELECT s.memory_id, s.slot, s.value, x.superseded_by FROM cur_slots s "
            "LEFT JOIN cur_superseded x ON x.user_id = s.user_id AND x.memory_id = s.memory_id "
            "AND x.slot = s.slot WHERE s.user_id = ? ORDER BY s.said",
            (user,),
        ).fetchall()
    finally:
        con.close()


# -- the detector ---------------------------------------------------------------------


def test_the_detector_gets_the_development_set_right():
    text = (resources.files("remem_bench") / "data" / "slot_changes.jsonl").read_text("utf-8")
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert len(rows) >= 40
    right = tp = fp = fn = 0
    for r in rows:
        got = decide(r["first"], r["second"], r.get("first_speaker"), r.get("second_speaker"))
        right += got == r["expected"]
        tp += got == "superseded" == r["expected"]
        fp += got == "superseded" != r["expected"]
        fn += r["expected"] == "superseded" != got
    # the last 16 pairs ("split": "held-out") were written after the patterns and
    # left as they scored (11 of 16: every miss a change not seen, never a false one)
    assert right / len(rows) >= 0.9
    assert tp / (tp + fp) >= 0.95  # a false "superseded" is worse than a miss
    assert tp / (tp + fn) >= 0.8


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("I moved to Porto last month.", "residence", "porto"),
        ("I just started at Microsoft!", "employer", "microsoft"),
        ("I quit my job at Acme.", "employer", "not acme"),
        # a job told by its start or its first weeks (stop 67)
        (
            "I got the job at the smaller practice, Oakridge Partners.",
            "employer",
            "oakridge partners",
        ),
        ("First week at Oakridge Partners nearly done.", "employer", "oakridge partners"),
        ("Just over four weeks at Harcastle now and I'm loving it.", "employer", "harcastle"),
        ("I got a new phone yesterday.", "phone", UNKNOWN),
        ("I have three cats now.", "count:cat", "3"),
        ("My favourite ice cream flavour is mint.", "favourite:ice cream flavour", "mint"),
        ("I'm a software engineer at a startup.", "occupation", "software engineer"),
        ("My wife is Ana.", "partner", "ana"),
    ],
)
def test_slots_and_values(text, attribute, value):
    assert {f.attribute: f.value for f in read_slots(text)}.get(attribute) == value


def test_no_slot_in_ordinary_sentences():
    for text in (
        "I'm moving to Lisbon in May",  # a plan, not where they live
        "My girlfriend and I went hiking",
        "I'm a big fan of jazz",
        "I joined a book club",
        "I quit smoking",
        "My first week at the gym was hard",
    ):
        assert read_slots(text) == [], text


def test_values_and_chains():
    assert same_value("porto", "porto portugal") and not same_value("porto", "braga")
    assert not same_value(UNKNOWN, UNKNOWN) and not same_value("acme", "not acme")
    rows = [
        SlotRow("a", "i|residence", "lisbon", 1.0, 0),
        SlotRow("b", "i|residence", "porto", 2.0, 1),
        SlotRow("c", "i|residence", "porto", 3.0, 2),  # restated: supersedes nothing
        SlotRow("d", "i|residence", "braga", 4.0, 3),
    ]
    assert {(m, by) for m, _, by, _ in link(rows)} == {("a", "b"), ("b", "d"), ("c", "d")}


def test_question_modes():
    assert question_mode("Where do I live now?", "newest") == "newest"
    assert question_mode("Where do I live?", None) == "newest"
    assert question_mode("Where did I live before?", None) == "oldest"
    assert question_mode("Where did I live originally?", "oldest") == "oldest"
    assert question_mode("Where did I work in 2019?", None) is None


# -- through the public API -------------------------------------------------------------


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_the_readme_example(open_memory, engine):
    mem = open_memory(":memory:", engine)
    old = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    new = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
    assert [h.id for h in hits[:2]] == [new, old]
    assert hits[1].superseded_by == new and hits[0].superseded_by is None
    rec = mem.recall("Where do I live now?", user_id="u", k=5, now=NOW)
    assert f"a newer version of {old}" in rec.explanations[new]
    assert "Porto" in mem.answer("Where do I live now?", user_id="u", now=NOW).text
    assert "Porto" in mem.answer("Where do I live?", user_id="u", now=NOW).text
    before = mem.search("Where did I live before?", user_id="u", k=5, now=NOW)
    assert before[0].id == old
    assert "Lisbon" in mem.answer("Where did I live before?", user_id="u", now=NOW).text


def test_a_chain_of_three(open_memory, db_path):
    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    c = mem.add("I relocated to Braga for work", user_id="u", timestamp=SEP)
    rows = {m: (v, by) for m, _, v, by in _slots(db_path)}
    assert rows == {a: ("lisbon", b), b: ("porto", c), c: ("braga", None)}
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
    assert hits[0].id == c
    assert {h.id: h.superseded_by for h in hits} == {a: b, b: c, c: None}
    assert "Braga" in mem.answer("Where do I live now?", user_id="u", now=NOW).text
    for older in (
        "Where did I live before?",
        "Remind me where I used to live.",
        "Where did I first live?",
    ):
        assert mem.search(older, user_id="u", k=5, now=NOW)[0].id == a, older


def test_a_restated_value_is_no_change(open_memory, db_path):
    mem = open_memory(db_path)
    mem.add("I live in Porto", user_id="u", timestamp=JAN)
    mem.add("I still live in Porto, love it", user_id="u", timestamp=JUN)
    assert [by for *_, by in _slots(db_path)] == [None, None]


def test_people_never_supersede_each_other(open_memory, db_path):
    mem = open_memory(db_path)
    ana = mem.add("I live in Lisbon", user_id="u", speaker="Ana", timestamp=JAN)
    ben = mem.add("I moved to Porto", user_id="u", speaker="Ben", timestamp=JUN)
    rows = {m: (slot, by) for m, slot, _, by in _slots(db_path)}
    assert rows == {ana: ("ana|residence", None), ben: ("ben|residence", None)}
    hits = mem.search("Where does Ana live?", user_id="u", k=5, now=NOW)
    assert all(h.superseded_by is None for h in hits)


def test_deleting_the_newer_makes_the_older_current(open_memory, db_path):
    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    c = mem.add("I relocated to Braga", user_id="u", timestamp=SEP)
    mem.delete(b, user_id="u")  # the middle one: the chain relinks around it
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: c, c: None}
    mem.delete(c, user_id="u")
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: None}
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
    assert hits[0].id == a and hits[0].superseded_by is None


def test_slot_rows_are_erased(open_memory, db_path, raw_bytes):
    mem = open_memory(db_path)
    a = mem.add("I live in Xyzzyville", user_id="u", timestamp=JAN)
    b = mem.add("I moved to Quuxborough", user_id="u", timestamp=JUN)
    mem.add("I work at Plughcorp", user_id="v", timestamp=JUN)
    assert len(_slots(db_path)) == 2
    mem.delete(a, user_id="u")
    mem.delete(b, user_id="u")
    mem.delete_user("v")
    mem.close()
    assert _slots(db_path) == [] and _slots(db_path, "v") == []
    data = raw_bytes(db_path)
    for word in (b"xyzzyville", b"quuxborough", b"plughcorp"):
        assert word not in data.lower()


def test_backfill_of_an_older_database(open_memory, db_path):
    import sqlite3

    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    mem.close()
    con = sqlite3.connect(db_path)  # as a file written before the slot tables
    with con:
        for table in ("cur_slots", "cur_superseded", "cur_state"):
            con.execute(f"DELETE FROM {table}")
    con.close()
    assert _slots(db_path) == []
    mem = open_memory(db_path)
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)  # reads them
    assert hits[0].id == b and hits[1].superseded_by == b
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: b, b: None}
    c = mem.add("I relocated to Braga", user_id="u", timestamp=SEP)
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: b, b: c, c: None}


@pytest.mark.parametrize("current", [True, False])
def test_the_current_one_is_brought_in_when_the_engine_missed_it(open_memory, db_path, current):
    mem = open_memory(db_path, time_options={"current": current})
    old = mem.add("I live in Lisbon, near the river", user_id="u", timestamp=JAN)
    for i in range(30):
        mem.add(f"I live for weekend number {i} at the beach", user_id="u", timestamp=JAN)
    new = mem.add("Big news: we relocated to Porto", user_id="u", timestamp=JUN)
    hits = mem.search("Where do I live now? Lisbon river?", user_id="u", k=3, now=NOW)
    ids = [h.id for h in hits]
    if not current:  # the engine alone misses it; the rows are written all the same
        assert old in ids and new not in ids
        assert len(_slots(db_path)) == 2
        return
    assert new in ids and old in ids and ids.index(new) < ids.index(old)
    assert len(ids) == 3


def test_the_add_writes_the_slot_rows_and_moves_the_marker_in_its_transaction(
    open_memory, db_path, sql
):
    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(0,)]
    for i in range(3):
        mem.add(f"We had soup number {i}", user_id="u", timestamp=JAN)
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(3,)]
    mem.close()
    mem = open_memory(db_path)  # a new process: nothing to catch up on
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: b, b: None}
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(4,)]


def test_a_lagging_marker_is_caught_up_once_and_then_follows_the_adds(open_memory, db_path, sql):
    import sqlite3

    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    mem.add("We had soup", user_id="u", timestamp=JAN)
    mem.close()
    con = sqlite3.connect(db_path)  # as a file whose last adds no process read
    with con:
        con.execute("DELETE FROM cur_slots")
        con.execute("DELETE FROM cur_superseded")
        con.execute("UPDATE cur_state SET seq = -1")
    con.close()
    mem = open_memory(db_path)
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)  # its own rows, at once
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(-1,)]
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)  # the rest read
    assert hits[0].id == b
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: b, b: None}
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(2,)]
    c = mem.add("I relocated to Braga", user_id="u", timestamp=SEP)
    assert sql(db_path, "SELECT seq FROM cur_state WHERE user_id = 'u'") == [(3,)]
    assert {m: by for m, _, _, by in _slots(db_path)} == {a: b, b: c, c: None}


def test_the_view_takes_this_process_s_adds_in_place(open_memory, db_path, monkeypatch):
    from remem.time import current

    built: list[int] = []
    of = current.SlotView.of.__func__  # type: ignore[attr-defined]

    def counting(cls, rows):
        built.append(1)
        return of(cls, rows)

    monkeypatch.setattr(current.SlotView, "of", classmethod(counting))
    mem = open_memory(db_path)
    a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    assert mem.search("Where do I live now?", user_id="u", k=5, now=NOW)[0].id == a
    assert len(built) == 1
    b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    mem.add("We had soup", user_id="u", timestamp=JUN)
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
    assert hits[0].id == b and {h.id: h.superseded_by for h in hits}[a] == b
    assert len(built) == 1  # no reload: the adds were applied in place
    other = open_memory(db_path)  # another process adds: the view is read again
    c = other.add("I relocated to Braga", user_id="u", timestamp=SEP)
    hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
    assert hits[0].id == c and len(built) == 2


def test_a_memory_superseded_in_one_slot_is_current_in_another(open_memory):
    mem = open_memory(":memory:")
    both = mem.add("I live in Lisbon and I work at Acme", user_id="u", timestamp=JAN)
    moved = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
    job = mem.add("I work at Acme, still", user_id="u", timestamp=SEP)  # restated
    live = mem.search("Where do I live now?", user_id="u", k=3, now=NOW)
    assert live.index(next(h for h in live if h.id == moved)) < [h.id for h in live].index(both)
    rec = mem.recall("Where do I work?", user_id="u", k=3, now=NOW)
    assert not any("(the current" in why for why in rec.explanations.values())
    assert {h.id for h in rec.hits} >= {both, job}


def test_a_change_naming_no_slot_is_matched_through_what_it_names(open_memory, db_path):
    mem = open_memory(db_path)
    old = mem.add("My phone is an old Pixel 6", user_id="u", timestamp=JAN)
    mem.add("I switched to oat milk", user_id="u", timestamp=JUN)  # no owned thing
    mem.add("My friend switched to an iPhone 14", user_id="u", timestamp=JUN)  # his
    new = mem.add("Also I switched to an iPhone 15 this week", user_id="u", timestamp=SEP)
    rows = {m: (slot, v, by) for m, slot, v, by in _slots(db_path)}
    assert rows[old] == ("i|phone", "old pixel 6", new)
    assert rows[new] == ("i|phone", "iphone 15", None)
    hits = mem.search("What phone do I have now?", user_id="u", k=5, now=NOW)
    assert hits[0].id == new


def test_other_people_s_slots_are_theirs(open_memory, db_path):
    mem = open_memory(db_path)
    mine = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
    hers = mem.add("My sister lives in Munich", user_id="u", timestamp=JAN)
    moved = mem.add("My sister moved to Berlin", user_id="u", timestamp=JUN)
    rows = {m: (slot, by) for m, slot, _, by in _slots(db_path)}
    assert rows == {
        mine: ("i|residence", None),
        hers: ("i/sister|residence", moved),
        moved: ("i/sister|residence", None),
    }
    hits = mem.search("Where does my sister live now?", user_id="u", k=5, now=NOW)
    ids = [h.id for h in hits]  # (the engine may rank the speaker's own city first)
    assert ids.index(moved) < ids.index(hers)
    hits = mem.search("Where do I live?", user_id="u", k=5, now=NOW)
    assert {h.id: h.superseded_by for h in hits}[mine] is None


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Lisbon.", "I moved the meeting to Friday."),
        ("I live in Leeds.", "I moved to a new desk by the window."),
        ("My phone is an iPhone 13.", "My friend switched to Android."),
        ("My phone is an iPhone 12.", "I upgraded to Windows 11 yesterday."),
        ("My phone is a Pixel 6.", "I switched to a Dell XPS laptop."),
        ("I live in Munich.", "My sister moved to Berlin."),
        ("My partner is Leo.", "I'm seeing Marco for coffee tomorrow."),
        ("I just got a new car!", "My car is the best, honestly."),  # LoCoMo's
        ("My phone is a Pixel 7.", "My phone's GPS died on the hike."),  # a possessive
        ("My car is a Honda Civic.", "My car's exterior needs a wash."),
    ],
)
def test_near_misses_supersede_nothing(first, second):
    assert decide(first, second) != "superseded"


def test_the_held_out_pairs():
    """``slot_changes_heldout.jsonl`` was written before this round's rules (52 pairs;
    before them 31 right, 8 of 24 changes found, 3 false "superseded"); a false
    "superseded" hides a current value, so none is allowed."""
    text = (resources.files("remem_bench") / "data" / "slot_changes_heldout.jsonl").read_text()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    got = [(r["expected"], decide(r["first"], r["second"])) for r in rows]
    assert len(rows) >= 30
    assert not [g for g in got if g[1] == "superseded" != g[0]]
    assert sum(e == g for e, g in got) / len(rows) >= 0.9


def test_postgres_supersedes_and_erases_the_slot_rows(pg_url, pg_sql, embedder):
    from remem import Memory

    rows = "SELECT memory_id, slot, value FROM cur_slots WHERE user_id = 'u' ORDER BY said"
    links = "SELECT memory_id, superseded_by FROM cur_superseded WHERE user_id = 'u'"
    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        a = mem.add("I live in Lisbon", user_id="u", timestamp=JAN)
        b = mem.add("I moved to Porto", user_id="u", timestamp=JUN)
        c = mem.add("I relocated to Braga", user_id="u", timestamp=SEP)
        mem.add("I work at Plughcorp", user_id="v", timestamp=JUN)
        assert [r[0] for r in pg_sql(rows)] == [a, b, c]
        assert sorted(pg_sql(links)) == sorted([(a, b), (b, c)])
        hits = mem.search("Where do I live now?", user_id="u", k=5, now=NOW)
        assert hits[0].id == c and {h.id: h.superseded_by for h in hits}[a] == b
        assert pg_sql("SELECT seq FROM cur_state WHERE user_id = 'u'") == [(2,)]
        assert mem.delete(b, user_id="u")  # the chain relinks around it
        assert pg_sql(links) == [(a, c)]
        assert [r[0] for r in pg_sql(rows)] == [a, c]
        assert mem.delete_user("u") == 2
        for table in ("cur_slots", "cur_superseded", "cur_state"):
            assert pg_sql(f"SELECT COUNT(*) FROM {table} WHERE user_id = 'u'") == [(0,)]
        assert pg_sql("SELECT COUNT(*) FROM cur_slots WHERE user_id = 'v'") == [(1,)]
    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        d = mem.add("I live in Quuxborough", user_id="w", timestamp=JAN)
        pg_sql("DELETE FROM cur_slots WHERE user_id = 'w'")  # as before the tables
        pg_sql("DELETE FROM cur_state WHERE user_id = 'w'")
    with Memory(pg_url, engine="hybrid", embedder=embedder, llm="none") as mem:
        e = mem.add("I moved to Xyzzyville", user_id="w", timestamp=JUN)
        hits = mem.search("Where do I live now?", user_id="w", k=5, now=NOW)  # backfilled
        assert hits[0].id == e and {h.id: h.superseded_by for h in hits}[d] == e
        assert mem.delete(d, user_id="w") and mem.delete(e, user_id="w")
        assert pg_sql("SELECT COUNT(*) FROM cur_slots WHERE user_id = 'w'") == [(0,)]


def test_the_cues_change_no_reading():
    """A text's sentences are tried only for the attributes whose cue word they hold
    (a long turn read in 0.56 ms instead of 2.3): the same slots as every pattern on
    the whole text, on every sentence of the pair files and the time check (and, run
    by hand, on LoCoMo's and LongMemEval's 10,248 user turns: none differs)."""
    data = resources.files("remem_bench") / "data"
    texts = []
    for name in ("slot_changes.jsonl", "slot_changes_heldout.jsonl"):
        for line in (data / name).read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                texts += [row["first"], row["second"], f"{row['first']} {row['second']}"]
    check = json.loads((data / "time_check.json").read_text("utf-8"))
    texts += [t for t in _strings(check) if len(t) > 20]
    assert len(texts) > 300
    for text in texts:
        assert read_slots(text) == read_slots(text, cued=False), text


def _strings(data) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Big change: I accepted a job offer from Halvorsen Structures.", "halvorsen structures"),
        ("Guess who got the job! I accepted Brightwater's offer on Monday.", "brightwater"),
        ("I'm going to be the head baker at Levain House from January.", "levain house"),
    ],
)
def test_a_new_employer_told_by_an_offer_or_a_role(text, value):
    (fact,) = read_slots(text)
    assert (fact.attribute, fact.value, fact.change) == ("employer", value, True)


def test_every_ended_value_beside_the_new_one():
    """read_slots keeps the new employer of a memory that tells both; ``ended`` still
    says which one was left (the typed reader's question about now reads it)."""
    text = (
        "I handed in my notice at Crumb & Co. today. "
        "I'm going to be the head baker at Levain House."
    )
    assert [f.value for f in read_slots(text)] == ["levain house"]
    assert ended(text) == ["crumb"]
    assert ended("My sister quit Google last year.") == []  # hers, not the speaker's


@pytest.mark.parametrize(
    "text",
    [
        "I handed in my notice at Brightwell today.",
        "That's it. I handed my notice in at Brightwell and my last day there is next Friday.",
    ],
)
def test_a_notice_handed_in_either_way_ends_the_employer(text):
    assert ended(text) == ["brightwell"]


@pytest.mark.parametrize(
    "text",
    [
        "I've left Brightline. Signed up with Corvo Broadband.",
        "I have just quit Brightline.",
        "So I've officially left the Brightline group, I sent Declan a message.",
    ],
)
def test_a_perfect_tense_leaving_ends_the_value(text):
    assert ended(text) == ["brightline"]


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        (
            "Big change: I'm moving next month for a new job at Tidewater Energy.",
            "employer",
            "tidewater energy",
        ),
        (
            "I've been offered a job at the Marlowe Archive as an archivist.",
            "employer",
            "marlowe archive",
        ),
        ("Yes, my last day at Hollins Road is the 30th of April.", "employer", "not hollins road"),
        (
            "I've settled into the new flat in Swansea. The sea view is amazing.",
            "residence",
            "swansea",
        ),
        (
            "I moved out of the Stonehouse flat and I'm renting a little terraced house in "
            "Mutley now.",
            "residence",
            "mutley",
        ),
        ("We bought a cottage in Dartmoor last spring.", "residence", "dartmoor"),
        ("I rent a room in Camden.", "residence", "camden"),
    ],
)
def test_more_ways_to_say_a_job_or_a_home(text, attribute, value):
    assert {f.attribute: f.value for f in read_slots(text)}.get(attribute) == value
    assert read_slots("My sister moved for a new job at Acme.") == []  # hers


def test_moving_out_ends_the_home():
    """ "I moved out of the Stonehouse flat" ends the residence (the typed reader's
    question about now never answers it); the home rented beside it is the value."""
    text = "I moved out of the Stonehouse flat at the end of August and I'm renting in Mutley."
    assert ended(text) == ["stonehouse"]
    assert ended("I moved out of the flat last year.") == []  # no name, no value
    assert read_slots("I moved out of the Stonehouse flat.") == [
        SlotFact("residence", "not stonehouse", False, "")
    ]
