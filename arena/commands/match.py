"""``arena match``: build the bots, play a match, print its results.

The use case is :func:`arena.match.host.host_match`; this module reads the flags and
prints. A bot whose build failed cannot start: the match is refused (exit code 2) unless
``--allow-absent`` lets it sit out.
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
)
from arena.commands.report import report_after_run
from arena.match import host
from arena.match.config import MAX_SEATS, MIN_SEATS
from arena.match.host import BuildFailedError
from arena.match.log import configure_logging
from arena.match.progress import Progress
from arena.match.readiness import BotsNotReadyError
from arena.settings import UsageError, add_groups, given, group
from arena.settings.match import match_config

__all__ = ["DEFAULT_HAND_COUNT", "DESCRIPTION", "GROUPS", "add_arguments", "run"]

#: Hands of a match when --hands is not given (and it is not a freezeout).
DEFAULT_HAND_COUNT = 100
#: The settings a match takes.
GROUPS = ("game", "match", "run", "score", "limits", "sandbox", "log", "output")

DESCRIPTION = (
    "Play a match between 2 to 10 bots, seated in the order given; writes hands.jsonl, "
    "results.json, stderr/ and report.html to --out."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena match``'s arguments."""
    parser.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    add_groups(
        parser,
        *GROUPS,
        shown={"out": "runs/match-<time>", "hands": str(DEFAULT_HAND_COUNT)},
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Play the match; 0 played, 130 interrupted (usage mistakes raise ``UsageError``)."""
    count = len(args.manifests)
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise UsageError(f"a match needs {MIN_SEATS} to {MAX_SEATS} manifests, got {count}")
    manifests = load_manifests(args.manifests)
    config = match_config(given(args, group(*GROUPS)), default_hands=DEFAULT_HAND_COUNT)
    folder = check_out_dir(args.out if args.out is not None else default_out_dir("match"))
    launcher = open_launcher(args, out)
    remove_logging = configure_logging(
        args.log_level, log_file=args.log_file, game_id=config.match_id
    )
    progress = None if args.no_progress else Progress(config.hand_count)
    try:
        result = host.host_match(
            config, manifests, folder.path, launcher=launcher, progress=progress
        )
    except BuildFailedError as exc:
        raise UsageError(
            f"{exc}; fix the bot, or pass --allow-absent to play on without it"
        ) from None
    except BotsNotReadyError as exc:
        # Nearly always a mistake of the command (a wrong path, a missing build): no hand
        # was played and the bots are stopped; the user may play on without them.
        raise UsageError(f"{exc}; fix the bot or pass --allow-absent to play on") from None
    except KeyboardInterrupt:
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\ninterrupted: the hands played so far are in {folder.history}\n")
        return 130
    finally:
        remove_logging()
        launcher.close()
    print_match_end(result, folder, out, speed=True)
    if not args.no_report:
        report_after_run(folder.path, out)
    return 0
