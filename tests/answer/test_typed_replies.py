"""The typed reader on the shapes a fresh check set found (stop 58): a name given in
a reply to a question the evidence does not hold, a name after a title or before
"She", a price beside a share of a unit, a reply that is only the answer, a colour in
two words and the newest one, an ensemble's name, a name given to another kind of
organisation, "What is X called?" and "Which evening of the week...?". Real spaCy
pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import naming, nlp, typed
from remem.answer.candidate import Span
from remem.answer.rank import HAND_ONLY, weights
from remem.answer.spans import _priced, phrases, written_as_name
from remem.answer.typed import (
    Around,
    _asked,
    _asked_of_it,
    _modified_by,
    _sources,
    follow_up,
)
from remem.answer.want import named_noun_of, wanted
from remem.question import as_question
from remem.types import Hit

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2025, 9, 6, 9, 0, tzinfo=timezone.utc)

#: (day offset, speaker, text): two friends, Oona and Bram, over a few weeks
OONA = [
    (0, "Oona", "I've started a bookbinding night class at Ravensworth College."),
    (0, "Bram", "Fancy! Remind me who's teaching it? You did say."),
    (0, "Oona", "Wilhelmina Strand. She's fussy about glue but very kind."),
    (0, "Bram", "And the dog? Was rehoming him expensive?"),
    (0, "Oona", "£60, which covered his vaccinations. He's put on half a kilo since."),
    (12, "Bram", "My knee surgery finally happened on Tuesday."),
    (12, "Oona", "Oh no! Who did the operation in the end?"),
    (12, "Bram", "We only met him the day before: Mr Tobias Quenby. He was very calm."),
    (12, "Oona", "I painted the spare room a pale yellow at the weekend."),
    (20, "Oona", "Change of plan on the room: I went with a dusty teal instead."),
    (20, "Bram", "My cousin used a local firm called Hartley Sons for her roof."),
    (20, "Oona", "I joined the Lantern Lane Singers last month, we rehearse in a church."),
]  # fmt: skip

#: a user and an assistant
PIA = [
    (0, "user", "My friend Saoirse and I have booked a week away in October."),
    (0, "assistant", "Lovely! Where are you off to?"),
    (0, "user", "Tallinn. Saoirse went to Riga last year and loved the Baltic."),
    (3, "user", "I spent a small fortune at the craft fair today, all of it on my new loom."),
    (3, "assistant", "Amazing. What did you get for it?"),
    (3, "user", "A bag of merino yarn and a shuttle."),
]  # fmt: skip

#: a user and an assistant: a reply that opens with what was asked, without a verb,
#: and a lake named by its noun beside a phrase of the noun itself
WREN = [
    (0, "user", "We've been arguing about the kitchen counters for a week."),
    (0, "assistant", "Ha, understandable. Which counter did you pick?"),
    (0, "user", "The quartz, in the end. The walnut just looked dull next to the tiles."),
    (5, "user", "My coach is getting me ready for a crossing of Lake Vrana in June."),
    (40, "user", "Done it! I swallowed half the lake, but I finished in under two hours."),
]  # fmt: skip

NOW = T0 + timedelta(days=30)


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the reply to "Remind me who's teaching it?", outside the evidence or not
        ("What's the name of Oona's bookbinding teacher?", "Wilhelmina Strand"),
        # "£60" answers "Was rehoming him expensive?"; "half a kilo" is no price
        ("How much was the rehoming fee for Oona's dog?", "60"),
        # a name after a title, which the tagger may call an organisation
        ("What is the name of the surgeon who operated on Bram's knee?", "Tobias Quenby"),
        # the newest colour, in two words
        ("What colour did Oona's spare room end up?", "dusty teal"),
        # an ensemble is named; a firm called something is no choir
        ("Which choir did Oona join?", "Lantern Lane Singers"),
    ],
)
def test_replies_titles_prices_colours_and_ensembles(embedder, engine, question, answer):
    with remembered(embedder, engine, "oona", OONA, T0) as mem:
        a = mem.answer(question, "oona", now=NOW)
        assert answer in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("user", "turns", "days", "question", "answer"),
    [
        # the reply that is only the place, to a question asked alike; not where
        # Saoirse went last year
        ("pia", PIA, 4, "Where am I going with Saoirse in October?", "Tallinn"),
        # "The quartz, in the end." answers "Which counter did you pick?": a fragment
        # with no verb, though it says more than the phrase; not the walnut dropped
        ("wren", WREN, 41, "What material did we choose for the counters in the end?", "quartz"),
        # a name the asked noun opens is one of its kind, as "half the lake" is not
        ("wren", WREN, 41, "Which lake did I swim across?", "Vrana"),
    ],
)
def test_a_reply_answers_what_was_told_before_it(
    embedder, engine, user, turns, days, question, answer
):
    with remembered(embedder, engine, user, turns, T0) as mem:
        a = mem.answer(question, user, now=T0 + timedelta(days=days))
        assert answer in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_follow_up_by_a_light_verb_passes_on_what_was_told(embedder, engine, monkeypatch):
    """ "What did you get for it?" asks of what was told before it: its reply is read
    with what the told turn shares with the question (it may still rank below a
    phrase of the told turn itself: "small fortune")."""
    seen: list[list[Span]] = []
    real = typed.typed_candidates

    def spy(*args, **kwargs):
        found = real(*args, **kwargs)
        seen.append(found or [])
        return found

    monkeypatch.setattr(typed, "typed_candidates", spy)
    with remembered(embedder, engine, "pia", PIA, T0) as mem:
        mem.answer(
            "What did I buy at the craft fair for my new loom?", "pia", now=T0 + timedelta(days=4)
        )
    yarn = [s for s in seen[-1] if s.text == "merino yarn"]
    assert yarn and yarn[0].features["inherited"] >= 1.0


def _phrases(text: str, question: str) -> set[str]:
    """The candidate phrases of every sentence of ``text``."""
    asked = as_question(question)
    want = wanted(asked)
    return {s.text for sent in nlp.parse(text).sents for s, _ in phrases(sent, want, [], asked)}


def test_a_name_after_a_title_or_before_she_is_someone():
    found = _phrases("We met him on Monday: Mr Tobias Quenby.", "Who operated on Bram?")
    assert "Tobias Quenby" in found
    found = _phrases("Wilhelmina Strand. She's fussy about glue.", "Who teaches Oona?")
    assert "Wilhelmina Strand" in found


def test_a_share_of_a_unit_is_no_price():
    doc = nlp.parse("He's put on half a kilo since, and the fee was £60.")
    half = next(e for e in doc.ents if e.text == "half")
    sixty = next(e for e in doc.ents if "60" in e.text)
    assert not _priced(half) and _priced(sixty)


@pytest.mark.parametrize(
    "text", ["The dogs were half the reason I chose it.", "My sister pays a third of it."]
)
def test_a_share_of_something_is_no_price(text):
    """ "half the reason", "a third": a share, which says no amount of money, however
    the tagger labels it; a number said alone still may be one ("It was 650")."""
    doc = nlp.parse(text)
    share = next(e for e in doc.ents if e.root.lower_ in ("half", "third"))
    assert not _priced(share)
    assert _priced(next(iter(nlp.parse("It was 650.").ents)))


def test_an_owner_s_name_joins_an_organisation_s():
    found = _phrases("I left St Brigid's Community Choir in May.", "Which choir did I leave?")
    assert "St Brigid's Community Choir" in found
    assert not _phrases("I saw Priya's Zagreb photos.", "Which choir did I leave?") & {
        "Priya's Zagreb"
    }


def test_a_name_given_to_another_kind_of_organisation():
    doc = nlp.parse("My cousin used a local firm called Hartley Sons for her roof.")
    span = next(s for s in doc.ents if "Hartley" in s.text)
    assert naming.named_other_kind(span, "choir")
    assert not naming.named_other_kind(span, "firm")


@pytest.mark.parametrize(
    ("question", "kind", "head"),
    [
        ("What's my new manager called?", "person", "name"),
        ("What did Bram call his landlord?", "person", "name"),
        ("What is my cat called?", "thing", ""),  # a pet's name is read as a thing's
        ("What is Rhys's jam called?", "thing", ""),
        ("What's my new manager called these days?", "person", "name"),  # "called" + when
        ("What colour glaze did I use on my vase?", "thing", "colour"),  # of the glaze
        ("Which evening of the week was the class on after the move?", "weekday", "evening"),
        ("Which choir did Oona join?", "org", "choir"),
    ],
)
def test_what_is_asked(question, kind, head):
    want = wanted(as_question(question))
    assert (want.kind, want.head) == (kind, head)


#: a hip replaced, its side not said; and said
HIP = [
    (0, "Odile", "How did the operation go?"),
    (0, "Fergus", "The new hip is in! Stiff, but the physio says I'm ahead of schedule."),
]  # fmt: skip
SIDE = [*HIP, (1, "Fergus", "The surgeon did my left hip, so I sleep on my back for now.")]


@pytest.mark.parametrize(("turns", "answer"), [(HIP, None), (SIDE, "left")])
def test_a_question_offering_answers_takes_one_or_refuses(embedder, turns, answer):
    """The answers offered are the only answers: "Stiff" is none of them."""
    with remembered(embedder, "synapse", "odile", turns, T0) as mem:
        q = "Which hip did Fergus have replaced, the left or the right?"
        a = mem.answer(q, "odile", now=T0 + timedelta(days=5))
        assert a.refused if answer is None else answer in a.text, a.text


def test_the_answers_a_question_offers():
    offered = typed._offered(as_question("Which pet did Jolene adopt first - Susie or Seraphim?"))
    assert [sorted(o) for o in offered] == [["susi"], ["seraphim"]]
    assert typed._offered(as_question("What kind of classes or groups has Audrey joined?")) == []


def test_a_follow_up_names_nothing_of_its_own():
    assert follow_up("Amazing. What did you get for it?")
    assert follow_up("Lovely! Where are you off to?")
    assert not follow_up("How did your speech go?")  # it asks of the speech


def test_the_bare_reply_weight_is_set_by_hand():
    assert weights()["bare"] == HAND_ONLY["bare"] > 0


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("What name did Thaddeus give his cat?", "cat"),
        ("What's my cat called?", "cat"),
        ("What did Bram call his landlord?", "landlord"),
        ("What is the name of my hamster?", "hamster"),
        ("What name did you give it?", ""),
    ],
)
def test_the_noun_whose_name_is_asked(question, noun):
    assert named_noun_of(as_question(question)) == noun


def _chunk(text: str, chunk: str):
    return next(c for c in nlp.parse(text).noun_chunks if c.text == chunk)


def test_a_fragment_without_a_verb_is_a_bare_reply_for_a_thing():
    """A reply whose first sentence is the phrase asked and when or how, with no verb
    ("The quartz, in the end."), answers the turn that asked as "Quartz." would; a
    phrase of a sentence with a verb does not, nor a name with more said of it, nor
    a common noun when no thing is asked."""
    fragment = _chunk("The quartz, in the end. The walnut looked dull.", "The quartz")
    assert typed._bare(fragment, "thing") and not typed._bare(fragment)
    said = _chunk("We picked the quartz in the end.", "the quartz")
    assert not typed._bare(said, "thing")
    # a name with more said of it tells where, to "Where are you off to?"
    placed = _chunk("Skomer, the island off Pembrokeshire.", "Skomer")
    assert not typed._bare(placed, "thing")


def test_a_noun_asked_only_as_a_modifier_is_not_the_thing():
    assert _modified_by("bird", "bird-watching trip") and _modified_by("book", "book club")
    assert not _modified_by("dog", "retired racing greyhound")
    assert not _modified_by("bird", "the bird") and not _modified_by("cake", "cake")
    assert not _modified_by("lake", "Lake Vrana") and _modified_by("lake", "lake view")
    assert not _modified_by("lake", "the Lake Vrana")
    assert _modified_by("home", "Brightwater Home Care")  # a name "Home" only modifies


def test_a_name_the_asked_noun_opens_is_one_of_its_kind():
    lake = next(e for e in nlp.parse("We crossed Lake Vrana at dawn.").ents if "Vrana" in e.text)
    assert typed._of_kind(lake, "lake")
    care = _chunk("Brightwater Home Care send someone every morning.", "Brightwater Home Care")
    assert not typed._of_kind(care, "home")


def test_a_name_beside_the_noun_asked_and_a_quantifier_that_counts_nothing():
    assert "Skomer" in _phrases(
        "Skomer, the island off Pembrokeshire.", "Which island did Tamsin visit?"
    )
    found = _phrases("Every one of them works now, and 17 keys were dead.", "How many keys?")
    assert "17" in found and "one" not in found


def test_a_word_in_a_sentence_begun_with_a_capital_is_no_name_in_lower_case():
    doc = nlp.parse("The case is stripped right back to bare walnut.")
    assert not written_as_name(doc[-2])
    doc = nlp.parse("we went to porto with ines last week.")
    assert written_as_name(next(t for t in doc if t.text == "ines"))


def test_a_maker_asked_by_make_or_brand_is_an_organisation():
    want = wanted(as_question("What make of piano did Lorcan inherit from his nan?"))
    assert (want.kind, want.head) == ("org", "make")
    assert wanted(as_question("What did she make for dinner?")).kind == "thing"


def test_a_count_of_the_noun_asked_and_a_share():
    found = _phrases(
        "Yes, a beginners' block of 10 lessons. My sister paid for half of it.",
        "How many lessons were there in the block I signed up for?",
    )
    assert "10 lessons" in found and "half" not in found


def test_a_particle_is_no_word_asked_about():
    asked = _asked(as_question("Who did Lorcan get in to sort out the inside of the piano?"))
    assert "out" not in asked and "piano" in asked


#: a reply that asks, and the reply to it
LORCAN = [
    (0, "Lorcan", "Gannets are cool, to be fair. Piano update, if you want one?"),
    (0, "Tamsin", "Always. Have you found someone to look at the insides?"),
    (0, "Lorcan", "Yeah, an old fella called Bartholomew Quennell. He's 81."),
    (0, "Tamsin", "Did you find out any more about that medal?"),
    (0, "Lorcan", "Mam says it was Grandad's, from Burma. We'll frame it above the piano."),
]


def test_the_reply_to_a_reply_that_asks():
    """Only the first turn is evidence: its reply asks, and the reply to that is read
    with what the question it answers shares with the one asked."""
    turns = [
        Hit(id=f"t{i}", text=text, score=1.0, speaker=who, timestamp=T0, session_id="s")
        for i, (_, who, text) in enumerate(LORCAN)
    ]

    def after(hits: list[Hit]) -> dict[str, Hit]:
        at = {h.id: i for i, h in enumerate(turns)}
        return {h.id: turns[at[h.id] + 1] for h in hits if at[h.id] + 1 < len(turns)}

    question = as_question("Who did Lorcan get in to sort out the inside of his piano?")
    read = {h.id: inherited for h, inherited, _ in _sources(question, turns[:1], Around(after))}
    assert read.get("t2", 0.0) > 0  # "Yeah, an old fella called Bartholomew Quennell."


def test_a_reply_is_read_through_its_question_by_a_noun_of_the_question():
    """ "Are the hours leaving you enough room for training?" asks nothing of "Which
    company did Priya leave?" (a verb's family is wide); it asks of her training."""
    asking = Hit(
        id="a",
        text="Glad the new role fits. Are the hours leaving you enough room for training?",
        score=1.0,
        speaker="Remy",
        timestamp=T0,
        session_id="s",
    )
    reply = Hit(
        id="r",
        text="Mostly. Biscuit has decided he's a running dog now.",
        score=1.0,
        speaker="Priya",
        timestamp=T0 + timedelta(minutes=1),
        session_id="s",
    )
    around = Around(before=lambda hits: {h.id: asking for h in hits if h.id == "r"})
    left = as_question("Which company did Priya leave to join Brightwater Health?")
    assert _asked_of_it(left, [reply], around) == []
    training = as_question("How is Priya's training going?")
    assert _asked_of_it(training, [reply], around) == [(reply, asking)]
