"""The question read once (``question.py``): what it asks about beside the names."""

from __future__ import annotations

from remem.question import as_question


def test_the_topic_leaves_out_people_not_the_named_thing_asked_about():
    assert as_question("When did Priya start at Brightwater?").topic_keys == {"start"}
    # "the Valencia Marathon" names the thing asked about: the marathon, not any run
    marathon = as_question("When did Omar run the Valencia Marathon?").topic_keys
    assert {"marathon", "run"} <= marathon and "omar" not in marathon
