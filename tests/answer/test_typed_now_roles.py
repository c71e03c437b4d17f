"""Who holds a role now, what a rate is now, and a name of someone said unnamed
(stop 73, from blind sets 86-92).

- "per call" is no kind word ("called" is): the memory raising the rate to "nine
  pounds a call" speaks to "How much ... per call these days?".
- "How much rent am I paying...?" asks a sum, as "How much rent do I pay?" does.
- A reply names what its asking turn asked: "Do you know who'll be Ada's piano
  teacher after Mrs Feld retires?" / "It's a Mr Okonjo" tells the teacher now.
- Asked who handles a thing now ("my claim"), the newest memory naming the thing.
- A first name answered is given as the memories give it in full.
- The apprentice spoken of without a name has none: a name from a memory that does
  not speak of the apprentice is not theirs.
- A colour of two words WordNet holds ("bottle green"), the one a choosing verb takes.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.types import Hit

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 3, 2, 9, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few months
TALK = [
    (0, "user", "The hospice charity pays volunteer drivers six pounds a call, which "
                "barely covers the diesel."),
    (0, "user", "Her piano teacher, Mrs Feld, says Ada is ready for grade three."),
    (0, "user", "The allotment shed is £40 a month, paid to Brian in cash."),
    (2, "user", "Someone reversed into my car at the station. The claim handler is a man "
                "called Piers Aldous, and he's been quick so far."),
    (4, "user", "At the society AGM a woman called Marta Quilliam took over as "
                "treasurer. She used to audit charities."),
    (9, "user", "We had to choose the cover colour for the anthology. It was between "
                "navy and bottle green."),
    (20, "user", "Navy is what every small press does, so I went with bottle green."),
    (23, "user", "My garden wall fell down in the storm."),
    (23, "assistant", "Who's doing the wall?"),
    (23, "user", "Priya from the insurers sent me a list of approved builders, but Tom "
                 "recommended a stonemason called Dunstan Hale who did his mum's garden, "
                 "and Priya said that's fine."),
    (30, "user", "Mrs Feld told us she's retiring at Easter, which is sad."),
    (38, "user", "The claim has been passed to a woman called Wen Ashby."),
    (41, "user", "Dunstan and his apprentice rebuilt the wall in two days. The "
                 "apprentice is a quiet lad who barely said a word."),
    (45, "assistant", "Do you know who'll be Ada's piano teacher after Mrs Feld retires?"),
    (45, "user", "It's a Mr Okonjo, who's been covering lessons since January."),
    (50, "user", "Sore and weirdly proud after the charity fun run. Gwen drove the "
                 "minibus all day and still beat me to the cake stall. And there was good "
                 "news at the depot: the trustees raised the allowance, so it's nine "
                 "pounds a call from this month."),
    (52, "user", "Brian has put the rent up to £55 a month from June, grumble grumble."),
    (60, "user", "Marta says she's staying on as treasurer for another year."),
]  # fmt: skip

NOW = T0 + timedelta(days=70)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "nr", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "nr", now=NOW).text


def test_a_rate_per_call_is_read_from_the_memory_saying_a_call(talk):
    answer = _ask(talk, "How much does the hospice pay me per call these days?")
    assert "nine" in answer and "six" not in answer


def test_how_much_rent_am_i_paying_asks_a_sum(talk):
    answer = _ask(talk, "How much rent am I paying for the allotment shed now?")
    assert "55" in answer and "40" not in answer


def test_a_reply_names_the_role_its_asking_turn_asked(talk):
    answer = _ask(talk, "Who is Ada's piano teacher at the moment?")
    assert "Okonjo" in answer and "Feld" not in answer


def test_who_handles_a_thing_now_is_read_by_the_thing(talk):
    answer = _ask(talk, "Who is handling my car insurance claim now?")
    assert "Ashby" in answer and "Aldous" not in answer


def test_a_first_name_answered_is_given_in_full(talk):
    assert _ask(talk, "Who's the society treasurer now?") == "Marta Quilliam"


def test_someone_spoken_of_without_a_name_has_none(talk):
    answer = _ask(talk, "What's the name of the apprentice who helped with the wall?")
    assert "Hale" not in answer and "Priya" not in answer and "Tom" not in answer


def test_a_colour_of_two_words_taken_by_the_choosing_verb(talk):
    assert "bottle green" in _ask(talk, "What colour did I pick for the anthology's cover?")


def test_in_full_gives_the_one_longer_name():
    from remem.answer.naming import in_full

    def hit(text):
        return Hit("h", text, 1.0, "user", T0, "s0")

    said = [hit("A man called Malcolm Greaves is taking over as stage manager.")]
    assert in_full("Malcolm", said) == "Malcolm Greaves"
    assert in_full("Malcolm", [*said, hit("Malcolm Reid came too.")]) == "Malcolm"
    assert in_full("Greaves", said) == "Greaves"


def test_a_name_set_off_by_commas_after_a_noun_is_given_as_one():
    from remem.answer.typed import _given_as_name

    doc = nlp.parse("There's a guy in the league, Ray Castellanos, who's restored ten machines.")
    ray = next(e for e in doc.ents if e.text.startswith("Ray"))
    assert _given_as_name(ray)
    doc = nlp.parse("Jonah is deeply jealous.")
    assert not _given_as_name(doc[0:1])


def test_someone_said_without_a_name_is_told_apart_from_one_named():
    from remem.answer.typed import _said_unnamed

    def source(text):
        return (Hit("h", text, 1.0, "user", T0, "s0"), 0.0, 0)

    quiet = source("Dunstan and his apprentice rebuilt the wall. The apprentice barely spoke.")
    assert _said_unnamed("apprentice", [quiet])
    assert not _said_unnamed("apprentice", [source("His apprentice, Ollie Brand, did the coping.")])
    assert not _said_unnamed("pub", [source("We deliver to a pub on the front.")])  # no person
