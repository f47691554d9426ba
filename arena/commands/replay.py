"""``arena replay``: check a recorded match by playing it again."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from arena.match.replay import replay_run
from arena.settings import UsageError
from arena.store.hand_log import HandLogError

__all__ = ["DESCRIPTION", "add_arguments", "run"]

DESCRIPTION = (
    "Deal a recorded match again from its hand history (the seeds and the actions it "
    "holds) and check that every hand comes out identical. Exit code 0 identical, 1 some "
    "hand differs, 2 the file cannot be read."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena replay``'s arguments."""
    parser.add_argument(
        "history",
        type=Path,
        metavar="SOURCE",
        help="a match's hands.jsonl, its run folder, or a tournament's run folder",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="a line for every hand, not only mismatches"
    )
    # Kept for scripts written before the summary became the default; it changes nothing.
    parser.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Replay the file; 0 identical, 1 a mismatch."""
    try:
        report = replay_run(args.history)
    except (HandLogError, KeyError, TypeError, ValueError) as exc:
        # KeyError/TypeError/ValueError: a header that is JSON but not ours.
        raise UsageError(f"cannot replay {str(args.history)!r}: {exc}") from None
    out.write(report.format(verbose=args.verbose) + "\n")
    return 0 if report.is_ok else 1
