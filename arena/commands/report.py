"""``arena report``: one self-contained HTML page of a tournament or a match.

``arena report SOURCE`` reads a tournament's run folder (``results.sqlite``), a match's run
folder (``results.json`` and ``hands.jsonl``) or a ``hands.jsonl`` file and writes
``report.html`` (``-o`` elsewhere): the leaderboard, crosstable, charts, faults, latency,
places and a hand viewer of up to ``--max-hands`` hands; ``--hand MATCH/N`` puts that hand
in the viewer and opens it. Any problem is one line naming the path or value, exit code 2.

The match and tournament commands call :func:`report_after_run` when they finish: it
writes ``<run>/report.html`` and never fails the command.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from arena.commands.common import require_parent_folder
from arena.report import (
    DEFAULT_MAX_HANDS,
    HandRef,
    ReportError,
    parse_hand_ref,
    write_report,
)
from arena.settings import UsageError
from arena.settings.flags import value_type
from arena.settings.grammar import whole
from arena.store.run_folder import RunFolder

__all__ = ["DESCRIPTION", "add_arguments", "default_output", "report_after_run", "run"]

DESCRIPTION = (
    "Write one HTML file (no network needed to open it) with the leaderboard, crosstable, "
    "charts, faults, latency and a hand viewer. SOURCE is a tournament's run folder, a "
    "match's run folder or a hands.jsonl file."
)


def _hand(text: str) -> HandRef:
    try:
        return parse_hand_ref(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena report``'s arguments."""
    parser.add_argument("source", type=Path, metavar="SOURCE", help="run folder or hands.jsonl")
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"where to write the report (default: SOURCE's folder/{RunFolder.REPORT}); "
        "its folder must exist",
    )
    count = value_type(whole(0), "int")
    parser.add_argument(
        "--viewer-hands",
        type=count,
        default=DEFAULT_MAX_HANDS,
        dest="viewer_hands",
        metavar="N",
        help=(
            "how many hands to embed for the hand viewer (faults, biggest pots, a sample;"
            f" default {DEFAULT_MAX_HANDS})"
        ),
    )
    # The old spelling: --max-hands is also a freezeout's cap in arena tournament.
    parser.add_argument(
        "--max-hands", type=count, dest="viewer_hands", default=argparse.SUPPRESS,
        help=argparse.SUPPRESS,
    )  # fmt: skip
    parser.add_argument(
        "--hand",
        type=_hand,
        action="append",
        default=[],
        metavar="MATCH/N",
        help="also embed this hand and open it (repeatable), e.g. rr-001-b01-a-vs-b/12",
    )


def default_output(source: Path) -> Path:
    """``report.html`` in the run folder (beside a ``hands.jsonl`` given alone)."""
    folder = source if source.is_dir() else source.parent
    return RunFolder(folder).report


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``arena report``: write the report; 0 when written (a problem is a usage error)."""
    source: Path = args.source
    target: Path = args.out if args.out is not None else default_output(source)
    require_parent_folder(target, "-o")
    try:
        summary = write_report(source, target, max_hands=args.viewer_hands, hands=args.hand)
    except ReportError as error:
        raise UsageError(str(error)) from None
    out.write(
        f"report: {summary.path} ({summary.size_bytes / 1e6:.1f} MB, {summary.hands_embedded}"
        f" of {summary.hands_total} hands in the viewer)\n"
    )
    return 0


def report_after_run(run_folder: Path, out: TextIO) -> Path | None:
    """Write ``<run_folder>/report.html`` after a match or tournament and print
    ``report: <path>``; returns the path, or None when no report could be written. Never
    fails the command that played the run: any problem is printed as a warning."""
    target = RunFolder(Path(run_folder)).report
    try:
        summary = write_report(Path(run_folder), target)
    except Exception as error:  # the run is played: a report problem must not fail it
        out.write(f"warning: no report written for {run_folder}: {error}\n")
        return None
    out.write(f"report: {summary.path}\n")
    return summary.path
