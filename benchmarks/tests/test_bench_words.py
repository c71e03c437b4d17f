"""The answer graders' own word rules (``remem_bench/words.py``): what a word is
matched by, and that the graders take none of remem's."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from remem_bench import answercheck, words


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("moved", "move"),
        ("applied", "apply"),
        ("won", "win"),
        ("painted", "paint"),
        ("stories", "story"),
    ],
)
def test_forms_of_one_word_share_a_key(a: str, b: str) -> None:
    assert words.key(a) == words.key(b)


@pytest.mark.parametrize(("a", "b"), [("mates", "math"), ("dog", "dot"), ("left", "leave")])
def test_other_words_do_not(a: str, b: str) -> None:
    assert words.key(a) != words.key(b)


def test_tokens_drop_stopwords_and_single_letters() -> None:
    assert words.tokens("I moved to the Lisbon flat in May") == ["moved", "lisbon", "flat", "may"]


def test_the_answer_graders_import_nothing_of_remems_word_rules() -> None:
    for module in (answercheck, words):
        tree = ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8"))
        imported = {
            node.module or ""
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and not node.level
        }
        assert not {
            m
            for m in imported
            if m.startswith(("remem.words", "remem.index", "remem.time", "remem.demo"))
        }
