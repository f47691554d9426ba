"""``arena check-bot``: take one bot through the scripted conformance check, then, with
``--hands N``, through N quick hands against a built-in calling station."""

from __future__ import annotations

import argparse
from typing import TextIO

from arena.commands.play import open_launcher
from arena.commands.values import fail
from arena.match.log import configure_logging
from arena.session.policy import TimeLimits
from arena.tools.checkbot import check_bot

__all__ = ["run_check_bot"]


def run_check_bot(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Check the bot under the sandbox a match would use (``--sandbox``, the limit flags).

    Exit code 0 when every step passed and the hands (``--hands``) had no fault, else 1.
    """
    if not args.manifest.is_file():
        fail(parser, "check-bot", f"manifest {str(args.manifest)!r} is not a file")
    limits = TimeLimits(decision_s=args.decision_timeout, startup_s=args.startup_timeout)
    launcher = open_launcher(args, parser, out)
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
    finally:
        remove_logging()
        launcher.close()
    out.write(report.format() + "\n")
    return 0 if report.passed else 1
