"""The package's layering holds: nothing imports upward and module-level imports form
no cycle (docs/architecture.md draws the layers). Every module must be placed in a
layer here, so a new one is placed deliberately."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "remem"

#: (module prefix, layer), the most specific prefix wins; higher layers may import
#: lower ones and their own, never a higher one.
LAYERS = [
    ("remem.types", 0),
    ("remem.errors", 0),
    ("remem.validation", 0),
    ("remem.filters", 0),
    ("remem.tokens", 0),
    ("remem.env", 0),
    ("remem.plugins", 0),
    ("remem.redact", 0),
    ("remem._version", 0),
    # reading time words: below the question and the lexical index, which use it
    ("remem.time.calendar", 0),
    ("remem.time.patterns", 0),
    ("remem.time.tense", 0),
    ("remem.time.resolve", 0),
    ("remem.time.events", 0),
    ("remem.time.window", 0),
    ("remem.time.anchors", 0),
    ("remem.speakers", 0),
    ("remem.options", 0),
    ("remem.retry_after", 0),
    ("remem._openai", 1),
    ("remem.store", 1),
    ("remem.index", 2),
    ("remem.embed", 2),
    ("remem.llm", 2),
    ("remem.keys", 2),
    ("remem.question", 2),
    ("remem.words", 2),
    ("remem.data", 0),
    ("remem.engines", 3),
    ("remem.time", 4),
    ("remem.table", 4),
    ("remem.transfer", 4),
    ("remem.answer", 4),
    ("remem.recall", 5),
    ("remem.config", 5),
    ("remem.writes", 6),
    ("remem.memory", 6),
    ("remem.aio", 6),
    ("remem.serve", 7),
    ("remem.integrations", 7),
    ("remem.client", 7),
    ("remem.demo", 7),
    ("remem.commands", 7),
    ("remem.cli", 8),
    ("remem", 8),  # the package's __init__: the public surface
]


def _module(path: Path) -> str:
    parts = ["remem", *path.relative_to(SRC).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> int:
    best = max(
        (p for p, _ in LAYERS if module == p or module.startswith(p + ".")),
        key=len,
        default=None,
    )
    assert best is not None, f"{module} is in no layer: place it in tests/test_layers.py"
    return dict(LAYERS)[best]


def _imports(path: Path, module: str) -> list[tuple[str, bool]]:
    """(imported remem module, at module level) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    top = {id(n) for n in tree.body}
    # an ``if`` at module level runs at import, except ``if TYPE_CHECKING:`` (hints only)
    top |= {
        id(n)
        for stmt in tree.body
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" not in ast.unparse(stmt.test)
        for n in stmt.body
    }
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name == "remem" or name.startswith("remem."):
                out.append((name, id(node) in top))
    return out


def _known(name: str, modules: set[str]) -> str:
    """The module an imported name lives in (``from .x import y`` may name a symbol)."""
    while name not in modules and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def test_nothing_imports_upward_and_nothing_is_unplaced():
    files = {_module(p): p for p in SRC.rglob("*.py")}
    wrong = []
    for module, path in files.items():
        for name, _ in _imports(path, module):
            target = _known(name, set(files))
            if _layer(target) > _layer(module):
                wrong.append(f"{module} (layer {_layer(module)}) imports {target}")
    assert not wrong, "\n".join(wrong)


def test_module_level_imports_form_no_cycle():
    files = {_module(p): p for p in SRC.rglob("*.py")}
    graph = {
        m: {_known(n, set(files)) for n, top in _imports(p, m) if top} - {m}
        for m, p in files.items()
    }
    # a package's __init__ importing its own submodules is how packages work
    for m in graph:
        graph[m] = {
            t for t in graph[m] if not (t.startswith(m + ".") and files[m].name == "__init__.py")
        }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for t in sorted(graph.get(m, ())):
            if state.get(t) == 1:
                cycles.append(stack[stack.index(t) :] + [t])
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert not cycles, cycles


def test_the_package_holds_no_benchmark_harness():
    """The harness is ``remem_bench``, beside the package (benchmarks/): the installed
    remem neither carries it nor imports it, so ``remem`` never waits for it."""
    assert not (SRC / "bench").exists()
    wrong = [
        f"{_module(path)} imports {name}"
        for path in SRC.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
        if name.split(".")[0] == "remem_bench"
    ]
    assert not wrong, wrong
