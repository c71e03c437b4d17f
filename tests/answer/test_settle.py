"""The settling rules (:mod:`remem.answer.settle`) called directly: a reply cleaned of
its framing, refusals recognised, dates found, a restated question dropped, and the
premise and grounding checks. How the reader applies them (each an ``answer_options``
switch) is tested in test_reader.py."""

from __future__ import annotations

import pytest

from answer_cases import NECKLACE, WHERE
from remem.answer.settle import (
    REFUSAL,
    about,
    asked_keys,
    clean,
    date_span,
    degenerate,
    drop_restatement,
    grounded_share,
    is_refusal,
    misattributed,
    settle,
    word_list,
)
from remem.words import is_temporal

# -- cleaning a reply, recognising a refusal -------------------------------------------


@pytest.mark.parametrize(
    ("reply", "text"),
    [
        ("Answers vary by person", "Answers vary by person"),  # not a preamble
        ("A red car", "A red car"),
        ("Time: 10:30", "10:30"),
        ("No, she does not", "No, she does not"),
        ("[8 May 2023]", "8 May 2023"),  # a note's date alone, kept for a time question
        ("The answer is: [8 May 2023] Ana: [8 May 2023]", "8 May 2023"),
        ("The answer is: The answer is: The answer is:", ""),
        ("The answer to the question is: [8 May 2023] Ana:", ""),  # nothing said
    ],
)
def test_clean_keeps_answers_and_strips_only_framing(reply, text):
    assert clean(reply) == text


def test_clean_and_is_refusal():
    assert clean("") == ""
    assert clean("Answer: Paris\nmore") == "Paris"
    assert clean("Apples") == "Apples"  # a leading "A" word is not an "A:" prefix
    assert is_refusal("") and is_refusal("  ")
    assert is_refusal("That is not in memory")
    assert not is_refusal("Paris")


def test_a_lone_echoed_date_answers_only_a_question_about_time():
    context = "[8 May 2023] Ana: My sister moved to Paris last spring."
    assert settle("The answer is: [8 May 2023]", "When did she move?", context, 0.5) == (
        "8 May 2023",
        False,
    )
    assert settle("The answer is: [8 May 2023]", "Where does she live?", context, 0.5) == (
        REFUSAL,
        True,
    )


def test_framing_words_do_not_fail_the_grounding_check():
    """ "answer", "date" and the like frame a reply; they are no claim about the user,
    so a grounded reply wrapped in them is not refused (it was, before)."""
    context = "[8 May 2023] Ana: My sister moved to Paris last spring."
    assert settle("The answer is: Paris", WHERE, context, 0.5) == ("Paris", False)
    assert settle("The date of the move is 8 May 2023.", "When?", context, 0.5)[1] is False
    assert settle("The answer is: Lisbon", WHERE, context, 0.5) == (REFUSAL, True)


# -- dates and restatements ------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "temporal"),
    [
        ("When did Ana's sister move to Paris?", True),
        ("What year did she graduate?", True),
        ("How long ago did they meet?", True),
        ("How many weeks was the trip?", True),
        ("What is the name of Ana's dog?", False),
        ("Where does Ana's sister live?", False),
        ("Whenever is not a question word", False),
    ],
)
def test_is_temporal(question, temporal):
    assert is_temporal(question) is temporal


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("Ana moved to Paris on 8 May 2023.", "8 May 2023"),
        ("The date of the move is May 8, 2023.", "May 8, 2023"),
        ("She left the week before 9 June 2023, I think", "the week before 9 June 2023"),
        ("last Friday of June 2023", "last Friday of June 2023"),
        ("2023-09-13 23:13:53", "13 September 2023"),  # written as the notes write dates
        ("She went camping in July.", "July"),
        ("In 2022 she went", "2022"),
        ("It was in the spring of 2024", "spring of 2024"),
        ("around late June 2023", "late June 2023"),
        ("She may go to Paris", ""),  # "may" alone is no date
        ("Ana moved to Paris", ""),
        ("He picked up a 1974 Honda CB360", ""),  # a make's year, no time
        ("I bought a 2019 Corolla in March 2020", "March 2020"),
        ("Back in 1974 they lived in Leeds", "1974"),
    ],
)
def test_date_span(text, span):
    assert date_span(text) == span


