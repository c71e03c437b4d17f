"""ILSTMA's offline high-dimensional information (paper section 3.5): group summaries
quoting the memories, the overlap update, deletion cascading into the notes, and the
first-person profile."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from remem import Memory
from remem.engines.ilstma.summaries import first_sentence
from sample_conversation import BASE, TURNS

GARDEN = [  # ten turns on one topic: two groups about the same thing
    "I planted tomatoes and basil in the garden beds.",
    "The garden roses need pruning before spring.",
    "We added compost to the vegetable garden soil.",
    "The garden hose leaks near the tomato plants.",
    "Weeds keep growing between the garden lettuce rows.",
    "I watered the garden tomatoes early this morning.",
    "The garden basil plants grew tall this week.",
    "We built a raised garden bed for the carrots.",
    "Slugs ate the young lettuce in the garden.",
    "The garden compost heap smells earthy now.",
]


def _add(mem: Memory, turns, user: str = "u", start: int = 0) -> list[str]:
    return [
        mem.add(text, user, speaker=who, timestamp=BASE + timedelta(minutes=start + i))
        for i, (who, text) in enumerate(turns)
    ]


def _ilstma(open_memory, db_path, **options) -> Memory:
    return open_memory(db_path, "ilstma", engine_options=options)


def _summaries(sql, db, user: str = "u") -> list[tuple[int, int, int, list[dict]]]:
    rows = sql(
        db,
        "SELECT nid, first_seq, last_seq, pieces FROM ilstma_notes "
        "WHERE user_id = ? AND kind = 'summary' ORDER BY nid",
        (user,),
    )
    return [(nid, first, last, json.loads(pieces)) for nid, first, last, pieces in rows]


def _summarized_seq(sql, db, user: str = "u") -> int:
    rows = sql(db, "SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user,))
    return rows[0][0] if rows else -1


def _quoted(sql, db, user: str = "u") -> set[str]:
    return {p["memory_id"] for *_, pieces in _summaries(sql, db, user) for p in pieces}


# -- summaries quote the memories --------------------------------------------------------


def test_summaries_appear_per_group_of_five(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path)
    _add(mem, TURNS[:4])
    assert _summaries(sql, db_path) == []
    assert _summarized_seq(sql, db_path) == -1
    _add(mem, TURNS[4:5], start=4)
    assert len(_summaries(sql, db_path)) == 1
    assert _summarized_seq(sql, db_path) == 4


def test_summary_pieces_quote_memory_text(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path)
    ids = _add(mem, TURNS)
    rows = _summaries(sql, db_path)
    assert rows
    assert _summarized_seq(sql, db_path) == 9
    seq_of = {m: i for i, m in enumerate(ids)}
    for _nid, first, last, pieces in rows:
        assert 1 <= len(pieces) <= mem._engine.cfg.summary_max_pieces
        for p in pieces:
            i = seq_of[p["memory_id"]]
            who, text = TURNS[i]
            assert p["seq"] == i
            assert first <= i <= last
            assert p["text"] == f"[2024-03-01] {who}: {first_sentence(text)}"
            assert text in p["text"]


def test_merge_threshold_zero_merges_every_group(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path, summary_merge=0.0)
    _add(mem, TURNS)
    rows = _summaries(sql, db_path)
    assert [(nid, first, last) for nid, first, last, _ in rows] == [(0, 0, 9)]
    seqs = [p["seq"] for p in rows[0][3]]
    assert len(seqs) == 4  # two pieces per group, none a near-duplicate of another
    assert sorted(seqs) == seqs
    assert any(s <= 4 for s in seqs) and any(s >= 5 for s in seqs)


def test_merge_threshold_above_one_never_merges(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path, summary_merge=1.01)
    _add(mem, TURNS)
    rows = _summaries(sql, db_path)
    assert [nid for nid, *_ in rows] == [0, 1]
    (_, f0, l0, p0), (_, f1, l1, p1) = rows
    assert 0 <= f0 <= l0 <= 4 < 5 <= f1 <= l1 <= 9
    assert all(p["seq"] <= 4 for p in p0) and all(p["seq"] >= 5 for p in p1)
    assert len(p0) == len(p1) == 2


def test_default_threshold_merges_only_the_same_topic(open_memory, tmp_path, sql):
    mixed = _ilstma(open_memory, tmp_path / "mixed.db")
    _add(mixed, TURNS)
    assert len(_summaries(sql, tmp_path / "mixed.db")) == 2
    same = _ilstma(open_memory, tmp_path / "same.db")
    _add(same, [("Alice", t) for t in GARDEN])
    rows = _summaries(sql, tmp_path / "same.db")
    assert len(rows) == 1
    assert {p["seq"] <= 4 for p in rows[0][3]} == {True, False}  # both groups inside


def test_a_summary_spans_its_whole_group(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path, summary_merge=1.01)
    _add(mem, TURNS)
    rows = _summaries(sql, db_path)
    assert [(first, last) for _, first, last, _ in rows] == [(0, 4), (5, 9)]


# -- deletion cascades into the notes ------------------------------------------------------


def _notes_quoting(sql, db, text: str, memory_id: str) -> int:
    return sql(
        db,
        "SELECT COUNT(*) FROM ilstma_notes WHERE pieces LIKE ? OR pieces LIKE ?",
        (f"%{text}%", f"%{memory_id}%"),
    )[0][0]


@pytest.mark.parametrize("victim", [2, 7])
def test_delete_drops_notes_and_resummarising_restores_coverage(open_memory, db_path, sql, victim):
    # five pieces per group: every memory of a summarised group is quoted
    mem = _ilstma(open_memory, db_path, summary_merge=1.01, summary_pieces=5)
    ids = _add(mem, TURNS)
    assert _quoted(sql, db_path) == set(ids)
    text = TURNS[victim][1]
    assert _notes_quoting(sql, db_path, text, ids[victim]) == 1

    assert mem.delete(ids[victim], "u")
    assert _notes_quoting(sql, db_path, text, ids[victim]) == 0
    left = [m for m in ids if m != ids[victim]]
    if victim < 5:  # the first summary went, and with it every later one
        assert _summaries(sql, db_path) == []
    else:  # the first group's summary is untouched
        assert _quoted(sql, db_path) == set(ids[:5])
    assert _summarized_seq(sql, db_path) == (-1 if victim < 5 else 4)
    short = mem.short_term("u")
    assert text not in short["summary"]

    # one more memory completes the group again: every remaining memory is quoted
    new = _add(
        mem, [("Alice", "The lighthouse keeper painted the stairs bright yellow.")], start=10
    )
    assert _quoted(sql, db_path) == set(left + new)
    assert _notes_quoting(sql, db_path, text, ids[victim]) == 0
    assert _summarized_seq(sql, db_path) == 10
    r = mem.recall("meteorites Antarctica", "u")
    assert text not in r.segments["summary"]


def test_delete_with_merged_summary_drops_it_whole(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path, summary_merge=0.0)
    ids = _add(mem, TURNS)
    quoted = [p["memory_id"] for p in _summaries(sql, db_path)[0][3]]
    victim = ids.index(quoted[-1])
    mem.delete(ids[victim], "u")
    assert _notes_quoting(sql, db_path, TURNS[victim][1], ids[victim]) == 0
    assert _summaries(sql, db_path) == []
    _add(mem, [("Alice", "The lighthouse keeper painted the stairs bright yellow.")], start=10)
    rows = _summaries(sql, db_path)
    assert len(rows) == 1
    assert ids[victim] not in {p["memory_id"] for p in rows[0][3]}


def test_delete_resummarises_the_whole_group(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path, summary_merge=1.01)  # default: two pieces a group
    ids = _add(mem, TURNS)
    (_, _, _, first_pieces), (_, _, _, second_pieces) = _summaries(sql, db_path)
    victim = ids.index(second_pieces[-1]["memory_id"])
    assert victim >= 5
    mem.delete(ids[victim], "u")
    # the second group (seq 5..9) must be summarised again from its start
    assert _summarized_seq(sql, db_path) == 4


# -- the profile ------------------------------------------------------------------------------

PROFILE_TURNS = [
    ("Alice", "I love hiking in the Alps every summer."),
    ("Bob", "The train to Geneva leaves at noon from platform four."),
    ("Alice", "The kettle broke this morning before breakfast."),
    ("Bob", "My favourite food is spicy ramen with extra garlic."),
    ("Alice", "We visited the old lighthouse on the northern cape."),
]


def test_profile_holds_first_person_preferences_by_speaker(open_memory, db_path):
    mem = _ilstma(open_memory, db_path)
    ids = _add(mem, PROFILE_TURNS)
    assert mem.short_term("u")["personality"] == ""  # filled on a miss
    r = mem.recall("Geneva train platform", "u")
    assert r.cache_hit is False
    profile = mem.short_term("u")["personality"]
    assert r.segments["personality"] == profile
    assert "Alice: I love hiking in the Alps every summer." in profile
    assert "Bob: My favourite food is spicy ramen with extra garlic." in profile
    for plain in ("Geneva", "kettle", "lighthouse"):
        assert plain not in profile

    # the profile is derived from the memories: a deleted preference leaves it
    mem.delete(ids[0], "u")
    mem.recall("ramen garlic noodles soup", "u")
    profile = mem.short_term("u")["personality"]
    assert "hiking" not in profile
    assert "Bob: My favourite food is spicy ramen with extra garlic." in profile


def test_profile_ignores_events_that_merely_contain_into_or_like(open_memory, db_path):
    mem = _ilstma(open_memory, db_path)
    _add(
        mem,
        [
            ("Bob", "I ran into my old teacher at the station today."),
            ("Alice", "I felt like a tourist in my own city yesterday."),
            ("Alice", "I love hiking in the Alps every summer."),
        ],
    )
    mem.recall("Alps hiking summer", "u")
    profile = mem.short_term("u")["personality"]
    assert "hiking" in profile  # premise: the profile is filled
    assert "teacher" not in profile
    assert "tourist" not in profile
