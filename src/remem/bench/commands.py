"""How the benchmarks register their subcommands (``remem bench ...``): each benchmark
is one small function, registered with its argparse arguments in one place::

    bench = Commands("bench")

    @bench.command("locomo", help="...", args=[arg("--data", required=True)])
    def locomo(args: argparse.Namespace) -> int | None:
        ...

This was remem's own command framework until remem's command line moved to click
(issue 41); the benchmarks keep it until they move to their own distribution with a
click command line of their own, so it lives here, with its only user.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

Run = Callable[[argparse.Namespace], "int | None"]


def names(text: str) -> list[str]:
    """An argument type: comma-separated names (``dense,bm25``)."""
    return [x.strip() for x in text.split(",") if x.strip()]


def ints(text: str) -> list[int]:
    """An argument type: comma-separated whole numbers (``5,10,20``)."""
    return [int(x) for x in text.split(",") if x.strip()]


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
    """A set of subcommands, and groups of them (``keys``, ``bench``), under one parser;
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