@pytest.mark.parametrize(
    ("text", "question", "answer"),
    [
        (
            "The name of Ana's teacher is Ines Duarte.",
            "What is the name of Ana's teacher?",
            "Ines Duarte.",
        ),
        ("The club that John supports is Porto.", "Which club does John support?", "Porto."),
        ("Ana's favourite tea was genmaicha", "What is Ana's favourite tea?", "genmaicha"),
        ("Ana's sister is in Paris", "Who lives in Paris?", "Ana's sister is in Paris"),
        ("No, the cat is black", "Is the cat white?", "No, the cat is black"),
        ("She is in Paris", "Where is she?", "She is in Paris"),  # pronouns say nothing
        ("Ines Duarte", "Who teaches Ana?", "Ines Duarte"),
        (
            "The name of the pup that was adopted by James is Ned.",
            "What is the name of the pup that was adopted by James?",
            "Ned.",
        ),
    ],
)
def test_drop_restatement(text, question, answer):
    assert drop_restatement(text, question) == answer


# -- the premise check: an answer about someone else is no answer ---------------------


@pytest.mark.parametrize(
    ("answer", "question", "wrong"),
    [
        ("Sweden", "What country is Melanie's grandma from?", True),  # Caroline's grandma
        ("Sweden", "What country is Caroline's grandma from?", False),
        ("a pottery class", "What class did Caroline join?", True),  # Melanie's class
        ("a pottery class", "What class did Melanie join?", False),
        ("Sweden", "Where is the grandma from?", False),  # names nobody
        ("Sweden", "Did Caroline tell Melanie about Sweden?", False),  # names both
        ("Yes", "Is Melanie's grandma from Sweden?", False),  # no words of its own
        ("Lisbon", "What country is Melanie's grandma from?", False),  # grounding's job
    ],
)
def test_misattributed(answer, question, wrong):
    assert misattributed(answer, question, NECKLACE) is wrong


def test_second_person_lines_belong_to_the_listener_and_mixed_lines_to_nobody():
    lines = [("Caroline", "Wow, your marathon medal looks great!")]  # about Melanie
    both = [*lines, ("Melanie", "Hi Caroline")]
    assert misattributed("a marathon medal", "What medal did Caroline win?", both) is True
    assert misattributed("a marathon medal", "What medal did Melanie win?", both) is False
    mixed = [("Caroline", "I love your marathon medal!"), ("Melanie", "Hi Caroline")]
    assert misattributed("a marathon medal", "What medal did Caroline win?", mixed) is False
    # with a third speaker "your" has no single referent: no verdict
    three = [*lines, ("Melanie", "Hi"), ("Jon", "Hey")]
    assert misattributed("a marathon medal", "What medal did Caroline win?", three) is False


# -- the grounding check: the verification rule enforced --------------------------------


def test_grounded_share_exemptions():
    context = "[8 May 2023] Ana: My sister moved to Paris last spring."
    # words of the question itself, numbers, time words and stopwords do not count
    assert grounded_share("Lisbon", "Did she move to Lisbon?", context) == 1.0
    assert grounded_share("2023", "When?", context) == 1.0
    assert grounded_share("last year, in June", "When?", context) == 1.0
    assert grounded_share("the", "When?", context) == 1.0
    # stems: "moving" ~ "moved", "sisters" ~ "sister"
    assert grounded_share("sisters moving", "Who?", context) == 1.0
    # the speaker name and the date line are part of the context
    assert grounded_share("Ana", "Who?", context) == 1.0
    assert grounded_share("Lisbon Paris", "Where?", context) == 0.5
    assert grounded_share("Lisbon", "Where?", context) == 0.0
    assert grounded_share("Paris", "Where?", "") == 0.0


