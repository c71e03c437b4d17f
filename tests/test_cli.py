"""The ``remem`` command line, run in-process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest

from remem import Memory
from remem.cli import cli, main
from remem.llm import local_available


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.db")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_add_search_get_delete_count(capsys, db):
    code, out, err = run(
        capsys,
        "--db",
        db,
        "add",
        "I keep my passport in the blue drawer",
        "--user",
        "ana",
        "--speaker",
        "Ana",
        "--timestamp",
        "2023-05-08T13:56:00Z",
        "--session",
        "s1",
        "--metadata",
        '{"source": "cli", "n": [1, 2]}',
    )
    assert code == 0 and err == ""
    mid = out.strip()
    assert re.fullmatch(r"[0-9a-f]{32}", mid)
    other = run(capsys, "--db", db, "add", "My bike is red", "--user", "ana")[1].strip()

    assert run(capsys, "--db", db, "count", "--user", "ana")[:2] == (0, "2\n")

    code, out, _ = run(
        capsys, "--db", db, "search", "where is my passport", "--user", "ana", "-k", "1"
    )
    assert code == 0
    lines = out.strip().splitlines()
    assert len(lines) == 1 and mid in lines[0] and "Ana: I keep my passport" in lines[0]
    assert "2023-05-08 13:56" in lines[0]

    code, out, _ = run(capsys, "--db", db, "search", "passport bike", "--user", "ana", "--json")
    rows = [json.loads(line) for line in out.strip().splitlines()]
    assert {r["id"] for r in rows} == {mid, other}
    assert rows[0]["score"] >= rows[1]["score"]

    code, out, _ = run(capsys, "--db", db, "get", mid, "--user", "ana")
    got = json.loads(out)
    assert code == 0
    assert got["text"] == "I keep my passport in the blue drawer"
    assert got["speaker"] == "Ana" and got["session_id"] == "s1"
    assert got["metadata"] == {"source": "cli", "n": [1, 2]}
    assert got["timestamp"] == "2023-05-08T13:56:00+00:00"

    code, out, err = run(capsys, "--db", db, "get", mid, "--user", "ben")
    assert code == 1 and out == "" and "no memory" in err

    code, out, err = run(capsys, "--db", db, "delete", mid, "--user", "ben")
    assert code == 1 and "no memory" in err
    assert run(capsys, "--db", db, "delete", mid, "--user", "ana")[0] == 0
    assert run(capsys, "--db", db, "delete", mid, "--user", "ana")[0] == 1
    assert run(capsys, "--db", db, "count", "--user", "ana")[1] == "1\n"

    with Memory(db, engine="hybrid") as m:  # the CLI wrote a normal database
        assert [h.id for h in m.memories("ana")] == [other]


def test_delete_user(capsys, db):
    for text in ("one fact", "two facts", "three facts"):
        run(capsys, "--db", db, "add", text, "--user", "zoe")
    run(capsys, "--db", db, "add", "kept", "--user", "yan")
    assert run(capsys, "--db", db, "delete-user", "zoe")[:2] == (0, "3\n")
    assert run(capsys, "--db", db, "count", "--user", "zoe")[1] == "0\n"
    assert run(capsys, "--db", db, "count", "--user", "yan")[1] == "1\n"
    assert run(capsys, "--db", db, "search", "facts", "--user", "zoe")[:2] == (0, "")


def test_delete_user_under_another_connections_snapshot_says_the_bytes_remain(capsys, db):
    """The rows go, but a reader's older snapshot keeps their bytes in the WAL: the
    command says so and exits 2 instead of printing a clean count."""
    import sqlite3

    run(capsys, "--db", db, "add", "my PIN is 80417723", "--user", "zoe")
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM memories").fetchone()
    try:
        code, out, err = run(capsys, "--db", db, "delete-user", "zoe")
    finally:
        reader.execute("COMMIT")
        reader.close()
    assert code == 2 and out == ""
    assert "deleted, but" in err and "still in the database files" in err
    assert run(capsys, "--db", db, "count", "--user", "zoe")[1] == "0\n"


@pytest.mark.parametrize("engine", ["dense", "bm25", "hybrid"])
def test_engine_option(capsys, db, engine):
    run(capsys, "--db", db, "--engine", engine, "add", "the cellar door squeaks", "--user", "u")
    code, out, _ = run(
        capsys, "--db", db, "--engine", engine, "search", "cellar door", "--user", "u"
    )
    assert code == 0 and "cellar door" in out


def test_db_from_environment(capsys, tmp_path, monkeypatch):
    path = tmp_path / "env.db"
    monkeypatch.setenv("REMEM_DB", str(path))
    assert run(capsys, "add", "from the env", "--user", "u")[0] == 0
    assert path.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", "   ", "--user", "u"], "empty"),
        (["add", "text", "--user", "  "], "user_id"),
        (["add", "text", "--user", "u", "--timestamp", "yesterday"], "timestamp"),
        (["add", "text", "--user", "u", "--metadata", "{not json"], "not valid JSON"),
        (["add", "text", "--user", "u", "--metadata", "[1, 2]"], "metadata must be a dict"),
        (["add", "text", "--user", "u", "--metadata", '{"x": NaN}'], "JSON cannot hold"),
        (["search", "", "--user", "u"], "query"),
        (["search", "q", "--user", "u", "-k", "0"], "k must be positive"),
        (["--engine", "nope", "count", "--user", "u"], "unknown engine"),
    ],
)
def test_bad_input_exits_2_with_message(capsys, db, argv, message):
    run(capsys, "--db", db, "add", "existing memory", "--user", "u")
    code, out, err = run(capsys, "--db", db, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("remem: ") and message in err
    assert "Traceback" not in err
    with Memory(db, engine="bm25") as m:
        assert m.count("u") == 1


def test_usage_errors_exit_2(capsys, db):
    with pytest.raises(SystemExit) as info:
        main(["--db", db, "add", "text"])  # --user missing
    assert info.value.code == 2
    assert "--user" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--db", db, "search", "q", "--user", "u", "-k", "three"])
    assert info.value.code == 2


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert "remem 0.1.0" in capsys.readouterr().out


def _demo_figures(out: str) -> tuple[int, int, int, int]:
    found = re.search(r"Evidence in the top 5 for (\d+) of (\d+)\s+answerable", out)
    refused = re.search(r"(\d+) of (\d+)\s+never-mentioned\s+questions\s+refused", out)
    assert found and refused, out[-800:]
    return tuple(int(x) for x in (*found.groups(), *refused.groups()))  # type: ignore[return-value]


def test_demo_runs_and_finds_evidence(capsys):
    assert main(["demo", "--llm", "none"]) == 0
    out = capsys.readouterr().out
    assert "remem demo" in out and "Remembered" in out and "reader none" in out
    hit, asked, refused, never = _demo_figures(out)
    assert asked == 10 and never == 2
    assert hit >= asked // 2
    assert "reached by" in out and "anchor" in out  # SYNAPSE's paths are shown
    assert "ILSTMA cache" in out
    # every answer is graded and the counts add up to the questions asked
    graded = re.search(
        r"(\d+) of 10 right \((\d+) of the wrong refused although the conversation says it\), "
        r"(\d+) of 2 never-mentioned questions refused",
        " ".join(out.split()),
    )
    assert graded, out[-800:]
    right, refused_wrongly, _ = (int(x) for x in graded.groups())
    assert right + refused_wrongly <= 10
    assert "PARTLY" not in out
    assert "expected: Ines Duarte" in out and re.search(r"evidence D2:5 (ranked \d|not in)", out)


def test_demo_k_is_the_evidence_shown_not_what_the_answer_reads(capsys):
    """-k shows fewer memories; every answer stays what Memory.answer gives."""
    assert main(["demo", "--llm", "none"]) == 0
    wide = capsys.readouterr().out
    assert main(["demo", "--llm", "none", "-k", "2"]) == 0
    narrow = capsys.readouterr().out

    def answers(out: str) -> list[str]:
        return [line.split("(")[0] for line in out.splitlines() if "A:" in line]

    assert len(answers(wide)) == 12 and answers(narrow) == answers(wide)
    shown = [int(n) for n in re.findall(r"ranked \d+ of (\d+)", narrow)]
    assert shown and max(shown) <= 2


@pytest.mark.skipif(not local_available(), reason="the local model is not installed")
def test_demo_answers_with_the_local_model_and_refuses_honestly(capsys):
    """The README's first command: the bundled model is installed, the typed reader
    answers without calling it (it would write words no memory holds), and at least
    one never-mentioned question is refused."""
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "reader local:SmolLM2" in out
    hit, asked, refused, never = _demo_figures(out)
    assert hit >= asked // 2
    assert refused >= 1
    assert "1 LLM call" not in out and "0 LLM call(s)" in out


def test_bench_is_no_command_of_remem(capsys):
    """The benchmarks are remem-bench's (benchmarks/), not the installed package's."""
    try:
        code = main(["bench", "locomo", "--data", "x.json"])
    except SystemExit as exc:  # a usage error, as for any unknown command
        code = exc.code
    assert code == 2
    assert "bench" in capsys.readouterr().err


def test_db_that_is_not_a_database_exits_2(capsys, tmp_path):
    bogus = tmp_path / "notes.txt"
    bogus.write_text("just some notes, not a database\n" * 50)
    code, out, err = run(capsys, "--db", str(bogus), "count", "--user", "u")
    assert code == 2 and err.startswith("remem: ")


def test_export_and_import_table(capsys, db, tmp_path):
    for text in ("the kiln reached 1200 degrees", "we glazed the bowls blue"):
        run(capsys, "--db", db, "add", text, "--user", "ana")
    table = str(tmp_path / "ana.json")
    assert run(capsys, "--db", db, "export-table", table, "--user", "ana")[:2] == (0, "2\n")
    assert json.loads(Path(table).read_text())["format"] == "remem.global-memory-table/1"
    assert run(capsys, "--db", db, "import-table", table, "--user", "bo")[:2] == (0, "2\n")
    code, out, _ = run(capsys, "--db", db, "search", "kiln", "--user", "bo", "-k", "1")
    assert code == 0 and "kiln" in out
    Path(table).write_text("{not json")
    code, _, err = run(capsys, "--db", db, "import-table", table, "--user", "cy")
    assert code == 2 and "memory table" in err
    assert run(capsys, "--db", db, "count", "--user", "cy")[1] == "0\n"


def test_users_list_recall_and_consolidate(capsys, db):
    texts = ["I moved to Lisbon in May", "My sister lives in Porto", "I adopted a greyhound"]
    ids = []
    for text in texts:
        code, out, _ = run(capsys, "--db", db, "--engine", "synapse", "add", text,
                           "--user", "ana", "--speaker", "Ana")  # fmt: skip
        assert code == 0
        ids.append(out.strip())
    run(capsys, "--db", db, "add", "ben's note", "--user", "ben")
    assert run(capsys, "--db", db, "users") == (0, "ana\nben\n", "")

    code, out, _ = run(capsys, "--db", db, "list", "--user", "ana")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert [line.split()[0] for line in lines] == ids  # insertion order, id first
    assert lines[0].endswith("Ana: I moved to Lisbon in May")
    code, out, _ = run(capsys, "--db", db, "list", "--user", "ana", "--limit", "1",
                       "--offset", "1", "--json")  # fmt: skip
    assert [json.loads(x)["id"] for x in out.splitlines()] == [ids[1]]
    code, _, err = run(capsys, "--db", db, "list", "--user", "ana", "--offset", "-1")
    assert code == 2 and "offset" in err

    code, out, _ = run(capsys, "--db", db, "--engine", "synapse", "consolidate", "--user", "ana")
    assert code == 0 and int(out) >= 0
    code, out, _ = run(capsys, "--db", db, "--engine", "synapse", "recall",
                       "When did Ana move to Lisbon?", "--user", "ana", "-k", "2")  # fmt: skip
    assert code == 0 and out.startswith("confidence ")
    hits = [x for x in out.splitlines()[1:] if not x.lstrip().startswith("via ")]
    assert len(hits) == 2 and "via anchor" in out  # how each hit was reached
    code, out, _ = run(capsys, "--db", db, "--engine", "synapse", "recall",
                       "When did Ana move to Lisbon?", "--user", "ana", "--json")  # fmt: skip
    rec = json.loads(out)
    assert set(rec) == {"hits", "confidence", "refuse", "concepts", "explanations",
                        "cache_hit", "timings", "absent", "not_in_memory"}  # fmt: skip
    assert ids[0] in [h["id"] for h in rec["hits"]] and rec["refuse"] is False
    assert all(h["id"] in ids for h in rec["hits"])  # never ben's


def test_now_moves_the_time_a_question_names(capsys, db):
    for day, text in (("2023-03-01", "I baked a lemon cake"), ("2023-03-20", "I baked bread")):
        run(capsys, "--db", db, "add", text, "--user", "ana", "--timestamp", f"{day}T10:00:00")
    for now, first in (("2023-03-21T09:00:00", "bread"), ("2023-03-02T09:00:00", "lemon cake")):
        code, out, _ = run(
            capsys, "--db", db, "search", "What did I bake yesterday?", "--user", "ana",
            "-k", "1", "--now", now,
        )  # fmt: skip
        assert code == 0 and first in out
    code, out, _ = run(
        capsys, "--db", db, "recall", "What did I bake yesterday?", "--user", "ana",
        "--now", "2023-03-21T09:00:00", "--json",
    )  # fmt: skip
    assert code == 0 and "made yesterday" in out
    for command in ("search", "recall", "ask"):
        code, _, err = run(
            capsys, "--db", db, command, "cake", "--user", "ana", "--now", "next tuesday"
        )
        assert code == 2 and "now 'next tuesday' is not ISO-8601" in err


def test_huge_offset_limit_and_k_are_one_line_errors(tmp_path, embedder):
    # a real process: what a user typing the command sees, traceback or not
    db = tmp_path / "huge.db"
    with Memory(db, engine="bm25", embedder=embedder, llm="none") as mem:
        mem.add("I keep my passport in the blue drawer", user_id="ana")
    env = {**os.environ, "REMEM_LLM": "none"}
    cli = [sys.executable, "-m", "remem.cli", "--db", str(db), "--engine", "bm25"]
    for args, message in (
        (["list", "--user", "ana", "--offset", str(10**20)], "offset must be at most"),
        (["list", "--user", "ana", "--limit", str(2**63)], "limit must be at most"),
        (["search", "passport", "--user", "ana", "-k", str(10**20)], "k must be at most"),
    ):
        done = subprocess.run([*cli, *args], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and "Traceback" not in done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"remem: {message} 1,000,000,000, got")


# -- the command as a process: missing databases, failures, closed pipes ------------------------


def _remem(*argv: str, cwd: Path, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess:
    """``remem ...`` as its own process, as a shell runs it (no REMEM_ variables)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    return subprocess.run(
        [sys.executable, "-m", "remem.cli", *argv],
        cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300,
    )  # fmt: skip


