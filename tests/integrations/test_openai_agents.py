"""remem_tools under the OpenAI Agents SDK itself: each tool invoked the way the SDK's
runner invokes it (``FunctionTool.on_invoke_tool`` with a ``ToolContext``, the
``RunContextWrapper`` of a tool call), no network."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, FunctionTool, Model, ModelResponse, RunConfig, Runner, Usage
from agents.tool_context import ToolContext
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from remem import InvalidInputError, InvalidTypeError, Memory
from remem.integrations.openai_agents import remem_tools


def _call(tool: FunctionTool, arguments: Any) -> str:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    ctx = ToolContext(context=None, tool_name=tool.name, tool_call_id="call-1", tool_arguments=raw)
    return asyncio.run(tool.on_invoke_tool(ctx, raw))


def _tools(mem: Memory, user: str, **kw: Any) -> dict[str, FunctionTool]:
    return {t.name: t for t in remem_tools(mem, user, **kw)}


def test_the_tools_are_ready_for_an_agent(file_mem: Memory) -> None:
    tools = remem_tools(file_mem, "ana")
    assert [t.name for t in tools] == ["remember", "recall", "forget"]
    agent = Agent(name="assistant", instructions="Use memory.", tools=tools)
    assert agent.tools == tools
    for tool in tools:
        assert isinstance(tool, FunctionTool) and tool.strict_json_schema
        schema = tool.params_json_schema
        assert "user_id" not in schema["properties"]  # the model never picks the user
        assert schema["additionalProperties"] is False
        assert tool.description


def test_remember_recall_forget(file_mem: Memory) -> None:
    tools = _tools(file_mem, "ana", k=2, speaker="Ana", session_id="s9")
    first = json.loads(_call(tools["remember"], {"text": "I'm allergic to penicillin"}))["id"]
    _call(tools["remember"], {"text": "My cat is called Miso"})
    _call(tools["remember"], {"text": "I work night shifts at the hospital"})
    stored = file_mem.get(first, "ana")
    assert stored is not None
    assert (stored.text, stored.speaker, stored.session_id) == (
        "I'm allergic to penicillin",
        "Ana",
        "s9",
    )
    out = json.loads(_call(tools["recall"], {"query": "Which medicine must I avoid?"}))
    assert out["refuse"] is False
    assert len(out["memories"]) == 2
    top = out["memories"][0]
    assert top["id"] == first and top["text"] == "I'm allergic to penicillin"
    assert top["speaker"] == "Ana" and top["session"] == "s9"
    assert top["timestamp"] == stored.timestamp.isoformat()
    assert isinstance(top["score"], float) and top["reached"]
    assert json.loads(_call(tools["forget"], {"memory_id": first})) == {"deleted": True}
    assert file_mem.get(first, "ana") is None
    assert json.loads(_call(tools["forget"], {"memory_id": first})) == {"deleted": False}
    out = json.loads(_call(tools["recall"], {"query": "Which medicine must I avoid?"}))
    assert first not in [m["id"] for m in out["memories"]]


def test_users_are_isolated(file_mem: Memory) -> None:
    ana, bea = _tools(file_mem, "ana"), _tools(file_mem, "bea")
    secret = json.loads(_call(ana["remember"], {"text": "My PIN is 4321"}))["id"]
    assert json.loads(_call(bea["recall"], {"query": "My PIN is 4321"}))["memories"] == []
    # bea's forget of ana's id: it looks missing, and ana keeps it
    assert json.loads(_call(bea["forget"], {"memory_id": secret})) == {"deleted": False}
    assert file_mem.get(secret, "ana") is not None
    # a user id smuggled into the arguments is not a way into another user
    _call(bea["remember"], {"text": "I like jazz", "user_id": "ana"})
    assert [h.text for h in file_mem.memories("ana")] == ["My PIN is 4321"]
    assert [h.text for h in file_mem.memories("bea")] == ["I like jazz"]


@pytest.mark.parametrize(
    ("tool", "arguments", "told"),
    [
        ("remember", {"text": ""}, "remem refused the call: text must not be empty"),
        (
            "remember",
            {"text": "x" * 100_001},
            "remem refused the call: text has 100,001 characters",
        ),
        ("recall", {"query": "  "}, "remem refused the call: query must not be empty"),
        ("forget", {"memory_id": ""}, "remem refused the call: memory id"),
        ("remember", {"text": 5}, "the call's arguments were invalid"),
        ("remember", {}, "the call's arguments were invalid"),
        ("recall", "not json", "the call's arguments were invalid"),
    ],
)
def test_bad_calls_tell_the_model_and_store_nothing(
    file_mem: Memory, tool: str, arguments: Any, told: str
) -> None:
    tools = _tools(file_mem, "ana")
    _call(tools["remember"], {"text": "kept"})
    assert _call(tools[tool], arguments).startswith(told)
    assert [h.text for h in file_mem.memories("ana")] == ["kept"]


def test_other_failures_do_not_leak_their_details(file_mem: Memory) -> None:
    tools = _tools(file_mem, "ana")
    file_mem.close()  # the store is gone: a system failure, not the model's mistake
    out = _call(tools["recall"], {"query": "anything"})
    with pytest.raises(Exception) as raised:  # what the store says, kept from the model
        file_mem.recall("anything", "ana")
    # the SDK's fixed message, whose wording its releases change (0.25 dropped "Please
    # try again."): only its opening is ours to rely on
    assert out.startswith("An error occurred while running the tool")
    assert str(raised.value) not in out and "closed" not in out.lower()


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((None,), {}, InvalidInputError),
        ((5,), {}, InvalidTypeError),
        (("",), {}, InvalidInputError),
        (("ana",), {"k": 0}, InvalidInputError),
        (("ana",), {"k": "3"}, InvalidTypeError),
        (("ana",), {"speaker": 3}, InvalidTypeError),
    ],
)
def test_bad_arguments_raise_remems_errors(
    file_mem: Memory, args: tuple, kwargs: dict, error: type
) -> None:
    with pytest.raises(error):
        remem_tools(file_mem, *args, **kwargs)


def test_memory_must_be_a_memory() -> None:
    with pytest.raises(InvalidTypeError):
        remem_tools("mem.db", "ana")  # type: ignore[arg-type]


class _ScriptedModel(Model):
    """A model whose turns are scripted (tool calls, then a reply): the agent loop, the
    tool dispatch and remem are real; only what the model says is chosen here."""

    def __init__(self, turns: list[Any]) -> None:
        self.turns = list(turns)
        self.inputs: list[Any] = []

    async def get_response(self, system_instructions, input, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def, override]
        self.inputs.append(input)
        return ModelResponse(output=[self.turns.pop(0)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any):  # type: ignore[no-untyped-def, override]
        raise NotImplementedError


def _tool_call(name: str, arguments: dict[str, Any], n: int) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        type="function_call",
        id=f"fc{n}",
        call_id=f"call{n}",
        name=name,
        arguments=json.dumps(arguments),
        status="completed",
    )


def _reply(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


def test_an_agent_run_offline_remembers_and_recalls(file_mem: Memory) -> None:
    """Runner.run drives the tools from an Agent: the first conversation stores a
    memory, a later one recalls it and the tool's output reaches the model."""
    config = RunConfig(tracing_disabled=True)
    first = _ScriptedModel(
        [_tool_call("remember", {"text": "I'm allergic to penicillin"}, 1), _reply("Noted.")]
    )
    agent = Agent(name="assistant", model=first, tools=remem_tools(file_mem, "ana"))
    result = asyncio.run(
        Runner.run(agent, "Remember: I'm allergic to penicillin", run_config=config)
    )
    assert result.final_output == "Noted."
    assert [h.text for h in file_mem.memories("ana")] == ["I'm allergic to penicillin"]

    later = _ScriptedModel(
        [_tool_call("recall", {"query": "medicine allergies"}, 2), _reply("Avoid penicillin.")]
    )
    agent = agent.clone(model=later)
    result = asyncio.run(Runner.run(agent, "What must I not take?", run_config=config))
    assert result.final_output == "Avoid penicillin."
    outputs = [i for i in later.inputs[1] if i.get("type") == "function_call_output"]
    [recalled] = json.loads(outputs[0]["output"])["memories"]
    assert recalled["text"] == "I'm allergic to penicillin"
