"""The one convention for subcommands (``remem ...``, ``remem keys ...``, ``remem mcp``),
after sqlite-utils' cli.py: each command is one small function over the library,
registered with its arguments in one place::

    commands = Commands("command")

    @commands.command("count", help="number of memories of a user",
                      args=[arg("--user", required=True)])
    def count(args: argparse.Namespace) -> int | None:
        ...

A command returns its exit status (None: 0). :meth:`Commands.add_to` builds the
argparse subparsers; the parsed namespace carries the command to run
(:func:`run_parsed`). Building a parser imports nothing: each command imports what
it needs when it runs, so ``remem --help`` needs no server extras.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import env
from .errors import RememError

Run = Callable[[argparse.Namespace], "int | None"]


def names(text: str) -> list[str]:
    """An argument type: comma-separated names (``dense,bm25``)."""
    return [x.strip() for x in text.split(",") if x.strip()]


def ints(text: str) -> list[int]:
    """An argument type: comma-separated whole numbers (``5,10,20``)."""
    return [int(x) for x in text.split(",") if x.strip()]


class LazyHelp(str):
    """An argument's help text made when argparse formats it (``--help``), not when
    the parser is built: ``make()`` may read what is costly to read on every command
    (the installed plugins' names). The string itself is a stand-in; argparse expands
    ``%(default)s`` with ``%``, which makes the text."""

    _make: Callable[[], str]

    def __new__(cls, make: Callable[[], str]) -> LazyHelp:
        text = super().__new__(cls, "(computed when help is shown)")
        text._make = make
        return text

    def __mod__(self, params: Any) -> str:
        return self._make() % params


@dataclass(frozen=True)
class Arg:
    """One ``add_argument`` call, kept until a parser is built."""

    flags: tuple[str, ...]
    options: dict[str, Any]
    default_from: Callable[[], Any] | None = None
    """Computes the default when the parser is built (an environment variable's value
    must be read when the command runs, not when the module is imported)."""
    group: str | None = None
    """The title of the argument group it is listed under in ``--help``."""

    def add_to(self, parser: argparse._ActionsContainer) -> None:
        options = dict(self.options)
        if self.default_from is not None:
            options["default"] = self.default_from()
        parser.add_argument(*self.flags, **options)


def arg(
    *flags: str,
    default_from: Callable[[], Any] | None = None,
    group: str | None = None,
    **options: Any,
) -> Arg:
    """An argument: ``add_argument``'s own parameters, plus ``default_from`` (a default
    computed when the parser is built) and ``group`` (an argument group's title)."""
    return Arg(flags, options, default_from, group)


def add_args(parser: argparse.ArgumentParser, args: Sequence[Arg]) -> None:
    groups: dict[str, argparse._ArgumentGroup] = {}
    for a in args:
        if a.group is None:
            a.add_to(parser)
        else:
            if a.group not in groups:
                groups[a.group] = parser.add_argument_group(a.group)
            a.add_to(groups[a.group])


@dataclass(frozen=True)
class Command:
    name: str
    run: Run
    args: tuple[Arg, ...] = ()
    help: str | None = None
    description: str | None = None

    def __call__(self, args: argparse.Namespace) -> int | None:
        return self.run(args)

    def add_to(self, sub: Any) -> argparse.ArgumentParser:
        extra = {"description": self.description} if self.description else {}
        p: argparse.ArgumentParser = sub.add_parser(self.name, help=self.help, **extra)
        add_args(p, self.args)
        p.set_defaults(_run=self.run)
        return p


def command(
    name: str,
    *,
    help: str | None = None,
    description: str | None = None,
    args: Sequence[Arg] = (),
) -> Callable[[Run], Command]:
    """Make the decorated function the command ``name`` with these arguments."""

    def make(run: Run) -> Command:
        return Command(name, run, tuple(args), help, description)

    return make


@dataclass
class Commands:
    """A set of subcommands, and groups of them (``keys``), under one parser;
    ``dest`` names the attribute that holds the chosen one's name."""

    dest: str
    _items: list[Command | tuple[str, str, Commands]] = field(default_factory=list)

    def command(
        self,
        name: str,
        *,
        help: str | None = None,
        description: str | None = None,
        args: Sequence[Arg] = (),
    ) -> Callable[[Run], Command]:
        """Make the decorated function the command ``name`` (:func:`command`), one of these."""

        def register(run: Run) -> Command:
            made = command(name, help=help, description=description, args=args)(run)
            self._items.append(made)
            return made

        return register

    def add(self, command: Command) -> None:
        self._items.append(command)

    def group(self, name: str, commands: Commands, *, help: str) -> None:
        """``name`` takes a subcommand of its own, one of ``commands``."""
        self._items.append((name, help, commands))

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        sub = parser.add_subparsers(dest=self.dest, required=True)
        for item in self._items:
            if isinstance(item, Command):
                item.add_to(sub)
            else:
                name, help, commands = item
                commands.add_to(sub.add_parser(name, help=help))


def run_parsed(args: argparse.Namespace) -> int:
    """Run the command a parser built by :meth:`Commands.add_to` chose."""
    run: Run = args._run
    return run(args) or 0


CLOSED_PIPE = 128 + signal.SIGPIPE
"""The exit status when the reader of stdout went away (``remem list | head -1``):
what a shell reports for a program a closed pipe stopped, as ``cat`` or ``yes``."""
INTERRUPTED = 128 + signal.SIGINT
"""The exit status after Ctrl-C, as a shell reports it."""


def run(args: argparse.Namespace) -> int:
    """Run a parsed command line. Every failure is one ``remem: ...`` line on stderr
    and a non-zero status (docs/cli.md lists them): remem's own errors exit 2, for it
    refuses what it was given (bad input, a missing database, a path that does not
    exist or cannot be written, which the library reports as bad input); what remem
    did not foresee exits 1, an ``OSError`` of the system (a full disk) or anything
    else, with the traceback only when ``REMEM_DEBUG`` is set. A command returns 1
    itself when what it was asked for is not there. A closed stdout ends the command
    quietly (:data:`CLOSED_PIPE`)."""
    try:
        code = run_parsed(args)
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


def standalone(
    command: Command, prog: str, global_args: Sequence[Arg], argv: Sequence[str] | None = None
) -> int:
    """One command as a program of its own (``python -m remem.serve.mcp``): the global
    options, then the command's."""
    p = argparse.ArgumentParser(prog=prog, description=command.description)
    add_args(p, [*global_args, *command.args])
    p.set_defaults(_run=command.run)
    return run(p.parse_args(argv))
