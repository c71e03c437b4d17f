"""What remem's click command lines (``remem``, ``python -m remem.serve.mcp``) add to
click, and why each part is not click's own:

* :class:`Option`: a help text may hold ``%(default)s``, filled in with the default
  the environment makes when ``--help`` is shown (click shows a computed default as
  "(dynamic)"), or be a function called only then (the installed engine plugins'
  names are read from package metadata, which costs every other command time).
  ``section`` lists the option under a heading of its own (the read filters,
  :class:`Command`).
* :class:`Command`, :class:`Group`: options listed by section, and a command's line
  in its group's ``--help`` its first paragraph whole (click cuts it at the
  terminal's width with "...").
* :func:`main`: remem's exit statuses and one-line errors around click's parsing
  (docs/cli.md lists them). click's own ``main`` turns a closed stdout into exit 1
  and an interrupt into "Aborted!"; remem keeps a shell's 141 and 130.

Building a command imports nothing heavy: each command imports what it needs when
it runs, so ``remem --help`` needs no server or benchmark extras.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from . import env
from .errors import RememError


class Option(click.Option):
    """An option whose help may name ``%(default)s`` or be made when it is shown."""

    def __init__(
        self,
        param_decls: Sequence[str] | None = None,
        help: str | Callable[[], str] | None = None,
        section: str = "Options",
        **attrs: Any,
    ) -> None:
        self.make_help = help if callable(help) else None
        super().__init__(param_decls, help=None if callable(help) else help, **attrs)
        self.section = section

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        written = self.help
        text = self.make_help() if self.make_help else written
        if text and "%(default)" in text:
            text = text % {"default": self.get_default(ctx)}
        self.help = text
        try:
            return super().get_help_record(ctx)
        finally:
            self.help = written


class Command(click.Command):
    """A command whose ``--help`` lists its options by :attr:`Option.section`, and
    whose line in its group's list is its help's first paragraph, whole."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_params(self, ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        return _short_help(self)


class Group(click.Group):
    """A group of :class:`Command` (and of groups like itself)."""

    command_class = Command
    group_class = type

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_params(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        return _short_help(self)


def _short_help(command: click.Command) -> str:
    """The first paragraph of ``command``'s help (click cuts it to fit the terminal's
    width with "...", which lost the end of several commands' one line)."""
    text = inspect.cleandoc(command.short_help or command.help or "")
    return " ".join(text.split("\n\n")[0].split())


def _format_params(
    command: click.Command, ctx: click.Context, formatter: click.HelpFormatter
) -> None:
    """The help of ``command``'s options: "Options", then each :attr:`Option.section`
    in the order of its first option (click lists the arguments before them)."""
    found: dict[str, list[tuple[str, str]]] = {"Options": []}
    for param in command.get_params(ctx):
        row = param.get_help_record(ctx)
        if row is not None and isinstance(param, click.Option):
            found.setdefault(getattr(param, "section", "Options"), []).append(row)
    for title, rows in found.items():
        if rows:
            with formatter.section(title):
                formatter.write_dl(rows)


def option(*decls: str, **attrs: Any) -> Callable[[Any], Any]:
    """``@click.option`` of an :class:`Option` (lazy ``help``, ``section``)."""
    return click.option(*decls, cls=Option, **attrs)


def options(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Several options as one decorator, listed in ``--help`` in the order given."""

    def apply(fn: Any) -> Any:
        for decorate in reversed(decorators):
            fn = decorate(fn)
        return fn

    return apply


CLOSED_PIPE = 128 + signal.SIGPIPE
"""The exit status when the reader of stdout went away (``remem list | head -1``):
what a shell reports for a program a closed pipe stopped, as ``cat`` or ``yes``."""
INTERRUPTED = 128 + signal.SIGINT
"""The exit status after Ctrl-C, as a shell reports it."""


def main(command: click.Command, prog: str, argv: Sequence[str] | None = None) -> int:
    """Run ``command`` on ``argv`` (default: the process's arguments). A usage error
    is click's message and ``SystemExit(2)``; ``--help`` and ``--version`` end in
    ``SystemExit(0)``; anything else is the command's status (:func:`run`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        return run(lambda: _invoke(command, prog, args))
    except click.exceptions.Exit as done:  # --help, --version
        raise SystemExit(done.exit_code) from None
    except click.ClickException as refused:  # a usage error
        refused.show()
        raise SystemExit(refused.exit_code) from None


def _invoke(command: click.Command, prog: str, args: list[str]) -> int | None:
    with command.make_context(prog, args) as ctx:
        result: int | None = command.invoke(ctx)
        return result


def run(command: Callable[[], int | None]) -> int:
    """Run a command. Every failure is one ``remem: ...`` line on stderr and a
    non-zero status (docs/cli.md lists them): remem's own errors exit 2, for it
    refuses what it was given (bad input, a missing database, a path that does not
    exist or cannot be written, which the library reports as bad input); what remem
    did not foresee exits 1, an ``OSError`` of the system (a full disk) or anything
    else, with the traceback only when ``REMEM_DEBUG`` is set. A command returns 1
    itself when what it was asked for is not there. A closed stdout ends the command
    quietly (:data:`CLOSED_PIPE`)."""
    try:
        code = command() or 0
        sys.stdout.flush()  # a closed pipe shows here, not in the interpreter's exit
        return code
    except BrokenPipeError:
        _drop_stdout()
        return CLOSED_PIPE
    except KeyboardInterrupt:
        _fail("interrupted")
        return INTERRUPTED
    except json.JSONDecodeError as exc:
        _fail(f"--metadata is not valid JSON: {exc}")
        return 2
    except RememError as exc:
        _fail(str(exc))
        return 2
    except OSError as exc:
        where = f": {exc.filename!r}" if exc.filename else ""
        _fail(f"{exc.strerror or exc}{where}")
        return 1
    except (click.ClickException, click.exceptions.Exit):
        raise
    except Exception as exc:
        if env.read("REMEM_DEBUG"):
            raise
        _fail(f"unexpected {type(exc).__name__}: {exc} (REMEM_DEBUG=1 shows the traceback)")
        return 1


def _fail(message: str) -> None:
    """One line on stderr (whose own reader may be gone too: then nothing)."""
    with contextlib.suppress(OSError):
        print(f"remem: {' '.join(message.split())}", file=sys.stderr, flush=True)


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush of what is still
    buffered for the closed pipe fails silently instead of printing a warning."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
