"""The engines' LLM seams: SYNAPSE concept extraction, ILSTMA summaries and the
global candidate's check. A failing LLM never loses a memory: the work waits
(queued in the store's own bookkeeping) and falls back to the offline method after
``llm_attempts`` rounds."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest

from remem import Memory, create_llm
from sample_conversation import BASE, TURNS
from scripted_llm import ScriptedLLM
from store_rows import ilstma_db, synapse_db  # noqa: E402


def _dead():
    return create_llm("openai", base_url="http://127.0.0.1:9/v1", retries=0, timeout_s=1)


def _add_all(mem: Memory, n: int | None = None, user: str = "u") -> list[str]:
    turns = (TURNS * 3)[: n or len(TURNS)]
    return [
        mem.add(t, user, speaker=s, timestamp=BASE + timedelta(hours=i))
        for i, (s, t) in enumerate(turns)
    ]


def _concepts_reply(messages, schema) -> str:
    text = messages[-1]["content"]
    words = [w.strip(".,!?") for w in text.split() if w[:1].isupper() and len(w) >= 5]
    return json.dumps({"concepts": [{"label": w, "kind": "entity"} for w in words[:3]]})


# -- SYNAPSE ---------------------------------------------------------------------------


def test_synapse_llm_extractor_builds_concepts_from_the_llm(tmp_path, embedder):
    llm = ScriptedLLM(_concepts_reply)
    with Memory(tmp_path / "m.db", engine="synapse-llm", embedder=embedder, llm=llm) as mem:
        ids = _add_all(mem, 3 * len(TURNS))  # each name three times: concepts need company
        mem.consolidate("u")
        seq, _ = synapse_db(mem).graph_state("u")
        assert seq == len(ids) - 1  # every memory consolidated
        assert llm.usage.tasks["concepts"].calls == len(ids)  # one call per memory
        labels = {c[1] for c in synapse_db(mem).graph_load("u").concepts}
        assert "tromso" in labels or "ezekiel" in labels


def test_synapse_llm_failure_queues_then_falls_back(tmp_path, embedder, caplog):
    caplog.set_level(logging.WARNING, "remem.synapse")
    with Memory(tmp_path / "m.db", engine="synapse-llm", embedder=embedder, llm=_dead()) as mem:
        ids = _add_all(mem, 5)  # one consolidation round: fails, queued
        assert mem.count("u") == 5  # stored first, whatever the LLM does
        assert synapse_db(mem).graph_state("u")[0] == -1  # nothing consolidated yet
        assert mem.search("kayak", "u", k=1)[0].id == ids[0]  # still found by anchors
        assert "queued, attempt 1/3" in caplog.text
        mem.consolidate("u")  # round 2: still queued
        assert synapse_db(mem).graph_state("u")[0] == -1
        mem.consolidate("u")  # round 3: lexical fallback
        assert synapse_db(mem).graph_state("u")[0] == 4
        assert "lexical fallback" in caplog.text


def test_synapse_llm_recovers_when_the_llm_comes_back(tmp_path, embedder):
    llm = ScriptedLLM(_concepts_reply, fail=True)
    with Memory(tmp_path / "m.db", engine="synapse-llm", embedder=embedder, llm=llm) as mem:
        _add_all(mem, 5)
        assert synapse_db(mem).graph_state("u")[0] == -1
        llm.fail = False
        assert mem.consolidate("u") == 5  # the queued memories, now by the LLM
        assert llm.usage.tasks["concepts"].calls == 5


def test_synapse_llm_with_no_llm_uses_the_lexical_extractor_at_once(embedder):
    with Memory(":memory:", engine="synapse-llm", embedder=embedder, llm="none") as mem:
        _add_all(mem, 5)
        assert synapse_db(mem).graph_state("u")[0] == 4


# -- ILSTMA ----------------------------------------------------------------------------


def _summary_reply(messages, schema) -> str:
    system = messages[0]["content"]
    if "Update an older summary" in system:
        return json.dumps({"summary": "UPDATED: Alice kayaks; Bob's cousin plays bassoon."})
    return json.dumps({"summary": "Alice bought a turquoise kayak in Tromso."})


def test_ilstma_llm_summaries_are_written_by_the_llm_and_survive_restart(tmp_path, embedder):
    path = tmp_path / "m.db"
    llm = ScriptedLLM(_summary_reply)
    opts = {"summariser": "llm"}
    with Memory(path, engine="ilstma", embedder=embedder, llm=llm, engine_options=opts) as mem:
        _add_all(mem, 10)
        seq, rows = ilstma_db(mem).notes_load("u")
        assert seq == 9
        texts = [p["text"] for r in rows for p in json.loads(r.pieces)]
        assert any("turquoise kayak" in t or "UPDATED" in t for t in texts)
        assert all("vec" in p for r in rows for p in json.loads(r.pieces))
        assert llm.usage.tasks["summary"].calls == 2
    with Memory(path, engine="ilstma", embedder=embedder, llm="none", engine_options=opts) as mem:
        rec = mem.recall("Where did Alice buy the kayak?", "u", k=3)
        assert "kayak" in rec.segments["summary"]


def test_ilstma_llm_summary_failure_queues_then_goes_extractive(tmp_path, embedder, caplog):
    caplog.set_level(logging.WARNING, "remem.ilstma")
    opts = {"summariser": "llm", "llm_attempts": 2}
    with Memory(
        tmp_path / "m.db", engine="ilstma", embedder=embedder, llm=_dead(), engine_options=opts
    ) as mem:
        _add_all(mem, 5)
        assert mem.count("u") == 5
        assert ilstma_db(mem).notes_state("u") == -1  # queued
        mem.add("One more line about the kayak.", "u", speaker="Alice")
        assert ilstma_db(mem).notes_state("u") == 4  # second failure: extractive
        assert "extractive fallback" in caplog.text


@pytest.mark.parametrize("relevant", [True, False])
def test_ilstma_llm_check_of_the_global_candidate(embedder, relevant):
    """When the global candidate is not among the cosine top-2, the LLM decides: yes
    recalls the candidate alone, no recalls the cosine dialogues."""
    from remem.engines.base import Scored

    llm = ScriptedLLM(json.dumps({"relevant": relevant}))
    opts = {"verify": "llm", "cache": False}
    with Memory(":memory:", engine="ilstma", embedder=embedder, llm=llm, engine_options=opts) as m:
        ids = _add_all(m)
        unrelated = ids[-1]  # a turn that has nothing to do with kayaks
        m._engine.retriever.search = lambda *a, **k: [Scored(unrelated, 1.0)]
        out = m.recall("Where did Alice buy her kayak?", "u", k=3)
        assert llm.usage.tasks["verify_candidate"].calls == 1
        assert str(TURNS[-1][1]) in llm.calls[0]["messages"][-1]["content"]
        if relevant:
            assert out.details["recalled"] == [unrelated]
        else:
            recalled = out.details["recalled"]
            assert unrelated not in recalled and ids[0] in recalled


def _notes_reply(messages, schema) -> str:
    system = messages[0]["content"]
    if "traits of their personality" in system:
        who = "Alice" if "of Alice" in system else "Bob"
        return json.dumps({"traits": [f"{who} loves the outdoors", f"{who} is curious"]})
    return _summary_reply(messages, schema)


def test_ilstma_llm_personality_is_stored_and_survives_restart(tmp_path, embedder):
    path = tmp_path / "m.db"
    llm = ScriptedLLM(_notes_reply)
    opts = {"summariser": "llm", "personality": "llm"}
    with Memory(path, engine="ilstma", embedder=embedder, llm=llm, engine_options=opts) as mem:
        _add_all(mem, 10)
        assert llm.usage.tasks["personality"].calls == 4  # 2 groups x 2 speakers
        _, rows = ilstma_db(mem).notes_load("u")
        traits = [(r.speaker, r.first_seq, r.last_seq) for r in rows if r.kind == "trait"]
        assert sorted(traits) == [("Alice", 0, 4), ("Alice", 5, 9), ("Bob", 0, 4), ("Bob", 5, 9)]
        # the same traits from both groups: near-duplicates overwritten, not repeated
        profile = mem.short_term("u")["personality"] or mem._engine._load_notes("u").profile
    with Memory(path, engine="ilstma", embedder=embedder, llm="none", engine_options=opts) as mem:
        rec = mem.recall("What does Alice love?", "u", k=3)
        assert rec.segments["personality"].count("Alice loves the outdoors") == 1
        assert "Bob is curious" in rec.segments["personality"]
        mem.delete(mem.memories("u")[0].id, "u")  # derived notes of its group go
        _, rows = ilstma_db(mem).notes_load("u")
        assert all(r.first_seq > 0 for r in rows if r.kind == "trait")
        assert "Alice loves" not in mem.recall("What does Alice love?", "u").segments["personality"]
    assert profile


# -- what a failing LLM call leaves in the logs -------------------------------------------

PIN = "PIN 80417723"
SECRETS = [
    ("Alice", f"My bank card {PIN} is taped under the desk."),
    ("Bob", "Our door code is 5521-9904, do not share it."),
    ("Alice", f"Remember {PIN} when the bank calls."),
    ("Bob", "The spare key for Biscuit's kennel is in the red boot."),
    ("Alice", "I told Bob my card details last Tuesday in Tromso."),
]
#: words only the memories hold: none may reach a log line at any level
CONTENT = ("80417723", "5521-9904", "taped under", "red boot")

# every LLM seam of the engines and the reader: (engine, engine options)
SEAMS = [
    ("ilstma", {"summariser": "llm", "llm_attempts": 1}),  # the finding: a summary
    ("ilstma", {"personality": "llm", "llm_attempts": 2}),
    ("synapse-llm", {"llm_attempts": 1}),
    ("ilstma", {"judge": "llm", "verify": "llm"}),
]


def _everything_logged(caplog, capfd) -> str:
    out, err = capfd.readouterr()
    return caplog.text + out + err + "".join(str(r.__dict__) for r in caplog.records)


def _exercise(mem: Memory) -> None:
    for who, text in SECRETS:
        mem.add(text, "u", speaker=who)
    mem.consolidate("u")
    for question in ("Where is the bank card taped?", "Where is the bank card?"):
        mem.recall(question, "u", k=3)
    mem.answer("What is the door code?", "u", k=3)


@pytest.mark.parametrize("mode", ["parrot", "echo_error"])
@pytest.mark.parametrize(("engine", "options"), SEAMS)
def test_a_failing_llm_never_logs_memory_text(
    tmp_path, embedder, caplog, capfd, monkeypatch, mode, engine, options
):
    from echo_llm_server import echo_llm_server

    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    caplog.set_level(logging.DEBUG)  # the root logger: every logger, every level
    with echo_llm_server(mode) as url:
        llm = create_llm("openai", base_url=url, retries=0, timeout_s=5)
        with Memory(
            tmp_path / "m.db", engine=engine, embedder=embedder, llm=llm, engine_options=options
        ) as mem:
            _exercise(mem)
            assert mem.count("u") == len(SECRETS)  # nothing lost to the failures
    logged = _everything_logged(caplog, capfd)
    # sanity: the failures were logged (a parrot's free text is a fine summary or answer)
    warned = [r for r in caplog.records if r.name.startswith("remem") and r.levelno >= 30]
    assert warned or (mode == "parrot" and options.get("summariser") == "llm")
    for word in CONTENT:
        assert word not in logged, f"{word!r} reached a log"


def test_the_content_switch_logs_what_failed_calls_said(tmp_path, embedder, caplog, monkeypatch):
    """``REMEM_LOG_CONTENT=1`` is the one explicit way to see the messages (debugging on
    data one may read): then the echoed prompt is in the warning."""
    from echo_llm_server import echo_llm_server

    monkeypatch.setenv("REMEM_LOG_CONTENT", "1")
    caplog.set_level(logging.WARNING, "remem.ilstma")
    with echo_llm_server("echo_error") as url:
        llm = create_llm("openai", base_url=url, retries=0, timeout_s=5)
        opts = {"summariser": "llm", "llm_attempts": 1}
        with Memory(
            tmp_path / "m.db", engine="ilstma", embedder=embedder, llm=llm, engine_options=opts
        ) as mem:
            for who, text in SECRETS:
                mem.add(text, "u", speaker=who)
    assert "LLM summary failed" in caplog.text and "80417723" in caplog.text
