"""Time in the ranking (``time/arrange.py``) on hand-made histories, through the
public API: the window a question names, and the newer of two versions first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem import InvalidInputError, InvalidTypeError, Memory

T0 = datetime(2023, 1, 2, 9, 0)
ENGINES = ["dense", "bm25", "hybrid", "synapse", "ilstma"]


def _history(mem: Memory, user: str = "u") -> dict[str, str]:
    """Two months of notes; a few facts change, a few events are dated."""
    ids = {}
    items = [
        ("home-old", 0, "I live in a small flat in Lisbon near the river."),
        ("job-old", 1, "I work as a barista at a cafe downtown."),
        ("boots", 3, "I bought new hiking boots for the mountains."),
        ("book", 10, "I finished reading a long novel about a lighthouse keeper."),
        ("museum", 20, "I visited the science museum with my nephew."),
        ("cake", 40, "I baked a lemon cake for my friend's birthday."),
        ("home-new", 50, "I moved out of Lisbon; I live in a small flat in Porto now."),
        ("job-new", 52, "I quit the cafe and now work as a barista at a hotel."),
        ("jewelry", 57, "My aunt gave me a silver necklace as a gift."),
    ]
    for i in range(40):  # filler: other days, other things
        day = [4, 5, 6, 7, 8, 9, 11, 12, 13, 27, 28, 29, 30, 31, 32, 33][i % 16]
        items.append((f"f{i}", day, f"Daily note {i}: groceries, laundry and a short walk."))
    for key, day, text in items:
        ids[key] = mem.add(
            text, user_id=user, speaker="user", timestamp=T0 + timedelta(days=day, hours=1)
        )
    return ids


NOW = T0 + timedelta(days=60)  # a Thursday


@pytest.mark.parametrize("engine", ENGINES)
def test_the_newer_version_ranks_first_without_hiding_the_older(engine, embedder):
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        ids = _history(mem)
        for q, new, old in (
            ("Where do I live?", "home-new", "home-old"),
            ("Where do I work as a barista?", "job-new", "job-old"),
        ):
            got = [h.id for h in mem.search(q, user_id="u", k=5, now=NOW)]
            assert ids[new] in got and ids[old] in got  # both kept
            assert got.index(ids[new]) < got.index(ids[old]), (q, engine)
        rec = mem.recall("Where do I live?", user_id="u", k=5, now=NOW)
        assert "newer version of " + ids["home-old"] in rec.explanations[ids["home-new"]]
        # asked for the original, the older comes first
        got = [h.id for h in mem.search("Where did I initially live?", user_id="u", k=5)]
        assert got.index(ids["home-old"]) < got.index(ids["home-new"])


@pytest.mark.parametrize("engine", ENGINES)
def test_the_first_k_are_the_first_k_of_any_deeper_search(engine, embedder):
    """Versions are ordered among the engine's first ``versions_depth`` whatever ``k``
    is asked: a search for one memory gets the newer version, and a deeper search
    lifts no version from far down above what a shallower one returned."""
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        ids = _history(mem)
        for q in ("Where do I live?", "Where do I work as a barista?", "What did I buy?"):
            deep = [h.id for h in mem.search(q, user_id="u", k=40, now=NOW)]
            for k in (1, 2, 3, 5, 10, 20):
                assert [h.id for h in mem.search(q, user_id="u", k=k, now=NOW)] == deep[:k]
        assert mem.search("Where do I live?", user_id="u", k=1, now=NOW)[0].id == ids["home-new"]


@pytest.mark.parametrize("engine", ["dense", "hybrid", "synapse"])
def test_a_time_the_question_names_lifts_the_memories_made_then(engine, embedder):
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        ids = _history(mem)
        # "What did I do N days ago?" says little: the window decides
        day40 = mem.search("What did I do 20 days ago?", user_id="u", k=3, now=NOW)
        assert day40[0].id == ids["cake"]
        rec = mem.recall("What did I do 20 days ago?", user_id="u", k=3, now=NOW)
        assert "made 20 days ago" in rec.explanations[ids["cake"]]
        last_saturday = mem.search("Who gave me something last Saturday?", "u", 3, now=NOW)
        assert last_saturday[0].id == ids["jewelry"]
        # asked at another moment, the same words point elsewhere
        earlier = mem.search("What did I do 20 days ago?", "u", 3, now=T0 + timedelta(days=40))
        assert earlier[0].id == ids["museum"]


def test_bad_clocks_and_options_get_clear_errors(embedder):
    with Memory(":memory:", engine="hybrid", embedder=embedder, llm="none") as mem:
        mem.add("hello", user_id="u")
        for bad in ("yesterday-ish", "2023-13-45", 12.5):
            with pytest.raises((InvalidInputError, InvalidTypeError)):
                mem.search("hello", user_id="u", now=bad)
            with pytest.raises((InvalidInputError, InvalidTypeError)):
                mem.recall("hello", user_id="u", now=bad)
            with pytest.raises((InvalidInputError, InvalidTypeError)):
                mem.answer("hello", user_id="u", now=bad)
    with pytest.raises(InvalidInputError, match=r"time_options has no options \[.nope.\]"):
        Memory(":memory:", engine="bm25", embedder=embedder, time_options={"nope": 1})
    with pytest.raises(InvalidInputError, match="depth"):
        Memory(":memory:", engine="bm25", embedder=embedder, time_options={"depth": -1})
    with pytest.raises(InvalidInputError, match="versions_depth"):
        Memory(":memory:", engine="bm25", embedder=embedder, time_options={"versions_depth": 0})
    with pytest.raises(InvalidInputError, match="updates"):
        Memory(":memory:", engine="bm25", embedder=embedder, time_options={"updates": 1})


def test_the_reader_is_told_which_version_is_current(embedder):
    from remem.answer import Answerer
    from remem.answer.reader import versions
    from remem.llm import create_llm

    with Memory(":memory:", engine="hybrid", embedder=embedder, llm="none") as mem:
        ids = _history(mem)
        rec = mem.recall("Where do I live?", user_id="u", k=5, now=NOW)
    marks = versions(rec.explanations)
    assert marks[ids["home-new"]] == "latest" and marks[ids["home-old"]] == "earlier"
    _, context, _ = Answerer(create_llm("none")).fit(rec.hits, (), marks)
    line = next(x for x in context.splitlines() if "Porto" in x)
    assert line.startswith("[21 February 2023, latest] user: I moved out of Lisbon")
    assert any(
        x.endswith("Lisbon near the river.") and ", earlier]" in x for x in context.splitlines()
    )


@pytest.mark.parametrize("engine", ["dense", "hybrid", "synapse"])
def test_a_memory_that_tells_of_the_window_counts_as_inside_it(engine, embedder):
    """Events are told days after they happen: asked about "last weekend", the memory
    made on the Wednesday after that says "last weekend" is lifted like the ones made
    then; with that off, the ones made then outrank it."""
    asked = datetime(2023, 5, 27, 21, 0)  # a Saturday; last weekend: May 20-21

    def ranking(options: dict | None) -> tuple[list[str], str, dict[str, str]]:
        with Memory(
            ":memory:", engine=engine, embedder=embedder, llm="none", time_options=options
        ) as mem:
            told = mem.add(
                "I finally beat the last boss of the game last weekend, after weeks of trying.",
                user_id="u",
                timestamp=datetime(2023, 5, 24, 16, 0),
            )
            for i, day in enumerate([20, 20, 21, 21]):
                mem.add(
                    f"Chore {i}: I cleaned the garage and fixed a shelf.",
                    user_id="u",
                    timestamp=datetime(2023, 5, day, 10 + i),
                )
            for i in range(6):
                mem.add(
                    f"Note {i}: a game of chess with my brother.",
                    "u",
                    timestamp=datetime(2023, 4, 1 + 3 * i),
                )
            rec = mem.recall("What game did I finally beat last weekend?", "u", k=5, now=asked)
            return [h.id for h in rec.hits], told, rec.explanations

    got, told, why = ranking(None)
    assert got[0] == told
    assert "tells of last weekend" in why[told]
    got, told, _ = ranking({"mentioned": False})
    assert got[0] != told  # made in the window, the chores outrank it


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_month_named_lifts_its_own_memories_not_those_said_days_after(engine, embedder):
    """A month's three days of slack are not inside it: a memory said on 2 August,
    which the words rank higher, stays below July's own memory for "in July"; a day's
    slack still counts (told the day after)."""
    with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
        july = mem.add("We had a picnic with the choir.", "u", timestamp=datetime(2023, 7, 20, 12))
        august = mem.add(
            "Church friends and I had a picnic with games in the park.",
            "u",
            timestamp=datetime(2023, 8, 2, 12),
        )
        for i in range(30):  # other days, other things
            mem.add(f"Note {i}: groceries and laundry.", "u", timestamp=datetime(2023, 5, 1 + i))
        now = datetime(2023, 9, 1)
        got = [
            h.id
            for h in mem.search("What picnic with church friends in July 2023?", "u", 5, now=now)
        ]
        assert got.index(july) < got.index(august), engine
        # one day named: the telling the day after is inside its slack
        rec = mem.recall("What picnic did I have on 1 August 2023?", "u", 5, now=now)
        assert rec.hits[0].id == august and "made" in rec.explanations[august]


def test_years_ago_keeps_the_looseness_of_its_words(embedder):
    """ "Two years ago" is loose by its words (a quarter of the span): a memory made
    half a year past the named year's end is still inside it, only the telling lag
    of a long window is not."""
    with Memory(":memory:", engine="hybrid", embedder=embedder, llm="none") as mem:
        old = mem.add("I started running to get fit.", "u", timestamp=datetime(2021, 5, 1))
        loose = mem.add("I started lifting weights.", "u", timestamp=datetime(2022, 3, 1))
        for i in range(20):
            mem.add(f"I started a new hobby, number {i}.", "u", timestamp=datetime(2023, 3, 1 + i))
        now = datetime(2023, 6, 1)
        rec = mem.recall("What did I start two years ago?", "u", 5, now=now)
        got = [h.id for h in rec.hits]
        assert old in got[:2] and loose in got[:2]
        assert "made two years ago" in rec.explanations[loose]


def test_a_memory_telling_of_a_longer_time_does_not_tell_of_the_day(open_memory):
    """ "this year" overlaps every day of the year, yet tells of none of them: a
    question naming a day lifts what tells of that day, not of its whole year."""
    now = datetime(2023, 5, 27, 18, tzinfo=timezone.utc)
    mem = open_memory(engine="hybrid")
    vague = mem.add("This year I want to watch more films.", "u", timestamp=now - timedelta(days=5))
    exact = mem.add(
        "On Thursday I watched a long film at the cinema.", "u", timestamp=now - timedelta(days=1)
    )
    r = mem.recall("What film did I watch on Thursday?", "u", k=2, now=now)
    assert r.hits[0].id == exact
    assert "tells of" not in r.explanations.get(vague, "")
