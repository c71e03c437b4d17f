"""Grading a "when" answer by the time it states (``remem_bench/dategrade.py``): right
days in other words are right, wrong days sharing most words are wrong, golds the
rules cannot read are not graded, and the grader reads dates with its own rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from remem_bench import dategrade
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
        ("2023-05-27", "May, 2023"),
        ("November 6, 2022", "November 5-6, 2022"),
        ("18 March 2023 to 19 March 2023", "on the weekend before March 26, 2023"),
        ("Monday 2 January 2023", "The day after 1 January 2023"),
        ("the week of 10 July 2023", "The week after 5 July 2023"),
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
        # said on a Sunday, "the weekend before" is the one before that Sunday's
        ("26 March 2023", "on the weekend before March 26, 2023"),
        ("31 June 2023", "June 2023"),  # no such day
        ("Saturday 15 July 2023", "Saturday after 15 July 2023"),  # the anchor is not after it
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


def test_the_grader_shares_no_code_with_what_it_grades() -> None:
    """A grader reading dates with remem's own reader could not catch its bugs."""
    tree = ast.parse(Path(dategrade.__file__).read_text(encoding="utf-8"))
    modules = [
        name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
    ]
    assert modules and not [m for m in modules if m.split(".")[0] == "remem"]
