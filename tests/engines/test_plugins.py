"""Engines and storage extensions found through entry points (issue 35, "discovery").

A tiny engine distribution is written into ``tmp`` as an installer would leave it (a
package and its ``*.dist-info`` with ``entry_points.txt``) and put on the path: its
engine, which keeps a table of its own, is then a name like any built-in one, in
Python, on the command line, in the HTTP server and in the MCP server, and erasing a
user erases its rows. A broken plugin leaves the rest working and says why when its
name is asked for; ``package.module:Class`` names an engine registered nowhere.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import remem.engines as engines
import remem.store.extension as extension
from remem import Memory
from remem.engines import check_engine_name, engine_names
from remem.errors import UnknownComponentError
from remem.plugins import BUILTIN_ENGINES, ENGINES_GROUP, find, installed_names

ROOT = Path(__file__).resolve().parents[2]

TINY_PACKAGE = '''
"""remem-tiny-engine: ranks a user's memories by the words they share with the query,
kept in a table of its own (tiny_words) through the storage hook."""

from remem.engines.base import Engine, Scored
from remem.store.extension import Extension

DDL = (
    "CREATE TABLE IF NOT EXISTS tiny_words (user_id TEXT NOT NULL, memory_id TEXT NOT NULL, "
    "word TEXT NOT NULL, PRIMARY KEY (user_id, memory_id, word))"
)
WORDS = Extension(
    name="tiny_words",
    migrations={"sqlite": [(1, DDL)], "postgres": [(1, DDL)]},
    user_tables=("tiny_words",),
    memory_refs=(("tiny_words", "memory_id"),),
)
NOTES_DDL = "CREATE TABLE IF NOT EXISTS tiny_notes (user_id TEXT NOT NULL, note TEXT NOT NULL)"
NOTES = Extension(
    name="tiny_notes",
    migrations={"sqlite": [(1, NOTES_DDL)], "postgres": [(1, NOTES_DDL)]},
    user_tables=("tiny_notes",),
)
NOT_AN_ENGINE = 42


class TinyEngine(Engine):
    name = "tiny"
    needs_query_vector = False
    tables = (WORDS,)

    def __init__(self, ctx, **options):
        super().__init__(ctx, **options)
        self.db = ctx.store.attach(WORDS)

    def on_add(self, user_id, memories):
        rows = [(user_id, m.id, w) for m in memories for w in set(m.text.lower().split())]
        with self.db.write(user_id) as tx:
            tx.many(
                "INSERT INTO tiny_words (user_id, memory_id, word) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                rows,
            )

    def search(self, user_id, query, query_vec, k):
        words = sorted(set(query.lower().split()))
        if not words:
            return []
        with self.db.read() as tx:
            rows = tx.rows_in(
                "SELECT memory_id, COUNT(*) FROM tiny_words WHERE user_id = ? AND word {in} "
                "GROUP BY memory_id",
                (user_id,),
                words,
            )
        ranked = sorted(rows, key=lambda r: (-r[1], r[0]))[:k]
        return [Scored(m, float(n), "tiny") for m, n in ranked]


def make(ctx, **options):
    return TinyEngine(ctx, **options)


def not_a_factory(ctx, **options):
    return "not an engine"
'''

TINY_ENTRY_POINTS = """
[remem.engines]
tiny = remem_tiny_engine:TinyEngine

[remem.extensions]
tiny-notes = remem_tiny_engine:NOTES
"""

BROKEN_PACKAGE = """
raise ImportError("remem_broken_engine needs the frobnicator, which is not installed")
"""

# a broken engine, and one that claims a built-in's name (ignored: the built-in wins)
BROKEN_ENTRY_POINTS = """
[remem.engines]
broken = remem_broken_engine:Engine
hybrid = remem_tiny_engine:TinyEngine
"""


def _distribution(site: Path, package: str, dist: str, code: str, entry_points: str) -> None:
    """``package`` and its dist-info in ``site``, as ``pip install --target`` leaves them."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(entry_points.lstrip(), encoding="utf-8")


