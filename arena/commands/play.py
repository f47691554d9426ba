"""``arena play``: a person plays at the terminal against one or more bots.

The person takes a seat (``--seat``, default 0) at a table of the bots named by their
manifests, sees the table drawn in text before each of their decisions and types their
action (see ``docs/human-seat.md``). The match is a real one: the same dealer, the same
sessions and the same run folder as ``arena match`` (``hands.jsonl``, ``results.json``,
``stderr/``, ``report.html``), and its hand history replays like any other. The person has
no time limit unless ``--human-timeout`` gives one; ``q`` or Ctrl-C leaves the table (exit
code 130, the hands played so far kept).

The use case is :func:`arena.human.host.host_game`; this module reads the flags and prints.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from arena.commands.common import (
    check_out_dir,
    default_out_dir,
    load_manifests,
    open_launcher,
    print_match_end,
    with_advice,
)
from arena.commands.report import report_after_run
from arena.human import host
from arena.human.seat import DEFAULT_HUMAN_NAME, FrontEnd, LeftTableError
from arena.human.terminal import TerminalFrontEnd
from arena.match.config import MAX_SEATS
from arena.match.host import BuildFailedError
from arena.match.log import configure_logging
from arena.match.readiness import BotsNotReadyError
from arena.settings import UsageError, add_groups, given, group
from arena.settings.flags import value_type
from arena.settings.grammar import duration, whole
from arena.settings.match import match_config

__all__ = ["DEFAULT_PLAY_HANDS", "DESCRIPTION", "add_arguments", "run"]

#: Hands of a game with a person when --hands is not given (and it is not a freezeout).
DEFAULT_PLAY_HANDS = 20
#: The longest name a seat may play under (the protocol's limit for ``ready.name``).
MAX_NAME_CHARS = 64
#: The hand ids of a game with a person are ``play-<n>``.
PLAY_MATCH_ID = "play"
#: The settings a game with a person takes.
GROUPS = ("game", "match", "run", "limits", "sandbox")
_LEFT_OUT = ("allow_absent", "no_prefetch", "game.cap_heads_up")

DESCRIPTION = (
    "Sit at a table with bots and play: the table is drawn before each of your decisions "
    "and you type your action (? for help). Writes hands.jsonl and results.json to --out, "
    "like arena match."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena play``'s arguments."""
    parser.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    you = parser.add_argument_group("you")
    you.add_argument(
        "--seat",
        type=value_type(whole(0), "int"),
        default=0,
        metavar="N",
        help="your seat, 0 to the number of bots (default 0; the bots fill the others in order)",
    )
    you.add_argument(
        "--name", default=DEFAULT_HUMAN_NAME, help=f"your name (default {DEFAULT_HUMAN_NAME})"
    )
    you.add_argument(
        "--human-timeout",
        type=value_type(duration()),
        default=None,
        metavar="SECONDS",
        help="your time per decision, then the default action as for a bot: fold, or stand "
        "pat in a draw (default: no limit)",
    )
    add_groups(
        parser,
        *GROUPS,
        exclude=_LEFT_OUT,
        shown={"out": "runs/play-<time>", "hands": str(DEFAULT_PLAY_HANDS)},
    )
    add_groups(parser, "log", only=("log_file",))
    add_groups(parser, "output", only=("no_report", "verbose"))


def run(args: argparse.Namespace, out: TextIO, *, front_end: FrontEnd | None = None) -> int:
    """Play the game ``args`` describes; returns the exit code (0 played, 130 the person
    left). ``front_end`` replaces the terminal (tests)."""
    bot_count = len(args.manifests)
    if not 1 <= bot_count <= MAX_SEATS - 1:
        raise UsageError(f"a table takes 1 to {MAX_SEATS - 1} bots besides you, got {bot_count}")
    if args.seat > bot_count:
        raise UsageError(
            f"argument --seat: seat {args.seat} is not at a table of {bot_count + 1} "
            f"(0..{bot_count})"
        )
    if not 1 <= len(args.name) <= MAX_NAME_CHARS:
        raise UsageError(f"argument --name: {args.name!r} must be 1 to {MAX_NAME_CHARS} characters")
    manifests = load_manifests(args.manifests)
    values = given(args, group(*GROUPS))
    # No work ahead while a person thinks: nothing to gain, and it holds back hand_start
    # and hand_end lines the person should read when they happen.
    config = match_config(
        values, default_hands=DEFAULT_PLAY_HANDS, match_id=PLAY_MATCH_ID, prefetch=False
    )
    folder = check_out_dir(args.out if args.out is not None else default_out_dir("play"))
    launcher = open_launcher(args, out)
    # Match log lines would land between the table's lines: a file, or none at all.
    level = "warning" if args.log_file is not None else "off"
    remove_logging = configure_logging(level, log_file=args.log_file, game_id=config.match_id)
    try:
        result = host.host_game(
            config,
            manifests,
            folder.path,
            launcher=launcher,
            front_end=front_end if front_end is not None else TerminalFrontEnd(output=out),
            seat_index=args.seat,
            name=args.name,
            timeout_s=args.human_timeout,
        )
    except (BuildFailedError, BotsNotReadyError) as exc:
        raise UsageError(with_advice(exc, "fix the bot and try again")) from None
    except (KeyboardInterrupt, LeftTableError):
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\nyou left the table: the hands played are in {folder.history}\n")
        return 130
    finally:
        remove_logging()
        launcher.close()
    out.write("\n")
    print_match_end(result, folder, out, speed=False)
    if not args.no_report:
        report_after_run(folder.path, out)
    return 0
