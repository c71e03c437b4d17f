"""The events a comparison question names (time/pairs.py): one phrase per event, so
the events stage can rank once per event; other questions name none."""

from __future__ import annotations

import pytest

from remem.time.pairs import event_phrases


@pytest.mark.parametrize(
    ("question", "phrases"),
    [
        (
            "How many days passed between the day I fixed my bike and the day I "
            "upgraded my pedals?",
            ("I fixed my bike", "I upgraded my pedals"),
        ),
        (
            "Which trip did I take first, the one to Europe or the solo trip to Peru?",
            ("one to Europe", "solo trip to Peru"),
        ),
        (
            "How many days before the 'Rack Fest' did I join the car meet?",
            ("Rack Fest", "join the car meet"),
        ),
        (
            "How long had I been taking guitar lessons when I bought the new amp?",
            ("taking guitar lessons", "I bought the new amp"),
        ),
        (
            "What is the order of the three events: 'I joined the gym', 'I ran a 5K' "
            "and 'I bought new shoes'?",
            ("I joined the gym", "I ran a 5K", "I bought new shoes"),
        ),
    ],
)
def test_a_comparison_names_one_phrase_per_event(question, phrases):
    assert event_phrases(question) == phrases


@pytest.mark.parametrize(
    "question",
    [
        "Where do I live now?",
        "What did I do last Saturday?",
        # a value that held at one event compares no two events
        "How many engineers did I lead when I started my new role?",
        "Did I go to the concert or not?",
        "I mentioned 'Dune' in a chat. What did I say about it?",
    ],
)
def test_other_questions_name_no_events(question):
    assert event_phrases(question) == ()
