"""The "not in memory" verdict (:mod:`remem.answer.verdict`): its signals read who the
evidence is about and how much of the question it covers, the calibrated model turns
them into ``Recall.absent`` / ``not_in_memory``, and ``Memory.answer`` refuses on it
without calling the reader, per user."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from remem.answer.verdict import (
    CALIBRATED,
    FEATURES,
    NAMED_MIN_MEMORIES,
    PREMISES,
    RELATED_MIN,
    SELF_MIN_MEMORIES,
    judge,
    possessed,
    premises,
    regime,
    signals,
)
from remem.types import Hit
from remem.words import content_keys, word_key
from scripted_llm import ScriptedLLM
from verdict_history import long_history

T0 = datetime(2023, 5, 8, 12, 0, tzinfo=timezone.utc)


def _hits(*lines: tuple[str, str]) -> list[Hit]:
    return [Hit(f"m{i}", text, 1.0, who, T0, None) for i, (who, text) in enumerate(lines)]


# question words weigh nothing here, as their IDF in a real chat history is low
QUESTION_WORDS = {"did", "after", "go"}
BIAS, WEIGHTS, THRESHOLD = CALIBRATED["hybrid"]["named"]
KINDS = ("named", "first_person", "memories")


def _flat(token: str) -> float:
    return 0.0 if token in QUESTION_WORDS else 1.0


def _all_known(token: str) -> bool:
    return True


def _held_by(hits):
    """``known`` for a user whose only memories are ``hits``."""
    keys = set().union(*(content_keys(h.text) for h in hits))
    return lambda token: word_key(token) in keys


# the LoCoMo shape of an unanswerable question: asked about one person, said by the other
RACE = [
    ("Melanie", "I ran a charity race for mental health last Saturday."),
    ("Caroline", "That's great, Melanie! How did it go?"),
]


def test_a_false_premise_is_read_from_who_the_evidence_is_about():
    wrong = signals(
        "What did Caroline realize after her charity race?",
        _hits(*RACE),
        _flat,
        _all_known,
        NAMED_MIN_MEMORIES,
    )
    right = signals(
        "What did Melanie realize after her charity race?",
        _hits(*RACE),
        _flat,
        _all_known,
        NAMED_MIN_MEMORIES,
    )
    # "charity" and "race" of "realize", "charity", "race"
    assert wrong["own"] == 0 and wrong["other"] == pytest.approx(2 / 3)
    assert right["own"] == pytest.approx(2 / 3) and right["other"] == 0
    assert judge(wrong).not_in_memory is True
    assert judge(right).not_in_memory is False
    assert judge(wrong).score > judge(right).score


def test_names_are_not_content_words_and_no_named_person_gives_no_owner_signal():
    s = signals("Where did I run the charity race?", _hits(*RACE), _flat, _all_known)
    assert s["own"] == 0 and s["other"] == 0  # the question names no speaker
    # "charity", "race", and "ran" meets "run" (data/irregular_past.txt)
    assert s["coverage"] == pytest.approx(1.0)


def test_unseen_and_missed_words():
    hits = _hits(
        ("Me", "My dog Biscuit is a three-year-old greyhound."), ("Me", "I have two cats.")
    )
    known = {"old", "cat", "cats", "dog"}.__contains__
    s = signals("How old is my cat?", hits, _flat, known)
    assert s["unseen"] == 0  # both words are in some memory
    assert s["missed"] == pytest.approx(0.5)  # "cat" is, but not in the best sentence
    u = signals("Where did I study at university?", hits, _flat, known)
    assert u["unseen"] == 1.0 and u["coverage"] == 0


def test_idf_weighs_the_question_words():
    hits = _hits(("Me", "My favourite band is Khruangbin."))
    rare = {"film": 5.0, "favourite": 1.0}
    s = signals("What is my favourite film?", hits, lambda t: rare.get(t, 0.0), _all_known)
    assert s["coverage"] == pytest.approx(1 / 6)


def test_no_content_word_or_no_hit_gives_zero_signals():
    values = signals("What is it?", _hits(*RACE), _flat, _all_known)
    assert {f: values[f] for f in FEATURES} == dict.fromkeys(FEATURES, 0.0)
    assert signals("Where is the race?", [], _flat, _all_known)["coverage"] == 0


def test_words_that_ask_are_not_what_a_question_is_about():
    # in a memory that never says "where" or "which", they would be unseen, rare words
    hits = _hits(("Me", "I live in Leeds, in a flat near the canal."))
    s = signals("Where do I live? Which city?", hits, lambda t: 1.0, "live".__eq__)
    assert s["coverage"] == pytest.approx(1 / 2)  # live; city; not where, which
    assert s["unseen"] == pytest.approx(1 / 2)


@pytest.mark.parametrize(
    ("question", "memories", "kind"),
    [
        ("What did Melanie realize after her charity race?", NAMED_MIN_MEMORIES, "named"),
        # a history smaller than the named model was fitted on: not read by it
        ("What did Melanie realize after her charity race?", NAMED_MIN_MEMORIES - 1, "other"),
        ("Where did I run the charity race?", SELF_MIN_MEMORIES, "self"),
        ("Where did I run the charity race?", SELF_MIN_MEMORIES - 1, "small"),
        ("What did my mum cook?", 5000, "self"),
        ("What did the charity race raise money for?", 5000, "other"),
        ("What did Melanie and Caroline do?", 5000, "other"),  # two people named
    ],
)
def test_the_question_decides_which_model_reads_it(question, memories, kind):
    values = signals(question, _hits(*RACE), _flat, _all_known, memories)
    assert regime(values) == kind
    assert judge(values).regime == kind


def test_each_regime_uses_its_own_model():
    base = {"own": 0.0, "other": 0.0, "coverage": 0.2, "unseen": 0.7, "missed": 0.1}
    big = judge({**base, "first_person": 1.0, "memories": float(SELF_MIN_MEMORIES)})
    b, w, t = CALIBRATED["hybrid"]["self"]
    z = b + sum(wi * base[f] for wi, f in zip(w, FEATURES, strict=True))
    assert big.score == pytest.approx(1 / (1 + math.exp(-z)))
    assert big.not_in_memory == (big.score > t)
    # the same signals in a small memory: refused only when nothing speaks to it
    small = judge({**base, "first_person": 1.0, "memories": 10.0})
    assert small.score == pytest.approx(big.score) and small.not_in_memory is False
    nothing = judge({**base, "coverage": 0.0, "first_person": 1.0, "memories": 10.0})
    assert nothing.not_in_memory is True
    # ... by any memory recalled, not only the top three
    deeper = {**base, "coverage": 0.0, "first_person": 1.0, "memories": 10.0}
    assert judge({**deeper, "reach": 0.2}).not_in_memory is False
    assert judge({**deeper, "reach": 0.0}).not_in_memory is True
    # a question of neither kind is scored by the named model and never refused
    other = judge({**base, "coverage": 0.0, "unseen": 1.0})
    assert other.regime == "other" and other.not_in_memory is False


@pytest.mark.parametrize(
    ("question", "heads"),
    [
        ("What is my favourite film?", ["film"]),
        ("What is my brother's name?", ["brother"]),
        ("How old is my cat?", ["cat"]),
        ("What does my partner do for a living?", ["partner"]),
        ("What are my cats called?", ["cats"]),  # "called" is the verb
        ("Where did my older sister move?", ["sister"]),  # after "did": "move" the verb
        ("How many years older is my grandma than me?", ["grandma"]),
        ("Did I tell you about my trip to Kyoto and my dog?", ["trip", "dog"]),
        ("Where do I work?", []),
    ],
)
def test_the_thing_a_question_says_the_user_has(question, heads):
    assert possessed(question) == heads


def test_premises_read_names_and_things_the_memory_does_not_hold():
    hits = _hits(("Me", "My favourite band is Khruangbin."), ("Me", "I went to Kyoto in March."))
    # named by a hit: held; not named: near in meaning or not
    assert premises("What is my favourite band?", hits, _held_by(hits))["premise"] == 0.0
    film = premises(
        "What is my favourite film?", hits, _held_by(hits), lambda w: RELATED_MIN - 0.01
    )
    assert film["premise"] == 1.0
    near = premises("What is my favourite group?", hits, _held_by(hits), lambda w: RELATED_MIN)
    assert near["premise"] == 0.0
    # a capitalised word inside the question that no memory holds is a stranger;
    # days, months and "I" are not names; a stem held by a hit is not a stranger
    never = "Kyoto".lower().__eq__
    assert premises("When did I go to Kyoto?", hits, never)["stranger"] == 0.0
    assert premises("Did I go to Osaka after Kyoto?", hits, never)["stranger"] == 1.0
    assert premises("What did I do on Monday in May, I wonder?", hits, never)["stranger"] == 0.0
    assert premises("Did I like the Kyotos?", hits, lambda t: False)["stranger"] == 0.0


def test_a_premise_said_by_another_of_its_names_is_held():
    """ "my pottery teacher" told of as "the instructor": one WordNet synset; the
    embedding of the one word may not come near enough."""
    hits = _hits(("Me", "The instructor said he'd fire my bowl for me."))
    far = lambda w: RELATED_MIN - 0.01  # noqa: E731
    held = premises("Who was my pottery teacher?", hits, _held_by(hits), far)
    assert held["premise"] == 0.0
    assert premises("Who is my dentist?", hits, _held_by(hits), far)["premise"] == 1.0


def test_a_premise_said_by_a_kind_of_it_is_held():
    """ "my dog" told of as "my whippet": WordNet's noun hierarchy."""
    hits = _hits(("Me", "Biscuit is my whippet and he hates the rain."))
    far = lambda w: RELATED_MIN - 0.01  # noqa: E731
    assert premises("What is my dog called?", hits, _held_by(hits), far)["premise"] == 0.0
    assert premises("What is my cat called?", hits, _held_by(hits), far)["premise"] == 1.0


