"""One module per ``arena`` command, registered in :data:`COMMANDS`.

A command module has ``DESCRIPTION`` (its ``--help`` text), ``add_arguments(parser)`` and
``run(args, out) -> int`` (the exit code). It reads the flags, calls its use case (a
function of the package that owns it: :func:`arena.match.host.host_match`,
:func:`arena.tournament.host.run`...) and prints; a mistake of the person is an
:class:`arena.settings.UsageError`, which :func:`arena.cli.main` reports once. A module is
imported only when its command runs, so ``arena --help`` and Ctrl-C at start-up stay quick.
"""

from __future__ import annotations

import argparse
import importlib
from dataclasses import dataclass
from typing import Protocol, TextIO

__all__ = ["COMMANDS", "Command", "CommandInfo", "load"]


class Command(Protocol):
    """What a command module offers."""

    DESCRIPTION: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        """Add the command's arguments."""
        ...

    def run(self, args: argparse.Namespace, out: TextIO) -> int:
        """Run the command; the exit code."""
        ...


@dataclass(frozen=True, slots=True)
class CommandInfo:
    """A command's module and its one-line summary (``arena --help``)."""

    module: str
    summary: str


#: Every command, in the order ``arena --help`` lists them.
COMMANDS: dict[str, CommandInfo] = {
    "match": CommandInfo("arena.commands.match", "play a match between 2 to 10 bots"),
    "tournament": CommandInfo(
        "arena.commands.tournament",
        "a competition: round robin, gauntlet, ring games or sit-and-go freezeouts",
    ),
    "report": CommandInfo(
        "arena.commands.report", "write a self-contained HTML report of a tournament or a match"
    ),
    "replay": CommandInfo(
        "arena.commands.replay",
        "re-run a match from its hand history and check every hand is identical",
    ),
    "check-bot": CommandInfo(
        "arena.commands.check_bot", "check that a bot builds, starts and plays"
    ),
    "play": CommandInfo(
        "arena.commands.play", "play poker yourself, at the terminal, against 1 to 9 bots"
    ),
    "discord": CommandInfo(
        "arena.commands.discord_command",
        "host poker tables in a Discord server: people and bots play by chat commands",
    ),
    "export": CommandInfo(
        "arena.commands.export", "write a run's hands as PHH files or ACPC log lines"
    ),
    "server": CommandInfo(
        "arena.commands.server", "host a competition web site: uploads, validation, results"
    ),
    "submit": CommandInfo(
        "arena.commands.submit", "upload a bot to a competition's server and wait for its verdict"
    ),
    "demo": CommandInfo(
        "arena.commands.demo", "a duplicate round robin of the starter bots of every language"
    ),
}


def load(name: str) -> Command:
    """The module of the command ``name`` (imported now)."""
    module: Command = importlib.import_module(COMMANDS[name].module)
    return module