# -- the vocabularies: word lists in remem/answer/data/ ----------------------------------

WORD_LISTS = [
    "refusal_marks.txt",
    "free_words.txt",
    "first_person.txt",
    "second_person.txt",
    "copulas.txt",
]


@pytest.mark.parametrize("name", WORD_LISTS)
def test_word_lists_are_words_without_comments(name):
    words = word_list(name)
    assert words and len(set(words)) == len(words)
    assert all(w == w.strip().lower() and w and "#" not in w for w in words)


def test_word_lists_are_read_whole_and_in_order():
    marks = word_list("refusal_marks.txt")
    assert marks[0] == "not mentioned" and marks[-1] == "can't be determined"
    assert all(is_refusal(f"The answer is {m} here.") for m in marks)
    free = word_list("free_words.txt")  # the reader's framing words come last
    assert free[:2] == ("january", "february") and free[-1] == "conversation"
    assert grounded_share("the answer: one date, twice", "What?", "") == 1.0


# -- degenerate replies ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("Me: Me: Me: Me: Me: Me:", "labels"),  # the reply issue 19 saw come back as an answer
        ("Me: Me: Me: Me: Me: Me: Me: Me: Me: Me: Me: Me: Me", "labels"),
        ("Ana: Ana:", "labels"),
        ("", "empty"),
        ("   \n", "empty"),
        ('"" ...', "empty"),
        ("The answer to this question is:", "empty"),
        ("Ana:", "empty"),
        ("I work at the the the the bakery", "loop"),
        ("and then I went and then I went and then I went", "loop"),
        ("a cat, a dog, a cat, a dog, a cat, a dog", "loop"),
        ("Where do I work?", "question"),
        ("Where do you work?", "question"),
        ("The name of my dog", "question"),
    ],
)
def test_degenerate_replies_are_recognised(reply, why):
    question = "What is the name of my dog?" if "dog" in reply else "Where do I work?"
    assert degenerate(reply, question) == why


@pytest.mark.parametrize(
    ("reply", "question"),
    [
        ("At the Lisbon bakery", "Where do I work?"),
        ("Coffee", "Would Ana prefer tea or coffee?"),  # a choice, not a restatement
        ("Yes", "Does Ana have a dog?"),
        ("No, she does not", "Does Ana have a dog?"),
        ("8 May 2023", "When did Ana move?"),
        ("3", "How many cats does Ana have?"),
        ("Time: 10:30", "When does the train leave?"),  # one label is framing
        ("Not mentioned in the conversation", "Where do I work?"),  # a refusal is an answer
        ("Ana's dog is named Pip", "What is the name of Ana's dog?"),
    ],
)
def test_real_answers_are_not_degenerate(reply, question):
    assert degenerate(reply, question) == ""


def test_asked_keys_leave_out_the_words_that_ask_and_the_names():
    assert asked_keys("Where does Ana's sister live?", "Ana") == {"sister", "liv"}
    assert asked_keys("How old is my cat?") == {"old", "cat"}
    assert asked_keys("Who? What? When? Why? Which? Whose? Whom?") == set()


@pytest.mark.parametrize(
    "text, whose",
    [
        ("We tried a scuba diving lesson last Friday!", "Jolene"),  # "we" holds the speaker
        ("Our trip to Rio was great.", "Jolene"),
        ("What got you into diving?", "Deborah"),  # the other one of two
        ("You and I should go diving.", None),  # both
        ("The dive shop opened in May.", None),  # nobody's by its pronouns
        ("Guess who has an allotment!! Got the keys on Saturday.", "Jolene"),  # "I" left out
        ("Spent Sunday clearing brambles.", "Jolene"),
        ("Finished yet? The shop opened.", None),  # a question opens with the verb
    ],
)
def test_whose_a_line_is_by_its_pronouns(text: str, whose: str | None) -> None:
    assert about("Jolene", text, {"Jolene", "Deborah"}) == whose
