"""Short functions: none in src/remem or benchmarks/remem_bench is longer than
``LIMIT`` lines, counted from its ``def`` to its last line (decorators and the
docstring's lines included). A longer one does several jobs; split it into helpers
that each do one, named for it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = [ROOT / "src" / "remem", ROOT / "benchmarks" / "remem_bench"]
LIMIT = 80

#: (path under the checkout, qualified name): functions allowed over the limit for now.
#: Each entry is a debt, to be split and removed from here - never add one lightly.
ALLOWED: set[tuple[str, str]] = set()


def _functions(tree: ast.AST, prefix: str = ""):
    """(qualified name, lines) of every function and method, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            yield prefix + node.name, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def _lengths() -> dict[tuple[str, str], int]:
    out = {}
    for path in sorted(p for package in PACKAGES for p in package.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for name, lines in _functions(ast.parse(path.read_text(encoding="utf-8"))):
            out[(where, name)] = lines
    return out


def test_no_function_is_longer_than_the_limit():
    lengths = _lengths()
    too_long = [
        f"{lines} lines: {where} {name}"
        for (where, name), lines in sorted(lengths.items())
        if lines > LIMIT and (where, name) not in ALLOWED
    ]
    assert not too_long, f"over {LIMIT} lines (split them):\n" + "\n".join(too_long)


def test_the_allow_list_holds_only_functions_still_over_the_limit():
    lengths = _lengths()
    stale = [entry for entry in sorted(ALLOWED) if lengths.get(entry, 0) <= LIMIT]
    assert not stale, f"now within {LIMIT} lines (or gone): remove from ALLOWED: {stale}"


def test_lengths_count_from_def_to_last_line_of_methods_and_nested_functions():
    body = "\n".join(f"        x{i} = {i}" for i in range(3))
    source = f"class A:\n    def f(self):\n        def g():\n            pass\n{body}\n"
    assert dict(_functions(ast.parse(source))) == {"A.f": 6, "A.f.g": 2}
