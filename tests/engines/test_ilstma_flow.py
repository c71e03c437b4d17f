"""ILSTMA's per-question flow (paper section 3.6.2) through ``Memory.recall``: hit and
miss branches, the prefetch window, deferred metadata writes, the history queue,
index-checked retrieval, a restart mid-session, and user isolation."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from remem import Memory
from remem.engines.ilstma.stm import estimate_tokens
from remem.errors import InvalidInputError
from remem.store.base import timestamp_epoch
from sample_conversation import BASE, TURNS
from store_rows import ilstma_db  # noqa: E402

# A question whose rare words all appear in turn i (and in no other turn).
Q = {
    0: "turquoise kayak Tromso harbour",
    1: "Ezekiel bassoon quartet",
    2: "greenhouse tomatoes heatwave",
    5: "vintage typewriter screwdriver",
    7: "Philippa chess tournament Reykjavik",
    9: "meteorites Antarctica museum",
}
NOW = timestamp_epoch(BASE + timedelta(minutes=len(TURNS) - 1))  # the flow's default clock


def _add(mem: Memory, user: str = "u", turns=TURNS) -> list[str]:
    return [
        mem.add(text, user, speaker=who, timestamp=BASE + timedelta(minutes=i))
        for i, (who, text) in enumerate(turns)
    ]


def _ilstma(open_memory, path=":memory:", engine="ilstma", **options) -> Memory:
    return open_memory(path, engine, engine_options=options)


def _stm(mem: Memory, user: str = "u"):
    return mem._engine._stm[user]


def _cache_pos(mem: Memory, ids: list[str], user: str = "u") -> list[int]:
    return [ids.index(d.memory_id) for d in _stm(mem, user).cache]


def _recalled(r) -> list[str]:
    """The ids the flow recalled on a miss (a Recall's details)."""
    return r.details["recalled"]


# -- first question, miss and hit ----------------------------------------------------------


def test_first_question_of_a_fresh_engine_misses(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    r = mem.recall(Q[0], "u", k=3)
    assert r.cache_hit is False
    assert "judge_s" not in r.timings  # nothing cached, nothing to judge
    assert {"embed_s", "retrieve_s", "total_s"} <= set(r.timings)
    assert _recalled(r) == [ids[0]]
    assert r.hits[0].id == ids[0]
    assert r.segments["relevant"] == [f"{TURNS[0][0]}: {TURNS[0][1]}"]


def test_recall_on_a_user_without_memories(open_memory):
    mem = _ilstma(open_memory)
    r = mem.recall("anything at all", "nobody")
    assert r.hits == [] and r.cache_hit is False


@pytest.mark.parametrize(
    "options",
    [{}, {"offset": 1, "cache_size": 2}, {"offset": 2, "cache_size": 4}, {"cache_size": 1}],
)
@pytest.mark.parametrize("target", [0, 5, 9])
def test_miss_caches_a_window_around_the_recalled_dialogue(open_memory, options, target):
    mem = _ilstma(open_memory, **options)
    cfg = mem._engine.cfg
    ids = _add(mem)
    r = mem.recall(Q[target], "u", k=3)
    assert r.cache_hit is False
    centre = ids.index(_recalled(r)[0])
    assert centre == target
    cached = _cache_pos(mem, ids)
    window = [p for p in range(len(ids)) if abs(p - centre) <= cfg.offset]
    assert len(cached) == min(cfg.cache_size, len(window))
    assert len(set(cached)) == len(cached)
    assert set(cached) <= set(window)
    assert cached[0] == centre  # intent form: the recalled dialogue scores 2, the most
    assert r.segments["cache"] == [f"{TURNS[p][0]}: {TURNS[p][1]}" for p in cached]


def test_printed_form_prefers_far_dialogues(open_memory):
    """Eq. 4 as printed grows with distance: the recalled dialogue itself is cached last."""
    mem = _ilstma(open_memory, engine="ilstma-printed")
    ids = _add(mem)
    r = mem.recall(Q[5], "u")
    assert ids.index(_recalled(r)[0]) == 5
    # window 0..9 around 5 (offset 5); farthest first, ties to the lower index
    assert _cache_pos(mem, ids) == [0, 1, 9]


def test_hit_answers_from_the_cache_without_retrieval(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    mem.recall(Q[0], "u", k=3)  # miss: caches turns 0, 1, 2
    assert _cache_pos(mem, ids) == [0, 1, 2]
    stm = _stm(mem)
    before = mem.short_term("u")
    cache_before = list(stm.cache)
    meta_before = ilstma_db(mem).table_meta("u")

    r = mem.recall(Q[1], "u", k=3)

    assert r.cache_hit is True
    assert "retrieve_s" not in r.timings and "embed_s" not in r.timings
    assert "judge_s" in r.timings
    assert [h.id for h in r.hits] == [ids[1], ids[0], ids[2]]  # the used dialogue first
    assert set(r.explanations.values()) == {"cache"}
    after = mem.short_term("u")
    for seg in ("cache", "summary", "personality", "relevant"):
        assert after[seg] == before[seg], seg
    assert stm.cache == cache_before
    assert after["questions"] == before["questions"] + 1
    assert after["deferred_writes"] == 1
    # the used dialogue's update is buffered, not written
    assert stm.deferred == {ids[1]: (2, NOW)}
    assert ids[1] not in ilstma_db(mem).table_meta("u")
    assert ilstma_db(mem).table_meta("u") == meta_before


def test_a_question_with_unknown_words_misses(open_memory):
    mem = _ilstma(open_memory)
    _add(mem)
    mem.recall(Q[0], "u")
    # "Who plays the bassoon?" would be covered, but "Zanzibar" carries the most weight
    assert mem.recall("bassoon Zanzibar", "u").cache_hit is False


def test_deferred_writes_are_applied_once_on_the_next_miss(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    assert ids[1] not in ilstma_db(mem).table_meta("u")  # never recalled: (1, creation)
    assert mem.recall(Q[1], "u").cache_hit is True
    assert mem.recall("bassoon quartet Ezekiel plays", "u").cache_hit is True
    assert _stm(mem).deferred == {ids[1]: (3, NOW)}
    assert ids[1] not in ilstma_db(mem).table_meta("u")

    r = mem.recall(Q[9], "u")  # a miss elsewhere: the buffer is flushed
    assert r.cache_hit is False
    assert ids[1] not in _recalled(r)
    assert ilstma_db(mem).table_meta("u")[ids[1]] == (3, NOW)  # 1 + exactly 2
    assert _stm(mem).deferred == {}
    assert mem.short_term("u")["deferred_writes"] == 0

    mem.recall(Q[5], "u")  # another miss must not apply the same updates again
    assert ilstma_db(mem).table_meta("u")[ids[1]] == (3, NOW)


def test_recalled_dialogues_are_counted_at_once_on_a_miss(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    later = BASE + timedelta(days=3)
    mem.recall(Q[9], "u", now=later)
    assert ilstma_db(mem).table_meta("u") == {ids[9]: (2, timestamp_epoch(later))}
    mem.recall(Q[0], "u")
    mem.recall(Q[9], "u")
    meta = ilstma_db(mem).table_meta("u")
    # counted as increments; the last recall is the latest one ("later" is after NOW)
    assert meta[ids[9]] == (3, timestamp_epoch(later))
    assert meta[ids[0]] == (2, NOW)
    assert set(meta) == {ids[0], ids[9]}


def test_a_miss_clears_and_refills_summary_and_cache(open_memory, embedder):
    mem = _ilstma(open_memory, summary_merge=1.01)  # two summaries for ten turns
    ids = _add(mem)
    engine = mem._engine
    summaries = engine._load_notes("u").summaries
    assert len(summaries) == 2

    def expected_summary(question: str) -> str:
        sims = [float(s.vec @ embedder.embed_one(question)) for s in summaries]
        return summaries[int(np.argmax(sims))].text

    first = mem.recall(Q[0], "u")
    assert _cache_pos(mem, ids) == [0, 1, 2]
    assert first.segments["summary"] == expected_summary(Q[0])
    stm = _stm(mem)
    stm.summary = "a stale summary nobody asked for"
    second = mem.recall(Q[9], "u")
    assert second.cache_hit is False
    assert _cache_pos(mem, ids) == [9, 8, 7]  # nothing of the old cache survives
    assert second.segments["summary"] == expected_summary(Q[9])
    assert second.segments["relevant"] == [f"{TURNS[9][0]}: {TURNS[9][1]}"]


def test_a_miss_clears_the_summary_when_there_is_none_to_pick(open_memory):
    mem = _ilstma(open_memory)
    _add(mem, turns=TURNS[:4])  # fewer than one group of five: no summary at all
    mem.recall(Q[0], "u")
    _stm(mem).summary = "stale"
    r = mem.recall("octopus camouflage documentary", "u")  # turn 3 is not cached: a miss
    assert r.cache_hit is False
    assert r.segments["summary"] == "" and _stm(mem).summary == ""


def test_nocache_variant_never_hits(open_memory):
    mem = _ilstma(open_memory, engine="ilstma-nocache")
    ids = _add(mem)
    for _ in range(3):
        r = mem.recall(Q[1], "u")
        assert r.cache_hit is False
        assert "retrieve_s" in r.timings and "judge_s" not in r.timings
        assert _stm(mem).cache == []
        assert r.segments["cache"] == []
    assert ilstma_db(mem).table_meta("u")[ids[1]][0] == 4


def test_embedding_judge_hits_on_the_cached_dialogue(open_memory):
    mem = _ilstma(open_memory, judge="embedding", hit_threshold=0.5)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    r = mem.recall("Ezekiel plays the bassoon in a jazz quartet", "u")
    assert r.cache_hit is True
    assert r.hits[0].id == ids[1]
    assert "embed_s" in r.timings and "retrieve_s" not in r.timings


def test_hits_after_a_mid_session_flush_are_all_counted(open_memory, tmp_path):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    assert mem.recall(Q[1], "u").cache_hit is True
    mem.export_table("u", tmp_path / "t.json")  # flushes the buffered write: 1 -> 2
    assert ilstma_db(mem).table_meta("u")[ids[1]] == (2, NOW)
    assert mem.recall(Q[1], "u").cache_hit is True  # a second hit on the same dialogue
    mem.recall(Q[9], "u")  # a miss flushes it
    assert ilstma_db(mem).table_meta("u")[ids[1]] == (3, NOW)  # is (2, NOW): one hit lost


# -- the prefetch window's bounds -----------------------------------------------------------


def test_window_at_the_first_position_extends_right_only(open_memory):
    mem = _ilstma(open_memory, offset=2, cache_size=4)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    assert _cache_pos(mem, ids) == [0, 1, 2]


def test_window_at_the_last_position_extends_left_only(open_memory):
    mem = _ilstma(open_memory, offset=2, cache_size=4)
    ids = _add(mem)
    mem.recall(Q[9], "u")
    assert _cache_pos(mem, ids) == [9, 8, 7]


def test_window_in_the_middle_takes_the_nearest(open_memory):
    mem = _ilstma(open_memory, offset=2, cache_size=4)
    ids = _add(mem)
    mem.recall(Q[5], "u")
    # window 3..7: score 2 (itself), 1.5 at distance 1, ~1.30 at distance 2; ties by index
    assert _cache_pos(mem, ids) == [5, 4, 6, 3]


def test_window_skips_deleted_memories(open_memory):
    mem = _ilstma(open_memory, offset=2, cache_size=4)
    ids = _add(mem)
    assert mem.delete(ids[1], "u") and mem.delete(ids[2], "u")
    mem.recall(Q[0], "u")
    assert _cache_pos(mem, ids) == [0, 3, 4]  # two live positions to the right

    assert mem.delete(ids[4], "u")
    r = mem.recall(Q[5], "u")
    assert ids.index(_recalled(r)[0]) == 5
    # left of 5: 3 (distance 1), then 2 and 1 are gone, so 0 is at distance 2;
    # right: 6, 7; the distance-2 tie between 0 and 7 goes to the lower index
    assert _cache_pos(mem, ids) == [5, 3, 6, 0]


def test_window_with_offset_one_skips_a_deleted_neighbour(open_memory):
    mem = _ilstma(open_memory, offset=1, cache_size=2)
    ids = _add(mem)
    mem.delete(ids[1], "u")
    mem.recall(Q[0], "u")
    assert _cache_pos(mem, ids) == [0, 2]


def test_deleting_a_cached_memory_drops_it_and_its_buffered_write(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    assert mem.recall(Q[1], "u").cache_hit is True
    mem.delete(ids[1], "u")
    stm = _stm(mem)
    assert ids[1] not in {d.memory_id for d in stm.cache}
    assert stm.deferred == {}
    assert mem.recall(Q[1], "u").cache_hit is False
    assert all(h.id != ids[1] for h in mem.recall(Q[1], "u").hits)


# -- the history queue and segment budgets ---------------------------------------------------


def test_history_holds_the_last_seven_turns_in_order(open_memory):
    mem = _ilstma(open_memory)
    ids = _add(mem)
    history = mem.short_term("u")["history"]
    assert history == [f"{who}: {text}" for who, text in TURNS[-7:]]
    assert list(_stm(mem).history) == list(zip(ids[-7:], history, strict=True))
    mem.recall(Q[0], "u")  # questions do not enter the queue
    assert mem.short_term("u")["history"] == history


def test_history_length_follows_the_option(open_memory):
    mem = _ilstma(open_memory, history_turns=3)
    _add(mem)
    assert mem.short_term("u")["history"] == [f"{w}: {t}" for w, t in TURNS[-3:]]


def test_history_segment_keeps_the_newest_turns_that_fit(open_memory):
    mem = _ilstma(open_memory, segment_tokens=20)
    turns = [("Alice", f"short turn number {i} here") for i in range(10)]  # 31 chars: 8 tokens
    _add(mem, turns=turns)
    assert len(_stm(mem).history) == 7
    history = mem.short_term("u")["history"]
    assert history == ["Alice: short turn number 8 here", "Alice: short turn number 9 here"]
    assert estimate_tokens(" ".join(history)) <= 20


def test_every_segment_stays_within_segment_tokens(open_memory):
    budget = 20
    mem = _ilstma(open_memory, segment_tokens=budget)
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit"]
    turns = [
        ("Alice", f"Turn {i} about quokka{i}. " + " ".join(words * 4)) for i in range(10)
    ]  # about 45 words each, far above the budget
    _add(mem, turns=turns)
    mem.recall("quokka3", "u")
    st = mem.short_term("u")
    for seg in ("cache", "summary", "personality", "history", "relevant"):
        value = st[seg]
        text = " ".join(value) if isinstance(value, list) else value
        assert estimate_tokens(text) <= budget, (seg, estimate_tokens(text))
    assert st["tokens"] <= 5 * budget


# -- index-checked retrieval (3.4) -----------------------------------------------------------

AIR = [
    ("Alice", "Airships floated slowly above the city during the summer festival."),
    ("Bob", "We watched hot air balloons drift high over the valley at dawn."),
    (
        "Alice",
        "My grandmother's beetroot soup needs three hours, she told me, "
        "wearing her old zeppelin shirt.",
    ),
    ("Bob", "The greenhouse tomatoes finally ripened after the heatwave."),
    ("Alice", "Our landlord promised to fix the creaky staircase by Friday."),
    ("Bob", "I repaired the vintage typewriter with a tiny screwdriver."),
]
AGREE = "creaky staircase landlord"  # both retrievers: turn 4
DISAGREE = "zeppelin flying in the sky"  # lexical pulls turn 2, meaning pulls 0 and 1


def _cosine_order(mem: Memory, query: str, embedder, user: str = "u") -> list[str]:
    rows = mem._store.load(user, with_embeddings=True)
    sims = np.stack([m.embedding for m in rows]) @ embedder.embed_one(query)
    return [rows[i].id for i in np.argsort(-sims, kind="stable")]


def test_agreeing_retrievers_recall_one_dialogue(open_memory, embedder):
    mem = _ilstma(open_memory)
    ids = _add(mem, turns=AIR)
    recalled, ranking = mem._engine._retrieve("u", AGREE, embedder.embed_one(AGREE), 3)
    assert ranking[0].id in _cosine_order(mem, AGREE, embedder)[:2]
    assert [r.id for r in recalled] == [ranking[0].id] == [ids[4]]


@pytest.mark.parametrize("mode", ["cosine", "union"])
def test_disagreeing_retrievers(open_memory, embedder, mode):
    mem = _ilstma(open_memory, on_disagreement=mode)
    ids = _add(mem, turns=AIR)
    cosine = _cosine_order(mem, DISAGREE, embedder)[:2]
    recalled, ranking = mem._engine._retrieve("u", DISAGREE, embedder.embed_one(DISAGREE), 3)
    candidate = ranking[0].id
    assert candidate == ids[2] and candidate not in cosine  # the premise
    assert cosine == [ids[0], ids[1]]
    expected = cosine if mode == "cosine" else [candidate, cosine[0]]
    assert [r.id for r in recalled] == expected

    # through the flow: both recalled dialogues are counted, hits start with them
    r = mem.recall(DISAGREE, "u", k=3)
    assert _recalled(r) == expected
    assert r.details["ranking"] == [s.id for s in ranking]
    rest = [s.id for s in ranking if s.id not in expected]
    assert [h.id for h in r.hits] == (expected + rest)[:3]
    assert [h.score for h in r.hits] == [1.0, 0.5, 1 / 3]
    meta = ilstma_db(mem).table_meta("u")
    assert {m: meta[m][0] for m in meta} == dict.fromkeys(expected, 2)
    # the cache is prefetched around the first recalled dialogue
    assert _stm(mem).cache[0].memory_id == expected[0]


def test_search_fills_up_to_k(open_memory, embedder):
    # the paper's rule, on which the premise below (cosine top-2 recalled) rests
    mem = _ilstma(open_memory, engine="ilstma-paper")
    ids = _add(mem, turns=AIR)
    hits = mem.search(DISAGREE, "u", k=4)
    assert [h.id for h in hits][:2] == [ids[0], ids[1]]
    assert len(hits) == 4 and len({h.id for h in hits}) == 4


# -- a restart mid-session ---------------------------------------------------------------------


def test_restart_keeps_memories_and_deferred_metadata_but_not_the_cache(open_memory, db_path):
    mem = _ilstma(open_memory, db_path)
    ids = _add(mem)
    mem.recall(Q[0], "u")
    assert mem.recall(Q[1], "u").cache_hit is True
    assert mem.short_term("u")["deferred_writes"] == 1
    assert ids[1] not in ilstma_db(mem).table_meta("u")
    mem.close()

    again = _ilstma(open_memory, db_path)
    assert [h.id for h in again.memories("u")] == ids
    assert [h.text for h in again.memories("u")] == [t for _, t in TURNS]
    assert ilstma_db(again).table_meta("u") == {ids[0]: (2, NOW), ids[1]: (2, NOW)}
    st = again.short_term("u")
    assert st["cache"] == [] and st["questions"] == 0 and st["deferred_writes"] == 0
    r = again.recall(Q[1], "u")  # was a hit before the restart
    assert r.cache_hit is False
    assert _recalled(r) == [ids[1]]
    assert ilstma_db(again).table_meta("u")[ids[1]] == (3, NOW)
    assert again.recall(Q[0], "u").cache_hit is True  # turn 0 is next to turn 1


# -- isolation --------------------------------------------------------------------------------


def test_users_do_not_share_memories_or_short_term_state(open_memory):
    mem = _ilstma(open_memory)
    a = _add(mem, "alice")
    b = _add(mem, "bob", [("Carol" if w == "Alice" else "Dave", t) for w, t in TURNS])
    assert mem.recall(Q[0], "alice").cache_hit is False
    assert mem.recall(Q[1], "alice").cache_hit is True
    assert mem.recall(Q[2], "alice").cache_hit is True

    r = mem.recall(Q[1], "bob", k=5)
    assert r.cache_hit is False  # alice's cache does not answer bob
    assert {h.id for h in r.hits} <= set(b)
    assert set(_recalled(r)) <= set(b)
    assert {d.memory_id for d in _stm(mem, "bob").cache} <= set(b)
    assert _stm(mem, "bob").deferred == {}
    assert set(ilstma_db(mem).table_meta("bob")) <= set(b)
    assert set(ilstma_db(mem).table_meta("alice")) <= set(a)
    for q in Q.values():
        assert {h.id for h in mem.recall(q, "bob", k=10).hits} <= set(b)
    # bob's questions left alice's short-term memory alone
    assert mem.recall(Q[1], "alice").cache_hit is True
    assert set(_stm(mem, "alice").deferred) == {a[1], a[2]}


# -- short_term() -----------------------------------------------------------------------------


def test_short_term_is_ilstma_only(open_memory):
    mem = open_memory(":memory:", "hybrid")
    mem.add("hello there", "u")
    with pytest.raises(InvalidInputError):
        mem.short_term("u")


@pytest.mark.parametrize("engine", ["ilstma", "ilstma-printed", "ilstma-nocache"])
def test_short_term_keys(open_memory, engine):
    mem = _ilstma(open_memory, engine=engine)
    keys = {
        "cache",
        "summary",
        "personality",
        "history",
        "relevant",
        "tokens",
        "questions",
        "deferred_writes",
        "cache_ids",
    }
    assert set(mem.short_term("u")) == keys  # works before the user exists
    _add(mem)
    mem.recall(Q[0], "u")
    st = mem.short_term("u")
    assert set(st) == keys
    assert st["questions"] == 1 and st["deferred_writes"] == 0
    assert isinstance(st["tokens"], int) and st["tokens"] > 0
    assert isinstance(st["summary"], str) and isinstance(st["personality"], str)
    assert all(isinstance(st[s], list) for s in ("cache", "history", "relevant"))
    assert st["cache_ids"] == [d.memory_id for d in mem._engine._stm["u"].cache]


def test_delete_user_erases_table_notes_and_short_term_memory(open_memory, db_path, sql):
    mem = _ilstma(open_memory, db_path)
    _add(mem)
    mem.recall(Q[0], "u")
    assert mem.recall(Q[1], "u").cache_hit is True  # a buffered write pending
    assert mem.delete_user("u") == len(TURNS)
    for table in ("table_meta", "ilstma_notes", "ilstma_state"):
        assert sql(db_path, f"SELECT COUNT(*) FROM {table}")[0][0] == 0, table
    st = mem.short_term("u")
    assert st["cache"] == [] and st["history"] == [] and st["deferred_writes"] == 0
    ids = _add(mem)  # the same conversation again: a fresh table, a fresh session
    assert mem.recall(Q[1], "u").cache_hit is False
    mem.close()  # nothing of the erased session is flushed on close
    assert {r[0] for r in sql(db_path, "SELECT memory_id FROM table_meta")} == {ids[1]}


# -- details -----------------------------------------------------------------------------------


def test_details_follow_every_question(open_memory):
    mem = _ilstma(open_memory)
    _add(mem)
    assert _recalled(mem.recall(Q[0], "u"))  # premise: a miss with a recall
    out = mem.recall(Q[0], "nobody")
    assert out.hits == [] and _recalled(out) == [] and out.details["ranking"] == []


def test_prefetch_around_every_recalled_dialogue(open_memory):
    """With two recalled dialogues far apart, "all" scores both windows together and
    caches each centre; "first" (the paper) only the first one's neighbourhood."""
    from remem.engines.base import Scored

    for around, expect_both in (("first", False), ("all", True)):
        mem = _ilstma(open_memory, offset=2, cache_size=4, prefetch_around=around)
        ids = _add(mem)
        mem._engine._retrieve = lambda *a, ids=ids: (
            [Scored(ids[1], 1.0), Scored(ids[8], 0.9)],
            [Scored(ids[1], 1.0), Scored(ids[8], 0.9)],
        )
        mem.recall(Q[1], "u")
        cached = set(_cache_pos(mem, ids))
        assert 1 in cached
        assert (8 in cached) is expect_both
        assert cached <= (set(range(10)) - {4, 5} if expect_both else {0, 1, 2, 3})
