"""Prompts are package data, one file per task (``prompts/<task>.txt``).

A file holds ``### system`` and ``### user`` sections with ``$name`` placeholders
(``string.Template``, so JSON braces in a prompt need no escaping); ``### assistant``
sections between them make worked examples (few-shot turns), which small readers
follow far better than instructions alone. Users can point
``REMEM_PROMPTS`` at a folder of their own files to override any of them.
:func:`render` is public (docs/answers.md#answering-a-question).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from string import Template

from .. import env
from ..errors import LLMError
from .base import Message

HERE = Path(__file__).parent / "prompts"
TASKS = (
    "answer",
    "answer_temporal",
    "answer_span",
    "hit_judge",
    "summary",
    "summary_update",
    "personality",
    "concepts",
    "verify_candidate",
)
_SECTION = re.compile(r"^### (system|user|assistant)\s*$", re.M)


@cache
def load(task: str) -> tuple[tuple[str, Template], ...]:
    if task not in TASKS:
        raise LLMError(f"no prompt for task {task!r}; tasks are {', '.join(TASKS)}")
    folder = Path(env.read("REMEM_PROMPTS") or HERE)
    path = folder / f"{task}.txt"
    if not path.is_file():
        path = HERE / f"{task}.txt"
    text = path.read_text(encoding="utf-8")
    parts = _SECTION.split(text)
    # parts: [preamble, role, body, role, body, ...]
    sections = tuple(
        (parts[i], Template(parts[i + 1].strip())) for i in range(1, len(parts) - 1, 2)
    )
    if not sections:
        raise LLMError(f"prompt {path} has no '### system' / '### user' sections")
    return sections


def render(task: str, **values: object) -> list[Message]:
    """The task's chat messages with ``values`` filled in (all placeholders required)."""
    try:
        return [
            {"role": role, "content": tpl.substitute({k: str(v) for k, v in values.items()})}
            for role, tpl in load(task)
        ]
    except KeyError as exc:
        raise LLMError(f"prompt {task!r} needs a value for {exc}") from None
    except ValueError as exc:  # a malformed "$" in an override file
        raise LLMError(f"prompt {task!r} is malformed: {exc}") from None
