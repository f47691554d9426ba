"""The ``arena`` command: ``match``, ``tournament``, ``report``, ``replay``, ``check-bot``,
``play``, ``discord``, ``export`` and ``demo``.

This module parses the arguments; each command is a module of :mod:`arena.commands`.
Every bad flag or bad manifest is reported as ``arena <command>: error: <message naming the
bad value>`` and a line saying where to look, with exit code 2 (argparse's convention), never
as a traceback. A bot that
misbehaves during a match is a recorded fault, not an error of the command; an exception
from our own code is a bug and is allowed to stop the command with its traceback.

Examples::

    arena match sample_bots/python_calling_station/bot.toml sample_bots/python_random/bot.toml \\
        --hands 500 --seed 7
    arena match a/bot.toml b/bot.toml c/bot.toml --freezeout --stack 500 --schedule double@50
    arena match a/bot.toml b/bot.toml --sandbox limits --memory 512MiB --processes 16
    arena tournament sample_bots/*/bot.toml --deals 200 --seed 7
    arena report runs/tournament -o report.html
    arena replay runs/match-20260101-120000/hands.jsonl
    arena check-bot sample_bots/python_random/bot.toml
    arena play sample_bots/python_calling_station/bot.toml
    arena demo
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from arena.bots.sandbox.limits import DEFAULT_LIMITS, format_size, parse_size
from arena.bots.sandbox.select import SandboxLevel
from arena.commands import (
    check_bot,
    discord_command,
    export,
    human,
    play,
    replay,
    report,
    tournament,
)
from arena.commands import demo as demo_command
from arena.commands.play import sample_bot_manifests
from arena.commands.values import (
    duration,
    duration_or_zero,
    non_negative_int,
    parse_duration,
    parse_schedule,
    positive_int,
    seed_value,
)
from arena.match.log import LOG_LEVELS
from engine.config import BettingStructure, Variant

__all__ = [
    "build_parser",
    "main",
    "parse_duration",
    "parse_schedule",
    "sample_bot_manifests",
]

# ---------------------------------------------------------------------- parser


class ArenaParser(argparse.ArgumentParser):
    """An argument parser whose errors are two lines: what is wrong, and where to look.

    argparse's own form prints the whole usage block before the one line that matters;
    here the message comes first, then ``see `arena match --help```. Exit code 2, as
    argparse does.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message>`` and the hint; exit 2."""
        self.exit(2, f"{self.prog}: error: {message}\n  see `{self.prog} --help`\n")


def _size(text: str) -> int:
    """A size in bytes: ``1GiB``, ``512MiB``, ``64kB`` or a number of bytes."""
    try:
        value = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1 byte")
    return value


def _add_sandbox_options(parser: argparse.ArgumentParser) -> None:
    """``--sandbox`` and the resource limits; a limit flag that is given overrides the
    same limit in a manifest's ``[limits]`` table (the host has the last word)."""
    sandbox = parser.add_argument_group(
        "sandbox",
        "limits per bot; a manifest's [limits] table changes them for its bot, "
        "and a flag given here overrides both",
    )
    sandbox.add_argument(
        "--sandbox",
        choices=[level.value for level in SandboxLevel],
        default=None,
        help="how bots are isolated (default: the strongest layer that works here)",
    )
    limits = DEFAULT_LIMITS
    # (flag, limit key, is a size, what it limits), in the order of ResourceLimits.
    flags = (
        ("--memory", "memory_bytes", True, "memory of all the bot's processes"),
        ("--cpu-seconds", "cpu_seconds", False, "CPU seconds per process"),
        ("--processes", "processes", False, "processes of the bot"),
        ("--file-size", "file_size_bytes", True, "largest file it writes"),
        ("--open-files", "open_files", False, "open files per process"),
        ("--tmp-size", "tmp_bytes", True, "its private /tmp (strict)"),
    )
    for flag, key, is_size, what in flags:
        default = getattr(limits, key)
        shown = format_size(default).replace(" ", "") if is_size else str(default)
        sandbox.add_argument(
            flag,
            dest=key,
            type=_size if is_size else positive_int,
            default=None,
            metavar="SIZE" if is_size else "N",
            help=f"{what} (default {shown})",
        )


