"""The memory holding the question's identifier verbatim ranks first, on every engine.

The case found (issue 34, finding 3): 300 memories "Order A0NNX: a note about ..."
(one template, different ids); ``search("order A035X")`` did not always put A035X
first (``scripts/exact_identifiers.py``: SYNAPSE and ILSTMA put a locker code's memory
first in 22% of lookups, hybrid a phone number's in 3%). The property tests draw a
template, look-alike identifiers of one kind (codes, phone numbers, emails, names),
ordinary memories around them and a phrasing of the lookup, and check every engine,
through ``search`` and ``recall``. Prose questions must come out exactly as the
engine ranks them without the stage.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem import Memory
from remem.embed.base import MemoEmbedder
from remem.engines.exact import ExactConfig
from remem.errors import InvalidInputError
from remem.index.tokenize import identifier_tokens, tokenize
from remem.options import declared

ENGINES = ["hybrid", "synapse", "ilstma", "dense", "bm25"]

TEMPLATES = [
    "Order {}: a note about {}",
    "Call the office at {} about the {}",
    "Locker code {} holds the {}",
    "Write to {} about the {}",
    "Remember that {} mentioned the {}",
]
#: the lookup, the identifier never first (a capitalised first word is not a name)
PHRASINGS = ["order {}", "what about {}?", "tell me about {} please", "find {}"]
WORDS = [
    "garden", "invoice", "weekend", "river", "budget", "dentist", "kitchen", "guitar",
    "holiday", "printer", "shipment", "refund", "meeting", "coffee", "parcel", "ticket",
]  # fmt: skip
FILLERS = [
    "My sister is getting married next September.",
    "The kitchen sink started leaking again on Tuesday night.",
    "I switched jobs and now work as a data engineer.",
    "Our book club is reading a long Russian novel this month.",
    "I go to a BodyPump class on Mondays and yoga on Thursdays.",
]


@pytest.fixture(scope="module")
def memo(embedder):
    """The session's embedder, each text embedded once for all engines and examples."""
    return MemoEmbedder(embedder)


SYLLABLES = ["ka", "lo", "mi", "zu", "ra", "ve", "thi", "dor", "qua", "bex", "sol", "ped"]

_upper = st.text("ABCDEFGHJKLMNPQRSTUVWXYZ", min_size=1, max_size=3)
_digits = st.integers(10, 99_999).map(str)
codes = st.builds(
    lambda a, d, b, sep: f"{a}{sep}{d}{b}", _upper, _digits, st.sampled_from(["", "X", "B"]),
    st.sampled_from(["", "-"]),
)  # fmt: skip
phones = st.builds(
    lambda a, b: f"+1 {a} 555 {b:04d}", st.integers(200, 999), st.integers(100, 9999)
)
_part = st.lists(st.sampled_from(SYLLABLES), min_size=2, max_size=3).map("".join)
emails = st.builds(lambda a, b: f"{a}.{b}@example.com", _part, _part)
names = st.lists(st.sampled_from(SYLLABLES), min_size=3, max_size=4).map(
    lambda s: "".join(s).capitalize()
)


@st.composite
def lookups(draw: st.DrawFn) -> tuple[list[str], int, str]:
    """(memories, the target's index, the query): look-alikes of one template whose
    identifiers share no word of two characters or more with the target's."""
    kind = draw(st.sampled_from([codes, phones, emails, names]))
    target = draw(kind)
    others = draw(
        st.lists(kind, min_size=3, max_size=25, unique=True).map(
            lambda ids: [i for i in ids if _own(target) - _own(i)]
        )
    )
    template = draw(st.sampled_from(TEMPLATES))
    fill = st.lists(st.sampled_from(WORDS), min_size=2, max_size=4, unique=True).map(" ".join)
    texts = [template.format(i, draw(fill)) for i in [target, *others]]
    texts += draw(st.lists(st.sampled_from(FILLERS), max_size=3, unique=True))
    order = draw(st.permutations(range(len(texts))))
    query = draw(st.sampled_from(PHRASINGS)).format(target)
    return [texts[i] for i in order], order.index(0), query


def _own(identifier: str) -> set[str]:
    return set(tokenize(identifier))  # the words BM25 reads: two characters or more


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(case=lookups(), batch=st.booleans())
def test_the_memory_holding_the_identifier_ranks_first(memo, case, batch):
    texts, target, query = case
    for engine in ENGINES:
        with Memory(":memory:", engine=engine, embedder=memo, llm="none") as mem:
            if batch:
                ids = mem.add_many(texts, user_id="u")
            else:
                ids = [mem.add(t, user_id="u") for t in texts]
            found = mem.search(query, user_id="u", k=5)
            assert found[0].id == ids[target], (engine, query, [h.text for h in found])
            recalled = mem.recall(query, user_id="u", k=5, explain=False)
            assert recalled.hits[0].id == ids[target], (engine, query, "recall")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_reported_case(memo, engine):
    texts = [f"Order A{n:03d}X: a note about the {WORDS[n % len(WORDS)]}" for n in range(300)]
    with Memory(":memory:", engine=engine, embedder=memo, llm="none") as mem:
        ids = mem.add_many(texts, user_id="u")
        for query in ("order A035X", "A035X", "what about order A035X?"):
            found = mem.search(query, user_id="u", k=5)
            assert found[0].id == ids[35], (query, [h.text for h in found])
        why = mem.recall("order A035X", user_id="u", k=5).explanations[ids[35]]
        assert 'holds "a035x"' in why


