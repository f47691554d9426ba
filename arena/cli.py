"""The ``arena`` command: ``match``, ``tournament``, ``report``, ``replay``, ``check-bot``,
``play``, ``discord``, ``export``, ``server``, ``submit`` and ``demo`` (eleven commands,
registered in :data:`arena.commands.COMMANDS`).

This module parses the arguments and runs the command's module; the module's use case does
the work. Every bad flag, manifest or setting is reported as ``arena <command>: error:
<message naming the bad value>`` and a line saying where to look, with exit code 2
(argparse's convention, and :class:`arena.settings.UsageError`'s), never as a traceback. A
bot that misbehaves during a match is a recorded fault, not an error of the command; an
exception from our own code is a bug and is allowed to stop the command with its traceback.
Ctrl-C or SIGTERM at any moment, start-up included, ends the command with an
``interrupted`` line and exit code 130 (but ``arena server run``, which a signal stops as
it should: ``stopped`` and 0, see :mod:`arena.server.serve`). Plain ``arena`` lists the
commands (exit code 0); flags are never abbreviated (``--hand`` is not ``--hands``). The
README shows each command at work.
"""

# Only the standard library at the top: the commands (and everything they import) are
# imported inside main(), where Ctrl-C is caught, so that an interrupt during start-up is
# the "interrupted" line too and never a traceback.
from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO

__all__ = ["ArenaParser", "build_parser", "command_parser", "main", "run_command"]

#: The exit code of an interrupted command (128 + SIGINT, as a shell reports it).
INTERRUPTED = 130


class ArenaParser(argparse.ArgumentParser):
    """An argument parser whose errors are two lines: what is wrong, and where to look.

    argparse's own form prints the whole usage block before the one line that matters;
    here the message comes first, then ``see `arena match --help```. Exit code 2, as
    argparse does. Flags are never abbreviated: ``--hand 10`` is an error, not ``--hands``.
    """

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` and the hint; exit 2."""
        self.exit(2, f"{self.prog}: error: {message}\n  see `{self.prog} --help`\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("poker-arena")
    except PackageNotFoundError:  # pragma: no cover - run from a checkout not installed
        return "unknown"


def build_parser(only: str | None = None) -> ArenaParser:
    """The ``arena`` argument parser with its commands; ``only``: give only that command
    its arguments (the others stay unloaded: what :func:`main` does)."""
    from arena.commands import COMMANDS, load

    parser = ArenaParser(
        prog="arena",
        description="Run poker bots against each other (JSON lines over stdin/stdout).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, info in COMMANDS.items():
        if only is not None and name != only:
            commands.add_parser(name, help=info.summary)
            continue
        module = load(name)
        subparser = commands.add_parser(name, help=info.summary, description=module.DESCRIPTION)
        module.add_arguments(subparser)
    return parser


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (a service stopped, ``kill``) ends the command as Ctrl-C does: the same
    clean-up, the same line, exit code 130."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None) -> int:
    """Run the ``arena`` command line; returns the exit code. A usage mistake is printed
    and raises ``SystemExit(2)``, as argparse's own errors do."""
    out = stdout if stdout is not None else sys.stdout
    with _sigterm_interrupts():
        try:
            return _main(list(sys.argv[1:] if argv is None else argv), out)
        except KeyboardInterrupt:
            out.write("\narena: interrupted\n")
            out.flush()
            return INTERRUPTED


def _main(argv: list[str], out: TextIO) -> int:
    from arena.commands import COMMANDS

    # The command is the first word that is not an option: load only its module.
    words = [word for word in argv if not word.startswith("-")]
    name = words[0] if words and words[0] in COMMANDS else ""
    parser = build_parser(only=name)
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help(out)
        return 0
    return _dispatch(parser, args, extra, out, {})


def run_command(name: str, argv: Sequence[str], out: TextIO, **options: Any) -> int:
    """Run ``arena NAME ARGV`` as :func:`main` does (a usage mistake exits 2), passing
    ``options`` to the command's ``run`` (a front end, a client runner: tests)."""
    parser = build_parser(only=name)
    args, extra = parser.parse_known_args([name, *argv])
    return _dispatch(parser, args, extra, out, options)


def _dispatch(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    extra: list[str],
    out: TextIO,
    options: dict[str, Any],
) -> int:
    from arena.commands import load
    from arena.settings import UsageError

    own = command_parser(parser, args.command)
    if extra:
        # An unknown flag after a command is that command's error, not the top level's.
        own.error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return load(args.command).run(args, out, **options)
    except UsageError as exc:
        own.error(str(exc))


def command_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of the command ``name`` inside the ``arena`` parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            found: argparse.ArgumentParser = action.choices[name]
            return found
    raise AssertionError("the arena parser has its commands")  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
