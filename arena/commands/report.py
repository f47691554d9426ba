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
from typing import Any, TextIO

from arena.commands.values import fail, non_negative_int
from arena.report import (
    DEFAULT_MAX_HANDS,
    HandRef,
    ReportError,
    parse_hand_ref,
    write_report,
)

__all__ = [
    "REPORT_FILE_NAME",
    "add_report_parser",
    "default_output",
    "report_after_run",
    "run_report_command",
]

#: The report's file name in a run folder.
REPORT_FILE_NAME = "report.html"


def _hand(text: str) -> HandRef:
    try:
        return parse_hand_ref(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_report_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``report`` to the ``arena`` subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "report",
        help="write a self-contained HTML report of a tournament or a match",
        description=(
            "Write one HTML file (no network needed to open it) with the leaderboard, "
            "crosstable, charts, faults, latency and a hand viewer. SOURCE is a tournament's "
            "run folder, a match's run folder or a hands.jsonl file."
        ),
    )
    parser.add_argument("source", type=Path, metavar="SOURCE", help="run folder or hands.jsonl")
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        default=None,
        metavar="FILE",
        help=f"where to write the report (default: SOURCE's folder/{REPORT_FILE_NAME})",
    )
    parser.add_argument(
        "--max-hands",
        type=non_negative_int,
        default=DEFAULT_MAX_HANDS,
        metavar="N",
        help=(
            "how many hands to embed for the hand viewer (faults, biggest pots, a sample;"
            f" default {DEFAULT_MAX_HANDS})"
        ),
    )
    parser.add_argument(
        "--hand",
        type=_hand,
        action="append",
        default=[],
        metavar="MATCH/N",
        help="also embed this hand and open it (repeatable), e.g. rr-001-b01-a-vs-b/12",
    )
    return parser


def default_output(source: Path) -> Path:
    """``report.html`` in the run folder (beside a ``hands.jsonl`` given alone)."""
    folder = source if source.is_dir() else source.parent
    return folder / REPORT_FILE_NAME


def run_report_command(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO
) -> int:
    """``arena report``: write the report; 0 when written, else one line and exit code 2."""
    source: Path = args.source
    target: Path = args.out if args.out is not None else default_output(source)
    try:
        summary = write_report(source, target, max_hands=args.max_hands, hands=args.hand)
    except ReportError as error:
        fail(parser, "report", str(error))
    out.write(
        f"report: {summary.path} ({summary.size_bytes / 1e6:.1f} MB, {summary.hands_embedded}"
        f" of {summary.hands_total} hands in the viewer)\n"
    )
    return 0


def report_after_run(run_folder: Path, out: TextIO) -> Path | None:
    """Write ``<run_folder>/report.html`` after a match or tournament and print
    ``report: <path>``; returns the path, or None when no report could be written. Never
    fails the command that played the run: any problem is printed as a warning."""
    target = Path(run_folder) / REPORT_FILE_NAME
    try:
        summary = write_report(Path(run_folder), target)
    except Exception as error:  # the run is played: a report problem must not fail it
        out.write(f"warning: no report written for {run_folder}: {error}\n")
        return None
    out.write(f"report: {summary.path}\n")
    return summary.path