@pytest.fixture(scope="module")
def tiny_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("tiny-site")
    _distribution(site, "remem_tiny_engine", "remem-tiny-engine", TINY_PACKAGE, TINY_ENTRY_POINTS)
    return site


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("broken-site")
    _distribution(
        site, "remem_broken_engine", "remem-broken-engine", BROKEN_PACKAGE, BROKEN_ENTRY_POINTS
    )
    return site


@pytest.fixture
def registry(monkeypatch) -> Iterator[None]:
    """The registries as they are, restored afterwards: what a test's plugins register
    stays in the test (other tests' Memorys would attach their tables)."""
    engines.engine_names()  # the built-ins loaded, as every other test sees them
    for name in ("_FACTORIES", "_SETTINGS", "_BROKEN", "_DOTTED"):
        monkeypatch.setattr(engines, name, dict(getattr(engines, name)))
    monkeypatch.setattr(engines, "_SEEN", set(engines._SEEN))
    monkeypatch.setattr(engines, "_done", engines._done)
    monkeypatch.setattr(extension, "_REGISTRY", dict(extension._REGISTRY))
    monkeypatch.setattr(extension, "_SEEN", set(extension._SEEN))
    monkeypatch.setattr(extension, "_done", extension._done)
    yield
    for module in ("remem_tiny_engine", "remem_broken_engine"):
        sys.modules.pop(module, None)


def _install(monkeypatch, *sites: Path) -> None:
    """Put the distributions on the path, and make the registries read it again."""
    for site in sites:
        monkeypatch.syspath_prepend(str(site))
    engines._rescan()
    extension._rescan()


def _rows(db: Path, table: str) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
    finally:
        con.close()