def _one_line_error(err: str) -> str:
    assert err.startswith("remem: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


READS = [
    ["users"],
    ["count", "--user", "u"],
    ["list", "--user", "u"],
    ["get", "0" * 32, "--user", "u"],
    ["search", "where", "--user", "u"],
    ["recall", "where", "--user", "u"],
    ["ask", "where?", "--user", "u", "--llm", "none"],
    ["export-table", "TMP/t.json", "--user", "u"],
    ["consolidate", "--user", "u"],
    ["delete", "0" * 32, "--user", "u"],
    ["delete-user", "u"],
    ["keys", "list"],
    ["keys", "revoke", "0" * 12],
]


@pytest.mark.parametrize("argv", READS, ids=lambda a: " ".join(a[:2]))
def test_a_read_of_a_missing_database_says_so_and_creates_nothing(capsys, tmp_path, argv):
    db = tmp_path / "typo.db"
    argv = [a.replace("TMP", str(tmp_path)) for a in argv]
    code, out, err = run(capsys, "--db", str(db), *argv)
    assert code != 0 and out == ""
    assert "no database at" in _one_line_error(err) and str(db) in err
    assert list(tmp_path.iterdir()) == []


def test_without_db_a_read_creates_no_remem_db_and_a_write_does(tmp_path):
    r = _remem("users", cwd=tmp_path)
    assert r.returncode != 0 and r.stdout == ""
    assert "no database at 'remem.db'" in _one_line_error(r.stderr)
    assert list(tmp_path.iterdir()) == []
    r = _remem("--engine", "bm25", "add", "a first fact", "--user", "u", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "remem.db").exists()
    r = _remem("users", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (0, "u\n"), r.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["keys", "create", "--tenant", "acme"],
        ["import-table", "TABLE", "--user", "u"],
    ],
    ids=["keys create", "import-table"],
)
def test_writes_create_the_database(capsys, tmp_path, argv):
    table = tmp_path / "t.json"
    table.write_text(json.dumps({"format": "remem.global-memory-table/1", "entries": []}))
    db = tmp_path / "new.db"
    code, _, err = run(capsys, "--db", str(db), *[str(table) if a == "TABLE" else a for a in argv])
    assert code == 0, err
    assert db.exists()


