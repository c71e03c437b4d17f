"""SYNAPSE's lexical share adapts to the question (``lexical_peak``): a question whose
words many memories share has a flat BM25 ranking, and the dense channel decides."""

from __future__ import annotations

import numpy as np
import pytest

from remem import InvalidInputError
from remem.engines.synapse.engine import lexical_share

# -- the rule ------------------------------------------------------------------------


def test_a_distinctive_best_match_keeps_the_full_share():
    top = np.array([10.0, 4.0, 3.0, 2.0])  # peak 1 - 2/10 = 0.8 >= 0.7
    assert lexical_share(top, 4, 0.3, 0.7) == pytest.approx(0.3)


def test_a_flat_ranking_shrinks_the_share_in_proportion():
    top = np.array([10.0, 9.5, 9.0, 8.6])  # peak 0.14
    assert lexical_share(top, 4, 0.3, 0.7) == pytest.approx(0.3 * 0.14 / 0.7)


def test_equal_matches_leave_no_lexical_share():
    assert lexical_share(np.full(5, 3.0), 5, 0.3, 0.7) == 0.0


@pytest.mark.parametrize(
    "top, depth, peak",
    [
        (np.array([10.0, 9.9]), 4, 0.7),  # fewer matches than anchors: a distinctive word
        (np.array([10.0, 9.9, 9.9, 9.9]), 4, 0.0),  # 0 = off
        (np.zeros(0), 4, 0.7),  # no match at all
    ],
)
def test_full_share_where_the_peak_says_nothing(top, depth, peak):
    assert lexical_share(top, depth, 0.3, peak) == 0.3


def test_the_peak_is_checked(open_memory):
    with pytest.raises(InvalidInputError, match="lexical_peak"):
        open_memory(":memory:", "synapse", engine_options={"lexical_peak": 1.5})


# -- through the public API ------------------------------------------------------------

NOISE = [
    "I told my sister I would watch her kids tonight while she is at work.",
    "Can you recommend a good plumber? The kitchen sink is leaking again.",
    "My manager asked me to recommend someone for the open analyst position.",
    "I have to watch the oven tonight, the bread takes two hours to bake.",
    "Tonight I am finally cleaning out the garage.",
    "The doctor would recommend more sleep, but tonight I have a deadline.",
    "I need to watch my budget this month after the car repair.",
    "Could you recommend a cheap gym near my office?",
]
OTHER = [
    "The train to Boston was delayed by forty minutes this morning.",
    "I repainted the fence in the back yard last weekend.",
    "My cousin is getting married in Lisbon next June.",
    "I started learning Spanish with an app on my phone.",
]
EVIDENCE = "I'm an aspiring stand-up comedian, and I never miss a new comedy special on Netflix."
QUESTION = "Can you recommend a show or movie for me to watch tonight?"


def _rank_of(open_memory, option: str, value, noise: list[str], evidence: str, q: str) -> int:
    """Where ``evidence`` ranks for ``q`` among ``noise`` and :data:`OTHER` with one
    lexical ``option`` set. Five anchors, so that a few memories holding the question's
    words fill the lexical anchors; no graph, so the similarity term alone decides."""
    options = {option: value, "anchors": 5, "graph": False}
    mem = open_memory(":memory:", "synapse", engine_options=options)
    mem.add_many([{"text": t} for t in noise + OTHER + [evidence]], user_id="u")
    texts = [h.text for h in mem.search(q, user_id="u", k=len(noise) + len(OTHER) + 1)]
    return texts.index(evidence)


def _rank(open_memory, peak: float) -> int:
    return _rank_of(open_memory, "lexical_peak", peak, NOISE, EVIDENCE, QUESTION)


def test_a_generic_request_leans_on_meaning_not_on_its_common_words(open_memory):
    """Every noise memory holds "recommend", "watch" or "tonight"; the comedian's
    turn holds none of them. With the fixed share the shared words carry the noise
    above it; with the adaptive share it climbs."""
    assert _rank(open_memory, 0.7) < _rank(open_memory, 0.0)


# -- inflected forms (``lexical_inflections``) -----------------------------------------

FITNESS_NOISE = [
    "I bought new running shoes for the fitness challenge at work.",
    "My fitness tracker says I walked twelve thousand steps yesterday.",
    "The gym changed its opening hours for the holidays.",
    "I want to attend the fitness expo downtown in March.",
    "My neighbour teaches at the community centre on weekends.",
    "I signed up for the fitness newsletter of my gym.",
]
CLASS_EVIDENCE = "By the way, I go to a BodyPump class every Tuesday evening."
CLASS_QUESTION = "How many fitness classes do I attend in a typical week?"


def _class_rank(open_memory, inflections: bool) -> int:
    return _rank_of(
        open_memory,
        "lexical_inflections",
        inflections,
        FITNESS_NOISE,
        CLASS_EVIDENCE,
        CLASS_QUESTION,
    )


def test_a_question_in_the_plural_finds_the_memory_in_the_singular(open_memory):
    """The question asks about "classes", the memory says "class": as written, the
    lexical channel sees no shared word and the memories that say "fitness" and
    "attend" outrank it; with inflected forms matched it climbs."""
    assert _class_rank(open_memory, True) < _class_rank(open_memory, False)


def test_the_inflections_switch_is_checked(open_memory):
    with pytest.raises(InvalidInputError, match="lexical_inflections"):
        open_memory(":memory:", "synapse", engine_options={"lexical_inflections": "yes"})


# -- asking words (``lexical_asking``) ---------------------------------------------------

ASKING_NOISE = [
    "How many kettles did I buy last year? Many, and what did they cost?",
    "How much tea did I inherit from the old shop? Many boxes, I think.",
    "How many mugs did I break? What a clumsy month; many did not survive.",
    "What did I inherit from my uncle? How many stamps, how many coins?",
]
TEAPOT_EVIDENCE = "The porcelain teapot on my shelf was my grandmother's."
TEAPOT_QUESTION = "How many teapots did I inherit?"


def _teapot(open_memory, asking: bool) -> int:
    return _rank_of(
        open_memory, "lexical_asking", asking, ASKING_NOISE, TEAPOT_EVIDENCE, TEAPOT_QUESTION
    )


def test_the_words_that_make_a_question_do_not_match_memories(open_memory):
    """The noise memories repeat the question's asking words ("how", "many", "did");
    kept (bm25s' words), those lift a memory about tea above the teapot; left out (the
    default), the teapot memory, which shares only "teapot(s)" with the question,
    ranks first."""
    dropped = _teapot(open_memory, False)
    kept = _teapot(open_memory, True)
    assert dropped == 0 and dropped < kept


def test_a_query_of_asking_words_only_still_matches_them(open_memory):
    mem = open_memory(":memory:", "synapse", engine_options={"graph": False})
    mem.add_many([{"text": t} for t in OTHER + ["When, and how?"]], user_id="u")
    assert mem.search("when how", user_id="u", k=1)[0].text == "When, and how?"