def test_a_premise_any_memory_names_or_anyone_has_is_held():
    """ "my sister" named in a memory the question did not recall; "my birthday",
    which anyone has (stop 72)."""
    hits = _hits(("Me", "She brought round a dehumidifier as a present."))
    far = lambda w: RELATED_MIN - 0.01  # noqa: E731
    known = {"sister"}.__contains__
    assert premises("What did my sister bring round?", hits, known, far)["premise"] == 0.0
    assert premises("What did my aunt bring round?", hits, known, far)["premise"] == 1.0
    assert premises("What did I get for my birthday?", hits, known, far)["premise"] == 0.0


def test_a_land_the_talk_need_not_name_is_no_stranger():
    """ "the rally in Wales" of a rally near Llandovery; a city unheld still is one,
    and a name with an accent is read whole (stop 72)."""
    hits = _hits(("Me", "The rally is near Llandovery, on a campsite."))
    never = lambda t: False  # noqa: E731
    assert premises("When did I leave for the rally in Wales?", hits, never)["stranger"] == 0.0
    assert premises("What did I order from the shop in Canada?", hits, never)["stranger"] == 0.0
    assert premises("What did I buy in Bristol?", hits, never)["stranger"] == 1.0
    assert premises("Where is Joaquín getting married?", hits, "joaquín".__eq__)["stranger"] == 0.0