@pytest.mark.parametrize("where", ["no/such/dir/t.json", "."], ids=["missing folder", "a folder"])
def test_export_to_a_path_that_cannot_be_written_is_one_line(tmp_path, where):
    db = tmp_path / "e.db"
    assert _remem("--db", str(db), "--engine", "bm25", "add", "a fact", "--user", "u",
                  cwd=tmp_path).returncode == 0  # fmt: skip
    before = set(tmp_path.iterdir())
    r = _remem("--db", str(db), "--engine", "bm25", "export-table", where, "--user", "u",
               cwd=tmp_path)  # fmt: skip
    assert r.returncode != 0 and r.stdout == ""
    assert "cannot write a memory table" in _one_line_error(r.stderr)
    assert set(tmp_path.iterdir()) == before  # no temporary file left behind


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "what fact?", "--user", "u", "--llm", "none", "--json"],
        ["list", "--user", "u"],
        ["count", "--user", "u"],
    ],
    ids=lambda a: a[0],
)
def test_a_closed_pipe_exits_quietly(tmp_path, argv):
    """``remem ask --json ... | head -c 0``: the reader is gone before the first line
    is written. No traceback, no "Exception ignored" at exit."""
    db = tmp_path / "p.db"
    assert _remem("--db", str(db), "--engine", "bm25", "add", "a fact", "--user", "u",
                  cwd=tmp_path).returncode == 0  # fmt: skip
    read, write = os.pipe()
    os.close(read)  # every write to the pipe fails with EPIPE
    try:
        r = _remem("--db", str(db), "--engine", "bm25", *argv, cwd=tmp_path, stdout=write)
    finally:
        os.close(write)
    assert r.stderr == ""
    assert r.returncode == 128 + signal.SIGPIPE  # as a shell reports a closed pipe


