"""Structured replies (parse_json repair, validate, ask_json retries) and prompt files.

The only test double here is ScriptedLLM, which stands in for a model's *output*
(a scripted sequence of replies); the real backends are exercised end to end in
test_local.py and test_openai_server.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from remem.errors import LLMError, RememError
from remem.llm import LLM, Completion, LLMOutputError, Message, ask_json, estimate_tokens, prompts
from remem.llm.base import Request
from remem.llm.structured import parse_json, validate

SCHEMA = {
    "type": "object",
    "properties": {
        "ok": {"type": "boolean"},
        "label": {"type": "string", "maxLength": 10},
    },
    "required": ["ok"],
}


class ScriptedLLM(LLM):
    """Replies with the scripted texts in order and records what it was sent."""

    name = "scripted"

    def __init__(self, replies: Sequence[str | Exception]):
        super().__init__()
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []

    def _complete(self, req: Request) -> Completion:
        messages = req.messages
        self.sent.append(
            {
                "messages": [dict(m) for m in messages],
                "max_tokens": req.max_tokens,
                "temperature": req.temperature,
                "json_schema": req.json_schema,
            }
        )
        if not self.replies:
            pytest.fail("ScriptedLLM called more often than scripted")  # BaseException
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(
            text=reply,
            prompt_tokens=sum(len(m["content"]) for m in messages),
            completion_tokens=len(reply),
            latency_s=0.001,
        )


MESSAGES: list[Message] = [
    {"role": "system", "content": "Reply with JSON."},
    {"role": "user", "content": "Is water wet?"},
]


# --- parse_json ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"ok": true}', {"ok": True}),
        ("  [1, 2, 3]\n", [1, 2, 3]),
        ('```json\n{"ok": false, "n": 2}\n```', {"ok": False, "n": 2}),
        ('```\n{"ok": true}\n```', {"ok": True}),
        ('Sure! Here is the JSON:\n```json\n{"a": [1, 2]}\n```\nHope it helps.', {"a": [1, 2]}),
        ('Sure, here you go: {"ok": true, "label": "x"} -- done.', {"ok": True, "label": "x"}),
        ("The list is [1, 2, 3] as asked.", [1, 2, 3]),
        ('{"ok": true, "items": [1, 2,],}', {"ok": True, "items": [1, 2]}),
        ('{"a": True, "b": False, "c": None}', {"a": True, "b": False, "c": None}),
        ('Answer: {"enough": True, "used": [1, 3,],}', {"enough": True, "used": [1, 3]}),
        ('"just a string"', "just a string"),
        ("42", 42),
    ],
)
def test_parse_json_repairs(text: str, expected: Any) -> None:
    assert parse_json(text) == expected


@pytest.mark.parametrize(
    "text",
    ["", "   \n\t", "no json here at all", "{not: json, at all}", "{'single': 'quotes'", "]["],
)
def test_parse_json_garbage_raises_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        parse_json(text)


def test_parse_json_empty_message_and_non_string() -> None:
    with pytest.raises(ValueError, match="empty reply"):
        parse_json("")
    with pytest.raises(ValueError, match="empty reply"):
        parse_json(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not JSON"):
        parse_json("plain words")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"enough": True, "answer": "None of them"}',
            {"enough": True, "answer": "None of them"},
        ),
        (
            '{"answer": "True story, really", "ok": True}',
            {"answer": "True story, really", "ok": True},
        ),
        ('{"note": "a, }", "ok": True}', {"note": "a, }", "ok": True}),
    ],
)
def test_parse_json_repair_keeps_string_contents(text: str, expected: Any) -> None:
    assert parse_json(text) == expected


# --- validate -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "schema"),
    [
        ({"ok": True}, SCHEMA),
        ({"ok": False, "label": "0123456789"}, SCHEMA),
        ({"ok": True, "extra": [1, 2]}, SCHEMA),
        (3, {"type": "integer"}),
        (3, {"type": "number"}),
        (2.5, {"type": "number"}),
        (None, {"type": "null"}),
        (None, {"type": ["string", "null"]}),
        ("x", {"type": ["string", "null"]}),
        ([1, 2], {"type": "array", "items": {"type": "integer"}, "maxItems": 2}),
        ("topic", {"type": "string", "enum": ["entity", "topic"]}),
        ({}, {}),
        (
            {"a": {"b": [True]}},
            {"properties": {"a": {"properties": {"b": {"items": {"type": "boolean"}}}}}},
        ),
    ],
)
def test_validate_accepts(value: Any, schema: dict[str, Any]) -> None:
    assert validate(value, schema) is None


@pytest.mark.parametrize(
    ("value", "schema", "message"),
    [
        ([], SCHEMA, r"\$ should be object, got list"),
        ({"label": "x"}, SCHEMA, r"\$ lacks 'ok'"),
        ({"ok": "yes"}, SCHEMA, r"\$\.ok should be boolean, got str"),
        ({"ok": True, "label": "01234567890"}, SCHEMA, r"\$\.label is longer than 10"),
        (True, {"type": "integer"}, "should be integer, got bool"),
        (False, {"type": "integer"}, "should be integer, got bool"),
        (True, {"type": "number"}, "should be number, got bool"),
        (1.5, {"type": "integer"}, "should be integer, got float"),
        ("3", {"type": "number"}, "should be number, got str"),
        (3, {"type": ["string", "null"]}, "should be string/null, got int"),
        ("person", {"type": "string", "enum": ["entity", "topic"]}, "should be one of"),
        ([1, 2, 3], {"type": "array", "maxItems": 2}, "more than 2 items"),
        ([1, "two"], {"type": "array", "items": {"type": "integer"}}, r"\$\[1\] should be integer"),
        (
            {"concepts": [{"label": "x"}, {"kind": "topic"}]},
            {
                "type": "object",
                "properties": {
                    "concepts": {
                        "type": "array",
                        "items": {"type": "object", "required": ["label"]},
                    }
                },
            },
            r"\$\.concepts\[1\] lacks 'label'",
        ),
    ],
)
def test_validate_rejects(value: Any, schema: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        validate(value, schema)


# --- ask_json -----------------------------------------------------------------


def test_ask_json_valid_first_time() -> None:
    llm = ScriptedLLM(['{"ok": true, "label": "yes"}'])
    out = ask_json(llm, MESSAGES, SCHEMA, lambda v: (v["ok"], v["label"]), task="probe")
    assert out == (True, "yes")
    assert llm.usage.tasks["probe"].calls == 1
    assert llm.usage.tasks["probe"].failures == 0
    sent = llm.sent[0]
    # handed to the backend for constrained decoding, without length bounds (llama.cpp
    # unrolls them into grammar rules); the reply is still validated against them
    expected = json.loads(json.dumps(SCHEMA))
    del expected["properties"]["label"]["maxLength"]
    assert sent["json_schema"] == expected
    assert sent["temperature"] == 0.0
    assert sent["max_tokens"] == 256
    assert sent["messages"] == MESSAGES


def test_ask_json_still_enforces_the_length_bounds_it_does_not_send() -> None:
    llm = ScriptedLLM(['{"ok": true, "label": "far too long a label"}', '{"ok": true}'])
    assert ask_json(llm, MESSAGES, SCHEMA, lambda v: v, task="probe") == {"ok": True}
    assert llm.usage.calls == 2
    assert "longer than 10" in llm.sent[1]["messages"][-1]["content"]


def test_ask_json_repairs_without_retry() -> None:
    llm = ScriptedLLM(['Here it is:\n```json\n{"ok": True,}\n```'])
    assert ask_json(llm, MESSAGES, SCHEMA, lambda v: v, task="probe") == {"ok": True}
    assert llm.usage.calls == 1


def test_ask_json_broken_then_valid_retries_with_error_stated() -> None:
    llm = ScriptedLLM(["I think the answer is yes.", '{"ok": false}'])
    calls: list[int] = []
    out = ask_json(
        llm,
        MESSAGES,
        SCHEMA,
        lambda v: v["ok"],
        task="judge",
        max_tokens=16,
        on_call=lambda: calls.append(1),
    )
    assert out is False
    assert llm.usage.tasks["judge"].calls == 2
    assert llm.usage.calls == 2
    assert len(calls) == 2
    retry = llm.sent[1]["messages"]
    assert retry[: len(MESSAGES)] == MESSAGES
    assert retry[len(MESSAGES)] == {"role": "assistant", "content": "I think the answer is yes."}
    last = retry[-1]
    assert last["role"] == "user"
    assert "not JSON: 'I think the answer is yes.'" in last["content"]
    assert json.dumps(SCHEMA) in last["content"]
    assert llm.sent[1]["max_tokens"] == 16


def test_ask_json_schema_violation_is_retried_with_the_violation() -> None:
    llm = ScriptedLLM(['{"label": "no ok field"}', '{"ok": true}'])
    assert ask_json(llm, MESSAGES, SCHEMA, lambda v: v["ok"], task="probe") is True
    assert "$ lacks 'ok'" in llm.sent[1]["messages"][-1]["content"]


def test_ask_json_build_error_is_retried() -> None:
    def build(v: Any) -> int:
        return int(v["label"])  # ValueError for a non-number label

    llm = ScriptedLLM(['{"ok": true, "label": "abc"}', '{"ok": true, "label": "7"}'])
    assert ask_json(llm, MESSAGES, SCHEMA, build, task="probe") == 7
    assert llm.usage.calls == 2


@pytest.mark.parametrize("retries", [0, 1, 3])
def test_ask_json_always_broken_raises_llm_output_error(retries: int) -> None:
    llm = ScriptedLLM(["nope, no json"] * (retries + 1))
    with pytest.raises(LLMOutputError) as info:
        ask_json(llm, MESSAGES, SCHEMA, lambda v: v, task="summary", retries=retries)
    assert isinstance(info.value, LLMError) and isinstance(info.value, RememError)
    msg = str(info.value)
    assert "scripted" in msg and "'summary'" in msg and "not JSON" in msg
    assert llm.usage.tasks["summary"].calls == retries + 1
    assert len(llm.sent) == retries + 1
    assert llm.replies == []
    # every retry states the error; the conversation does not grow with each retry
    for sent in llm.sent[1:]:
        assert len(sent["messages"]) == len(MESSAGES) + 2
        assert (
            "That reply was not valid (not JSON: 'nope, no json')"
            in sent["messages"][-1]["content"]
        )


def test_ask_json_backend_failure_is_llm_error_not_output_error() -> None:
    llm = ScriptedLLM([RuntimeError("socket exploded")])
    with pytest.raises(LLMError, match="scripted failed: RuntimeError: socket exploded") as info:
        ask_json(llm, MESSAGES, SCHEMA, lambda v: v, task="probe")
    assert not isinstance(info.value, LLMOutputError)
    assert llm.usage.tasks["probe"].failures == 1
    assert llm.usage.tasks["probe"].calls == 0
    assert len(llm.sent) == 1  # a failing backend is not retried by ask_json


def test_complete_counts_tokens_per_task() -> None:
    llm = ScriptedLLM(["abc", "defgh", "ij"])
    llm.complete(MESSAGES, task="a")
    llm.complete(MESSAGES, task="b")
    llm.complete(MESSAGES, task="a")
    usage = llm.usage.as_dict()
    prompt = sum(len(m["content"]) for m in MESSAGES)
    assert usage["a"]["calls"] == 2 and usage["b"]["calls"] == 1
    assert usage["a"]["completion_tokens"] == 5 and usage["b"]["completion_tokens"] == 5
    assert usage["a"]["prompt_tokens"] == 2 * prompt
    assert usage["a"]["seconds"] == pytest.approx(0.002)
    assert llm.usage.calls == 3


@pytest.mark.parametrize(
    ("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2), ("x" * 40, 10)]
)
def test_estimate_tokens(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


# --- prompts ------------------------------------------------------------------

PLACEHOLDERS = {
    "answer": {"context", "question"},
    "answer_temporal": {"context", "question"},
    "answer_span": {"sentence", "question"},
    "hit_judge": {"short_term", "question"},
    "summary": {"dialogues"},
    "summary_update": {"old", "new"},
    "personality": {"speaker", "n", "dialogues"},
    "concepts": {"text"},
    "verify_candidate": {"question", "index", "dialogue"},
}


@pytest.fixture
def fresh_prompts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv("REMEM_PROMPTS", raising=False)
    prompts.load.cache_clear()
    yield
    prompts.load.cache_clear()  # never leave an override cached for other tests


def test_every_task_has_its_placeholders() -> None:
    assert set(prompts.TASKS) == set(PLACEHOLDERS)


@pytest.mark.parametrize("task", prompts.TASKS)
def test_every_task_renders(task: str, fresh_prompts: None) -> None:
    values = {name: f"<<{name.upper()}-VALUE>>" for name in PLACEHOLDERS[task]}
    messages = prompts.render(task, **values)
    assert [m["role"] for m in messages] == ["system", "user"]
    text = "\n".join(m["content"] for m in messages)
    for name, value in values.items():
        assert value in text, f"{task}: ${name} not filled"
        assert f"${name}" not in text
    assert all(m["content"].strip() == m["content"] and m["content"] for m in messages)
    assert "###" not in text


@pytest.mark.parametrize("task", prompts.TASKS)
def test_missing_placeholder_is_llm_error(task: str, fresh_prompts: None) -> None:
    names = sorted(PLACEHOLDERS[task])
    values = {name: "v" for name in names[1:]}
    with pytest.raises(LLMError, match=f"prompt '{task}' needs a value for '{names[0]}'"):
        prompts.render(task, **values)


def test_render_converts_values_and_keeps_dollars(fresh_prompts: None) -> None:
    msgs = prompts.render("personality", speaker="Ana", n=3, dialogues="paid $5 for $question")
    assert "Ana" in msgs[0]["content"] and "up to 3 traits" in msgs[0]["content"]
    assert msgs[1]["content"] == "paid $5 for $question"


def test_unknown_task_is_llm_error(fresh_prompts: None) -> None:
    with pytest.raises(LLMError, match="no prompt for task 'nope'"):
        prompts.render("nope", x=1)


def test_prompts_override_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_prompts: None
) -> None:
    default_answer = prompts.render("answer", context="C", question="Q")
    (tmp_path / "answer.txt").write_text(
        "### system\nBe terse, $who.\n### user\nQ=$question C=$context\n", encoding="utf-8"
    )
    (tmp_path / "summary.txt").write_text("no sections in here\n", encoding="utf-8")
    monkeypatch.setenv("REMEM_PROMPTS", str(tmp_path))
    prompts.load.cache_clear()

    msgs = prompts.render("answer", context="notes", question="why?", who="bot")
    assert msgs == [
        {"role": "system", "content": "Be terse, bot."},
        {"role": "user", "content": "Q=why? C=notes"},
    ]
    with pytest.raises(LLMError, match="needs a value for 'who'"):
        prompts.render("answer", context="notes", question="why?")
    # a task missing from the folder falls back to the packaged prompt
    concepts = prompts.render("concepts", text="D")
    assert "Extract the concepts" in concepts[0]["content"] and concepts[1]["content"] == "D"
    # an override file without sections is refused clearly
    with pytest.raises(LLMError, match="has no '### system' / '### user' sections"):
        prompts.render("summary", dialogues="D")

    # worked examples: assistant turns between the user turns, in file order
    (tmp_path / "answer.txt").write_text(
        "### system\nBe terse.\n### user\nQ=Name?\n### assistant\nMiso\n"
        "### user\nQ=$question C=$context\n",
        encoding="utf-8",
    )
    prompts.load.cache_clear()
    assert prompts.render("answer", context="notes", question="why?") == [
        {"role": "system", "content": "Be terse."},
        {"role": "user", "content": "Q=Name?"},
        {"role": "assistant", "content": "Miso"},
        {"role": "user", "content": "Q=why? C=notes"},
    ]

    monkeypatch.delenv("REMEM_PROMPTS")
    prompts.load.cache_clear()
    assert prompts.render("answer", context="C", question="Q") == default_answer