def test_a_small_memory_refuses_a_question_whose_premise_it_does_not_hold():
    base = {"own": 0.0, "other": 0.0, "coverage": 0.5, "unseen": 0.5, "missed": 0.0}
    small = {**base, "first_person": 1.0, "memories": 10.0}
    assert judge(small).not_in_memory is False
    assert judge({**small, "premise": 1.0}).not_in_memory is True
    assert judge({**small, "stranger": 1.0}).not_in_memory is True
    # the fitted regimes read their models only
    big = {**small, "memories": float(SELF_MIN_MEMORIES), "coverage": 1.0, "unseen": 0.0}
    assert judge({**big, "premise": 1.0}).not_in_memory is judge(big).not_in_memory is False


def test_a_thing_said_in_other_words_is_held_and_one_never_said_is_not(open_memory):
    """The premise check through the facade, with the real embedder: "my dog" of a
    greyhound is near in meaning, "my favourite film" of a band is not."""
    mem = open_memory()
    mem.add("I adopted a greyhound named Biscuit.", "u", speaker="Me")
    mem.add("My favourite band is Khruangbin.", "u", speaker="Me")
    mem.add("I live in Leeds, near the canal.", "u", speaker="Me")
    dog = mem.recall("What is my dog's name?", "u")
    film = mem.recall("What is my favourite film?", "u")
    lisbon = mem.recall("Which street did I live on in Lisbon?", "u")
    assert dog.details["verdict"]["premise"] == 0.0 and dog.not_in_memory is False
    assert film.details["verdict"]["premise"] == 1.0 and film.not_in_memory is True
    assert lisbon.details["verdict"]["stranger"] == 1.0 and lisbon.not_in_memory is True
    leeds = mem.recall("Which street did I live on in Leeds?", "u")
    assert leeds.not_in_memory is False