questions = st.lists(st.sampled_from([*WORDS, "how", "many", "classes", "fitness"]), min_size=2)


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(words=questions.map(lambda w: " ".join(w).capitalize() + "?"))
def test_a_question_in_prose_is_ranked_as_without_the_stage(memo, words):
    # a rare word ("fitness", held by one distractor) in prose is no identifier
    texts = [*FILLERS, "My fitness tracker broke.", "Order A035X: the budget refund"]
    for engine in ("hybrid", "synapse"):
        rankings = []
        for lift in (True, False):
            with Memory(
                ":memory:",
                engine=engine,
                embedder=memo,
                llm="none",
                exact_options={"lift": lift},
            ) as mem:
                mem.add_many(texts, user_id="u")
                rankings.append([h.text for h in mem.search(words, user_id="u", k=5)])
        assert rankings[0] == rankings[1], (engine, words)


def test_an_identifier_many_memories_hold_decides_nothing(memo):
    # "ZX" is in six memories (more than max_holders): the engine's own ranking stands
    texts = [f"Locker ZX-{n}0 holds the {w}" for n, w in enumerate(WORDS[:6])] + FILLERS
    rankings = []
    for lift in (True, False):
        with Memory(":memory:", engine="hybrid", embedder=memo, exact_options={"lift": lift}) as m:
            m.add_many(texts, user_id="u")
            rankings.append([h.text for h in m.search("what is in the ZX lockers?", "u", k=5)])
    assert rankings[0] == rankings[1]


def test_min_share_leaves_a_name_on_the_way_to_the_engine(memo):
    # "Zaragoza" is rare, but the question is about a trail recommended, and the reply
    # that answers it does not repeat the name: by default its holder goes first
    # (measured better on the benchmarks); min_share 0.5 keeps the engine's order
    texts = [
        "I want a hike near Zaragoza this weekend, something with views.",
        "Try the Moncayo loop: the trail climbs through beech woods to the summit.",
        *FILLERS,
    ]
    question = "What was the hiking trail you recommended near Zaragoza?"
    first = {}
    for options in ({}, {"lift": False}, {"min_share": 0.5}):
        with Memory(":memory:", engine="synapse", embedder=memo, exact_options=options) as m:
            m.add_many(texts, user_id="u")
            first[str(options)] = [h.text for h in m.search(question, user_id="u", k=3)]
    assert first["{'min_share': 0.5}"] == first["{'lift': False}"]
    assert first["{'lift': False}"][0] == texts[1]
    assert first["{}"][0] == texts[0]


def test_at_most_max_holders_memories_move(memo):
    # three identifiers, each in two memories: six holders, five lifted
    texts = [f"Order ZX{n % 3 + 1}: a note about the {w}" for n, w in enumerate(WORDS[:6])]
    with Memory(":memory:", engine="hybrid", embedder=memo) as mem:
        mem.add_many(texts + FILLERS, user_id="u")
        rec = mem.recall("compare ZX1, ZX2 and ZX3", user_id="u", k=10)
        lifted = [h for h in rec.hits if "holds" in rec.explanations[h.id]]
        assert len(lifted) == 5
        assert rec.hits[:5] == lifted


def test_a_deleted_memory_is_never_lifted(memo):
    with Memory(":memory:", engine="synapse", embedder=memo) as mem:
        ids = mem.add_many(["Order A035X: the refund", "Order A036X: the refund"], user_id="u")
        mem.delete(ids[0], user_id="u")
        assert [h.id for h in mem.search("order A035X", user_id="u", k=5)] == [ids[1]]


def test_every_option_is_declared_and_checked(memo, tmp_path):
    db = tmp_path / "never.db"
    bad: dict[type, list[Any]] = {
        bool: [1, "yes", None],
        int: ["5", 2.5, True, None, 0],
        float: ["0.5", True, None, float("nan"), -0.1, 1.1],
    }
    for option, (kind, _) in declared(ExactConfig).items():
        for value in bad[kind]:
            with pytest.raises(InvalidInputError, match=rf"exact_options: {option} must be"):
                Memory(db, engine="bm25", embedder=memo, exact_options={option: value})
            assert not db.exists()  # refused before anything was opened
    with pytest.raises(InvalidInputError, match=r"exact_options has no options"):
        Memory(db, engine="bm25", embedder=memo, exact_options={"nope": 1})


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("order A035X", ["a035x"]),
        ("what about order A035X?", ["a035x"]),
        ("who is +1 415 555 0134?", ["415", "555", "0134"]),
        ("code ZX-9931", ["zx", "9931"]),
        ("mail dana.silva@example.com now", ["dana", "silva", "example", "com"]),
        ("What did Xiomara tell me?", ["xiomara"]),
        ("my iPhone and the TV", ["iphone", "tv"]),
        ("How many fitness classes do I attend?", []),
        ("I paid 10 dollars for 25 apples", []),  # quantities
        ("What did we do in May? Lisbon was fun.", []),  # a month; a first word
        ("musical artists/bands, at 10:30", []),  # a slash or a colon joins prose too
    ],
)
def test_identifier_tokens(text, tokens):
    assert identifier_tokens(text) == tokens


def test_names_can_be_left_out():
    assert identifier_tokens("what did Xiomara say about A035X?", names=False) == ["a035x"]
