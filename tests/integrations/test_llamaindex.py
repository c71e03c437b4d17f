"""RememMemoryBlock inside llama-index-core's own ``Memory``: messages flushed from
the chat queue become remem memories, and ``get`` puts remem's recall into the
system message."""

from __future__ import annotations

import asyncio

import pytest
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import BaseMemoryBlock
from llama_index.core.memory import Memory as ChatMemory

from remem import InvalidInputError, InvalidTypeError, Memory
from remem.integrations.llamaindex import RememMemoryBlock

CHAT = [
    ("user", "I'm moving to Lisbon in May with my sister"),
    ("assistant", "Lisbon is lovely in spring!"),
    ("user", "My dog Rex is coming with us"),
    ("assistant", "Rex will love the beaches."),
    ("user", "What should I pack?"),
    ("assistant", "Light clothes and sunscreen."),
]


def _chat_memory(block: RememMemoryBlock, session: str) -> ChatMemory:
    # a small budget, so the oldest messages are flushed into the blocks quickly
    return ChatMemory.from_defaults(
        session_id=session,
        token_limit=60,
        chat_history_token_ratio=0.5,
        token_flush_size=20,
        memory_blocks=[block],
    )


def _talk(chat: ChatMemory, turns: list[tuple[str, str]]) -> None:
    for role, text in turns:
        chat.put(ChatMessage(role=role, content=text))


def test_put_get_round_trip_through_llamaindex_memory(file_mem: Memory) -> None:
    block = RememMemoryBlock(memory=file_mem, user_id="ana", speakers={"user": "Ana"}, k=2)
    assert isinstance(block, BaseMemoryBlock)
    chat = _chat_memory(block, "chat-1")
    _talk(chat, CHAT)
    # the flushed messages are remem memories now: speaker, session, text
    stored = file_mem.memories("ana")
    n = len(stored)
    # the oldest, in order (how many is llama-index's flush policy, which varies by
    # version); the latest turns stay in the chat
    assert 2 <= n < len(CHAT)
    assert [(h.speaker, h.session_id, h.text) for h in stored] == [
        ("Ana" if role == "user" else "assistant", "chat-1", text) for role, text in CHAT[:n]
    ]
    # the recent messages stay in the chat; the recall goes into the system message
    messages = chat.get(input="Which city am I moving to?")
    system = messages[0]
    assert system.role.value == "system"
    assert "<remem>" in system.content
    lines = system.content.split("<remem>")[1].split("</remem>")[0].strip().splitlines()
    assert len(lines) == 2
    assert lines[0].endswith("Ana: I'm moving to Lisbon in May with my sister")
    assert lines[0].startswith(f"[{stored[0].timestamp:%Y-%m-%d}] ")
    assert [m.content for m in messages[1:]] == [text for _, text in CHAT[n:]]


def test_a_new_session_recalls_what_an_old_one_stored(file_mem: Memory) -> None:
    _talk(_chat_memory(RememMemoryBlock(memory=file_mem, user_id="ana"), "old"), CHAT)
    fresh = _chat_memory(RememMemoryBlock(memory=file_mem, user_id="ana", k=1), "new")
    [system] = fresh.get(input="Which city am I moving to?")
    assert "I'm moving to Lisbon in May with my sister" in system.content
    assert asyncio.run(fresh.aget(input="Which city am I moving to?"))[0].content == (
        system.content
    )


def test_block_get_and_put_directly(file_mem: Memory) -> None:
    block = RememMemoryBlock(memory=file_mem, user_id="u1", roles=("user",))
    # nothing to ask about: no recall at all
    assert asyncio.run(block.aget([])) == ""
    asyncio.run(
        block.aput(
            [
                ChatMessage(role="system", content="You are helpful."),
                ChatMessage(role="user", content="I collect vintage cameras"),
                ChatMessage(role="assistant", content="Nice!"),
                ChatMessage(role="user", content="   "),
            ]
        )
    )
    assert [h.text for h in file_mem.memories("u1")] == ["I collect vintage cameras"]
    got = asyncio.run(block.aget([ChatMessage(role="user", content="what do I collect?")]))
    assert got.endswith("user: I collect vintage cameras")


def test_truncation_drops_the_worst_memories_first(file_mem: Memory) -> None:
    block = RememMemoryBlock(memory=file_mem, user_id="u1")
    content = "[2024-01-01] a: best\n[2024-01-01] b: middle\n[2024-01-01] c: worst"
    assert asyncio.run(block.atruncate(content, 1)) == (
        "[2024-01-01] a: best\n[2024-01-01] b: middle"
    )
    assert asyncio.run(block.atruncate(content, 10_000)) is None


def test_users_are_isolated(file_mem: Memory) -> None:
    _talk(_chat_memory(RememMemoryBlock(memory=file_mem, user_id="ana"), "a"), CHAT)
    bea = _chat_memory(RememMemoryBlock(memory=file_mem, user_id="bea", k=10), "b")
    # bea has no memories: her context gets no memory block at all
    assert [m.role.value for m in bea.get(input="I'm moving to Lisbon in May")] == []
    _talk(bea, [("user", "I'm learning to surf"), ("assistant", "Fun!")] * 3)
    text = " ".join(str(m.content) for m in bea.get(input="I'm moving to Lisbon in May"))
    assert "surf" in text
    assert "Lisbon" not in text.replace("I'm moving to Lisbon in May", "")
    assert {h.text for h in file_mem.memories("bea")} <= {"I'm learning to surf", "Fun!"}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({}, InvalidInputError),
        ({"user_id": 7}, InvalidTypeError),
        ({"user_id": "u1", "k": 0}, InvalidInputError),
        ({"user_id": "u1", "k": 2.5}, InvalidTypeError),
        ({"user_id": "u1", "memory": None}, InvalidTypeError),
        ({"user_id": "u1", "query_messages": 0}, InvalidInputError),
        ({"user_id": "u1", "now": "bad"}, InvalidInputError),  # checked at once, not per call
        ({"user_id": "u1", "now": 5}, InvalidTypeError),
        ({"user_id": "\u200b"}, InvalidInputError),  # invisible characters only
    ],
)
def test_bad_arguments_raise_remems_errors(file_mem: Memory, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        RememMemoryBlock(**{"memory": file_mem, **kwargs})


def test_bad_messages_raise_and_store_nothing(file_mem: Memory) -> None:
    block = RememMemoryBlock(memory=file_mem, user_id="u1")
    with pytest.raises(InvalidTypeError):
        asyncio.run(block.aput("I like tea"))  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        asyncio.run(
            block.aput([ChatMessage(role="user", content="kept?"), "not a message"])  # type: ignore[list-item]
        )
    assert file_mem.count("u1") == 0