def _add_match_options(parser: argparse.ArgumentParser, *, hands_default: int | None) -> None:
    game = parser.add_argument_group("game")
    game.add_argument(
        "--hands",
        type=positive_int,
        default=hands_default,
        help="hands to play (default 100; with --freezeout: the most hands before placing "
        "by chips, default none: play until one bot has every chip)",
    )
    game.add_argument(
        "--seed",
        type=seed_value,
        default=None,
        help="match seed, for a match that can be played again exactly (default: a secret "
        "256-bit seed from the operating system, revealed to the bots at match_end)",
    )
    game.add_argument(
        "--freezeout",
        action="store_true",
        help="carry stacks until one bot holds every chip; finishing places",
    )
    game.add_argument(
        "--no-reset",
        action="store_true",
        help="carry stacks from hand to hand (busted bots are eliminated); "
        "default: every hand starts from --stack",
    )
    game.add_argument("--stack", type=positive_int, default=200, help="starting stack (200)")
    game.add_argument("--small-blind", type=non_negative_int, default=1, help="small blind (1)")
    game.add_argument("--big-blind", type=non_negative_int, default=2, help="big blind (2)")
    game.add_argument("--ante", type=non_negative_int, default=0, help="ante (0)")
    game.add_argument(
        "--schedule",
        default=None,
        metavar="LEVELS@PERIOD",
        help="blind schedule, e.g. 1/2,2/4,5/10/1@50 (hands), double@90s, or a .json file",
    )
    game.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.HOLDEM.value,
        help=f"the game (default {Variant.HOLDEM.value})",
    )
    game.add_argument(
        "--structure",
        choices=[structure.value for structure in BettingStructure],
        default=BettingStructure.NO_LIMIT.value,
        help=f"the betting structure (default {BettingStructure.NO_LIMIT.value})",
    )
    game.add_argument(
        "--cap-heads-up",
        action="store_true",
        help="fixed-limit: keep the cap on raises heads-up too (default: lifted heads-up)",
    )
    limits = parser.add_argument_group("time limits (seconds, or e.g. 250ms)")
    limits.add_argument(
        "--decision-timeout",
        type=duration,
        default=5.0,
        metavar="T",
        help="time per decision (5)",
    )
    limits.add_argument(
        "--startup-timeout",
        type=duration,
        default=10.0,
        metavar="T",
        help="time to start and answer hello (10)",
    )
    limits.add_argument(
        "--time-bank",
        type=duration_or_zero,
        default=0.0,
        metavar="T",
        help="extra time per match a bot may spend over the decision limit (0)",
    )
    limits.add_argument(
        "--check-on-timeout",
        action="store_true",
        help="after a timeout, check when checking is free instead of folding",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the run folder for hands.jsonl, results.json, stderr/ and report.html "
        "(default runs/match-<time>); it must not hold a match already",
    )
    output.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        type=str.lower,
        help="match log lines at this level and above (default warning: bot faults)",
    )
    output.add_argument(
        "--log-file", type=Path, default=None, help="write log lines here (default: none)"
    )
    output.add_argument("--no-progress", action="store_true", help="no progress bar")
    output.add_argument(
        "--no-report", action="store_true", help="do not write report.html at the end"
    )
    parser.add_argument(
        "--allow-absent",
        action="store_true",
        help="play on when a bot cannot be started at the beginning (it sits out, after "
        "its restarts); default: stop before the first hand with exit code 2",
    )
    speed = parser.add_argument_group("speed")
    speed.add_argument(
        "--no-prefetch",
        action="store_true",
        help="do no work ahead while bots think (the same results, a slower match)",
    )
    _add_sandbox_options(parser)


def build_parser() -> argparse.ArgumentParser:
    """The ``arena`` argument parser with its four commands."""
    parser = ArenaParser(
        prog="arena",
        description="Run poker bots against each other (JSON lines over stdin/stdout).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    match = commands.add_parser(
        "match",
        help="play a match between 2 to 10 bots",
        description="Play a match; writes hands.jsonl and results.json to --out.",
    )
    match.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    _add_match_options(match, hands_default=None)

    replay = commands.add_parser(
        "replay",
        help="re-run a match from its hand history and check every hand is identical",
    )
    replay.add_argument("history", type=Path, metavar="HANDS_JSONL")
    replay.add_argument(
        "--verbose", action="store_true", help="a line for every hand, not only mismatches"
    )
    # Kept for scripts written before the summary became the default; it changes nothing.
    replay.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)

    check = commands.add_parser("check-bot", help="check that a bot builds, starts and plays")
    check.add_argument("manifest", type=Path, metavar="MANIFEST")
    check.add_argument("--decision-timeout", type=duration, default=5.0, metavar="T")
    check.add_argument("--startup-timeout", type=duration, default=10.0, metavar="T")
    check.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.HOLDEM.value,
    )
    check.add_argument(
        "--hands",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="after the scripted check, play N quick hands against a built-in calling station "
        "and report the faults and the reply latency; any fault fails the check "
        "(default: %(default)s, no hands)",
    )
    _add_sandbox_options(check)

    tournament_parser = tournament.add_tournament_parser(commands)
    report_parser = report.add_report_parser(commands)
    play_parser = human.add_play_parser(commands)
    discord_parser = discord_command.add_discord_parser(commands)
    export_parser = export.add_export_parser(commands)

    demo = commands.add_parser(
        "demo",
        help="a duplicate round robin of the starter bots of every language",
        description="Build the starter bots and play a duplicate round robin between them.",
    )
    demo_command.add_demo_options(demo)
    _add_sandbox_options(demo)
    # Kept for commands.values.fail: a late error prints the usage of the command that failed.
    parser.command_parsers = {  # type: ignore[attr-defined]
        "match": match,
        "replay": replay,
        "check-bot": check,
        "demo": demo,
        "tournament": tournament_parser,
        "report": report_parser,
        "play": play_parser,
        "discord": discord_parser,
        "export": export_parser,
    }
    return parser


# ----------------------------------------------------------------------- entry


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None) -> int:
    """Run the ``arena`` command line; returns the exit code."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        # An unknown flag after a command is that command's error, not the top level's.
        command_parser = parser.command_parsers[args.command]  # type: ignore[attr-defined]
        command_parser.error(f"unrecognized arguments: {' '.join(extra)}")
    out = stdout if stdout is not None else sys.stdout
    handlers: dict[str, Callable[[argparse.Namespace, argparse.ArgumentParser, TextIO], int]] = {
        "match": play.run_match_command,
        "replay": replay.run_replay,
        "check-bot": check_bot.run_check_bot,
        "demo": demo_command.run_demo,
        "tournament": tournament.run_tournament_command,
        "report": report.run_report_command,
        "play": human.run_play_command,
        "discord": discord_command.run_discord_command,
        "export": export.run_export_command,
    }
    return handlers[args.command](args, parser, out)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
