"""The typed reader on the shapes of check sets 39-43 (stop 65): someone asked by
their trade, a sum asked by its noun, digits that number a thing, a sentence naming
someone a pronoun then says is what is asked, a reply opening with its bare answer,
a value changed beside an unrelated change, and words that only keep a chat going.
Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from answer_cases import asked
from remem.answer import nlp
from remem.answer.reader import REFUSAL
from remem.answer.spans import _priced, thing
from remem.answer.typed import _asking_part
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


def _asked(embedder, engine: str, talk, question: str, day: int = 30):
    """``question``'s answer from a Memory holding ``talk`` (day, speaker, text)."""
    return asked(embedder, engine, "u", talk, question, T0, day)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which electrician redid the wiring in my house?", "person"),
        ("Which friend of mine has been helping me rebuild the motorbike?", "person"),
        # of beekeepers: no one, an association (stop 68: an organisation, asked past
        # the plural possessive)
        ("Which beekeepers' association did I join?", "org"),
        ("What kind of teacher is she?", "thing"),  # a kind, not a name
        ("What's the total budget for my house renovation now?", "money"),
        ("What price did I pay for the old Triumph?", "money"),
        ("How much monthly rent do I pay for the Mill Row shop?", "money"),
    ],
)
def test_the_noun_asked_by_says_the_kind(question, kind):
    assert wanted(as_question(question)).kind == kind


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_someone_asked_by_their_trade_is_named(embedder, engine):
    """ "Which electrician...?" asks who: the name, not "every single cable"; and
    refuses when the electrician was never named."""
    talk = [
        (0, "user", "The rewiring starts on Monday. Declan doesn't do electrics himself, so "
         "he's brought in a sparky he trusts, Piotr Nowacki, to redo every single cable."),
    ]  # fmt: skip
    asked = "Which electrician is doing the rewiring?"
    assert "Nowacki" in _asked(embedder, engine, talk, asked).text
    unnamed = [(0, "user", "The rewiring starts on Monday: every single cable is to go.")]
    a = _asked(embedder, engine, unnamed, asked)
    assert a.refused and a.text == REFUSAL, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_digits_that_number_the_thing_asked(embedder, engine):
    """ "Sail number 2316", which the tagger calls a date, answers "What number...?"."""
    talk = [
        (0, "user", "I bought the Laser Pico. Sail number 2316, which Tobias says is a good "
         "omen. It took about fourteen emails to agree a price."),
    ]  # fmt: skip
    a = _asked(embedder, engine, talk, "What number is on the sail of the dinghy I bought?")
    assert a.text == "2316", a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_changed_sum_beside_an_unrelated_change(embedder, engine):
    """ "the budget is now £61,500. I've ... sold my motorbike": the sale replaced no
    budget, so the sentence before it is read for the current budget."""
    talk = [
        (0, "user", "We agreed a budget of £48,000 for the lot: kitchen, rewiring and damp."),
        (60, "user", "Declan's redone all the numbers and the budget is now £61,500. "
         "I've dipped into my savings and sold my motorbike."),
    ]  # fmt: skip
    a = _asked(embedder, engine, talk, "What's the total budget for my renovation now?", 61)
    assert "61,500" in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_pronoun_says_who_the_sentence_before_named(embedder, engine):
    """ "A paramedic called Rhiannon Voss. She's my mentor": the name is the mentor's,
    not "Mum" of a sentence sharing "first"; "He said it had been his brother-in-law's"
    names no brother."""
    talk = [
        (0, "user", "A paramedic called Rhiannon Voss. She's been on the road eighteen "
         "years and she's my mentor for the first six months."),
        (40, "user", "I saw Mum holding a sign at the finish of my first marathon."),
    ]  # fmt: skip
    a = _asked(embedder, engine, talk, "Who mentored me when I first started?", 41)
    assert "Voss" in a.text, a.text
    sold = [
        (0, "user", "An old chap called Percival Ashdown sold me the caravan. He said it "
         "had been his brother-in-law's."),
    ]  # fmt: skip
    a = _asked(embedder, engine, sold, "What is my brother's name?")
    assert a.refused, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_pronoun_doing_what_is_asked(embedder, engine):
    """ "A little silver Yaris. It drives like a dream": what drives is the car."""
    talk = [
        (0, "assistant", "Did you get a new car in the end?"),
        (0, "user", "I did! A little silver Yaris, eight years old. It drives like a dream."),
    ]
    assert "Yaris" in _asked(embedder, engine, talk, "What car do I drive now?").text


def test_a_small_number_word_prices_nothing():
    """ "they've got one in their spring sale" prices no bike; "It was 650" does."""
    sale = nlp.parse("I've been eyeing up a Ribble gravel bike, they've got one in their sale.")
    one = next(e for e in sale.ents if e.text == "one")
    assert not _priced(one)
    paid = nlp.parse("It was 650 in the end.")
    assert _priced(next(e for e in paid.ents if e.text == "650"))


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_reply_opening_with_its_bare_answer_goes_on_about_it(embedder, engine):
    """ "Madeira. Dominic has booked twelve nights": the reply's second sentence speaks
    to the honeymoon asked of as much as its first."""
    talk = [
        (0, "assistant", "What a beautiful thing to pass down. And the honeymoon, have they "
         "decided where?"),
        (0, "user", "Madeira. Dominic has booked twelve nights at a quinta above Funchal."),
    ]  # fmt: skip
    a = _asked(embedder, engine, talk, "How long was the newlyweds' honeymoon?")
    assert a.text == "twelve nights", a.text


def test_thanks_is_no_thing():
    """ "Thanks, Dave!" tells nothing of what the tour was like."""
    q = as_question("What does Calvin find energizing during the tour?")
    sent = nlp.parse("Thanks, Dave! The tour has been great.")
    thanks = sent[0:1]
    assert not thing(thanks, q.keys, wanted(q))


def test_a_reply_answers_the_question_its_turn_ends_with():
    """ "Hey Calvin, how's the tour? I was pondering our chat about fame. How are you
    juggling it all?": the reply answers the juggling, not every word of the turn."""
    turn = (
        "Hey Calvin, how's the tour with Frank Ocean? I was pondering our chat about fame. "
        "How are you juggling it all?"
    )
    assert _asking_part(turn) == "I was pondering our chat about fame. How are you juggling it all?"
    assert _asking_part("Great news about the shop.") == "Great news about the shop."


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_what_was_lost_is_a_thing_one_can_hold(embedder, engine):
    """ "What did Tobias lose to the seabed?": the prescription sunglasses, not the
    eighty quid they were worth (a thing lost, given or found is a physical one)."""
    talk = [
        (0, "user", "Sailing's keeping me sane. I was crewing for Tobias in his Laser 2000, "
         "we gybed badly off the point and both ended up in the water, and his prescription "
         "sunglasses went straight to the bottom. Eighty quid's worth of lenses somewhere "
         "off Porthcarrow beach."),
        (0, "assistant", "Oh no! Did he take it well?"),
    ]  # fmt: skip
    a = _asked(embedder, engine, talk, "What did Tobias lose to the seabed when we went in?")
    assert "sunglasses" in a.text, a.text
