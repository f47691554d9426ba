"""``arena tournament``: plan, play and rate a competition between many bots.

Settings come from a TOML file (``--config``, see docs/tournament-config.md) and flags; a
flag overrides the file's value and every value is checked by the same code
(:mod:`arena.tournament.config`). The run folder (``--out``, default ``runs/<name>``) holds
the results database, ``results.sqlite``, one folder per match (its hand history, results
and each bot's stderr log) and ``standings.json``. Running the same command again resumes a
run that was stopped: finished matches are kept, the others are played from their start.

The use case is :func:`arena.tournament.host.run`; this module reads the flags and prints.

Exit codes: 0 every match was played; 1 some match failed (the others are stored; run the
command again to retry it); 2 a bad setting, a bot that cannot be built, or a run folder
that holds another tournament; 130 interrupted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from arena.commands.report import report_after_run
from arena.commands.standings_view import print_standings
from arena.match.console import make_console
from arena.settings import add_groups, given, group
from arena.store.run_folder import RunFolder
from arena.tournament import host
from arena.tournament.config import TournamentConfig, build_config
from arena.tournament.display import LiveDisplay, PlainDisplay
from arena.tournament.runner import Display
from arena.tournament.stderr_summary import stderr_summary

__all__ = ["DESCRIPTION", "TOURNAMENT_GROUPS", "add_arguments", "run", "run_tournament"]

#: The groups of settings a tournament takes (see :mod:`arena.settings.catalog`).
TOURNAMENT_GROUPS = (
    "tournament", "run", "game", "limits", "sandbox", "sprt", "sit_and_go", "ring", "score",
)  # fmt: skip

DESCRIPTION = (
    "Play a tournament between bots and print its leaderboard. Settings come from "
    "--config FILE (TOML, see docs/tournament-config.md) and these flags, which override "
    "the file. Run the same command again to resume a stopped run. The same manifest "
    "listed twice plays as two bots, the second named NAME-2."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena tournament``'s arguments: every setting is a flag whose help shows its
    default."""
    parser.add_argument(
        "manifests", nargs="*", type=Path, metavar="MANIFEST", help="bot.toml files (or in FILE)"
    )
    parser.add_argument("-c", "--config", type=Path, metavar="FILE", help="tournament TOML file")
    add_groups(parser, *TOURNAMENT_GROUPS, as_text=True)
    add_groups(parser, "output")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """``arena tournament``: check the settings, then :func:`run_tournament`."""
    overrides = given(args, group(*TOURNAMENT_GROUPS))
    if args.manifests:
        overrides["bots"] = [str(path) for path in args.manifests]
    config = build_config(file=args.config, overrides=overrides, base_dir=Path.cwd())
    return run_tournament(
        config,
        out,
        show_progress=not args.no_progress,
        write_report=not args.no_report,
        verbose=args.verbose,
    )


def run_tournament(
    config: TournamentConfig,
    out: TextIO,
    *,
    show_progress: bool = True,
    write_report: bool = True,
    show_sandbox: bool = True,
    verbose: bool = False,
) -> int:
    """Run (or resume) the tournament and print its standings (``show_sandbox``: say
    which sandbox layer is active, unless the caller did; ``verbose``: and why the kernel
    holds no limits here); the exit code."""
    folder = RunFolder(config.out_dir)
    try:
        hosted = host.run(
            config,
            display=_display(out, show_progress),
            notes=out if show_sandbox else None,
            is_verbose=verbose,
        )
        print_standings(make_console(out), hosted.standings)
    except KeyboardInterrupt:
        out.write(
            f"\ninterrupted: finished matches are stored in {folder.database}; "
            "run the same command again to go on\n"
        )
        return 130
    out.write(f"results database: {folder.database}\n")
    out.write(f"standings:        {folder.standings}\n")
    # Dozens of stderr files: say which bots wrote any, and where to start reading.
    for bot_stderr in stderr_summary(hosted.run.outcomes):
        out.write(f"stderr: {bot_stderr.text(folder.path)}\n")
    played = hosted.run
    if played.resumed_matches:
        out.write(f"resumed: {played.resumed_matches} matches were already finished\n")
    code = 0
    if played.failures:
        for outcome in played.failures:
            out.write(f"FAILED {outcome.match_id}: {outcome.error}\n")
        out.write(
            f"{len(played.failures)} match(es) failed; the others are stored. Fix the cause and "
            "run the same command again to play the rest.\n"
        )
        code = 1
    if write_report:
        report_after_run(folder.path, out)
    return code


def _display(out: TextIO, show_progress: bool) -> Display:
    is_terminal = hasattr(out, "isatty") and out.isatty()
    if show_progress and is_terminal:
        return LiveDisplay(make_console(out))
    return PlainDisplay(out)
