"""A framework that is not installed gives remem's error naming the extra to install,
and ``import remem.integrations`` itself needs none of them."""

from __future__ import annotations

import subprocess
import sys

import pytest

ADAPTERS = [
    ("langchain", "langchain_core", "langchain"),
    ("langgraph", "langgraph", "langgraph"),
    ("llamaindex", "llama_index", "llamaindex"),
    ("openai_agents", "agents", "openai-agents"),
]


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(("module", "package", "extra"), ADAPTERS)
def test_a_missing_framework_names_its_extra(module: str, package: str, extra: str) -> None:
    # None in sys.modules is how Python marks a module as not importable
    out = _run(
        f"import sys; sys.modules[{package!r}] = None\n"
        "from remem.errors import MissingDependencyError\n"
        "try:\n"
        f"    import remem.integrations.{module}\n"
        "except MissingDependencyError as exc:\n"
        "    assert isinstance(exc, ImportError)\n"
        "    print(exc)\n"
    )
    assert out.returncode == 0, out.stderr
    assert f"pip install 'remem[{extra}]'" in out.stdout


def test_the_package_imports_no_framework() -> None:
    out = _run(
        "import sys, remem.integrations as i\n"
        "heavy = {'langchain_core', 'langgraph', 'llama_index', 'agents'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
        "print(sorted(i.__all__))\n"
    )
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "[]"
    assert "RememStore" in second