def _env(*sites: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    path = [str(s) for s in sites] + [str(ROOT / "src")]
    if env.get("PYTHONPATH"):
        path.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(path)
    env["REMEM_LLM"] = "none"
    return env


# -- remem's own engines ---------------------------------------------------------------


def test_the_builtins_are_declared_in_pyproject_as_in_code():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"][ENGINES_GROUP] == dict(BUILTIN_ENGINES)


def test_the_builtins_load_whatever_the_installed_metadata_says():
    """Found from code even when the installed metadata predates them (an editable
    install made before they were declared), each once."""
    plugins = find(ENGINES_GROUP)
    names = [p.name for p in plugins]
    assert len(names) == len(set(names))
    assert {"dense", "bm25", "hybrid", "synapse", "ilstma"} <= set(names)
    assert {"synapse-nofan", "ilstma-paper", "hybrid"} <= set(engine_names())
    assert "hybrid" not in installed_names(ENGINES_GROUP)


def test_fresh_metadata_repeating_the_builtins_loads_none_twice(
    registry, monkeypatch, tmp_path, caplog
):
    """An install made after the declaration lists the built-ins in its metadata as
    well as in code: each is still found and loaded once, without a warning."""
    site = tmp_path / "fresh"
    info = site / "remem-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: remem\nVersion: 0.1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in BUILTIN_ENGINES.items())
    (info / "entry_points.txt").write_text(f"[{ENGINES_GROUP}]\n{lines}")
    seen = set(engines._SEEN)
    with caplog.at_level(logging.WARNING, logger="remem.plugins"):
        _install(monkeypatch, site)
        names = [p.name for p in find(ENGINES_GROUP)]
        engine_names()
    assert sorted(names) == sorted(set(names)) and set(BUILTIN_ENGINES) <= set(names)
    assert seen == engines._SEEN and not caplog.records
    declared = {ep.name for ep in entry_points(group=ENGINES_GROUP)}
    assert set(BUILTIN_ENGINES) <= declared  # the metadata did repeat them


# -- a plugin engine, in Python ---------------------------------------------------------


def test_a_plugin_engine_is_a_name_and_its_table_is_erased(
    registry, monkeypatch, tiny_site, tmp_path, embedder
):
    _install(monkeypatch, tiny_site)
    assert "tiny" in engine_names() and check_engine_name("tiny") == "tiny"
    assert installed_names(ENGINES_GROUP) == ["tiny"]
    db = tmp_path / "m.db"
    with Memory(db, engine="tiny", embedder=embedder, llm="none") as mem:
        a = mem.add("the red kayak is in the shed", user_id="u")
        mem.add("a blue bicycle by the door", user_id="u")
        b = mem.add("red kayak paddles", user_id="v")
        hits = mem.search("red kayak", user_id="u", k=5)
        assert [h.id for h in hits] == [a] and hits[0].score == 2.0
        assert mem.engine_info.name == "tiny"
        assert {r[0] for r in _rows(db, "tiny_words")} == {"u", "v"}
        # the remem.extensions entry point: a table every Memory attaches
        assert _rows(db, "tiny_notes") == []
        assert mem.delete_user("u") == 2
        assert {r[0] for r in _rows(db, "tiny_words")} == {"v"}
    # another engine's Memory in this process also erases the plugin's rows
    with Memory(db, engine="bm25", embedder=embedder, llm="none") as mem:
        assert mem.delete(b, user_id="v")
    assert _rows(db, "tiny_words") == []


def test_a_plugin_engines_options_are_checked_before_anything_opens(
    registry, monkeypatch, tiny_site, tmp_path, embedder
):
    _install(monkeypatch, tiny_site)
    with pytest.raises(ValueError, match="engine 'tiny' has no options"):
        Memory(tmp_path / "x.db", engine="tiny", engine_options={"depth": 3}, embedder=embedder)
    assert not (tmp_path / "x.db").exists()


def test_a_dotted_path_names_an_engine_registered_nowhere(
    registry, monkeypatch, tiny_site, tmp_path, embedder
):
    monkeypatch.syspath_prepend(str(tiny_site))  # importable, entry points not read again
    db = tmp_path / "m.db"
    for path in ("remem_tiny_engine:TinyEngine", "remem_tiny_engine:make"):
        assert check_engine_name(path) == path
        with Memory(db, engine=path, embedder=embedder, llm="none") as mem:
            mid = mem.add(f"the green lantern {path}", user_id="u")
            assert mid in [h.id for h in mem.search("green lantern", user_id="u")]
    assert path not in engine_names()
    assert {r[0] for r in _rows(db, "tiny_words")} == {"u"}
    for path, why in (
        ("no_such_module:Engine", "cannot be imported: ModuleNotFoundError"),
        ("remem_tiny_engine:Missing", "cannot be imported: AttributeError"),
        ("remem_tiny_engine:NOT_AN_ENGINE", "neither an Engine subclass nor a factory"),
        ("remem_tiny_engine:Extension", "neither an Engine subclass nor a factory"),
    ):
        with pytest.raises(UnknownComponentError, match=why):
            Memory(tmp_path / "never.db", engine=path, embedder=embedder)
    with pytest.raises(UnknownComponentError, match="returned str, not an Engine"):
        Memory(db, engine="remem_tiny_engine:not_a_factory", embedder=embedder, llm="none")
    assert not (tmp_path / "never.db").exists()


def test_a_broken_plugin_leaves_the_rest_working_and_says_why(
    registry, monkeypatch, tiny_site, broken_site, tmp_path, embedder, caplog
):
    with caplog.at_level(logging.WARNING, logger="remem.plugins"):
        _install(monkeypatch, broken_site, tiny_site)
        names = engine_names()
    assert "broken" not in names and {"tiny", "hybrid", "synapse"} <= set(names)
    logged = caplog.text
    assert "'broken'" in logged and "remem-broken-engine 0.1" in logged
    assert "frobnicator" in logged
    assert "'hybrid' from distribution remem-broken-engine 0.1 is ignored" in logged
    with pytest.raises(UnknownComponentError) as err:
        Memory(tmp_path / "b.db", engine="broken", embedder=embedder)
    message = str(err.value)
    assert "engine 'broken' is not available" in message
    assert "remem-broken-engine 0.1" in message and "frobnicator" in message
    assert not (tmp_path / "b.db").exists()
    # the built-in keeps its name: the other distribution's "hybrid" is not loaded
    with Memory(tmp_path / "h.db", engine="hybrid", embedder=embedder, llm="none") as mem:
        assert type(mem._engine).__name__ == "HybridEngine"
        mid = mem.add("the kettle is on the stove", user_id="u")
        assert [h.id for h in mem.search("kettle", user_id="u")] == [mid]


# -- a plugin engine on the command line and in the servers -----------------------------


def _cli(*argv: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "remem.cli", *argv],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_the_command_line_lists_and_uses_a_plugin_engine(tiny_site, tmp_path):
    env = _env(tiny_site)
    helped = _cli("--help", env=env, cwd=tmp_path)
    assert helped.returncode == 0, helped.stderr
    assert "installed: tiny" in " ".join(helped.stdout.split())
    db = str(tmp_path / "c.db")
    added = _cli("--db", db, "--engine", "tiny", "add", "the red kayak", "--user", "u", env=env,
                 cwd=tmp_path)  # fmt: skip
    assert added.returncode == 0, added.stderr
    mid = added.stdout.strip()
    # the same engine by its dotted path, and the table it keeps
    found = _cli("--db", db, "--engine", "remem_tiny_engine:TinyEngine", "search", "kayak",
                 "--user", "u", "--json", env=env, cwd=tmp_path)  # fmt: skip
    assert found.returncode == 0, found.stderr
    assert mid in found.stdout
    assert [r[:2] for r in _rows(Path(db), "tiny_words")] == [("u", mid)] * 3
    unknown = _cli("--db", db, "--engine", "tinny", "count", "--user", "u", env=env, cwd=tmp_path)
    assert unknown.returncode == 2 and "tiny" in unknown.stderr  # the choices name it


def test_the_http_server_serves_a_plugin_engine(registry, monkeypatch, tiny_site, tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from remem.keys import KeyRing
    from remem.serve.http import app_from_env

    _install(monkeypatch, tiny_site)
    db = tmp_path / "h.db"
    monkeypatch.setenv("REMEM_DB", str(db))
    monkeypatch.setenv("REMEM_ENGINE", "tiny")  # as `remem serve --engine tiny` hands it on
    with Memory(db, engine="tiny", llm="none") as mem:
        key, _ = KeyRing.of(mem).create("acme")
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(app_from_env()) as client:
        assert client.get("/v1/health").json()["engine"] == "tiny"
        assert client.get("/v1/engine", headers=headers).json()["name"] == "tiny"
        r = client.post("/v1/memories", json={"user_id": "bob", "text": "the red kayak"},
                        headers=headers)  # fmt: skip
        assert r.status_code == 201, r.text
        mid = r.json()["id"]
        r = client.post("/v1/search", json={"user_id": "bob", "query": "kayak"}, headers=headers)
        assert [h["id"] for h in r.json()["hits"]] == [mid]
        assert {r[0] for r in _rows(db, "tiny_words")} == {"acme:bob"}
        r = client.request("DELETE", "/v1/users", params={"user_id": "bob"}, headers=headers)
        assert r.status_code == 200, r.text
    assert _rows(db, "tiny_words") == []


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_server_serves_a_plugin_engine(tiny_site, tmp_path):
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    db = tmp_path / "mcp.db"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "remem.serve.mcp", "--db", str(db), "--engine", "tiny"],
        env=_env(tiny_site),
        cwd=str(tmp_path),
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        added = await s.call_tool("add_memory", {"user_id": "ana", "text": "the red kayak"})
        assert not added.is_error, added.content
        mid = added.structured_content["id"]
        found = await s.call_tool("search_memory", {"user_id": "ana", "query": "kayak"})
        assert [h["id"] for h in found.structured_content["hits"]] == [mid]
        assert {r[0] for r in _rows(db, "tiny_words")} == {"ana"}
        erased = await s.call_tool("forget_user", {"user_id": "ana"})
        assert erased.structured_content == {"deleted": 1}
    assert _rows(db, "tiny_words") == []
