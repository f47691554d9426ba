"""``arena export``: a run's hands in a standard hand-history format.

``arena export SOURCE --format phh`` writes PHH (``-o hands.phhs`` one collection, ``-o
folder`` one ``.phh`` file per hand); ``--format acpc`` writes the ACPC dealer's log lines
(``-o hands.log`` one log, ``-o folder`` one log per match). SOURCE is a ``hands.jsonl``, a
match's run folder or a tournament's run folder. Hands a format cannot express are left
out and counted by reason: exit code 1 when any was, 0 when every hand was written. A bad
source, format or output is one line naming it, exit code 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from arena.commands.common import require_parent_folder
from arena.export.acpc import ACPC_LOG_SUFFIX, write_acpc
from arena.export.phh import PHHS_SUFFIX, write_phh
from arena.export.refusals import ExportSummary
from arena.export.sources import SourceError, SourceHand, open_source
from arena.settings import UsageError

__all__ = ["DESCRIPTION", "FORMATS", "add_arguments", "default_output", "run"]

DESCRIPTION = (
    "Write the hands of a run in a standard format: PHH (the Poker Hand History format "
    "pokerkit reads) or the ACPC dealer's STATE lines (for the Annual Computer Poker "
    "Competition's analysis tools). SOURCE is a hands.jsonl file, a match's run folder or "
    "a tournament's run folder. Hands the format cannot express are left out with the "
    "reason (exit code 1)."
)

Writer = Callable[[Iterable[SourceHand], Path], ExportSummary]

#: Each format: its writer, the suffix of a one-file output, its default file name and
#: the name printed.
FORMATS: dict[str, tuple[Writer, str, str, str]] = {
    "phh": (write_phh, PHHS_SUFFIX, f"hands{PHHS_SUFFIX}", "PHH"),
    "acpc": (write_acpc, ACPC_LOG_SUFFIX, f"hands.acpc{ACPC_LOG_SUFFIX}", "ACPC log lines"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena export``'s arguments."""
    parser.add_argument("source", type=Path, metavar="SOURCE", help="run folder or hands.jsonl")
    parser.add_argument(
        "--format",
        required=True,
        choices=sorted(FORMATS),
        help="phh: Poker Hand History; acpc: the ACPC dealer's log lines",
    )
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        default=None,
        metavar="PATH",
        help=(
            f"a {PHHS_SUFFIX} (phh) or {ACPC_LOG_SUFFIX} (acpc) file for one file, any other "
            "path for a folder with a file per hand (phh) or per match (acpc); default: "
            f"hands{PHHS_SUFFIX} or hands.acpc{ACPC_LOG_SUFFIX} in SOURCE's folder"
        ),
    )


def default_output(folder: Path, fmt: str) -> Path:
    """The format's one-file output in the run folder ``folder``."""
    return folder / FORMATS[fmt][2]


def _output_problem(out: Path, one_file: bool) -> str | None:
    if one_file and out.is_dir():
        return f"--out {str(out)!r} is a folder; give a file name or a folder without the suffix"
    if not one_file and out.exists() and not out.is_dir():
        return f"--out {str(out)!r} is a file, not a folder"
    return None


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``arena export``: 0 when every hand was written, 1 when some were refused (the
    reasons are printed), 2 (one line) for a bad source or output."""
    writer, suffix, _, label = FORMATS[args.format]
    try:
        source = open_source(args.source)
    except SourceError as error:
        raise UsageError(str(error)) from None
    target: Path = args.out if args.out is not None else default_output(source.folder, args.format)
    problem = _output_problem(target, target.suffix == suffix)
    if problem is not None:
        raise UsageError(problem)
    # A one-file output, or the folder of one file per hand, goes in a folder that exists.
    require_parent_folder(target, "-o")
    try:
        summary = writer(source.hands(), target)
    except SourceError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {str(target)!r}: {error.strerror or error}") from None
    noun = "hand" if summary.written == 1 else "hands"
    where = target if summary.paths else "nowhere (nothing to write)"
    out.write(f"export: {summary.written} {noun} written as {label} to {where}\n")
    if not summary.refusals:
        return 0
    count = len(summary.refusals)
    out.write(f"export: {count} {'hand' if count == 1 else 'hands'} left out, which {label} ")
    out.write("cannot express:\n")
    for line in summary.refusal_lines():
        out.write(f"  {line}\n")
    return 1