# -- help ------------------------------------------------------------------------------------


def _commands(command: click.Command = cli, name: str = "remem"):
    """The command and every subcommand, with the command line that reaches each."""
    yield name, command
    if isinstance(command, click.Group):
        for sub, subcommand in command.commands.items():
            yield from _commands(subcommand, f"{name} {sub}")


def _help(name: str, command: click.Command) -> str:
    """``name --help``'s text, its lines joined."""
    with click.Context(command, info_name=name) as ctx:
        return " ".join(command.get_help(ctx).split())


def _help_of(param: click.Parameter) -> str:
    """A parameter's help text, made now where it is made when shown (``--engine``'s)."""
    make = getattr(param, "make_help", None)
    return make() if make else getattr(param, "help", None) or ""


def test_every_command_option_and_argument_says_what_it_is():
    undocumented = [
        f"{name}: {'/'.join(param.opts) or param.name}"
        for name, command in _commands()
        for param in command.params
        if not _help_of(param).strip()
    ]
    undocumented += [name for name, command in _commands() if not command.get_short_help_str()]
    assert not undocumented, "\n".join(undocumented)


def test_each_command_shows_an_example_of_itself():
    """The issue 41 convention (sqlite-utils'): every command's --help ends with a
    command line that runs it."""
    for name, command in _commands():
        if name in ("remem", "remem bench", "remem keys"):
            continue
        words = name.split()[1:]
        assert re.search(rf"Examples?: .*remem .*\b{' '.join(words)}\b", _help(name, command)), name


