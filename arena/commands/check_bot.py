"""``arena check-bot``: take one bot through the scripted conformance check, then, with
``--hands N``, through N quick hands against a built-in calling station.

Exit codes: 0 every step passed; 1 a step failed (or the bot's build or start could not
even be tried under the sandbox, said in one line); 2 a bad flag or a manifest that cannot
be read (one line naming the problem, no steps).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from arena.bots.transport import BotStartError
from arena.checkbot import check_bot
from arena.commands.common import load_manifests, open_launcher
from arena.match.log import configure_logging
from arena.session.policy import TimeBasis, TimeLimits
from arena.settings import UsageError, add_groups
from arena.settings.flags import value_type
from arena.settings.grammar import whole

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Check that a bot builds, starts and speaks the protocol: a scripted conversation "
    "(handshake, a decision, bad requests it must survive), then with --hands N quick "
    "hands against a built-in calling station. Exit code 0 passed, 1 failed, 2 the "
    "manifest cannot be read."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena check-bot``'s arguments."""
    parser.add_argument("manifest", type=Path, metavar="MANIFEST", help="the bot's bot.toml")
    add_groups(
        parser, "limits", "game", only=("limits.decision_timeout", "limits.startup_timeout",
                                         "limits.time_basis", "game.variant"),
    )  # fmt: skip
    parser.add_argument(
        "--hands",
        type=value_type(whole(0), "int"),
        default=0,
        metavar="N",
        help="after the scripted check, play N quick hands against a built-in calling station "
        "and report the faults and the reply latency; any fault fails the check "
        "(default: %(default)s, no hands)",
    )
    add_groups(parser, "sandbox")
    add_groups(parser, "output", only=("verbose",))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Check the bot under the sandbox a match would use (``--sandbox``, the limit flags).

    Exit code 0 when every step passed and the hands (``--hands``) had no fault, else 1.
    """
    if not args.manifest.is_file():
        raise UsageError(f"manifest {str(args.manifest)!r} is not a file")
    (manifest,) = load_manifests([args.manifest])
    limits = TimeLimits(
        decision_s=args.decision_timeout,
        startup_s=args.startup_timeout,
        time_basis=TimeBasis(args.time_basis),
    )
    launcher = open_launcher(args, out)
    # The report says everything the match log would (each fault, counted, with the
    # first of each kind): the log lines of the quick hands would only repeat it.
    remove_logging = configure_logging("off")
    try:
        report = check_bot(
            args.manifest,
            limits=limits,
            variant=args.variant,
            launcher=launcher,
            hand_count=args.hands,
        )
    except BotStartError as exc:
        # The sandbox could not even run the bot's build tool or program (a toolchain in
        # a home directory the bot's user cannot enter, say): one line, the check failed.
        out.write(f"result: FAILED: {manifest.label} cannot be built or started here: {exc}\n")
        return 1
    finally:
        remove_logging()
        launcher.close()
    out.write(report.format() + "\n")
    return 0 if report.passed else 1