def test_judge_is_the_fitted_logistic_model():
    values = {"own": 0.2, "other": 0.9, "coverage": 0.5, "unseen": 0.1, "missed": 0.3}
    values["named"] = 1.0
    values["memories"] = float(NAMED_MIN_MEMORIES)
    z = BIAS + sum(w * values[f] for w, f in zip(WEIGHTS, FEATURES, strict=True))
    v = judge(values)
    assert v.score == pytest.approx(1 / (1 + math.exp(-z)))
    assert v.not_in_memory == (v.score > THRESHOLD) and v.signals == values
    assert judge(values, threshold=1.0).not_in_memory is False
    assert judge(values, threshold=0.0).not_in_memory is True


def _two_people(mem, user="u"):
    long_history(mem, user, T0)  # the named model reads no shorter history
    for who, text in [
        ("Melanie", "I ran a charity race for mental health last Saturday."),
        ("Caroline", "That's great, Melanie! How did it go?"),
        ("Melanie", "It went well. I realized self-care is really important."),
        ("Caroline", "I joined a pottery class last week, I love it."),
    ]:
        mem.add(text, user, speaker=who, timestamp=T0)


def test_recall_exposes_the_verdict_and_answer_refuses_on_it(open_memory):
    llm = ScriptedLLM("self-care is important")
    mem = open_memory(llm=llm)
    _two_people(mem)
    bad = mem.recall("What did Caroline realize after her charity race?", "u")
    good = mem.recall("What did Melanie realize after her charity race?", "u")
    assert bad.not_in_memory is True and good.not_in_memory is False
    assert bad.absent > THRESHOLD >= good.absent
    assert set(bad.details["verdict"]) == {*FEATURES, "reach", *KINDS, *PREMISES}
    assert bad.to_dict()["not_in_memory"] is True and "absent" in bad.to_dict()
    a = mem.answer("What did Caroline realize after her charity race?", "u")
    assert a.refused is True and a.llm_calls == 0 and llm.calls == []
    b = mem.answer("What did Melanie realize after her charity race?", "u")
    assert b.refused is False and b.text == "self-care is important" and len(llm.calls) == 1


def test_the_verdict_can_be_switched_off(open_memory):
    llm = ScriptedLLM("self-care is important")
    mem = open_memory(llm=llm, answer_options={"verdict": False})
    _two_people(mem)
    mem.answer("What did Caroline realize after her charity race?", "u")
    assert len(llm.calls) == 1  # the reader was asked (its reply may still be refused)


def test_the_verdict_reads_only_the_users_own_memories(open_memory):
    mem = open_memory()
    mem.add("I studied physics at the university in Ghent.", "other", speaker="Me")
    mem.add("I have two cats called Miso and Tofu.", "u", speaker="Me")
    mine = mem.recall("Where did I go to university?", "u")
    theirs = mem.recall("Where did I go to university?", "other")
    assert all(h.text != "I studied physics at the university in Ghent." for h in mine.hits)
    # another user's words are not known
    assert mine.details["verdict"]["unseen"] == 1.0 and mine.details["verdict"]["coverage"] == 0
    assert theirs.details["verdict"]["unseen"] < 1.0 and theirs.details["verdict"]["coverage"] > 0


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma", "dense", "bm25"])
def test_a_user_with_no_memories_gets_not_in_memory(open_memory, engine):
    """An empty memory holds nothing: with no hits at all every engine's recall says
    so (``not_in_memory`` and ``refuse``), whatever its confidence model, and the
    answer refuses without asking the reader."""
    llm = ScriptedLLM("1234")
    mem = open_memory(engine=engine, llm=llm)
    mem.add("I have two cats called Miso and Tofu.", "someone", speaker="Me")
    rec = mem.recall("PIN", "nobody")
    assert rec.hits == [] and rec.not_in_memory is True and rec.refuse is True
    assert rec.absent == 1.0
    assert rec.to_dict()["not_in_memory"] is True and rec.to_dict()["refuse"] is True
    ans = mem.answer("What is my PIN?", "nobody")
    assert ans.refused is True and llm.calls == []


def test_a_search_that_finds_nothing_gets_not_in_memory(open_memory):
    """A user with memories, none of which a lexical search finds: no evidence."""
    mem = open_memory(engine="bm25")
    mem.add("I have two cats called Miso and Tofu.", "u", speaker="Me")
    rec = mem.recall("PIN", "u")
    assert rec.hits == [] and rec.not_in_memory is True and rec.refuse is True
