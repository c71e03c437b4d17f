"""RememRetriever under langchain-core itself: in LCEL chains, sync and async."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from remem import InvalidInputError, InvalidTypeError, Memory
from remem.integrations.langchain import RememRetriever


def _fill(mem: Memory) -> dict[str, str]:
    return {
        "lisbon": mem.add(
            "I'm moving to Lisbon in May",
            "u1",
            speaker="Ana",
            timestamp="2023-05-08T13:56:00",
            session_id="s1",
            metadata={"dia_id": "D1:3"},
        ),
        "dog": mem.add("My dog Rex hates thunderstorms", "u1", speaker="Ana", session_id="s2"),
        "cello": mem.add("I practise the cello every evening", "u1", speaker="Ana"),
        "other": mem.add("I'm moving to Lisbon too, in June", "u2", speaker="Bea"),
    }


def format_docs(docs: list[Document]) -> str:
    return "\n".join(f"{d.metadata['speaker']}: {d.page_content}" for d in docs)


def test_documents_carry_what_remem_knows_of_each_hit(file_mem: Memory) -> None:
    ids = _fill(file_mem)
    retriever = RememRetriever(memory=file_mem, user_id="u1", k=2)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("Where is Ana moving?")
    rec = file_mem.recall("Where is Ana moving?", "u1", 2)
    assert [d.id for d in docs] == [h.id for h in rec.hits]
    top = docs[0]
    assert top.id == ids["lisbon"]
    assert top.page_content == "I'm moving to Lisbon in May"
    meta = top.metadata
    assert meta["id"] == ids["lisbon"]
    assert meta["speaker"] == "Ana"
    assert meta["session"] == "s1"
    assert meta["timestamp"].startswith("2023-05-08T13:56:00")
    assert meta["metadata"] == {"dia_id": "D1:3"}
    assert meta["score"] == pytest.approx(rec.hits[0].score)
    assert meta["reached"] == rec.explanations[ids["lisbon"]] != ""
    assert len(docs) == 2


def test_retriever_in_an_lcel_chain_sync_and_async(file_mem: Memory) -> None:
    _fill(file_mem)
    retriever = RememRetriever(memory=file_mem, user_id="u1", k=1)
    prompt = ChatPromptTemplate.from_messages(
        [("system", "Memories:\n{context}"), ("human", "{question}")]
    )
    chain = {
        "context": retriever | RunnableLambda(format_docs),
        "question": RunnablePassthrough(),
    } | prompt
    value = chain.invoke("What is Ana's dog afraid of?")
    system, human = value.to_messages()
    assert system.content == "Memories:\nAna: My dog Rex hates thunderstorms"
    assert human.content == "What is Ana's dog afraid of?"
    # the same chain through the async path, and many questions at once
    assert asyncio.run(chain.ainvoke("What is Ana's dog afraid of?")) == value
    texts = (retriever | RunnableLambda(format_docs)).batch(
        ["When does Ana practise the cello?", "Where is Ana moving?"]
    )
    assert texts == ["Ana: I practise the cello every evening", "Ana: I'm moving to Lisbon in May"]


def test_ainvoke_equals_invoke(file_mem: Memory) -> None:
    _fill(file_mem)
    retriever = RememRetriever(memory=file_mem, user_id="u1", k=3)
    sync = retriever.invoke("thunderstorms")
    asynced = asyncio.run(retriever.ainvoke("thunderstorms"))
    assert [(d.id, d.page_content, d.metadata) for d in asynced] == [
        (d.id, d.page_content, d.metadata) for d in sync
    ]


def test_one_users_retriever_never_returns_anothers_memories(file_mem: Memory) -> None:
    ids = _fill(file_mem)
    u2 = RememRetriever(memory=file_mem, user_id="u2", k=10)
    assert [d.id for d in u2.invoke("I'm moving to Lisbon in May")] == [ids["other"]]
    u1 = RememRetriever(memory=file_mem, user_id="u1", k=10)
    assert ids["other"] not in {d.id for d in u1.invoke("moving to Lisbon too, in June")}
    nobody = RememRetriever(memory=file_mem, user_id="u3", k=10)
    assert nobody.invoke("Lisbon") == []


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({}, InvalidInputError),  # no user
        ({"user_id": None}, InvalidInputError),
        ({"user_id": 5}, InvalidTypeError),
        ({"user_id": ""}, InvalidInputError),
        ({"user_id": "u1", "k": 0}, InvalidInputError),
        ({"user_id": "u1", "k": "5"}, InvalidTypeError),
        ({"user_id": "u1", "memory": "mem.db"}, InvalidTypeError),
        ({"user_id": "u1", "now": "bad"}, InvalidInputError),  # checked at once, not per call
        ({"user_id": "u1", "now": 5}, InvalidTypeError),
        ({"user_id": "\u200b"}, InvalidInputError),  # invisible characters only
    ],
)
def test_bad_arguments_raise_remems_errors(file_mem: Memory, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        RememRetriever(**{"memory": file_mem, **kwargs})


def test_bad_queries_raise_remems_errors_and_change_nothing(file_mem: Memory) -> None:
    _fill(file_mem)
    retriever = RememRetriever(memory=file_mem, user_id="u1")
    with pytest.raises(InvalidTypeError):
        retriever.invoke(123)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        retriever.invoke("   ")
    with pytest.raises(InvalidInputError):
        asyncio.run(retriever.ainvoke(""))
    assert file_mem.count("u1") == 3
