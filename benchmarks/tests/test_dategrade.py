"""Grading a "when" answer by the time it states (``bench/dategrade.py``): right days
in other words are right, wrong days sharing most words are wrong, golds the rules
cannot read are not graded."""

from __future__ import annotations

import pytest

from remem_bench.dategrade import date_right


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("Friday 14 July 2023", "The friday before 15 July 2023"),
        ("the week of 29 May 2023", "The week before 9 June 2023"),
        ("15 July 2023 to 16 July 2023", "The weekend before 17 July 2023"),
        ("Saturday 16 September 2023", "Saturday after 11 September, 2023."),
        ("Sunday 7 May 2023", "7 May 2023"),
        ("Friday 17 June 2022", "The Friday before 24June, 2022."),
        ("the week of 2 October 2023", "The week before October 13th, 2023."),
        ("summer 2023", "summer 2023"),
        ("2021", "in 2021"),
        ("April 2023", "April.2023"),
        ("Thursday 16 November 2023", "November 16, 2023"),
        ("He went on Saturday 16 September 2023.", "Saturday after 11 September, 2023."),
        ("Saturday 2 July 2022", "2022"),  # more precise, inside: right
    ],
)
def test_the_same_time_in_other_words_is_right(prediction: str, gold: str) -> None:
    assert date_right(prediction, gold) is True


@pytest.mark.parametrize(
    ("prediction", "gold"),
    [
        ("Friday 7 July 2023", "The friday before 15 July 2023"),
        ("15 July 2023", "The Friday before 15 July 2023"),  # the day it was said
        ("the week of 5 June 2023", "The week before 9 June 2023"),
        ("May 2023", "7 May 2023"),  # less precise than the gold
        ("July 2023", "June 2023"),
        ("Not mentioned in the conversation", "7 May 2023"),
        ("Friday 14 July 2023 and Saturday 22 July 2023", "The friday before 15 July 2023"),
    ],
)
def test_a_wrong_or_looser_time_is_wrong(prediction: str, gold: str) -> None:
    assert date_right(prediction, gold) is False


@pytest.mark.parametrize(
    "gold",
    [
        "A few years ago",
        "first week of April, 2023",
        "early August, 2023",
        "four months",
        "13 August",
        "Chicago",
    ],
)
def test_golds_the_rules_cannot_read_are_not_graded(gold: str) -> None:
    assert date_right("August 2023", gold) is None
