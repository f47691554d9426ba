"""``arena play`` as a program of its own, for the tests: the command's parser and runner,
wired as ``arena.cli`` wires a command (the pseudo-terminal test runs it until ``arena.cli``
has ``play``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from arena.commands.human import add_play_parser, run_play_command


def build_parser() -> argparse.ArgumentParser:
    """An ``arena`` parser with the one command ``play``."""
    parser = argparse.ArgumentParser(prog="arena")
    commands = parser.add_subparsers(dest="command", required=True)
    play = add_play_parser(commands)
    parser.command_parsers = {"play": play}  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``play``'s arguments and run it; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(["play", *(sys.argv[1:] if argv is None else argv)])
    return run_play_command(args, parser, sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
