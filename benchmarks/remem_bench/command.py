"""The one convention of ``remem-bench``'s commands, on click (as sqlite-utils'
are): the group, the parameter types (comma-separated lists, KEY=VALUE options) and
:func:`benchmark`, which prints and writes every benchmark's tables the same way.
The commands themselves are in :mod:`remem_bench.cli`.
"""

from __future__ import annotations

import functools
import json
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from . import __version__

Tables = list[Any]
Bench = Callable[..., Any]

EXAMPLES = """
\b
Examples:
  remem-bench locomo --data locomo10.json --engines bm25,hybrid --json out.json
  remem-bench locomo --data locomo10.json --answer --llm local --jsonl rows.jsonl
  remem-bench longmemeval --data longmemeval_s_cleaned.json --questions 80
  remem-bench time
"""


@click.group(help="remem's benchmarks: every table in docs/benchmarks.md.\n" + EXAMPLES)
@click.version_option(__version__, prog_name="remem-bench")
@click.pass_context
def cli(ctx: click.Context) -> None:
    ctx.ensure_object(dict)


# -- the parameter types --------------------------------------------------------------


class _Names(click.ParamType):
    """Comma-separated names (``dense,bm25``)."""

    name = "NAMES"

    def convert(self, value: Any, param: Any, ctx: Any) -> list[str]:
        if isinstance(value, list):
            return value
        return [x.strip() for x in str(value).split(",") if x.strip()]


class _Ints(click.ParamType):
    """Comma-separated whole numbers (``5,10,20``)."""

    name = "INTS"

    def convert(self, value: Any, param: Any, ctx: Any) -> list[int]:
        if isinstance(value, list):
            return value
        try:
            return [int(x) for x in str(value).split(",") if x.strip()]
        except ValueError:
            self.fail(f"expected whole numbers separated by commas, got {value!r}", param, ctx)


class _KeyValue(click.ParamType):
    """KEY=VALUE with VALUE read as JSON when it parses (true, 0.4, "x"), else text."""

    name = "KEY=VALUE"

    def convert(self, value: Any, param: Any, ctx: Any) -> tuple[str, object]:
        if isinstance(value, tuple):
            return value
        key, sep, text = str(value).partition("=")
        if not sep or not key.strip():
            self.fail(f"expected KEY=VALUE, got {value!r}", param, ctx)
        try:
            return key.strip(), json.loads(text)
        except json.JSONDecodeError:
            return key.strip(), text


NAMES = _Names()
INTS = _Ints()
KEY_VALUE = _KeyValue()


def key_value(text: str) -> tuple[str, object]:
    """One KEY=VALUE option (scripts/lme_sweep.py reads its options so, too)."""
    return KEY_VALUE.convert(text, None, None)


def option_list(flag: str, help: str) -> Callable[[Bench], Bench]:
    """A repeatable KEY=VALUE option, its values as one dict."""
    return click.option(
        flag,
        type=KEY_VALUE,
        multiple=True,
        callback=lambda _c, _p, v: dict(v),
        help=help + "; repeatable",
    )


# -- running one benchmark ------------------------------------------------------------


def benchmark(
    name: str, help: str, group: click.Group | None = None
) -> Callable[[Bench], click.Command]:
    """Make ``fn`` the benchmark ``name`` of ``group`` (default :func:`cli`; a script's
    own group, as scripts/replay_answers.py's): it gives (result, tables) or an exit
    status; the tables are printed and, with ``--json``/``--markdown``, written."""

    def register(fn: Bench) -> click.Command:
        @(group or cli).command(name, help=help, short_help=help)
        @click.option("--json", "json_out", help="write the result as JSON to this file")
        @click.option("--markdown", help="write the report as Markdown to this file")
        @functools.wraps(fn)  # and with it the options declared on fn
        def run(json_out: str | None, markdown: str | None, **params: Any) -> None:
            _finish(fn(**params), json_out, markdown)

        return run

    return register


def _finish(out: Any, json_out: str | None, markdown: str | None) -> None:
    ctx = click.get_current_context()
    if isinstance(out, int):
        ctx.exit(out)
    from .report import markdown as as_markdown
    from .report import print_tables

    result, tables = out
    command = " ".join([prog(ctx), *(shlex.quote(a) for a in argv(ctx))])
    result["command"] = command
    print_tables(tables)
    if json_out:
        Path(json_out).write_text(json.dumps(result, indent=2))
    if markdown:
        Path(markdown).write_text(as_markdown(tables, command))


def argv(ctx: click.Context) -> list[str]:
    """The command line run (``main``'s, else the process's), for the results."""
    obj = ctx.find_root().obj or {}
    return list(obj.get("argv", sys.argv[1:]))


def prog(ctx: click.Context) -> str:
    """How the command is called (``remem-bench``, or ``main``'s ``prog``)."""
    return str((ctx.find_root().obj or {}).get("prog", "remem-bench"))


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def fail(message: str, prog: str = "remem-bench") -> None:
    print(f"{prog}: {' '.join(message.split())}", file=sys.stderr, flush=True)
