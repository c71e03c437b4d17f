"""The harness uses remem as any program would: through its public API. Every remem
name a module of remem_bench imports is one of ``PUBLIC``: what ``remem`` exports,
and the embedder, engine, verdict and time-reading interfaces docs/answers.md,
docs/plugins.md and docs/usage.md document. There is no exception: a grader must not
share code with what it grades (it could not catch that code's bugs), and what measures
remem's internals on purpose (the replays of saved answer runs, the reader's fit) is a
script of scripts/, not a command of the harness."""

from __future__ import annotations

import ast
from pathlib import Path

import remem

HARNESS = Path(__file__).resolve().parents[1] / "remem_bench"

PUBLIC: dict[str, set[str]] = {
    "remem": set(remem.__all__),
    # the embedder interface Memory(embedder=...) takes, and the named ones
    "remem.embed": {"Embedder", "create_embedder"},
    # the engines' names, as --engine lists them (docs/plugins.md)
    "remem.engines": {"engine_names"},
    # the verdict's fitted constants, as an engine declares them (docs/plugins.md)
    "remem.engines.verdict": {"VerdictModel", "verdict_model"},
    # the time readings as functions of text ("Reading time alone", docs/usage.md)
    "remem.time.events": {"event_times"},
    "remem.time.window": {"question_window"},
    "remem.time.current": {"read_slots"},
    # the reader over a recall, its refusal text ("Reading a recall yourself",
    # docs/answers.md) and the prompts it renders (docs/answers.md)
    "remem.answer": {"Answerer", "REFUSAL"},
    "remem.llm.prompts": {"render"},
}


def _imported(path: Path) -> set[tuple[str, str]]:
    """(module, name) of every remem name the file imports, hints included."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] == "remem":
                out |= {(node.module, a.name) for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {(a.name, "") for a in node.names if a.name.split(".")[0] == "remem"}
    return out


def _harness_imports() -> dict[tuple[str, str], list[str]]:
    found: dict[tuple[str, str], list[str]] = {}
    for path in sorted(HARNESS.rglob("*.py")):
        for key in _imported(path):
            found.setdefault(key, []).append(path.name)
    return found


def test_the_harness_imports_only_public_names():
    found = _harness_imports()
    unlisted = [
        f"{module}.{name} ({', '.join(files)})"
        for (module, name), files in sorted(found.items())
        if name not in PUBLIC.get(module, set())
    ]
    assert not unlisted, "not remem's public API:\n" + "\n".join(unlisted)


def test_the_check_sees_imports_in_functions_and_plain_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "import remem.store\n"
        "from remem import Memory\n"
        "def f():\n"
        "    from remem.time.events import event_times\n"
    )
    assert _imported(module) == {
        ("remem.store", ""),
        ("remem", "Memory"),
        ("remem.time.events", "event_times"),
    }
