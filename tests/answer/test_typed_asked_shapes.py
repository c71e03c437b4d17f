"""What a question asks, read from shapes the parser misreads or the first rules missed
(stop 68): a sum asked with "What do I pay/charge", a rate by its time, "Which
boaters' club", "Which of my breads", a measure or a count asked by its noun, an
object asked first, "What is my gran lending me"; and what the reader makes of the
memories: a unit that repeats the question's, a name glued across a dash, a noun
brought in before it is told, the asked noun described in the question's own words,
a name tied to the noun asked by its memory or the turns before it, a name spoken to,
and recall's first memory read when it shares no word. Real spaCy pipeline, real
Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp, spans
from remem.answer.naming import addressed
from remem.answer.reader import REFUSAL
from remem.answer.typed import _brings_in
from remem.answer.want import wanted
from remem.question import as_question
from remem.words import word_key

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 3, 2, 19, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "My Spanish tutor charges £26 an hour, which is fair for one-to-one."),
    (0, "user", "The boat is a 62-foot widebeam, built in 2004 on the Trent."),
    (3, "user", "I had a strange problem at the bank this morning. The cash machine "
                "swallowed my card and the branch was shut."),
    (7, "user", "I watched a film last night that made me cry, I think it was called "
                "'Aftersun'. Then I started a new jigsaw."),
    (10, "user", "I'm a member of a walking club now, the Wrekin Ramblers, every Sunday."),
    (14, "user", "Tutor update: she's put her rate up, it's £30 an hour from this month."),
    (15, "user", "My line manager is Derek Foulds, who has run the depot for years."),
    (16, "user", "So we've booked Pendle Social Club instead, it was half the price."),
    (17, "user", "Our old greyhound raced 38 times at Romford and won nine, before she "
                 "retired to our sofa."),
    (17, "user", "The boat's a 1989 narrowboat. Her name is the Slow Heron, which I "
                 "might change one day."),
    (17, "user", "My cat hates the engine noise, she hides under the duvet."),
    (17, "user", "We had lunch by the sea: Anders and the twins, me, Dad, and Marta came."),
    (18, "user", "Derek retires at Easter, and from April my line manager will be Anjali "
                 "Mistry, who's moving across from the Leeds office."),
]  # fmt: skip

NOW = T0 + timedelta(days=20)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "mo", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "mo", now=NOW).text


@pytest.mark.parametrize(
    "question",
    [
        "What do I charge for a country loaf these days?",
        "What do I pay per month for the garage now?",
        "What did the repair cost?",
        "What's my tutor's hourly rate these days?",
    ],
)
def test_a_sum_asked_without_how_much(question):
    assert wanted(as_question(question)).kind == "money"


@pytest.mark.parametrize("question", ["What did I pay attention to?", "What is her heart rate?"])
def test_no_sum_is_asked_by_paying_attention_or_a_heart_rate(question):
    assert wanted(as_question(question)).kind != "money"


def test_the_noun_asked_past_a_plural_possessive_or_which_of():
    club = wanted(as_question("Which boaters' club am I a member of?"))
    assert (club.kind, club.head) == ("org", "club")
    # a singular possessive is the one asked: "Which college's students...?"
    college = wanted(as_question("Which college's students are cooking the food?"))
    assert (college.kind, college.head) == ("org", "college")
    bread = wanted(as_question("Which of my breads has turned out to be the quickest seller?"))
    assert (bread.head, bread.many) == ("bread", False)


def test_a_measure_or_a_count_asked_by_its_noun():
    assert wanted(as_question("What's the length of my boat in feet?")).kind == "length"
    assert wanted(as_question("What was my record count of bats at the church?")).kind == "number"


def test_an_object_asked_first_and_a_doing_in_progress():
    # the small parser reads "bike" as a second subject of "end"
    assert wanted(as_question("Which road bike did I end up buying?")).role == ("buy", "object", "")
    # "is" helps "lending": what is lent is asked, not a kind of gran
    lent = wanted(as_question("What is my gran lending me to wear on the day?"))
    assert (lent.kind, lent.role) == ("thing", ("lend", "object", ""))
    # a noun the tagger calls a verb is the noun asked, by its part
    assert wanted(as_question("Which workmate found me my bike?")).kind == "person"


def test_an_irregular_plural_meets_its_singular():
    assert word_key("feet") == word_key("foot")
    assert word_key("children") == word_key("child")


def test_no_name_runs_over_a_dash_between_words():
    doc = nlp.parse("In the end I didn't go for the Halden - Tobias found me a Corsair.")
    assert not [e for e in doc.ents if "-" in e.text]
    dated = nlp.parse("The 28th of June - the Three Weirs Triathlon in Bewdley.")
    assert ("The 28th of June", "DATE") in [(e.text, e.label_) for e in dated.ents]


def test_a_noun_brought_in_before_it_is_told():
    said = nlp.parse("I had a strange problem at the bank this morning.")
    assert _brings_in(said, "problem")
    assert not _brings_in(nlp.parse("The problem that broke it was the fuse."), "problem")


def test_the_sum_and_the_measure_are_read(talk):
    assert "30" in _ask(talk, "What's my tutor's hourly rate these days?")
    assert "62" in _ask(talk, "What's the length of my boat in feet?")


def test_the_next_sentence_tells_what_was_brought_in(talk):
    assert "cash machine" in _ask(talk, "What strange problem did I have at the bank?")


def test_the_name_beats_the_noun_asked_in_the_questions_words(talk):
    assert "Aftersun" in _ask(talk, "What film made me cry?")


def test_the_club_asked_past_a_plural_possessive(talk):
    assert "Wrekin Ramblers" in _ask(talk, "Which walkers' club am I a member of?")


def test_a_name_said_of_someone_is_a_persons_whatever_its_label():
    doc = nlp.parse("From July my supervising partner will be Anjali Mistry, who's moving.")
    run = next(r for r in spans._proper_runs(doc[:]) if "Mistry" in r.text)
    assert spans._unnamed(run)


def test_a_name_spoken_to_is_the_listeners():
    vocative = nlp.parse("That's brilliant, Niamh, congratulations!")
    assert addressed(next(e for e in vocative.ents if e.text == "Niamh"))
    reply = nlp.parse("Ines Duarte.")
    assert not addressed(reply[0:2])


def test_the_newest_memory_names_who_holds_a_role_now(talk):
    assert "Mistry" in _ask(talk, "Who is my line manager now?")


def test_a_venue_answers_which_place(talk):
    assert "Pendle" in _ask(talk, "Which place did we book for the party?")


def test_a_count_is_no_sum():
    count = wanted(as_question("What's the maximum number of people we're having?"))
    assert (count.kind, count.head) == ("number", "")
    money = next(e for e in nlp.parse("The budget is £5,200 all in.").ents if e.label_ == "MONEY")
    assert not spans._fits(money, count)


def test_times_a_doing_was_done_counts_it(talk):
    assert "38" in _ask(talk, "How many races did our greyhound run?")


def test_a_name_asked_of_a_noun_its_memory_never_says_is_refused(talk):
    # "Her name is the Slow Heron" is the boat's: no memory names the cat
    assert _ask(talk, "What is my cat called?") == REFUSAL
    # "Anders and the twins, me, Dad" names no father
    assert _ask(talk, "What is my father's first name?") == REFUSAL


def test_a_house_number_is_no_sum_and_a_plot_number_no_count():
    doc = nlp.parse("We viewed a second place on Saturday, 14 Blackthorn Close, near the park.")
    number = next(e for e in doc.ents if e.text == "14")
    assert not spans._priced(number)
    plot = wanted(as_question("What's the number of my allotment plot now?"))
    assert (plot.kind, plot.head) == ("number", "number")


#: a name given a few turns after the noun it names, and one given to "a man"
NAMED_LATER = [
    (0, "user", "Big news: I've adopted a cat at last!"),
    (0, "assistant", "Oh, tell me everything!"),
    (0, "user", "He's called Pistachio. He'd been living under the shed for weeks."),
    (3, "user", "The van's gearbox is shot, so it needs a man called Dermot Quill, who "
                "apparently is the only one round here who knows old Transits."),
]  # fmt: skip


def test_a_name_is_tied_to_the_noun_said_in_the_turns_before(embedder):
    with remembered(embedder, "synapse", "pat", NAMED_LATER, T0) as mem:
        ask = mem.answer
        assert "Pistachio" in ask("What is my cat called?", "pat", now=T0 + timedelta(days=5)).text
        fixer = ask("What is the name of the mechanic fixing my van?", "pat", now=NOW)
        assert "Dermot Quill" in fixer.text