def test_help_names_the_choices_and_defaults():
    """What finding 14 named: the engines and their default, the readers, the
    timestamp's format."""
    # the names remem registers itself, in a fresh process: tests register their own
    listed = subprocess.run(
        [sys.executable, "-c", "from remem.engines import engine_names as e\n"
         "from remem.llm import llm_names as l\nprint(' '.join(e()), '|', ' '.join(l()))"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout  # fmt: skip
    engine_names, llm_names = (part.split() for part in listed.split("|"))
    assert "synapse" in engine_names and "none" in llm_names

    top = _help("remem", cli)
    for name in engine_names:
        base, dash, _ = name.partition("-")
        assert f"{base}-" in top if dash else f"{name} " in top or f"{name}," in top, name
    assert "default hybrid" in top
    subs = dict(_commands())
    add = _help("remem add", subs["remem add"])
    assert "ISO 8601" in add and "--timestamp" in add
    ask = _help("remem ask", subs["remem ask"])
    for name in llm_names:
        assert name in ask
    assert "default 10" in ask  # -k


# -- cold start: what a command imports --------------------------------------------------------

HEAVY = {"onnxruntime", "tokenizers", "scipy", "bm25s", "xllamacpp", "fastapi", "uvicorn", "mcp"}
"""Modules that cost a command hundreds of milliseconds or megabytes to import or load
(the embedding model's runtime and tokenizer, scipy, the servers' frameworks)."""
_RUN_AND_LIST_IMPORTS = """
import sys
from remem.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("IMPORTED", *sorted({m.split(".")[0] for m in sys.modules}), file=sys.stderr)
sys.exit(code)
"""


def _imports_of(*argv: str, cwd: Path) -> set[str]:
    """The top-level modules a ``remem`` command imported, run in its own process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    r = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST_IMPORTS, *argv],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    (line,) = [x for x in r.stderr.splitlines() if x.startswith("IMPORTED ")]
    return set(line.split()[1:])


@pytest.mark.parametrize(
    "argv",
    [
        ["count", "--user", "u"],
        ["users"],
        ["list", "--user", "u", "--json"],
        ["get", "MID", "--user", "u"],
        ["export-table", "t.json", "--user", "u"],
        ["delete", "MID", "--user", "u"],
        ["delete-user", "u"],
        ["keys", "list"],
    ],
    ids=lambda a: a[0] if a[0] != "keys" else "keys list",
)
def test_commands_that_embed_nothing_load_no_model(open_memory, tmp_path, argv):
    """Finding 15: every command loaded the embedding model (about 300 MB and a second
    of the two cores) even to print a count."""
    db = tmp_path / "cold.db"
    mid = open_memory(db, "hybrid").add("a fact to count", user_id="u")
    argv = [mid if a == "MID" else a for a in argv]
    imported = _imports_of("--db", str(db), *argv, cwd=tmp_path)
    assert "remem" in imported  # the listing works
    assert not imported & HEAVY, sorted(imported & HEAVY)


@pytest.mark.parametrize("argv", [["count", "--user", "u"], ["users"], ["list", "--user", "u"]])
def test_plain_store_commands_load_no_openssl(open_memory, tmp_path, argv):
    """hashlib and hmac load OpenSSL's libcrypto (3.5 MB resident, a tenth of
    ``remem count``): on an unencrypted store only the encrypted path, the servers'
    keys and a search need them, so a listing imports neither (issue 41: ``remem
    count`` stays as small as it was)."""
    db = tmp_path / "plain.db"
    open_memory(db, "hybrid").add("a fact to count", user_id="u")
    imported = _imports_of("--db", str(db), *argv, cwd=tmp_path)
    assert "remem" in imported
    assert not imported & {"hashlib", "_hashlib", "hmac"}, sorted(imported)


def test_version_and_help_import_no_library(tmp_path):
    for argv in (["--version"], ["--help"], ["add", "--help"]):
        imported = _imports_of(*argv, cwd=tmp_path)
        assert not imported & (HEAVY | {"numpy"}), (argv, sorted(imported & (HEAVY | {"numpy"})))


# -- exit statuses, as docs/cli.md states them (issue 34, finding 12) -----------------------


def _readme_exit_rule(code: int) -> str:
    """docs/cli.md's list item on what exits with ``code`` ("- 2: ...", its lines joined;
    the README's until issue 41 moved the command reference there)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    items = re.findall(rf"^- {code}: .*(?:\n  .*)*", text, flags=re.MULTILINE)
    assert len(items) == 1, f"docs/cli.md states exit {code} once, as a '- {code}: ' item"
    return " ".join(items[0].split())


def _unforeseen(*_: Any, **__: Any) -> Any:
    raise OSError(28, "No space left on device")


EXIT_CASES = [
    ("bad input", ["add", "   ", "--user", "u"], 2),
    ("a missing database", ["--db", "TMP/typo.db", "count", "--user", "u"], 2),
    ("`--db no/such/dir/m.db add ...`", ["--db", "TMP/no/dir/m.db", "add", "x", "--user", "u"], 2),
    ("`export-table no/such/dir/t.json`", ["export-table", "TMP/no/dir/t.json", "--user", "u"], 2),
    ("cannot be written", ["export-table", "TMP", "--user", "u"], 2),
    ("`import-table missing.json`", ["import-table", "TMP/missing.json", "--user", "u"], 2),
    ("a memory the user does not have", ["get", "0" * 32, "--user", "u"], 1),
    ("a key that is not active", ["keys", "revoke", "rmm_nope"], 1),
    ("did not foresee", ["count", "--user", "u"], 1),
]  # fmt: skip


@pytest.mark.parametrize(("phrase", "argv", "code"), EXIT_CASES, ids=[c[0] for c in EXIT_CASES])
def test_each_documented_exit_status(capsys, monkeypatch, tmp_path, phrase, argv, code):
    assert phrase in _readme_exit_rule(code)
    db = str(tmp_path / "cli.db")
    assert run(capsys, "--db", db, "--engine", "bm25", "add", "a fact", "--user", "u")[0] == 0
    if phrase == "did not foresee":
        monkeypatch.setattr(Memory, "count", _unforeseen)
    argv = [a.replace("TMP", str(tmp_path)) for a in argv]
    got, out, err = run(capsys, "--db", db, "--engine", "bm25", *argv)
    assert (got, out) == (code, "") and err.startswith("remem: ") and err.count("\n") == 1


def _interrupted(*_: Any, **__: Any) -> Any:
    raise KeyboardInterrupt


def test_ctrl_c_is_one_line_and_exit_130(capsys, monkeypatch, db):
    assert run(capsys, "--db", db, "--engine", "bm25", "add", "a fact", "--user", "u")[0] == 0
    monkeypatch.setattr(Memory, "count", _interrupted)
    assert run(capsys, "--db", db, "--engine", "bm25", "count", "--user", "u") == (
        128 + signal.SIGINT,
        "",
        "remem: interrupted\n",
    )


def test_help_shows_the_defaults_the_environment_makes(monkeypatch):
    """``default %(default)s`` is filled in when --help is shown, from the
    environment as the command would read it then."""
    monkeypatch.setenv("REMEM_ENGINE", "bm25")
    monkeypatch.setenv("REMEM_SERVE_MAX_BODY", "1234")
    assert "(env REMEM_ENGINE; default bm25)" in _help("remem", cli)
    serve = _help("remem serve", dict(_commands())["remem serve"])
    assert "REMEM_SERVE_MAX_BODY; default 1234)" in serve
    assert "reader of /v1/answer:" in serve and "default none)" in serve


def test_the_read_filters_are_listed_apart():
    search = _help("remem search", dict(_commands())["remem search"])
    options, filters = search.split("Filters (only memories that pass are ranked or listed):")
    assert "--user" in options and "--speaker" not in options
    assert all(f"--{f} " in filters for f in ("session", "speaker", "meta", "after", "before"))


# -- import-table --skip-blank (issue 34, finding 14) ----------------------------------------


def test_import_table_skip_blank_says_which_entries_it_left_out(capsys, db, tmp_path):
    for text in ("the kiln reached 1200 degrees", "we glazed the bowls blue", "we sold six"):
        run(capsys, "--db", db, "add", text, "--user", "ana")
    table = tmp_path / "ana.json"
    run(capsys, "--db", db, "export-table", str(table), "--user", "ana")
    data = json.loads(table.read_text())
    data["entries"][1]["text"] = "\u200b"
    table.write_text(json.dumps(data))
    code, out, err = run(capsys, "--db", db, "import-table", str(table), "--user", "bo")
    assert (code, out) == (2, "") and "item 1: text must not be empty" in err
    code, out, err = run(
        capsys, "--db", db, "import-table", str(table), "--user", "bo", "--skip-blank"
    )
    assert (code, out) == (0, "2\n")
    assert err == "remem: left out 1 blank entry, at position 1\n"
    assert run(capsys, "--db", db, "count", "--user", "bo")[1] == "2\n"
