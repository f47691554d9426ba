"""``arena tournament``: plan, play and rate a competition between many bots.

Settings come from a TOML file (``--config``, see docs/tournament-config.md) and flags; a
flag overrides the file's value and every value is checked by the same code
(:mod:`arena.tournament.config`). The run folder (``--out``, default ``runs/<name>``) holds
the results database, ``results.sqlite``, one folder per match (its hand history, results
and each bot's stderr log) and ``standings.json``. Running the same command again resumes a
run that was stopped: finished matches are kept, the others are played from their start.

Exit codes: 0 every match was played; 1 some match failed (the others are stored; run the
command again to retry it); 2 a bad setting, a bot that cannot be built, or a run folder
that holds another tournament; 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console

from arena.bots.build import run_build
from arena.bots.manifest import load_manifest
from arena.bots.sandbox.limits import LimitsError
from arena.bots.sandbox.select import (
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    describe,
    launcher_for,
)
from arena.bots.transport import BotStartError
from arena.commands.report import report_after_run
from arena.commands.standings_view import print_standings
from arena.commands.values import fail
from arena.session.stderr_file import safe_file_name
from arena.settings import add_groups, given, group
from arena.store.sqlite import ResultsDatabase, ResultsDatabaseError
from arena.tournament.config import TournamentConfig, build_config, fingerprint
from arena.tournament.config_keys import ExecutorKind, TournamentConfigError
from arena.tournament.dask_executor import ClusterError, DaskCluster
from arena.tournament.display import LiveDisplay, PlainDisplay
from arena.tournament.executor import local_executor
from arena.tournament.runner import Display, TournamentRun, TournamentRunner
from arena.tournament.standings import build_standings

__all__ = [
    "DATABASE_FILE_NAME",
    "STANDINGS_FILE_NAME",
    "add_tournament_parser",
    "run_tournament",
    "run_tournament_command",
]

DATABASE_FILE_NAME = "results.sqlite"
#: The run folder's folder of built bots (one per bot that has a build step).
BUILDS_DIR = "builds"
STANDINGS_FILE_NAME = "standings.json"

#: The groups of settings a tournament takes (see :mod:`arena.settings.catalog`).
TOURNAMENT_GROUPS = ("tournament", "run", "game", "limits", "sandbox", "sprt", "sit_and_go", "ring")


def add_tournament_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``tournament`` to the ``arena`` subcommands; every setting is a flag whose help
    shows its default."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "tournament",
        help="a competition: round robin, gauntlet, ring games or sit-and-go freezeouts",
        description=(
            "Play a tournament between bots and print its leaderboard. Settings come from "
            "--config FILE (TOML, see docs/tournament-config.md) and these flags, which "
            "override the file. Run the same command again to resume a stopped run."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "manifests", nargs="*", type=Path, metavar="MANIFEST", help="bot.toml files (or in FILE)"
    )
    parser.add_argument("-c", "--config", type=Path, metavar="FILE", help="tournament TOML file")
    add_groups(parser, *TOURNAMENT_GROUPS, as_text=True)
    add_groups(parser, "output")
    return parser


def _overrides(args: argparse.Namespace) -> dict[str, object]:
    values = given(args, group(*TOURNAMENT_GROUPS))
    if args.manifests:
        values["bots"] = [str(path) for path in args.manifests]
    return values


def run_tournament_command(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO
) -> int:
    """``arena tournament``: check the settings, then :func:`run_tournament`."""
    try:
        config = build_config(file=args.config, overrides=_overrides(args), base_dir=Path.cwd())
    except TournamentConfigError as exc:
        fail(parser, "tournament", str(exc))
    return run_tournament(
        config,
        parser,
        out,
        show_progress=not args.no_progress,
        write_report=not args.no_report,
    )


def run_tournament(
    config: TournamentConfig,
    parser: argparse.ArgumentParser,
    out: TextIO,
    *,
    show_progress: bool = True,
    write_report: bool = True,
    command: str = "tournament",
    show_sandbox: bool = True,
) -> int:
    """Build the bots, run (or resume) the tournament, print and save its standings
    (``show_sandbox``: say which sandbox layer is active, unless the caller did)."""
    try:
        level, reasons = choose(config.sandbox)
    except SandboxUnavailableError as exc:
        fail(parser, command, str(exc))
    for line in describe(level, reasons) if show_sandbox else ():
        out.write(line + "\n")
    out_dir = config.out_dir
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        db = ResultsDatabase(out_dir / DATABASE_FILE_NAME)
    except (OSError, ResultsDatabaseError) as exc:
        fail(parser, command, f"cannot use the run folder {str(out_dir)!r}: {exc}")
    problem, built = _build_bots(config, level, out_dir / BUILDS_DIR)
    if problem is not None:
        db.close()
        fail(parser, command, problem)
    with db:
        other = _other_tournament(db, config)
        if other is not None:
            fail(
                parser,
                command,
                f"{str(out_dir)!r} holds another tournament ({other!r}, other settings); "
                "choose another --out or --name",
            )
        display = _display(out, show_progress)
        chosen = _executor(config, level, built, parser, command, out)
        with chosen as (executor_factory, concurrency):
            runner = TournamentRunner(
                config,
                db,
                executor_factory=executor_factory,
                concurrency=concurrency,
                sandbox=level.value,
                out_dir=out_dir.resolve(),
                display=display,
                limits=tuple(sorted(config.resource_limits.items())),
                working_dirs=built,
            )
            try:
                run = runner.run()
            except KeyboardInterrupt:
                out.write(
                    f"\ninterrupted: finished matches are stored in "
                    f"{out_dir / DATABASE_FILE_NAME}; run the same command again to go on\n"
                )
                return 130
        code = _report(config, run, out_dir, out)
    if write_report:
        report_after_run(out_dir, out)
    return code


@contextmanager
def _executor(
    config: TournamentConfig,
    level: SandboxLevel,
    built: Mapping[str, Path],
    parser: argparse.ArgumentParser,
    command: str,
    out: TextIO,
) -> Iterator[tuple[Callable[[int], Executor], int]]:
    """What plays the matches, and how many at once: the local process pool, or a Dask
    cluster, started (or reached) and checked here (every worker must see every bot, built
    as in ``built``) and closed when the run ends."""
    if config.executor is not ExecutorKind.DASK:
        yield local_executor, config.worker_count()
        return
    try:
        cluster = DaskCluster.start(config.scheduler, config.worker_count())
    except ClusterError as exc:
        fail(parser, command, str(exc))
    try:
        cluster.check_bots(
            [bot.manifest for bot in config.bots],
            level.value,
            working_dirs=[built.get(bot.name) for bot in config.bots],
            run_folder=config.out_dir.resolve(),
        )
        out.write(cluster.describe() + "\n")
        # Without --concurrency a cluster plays as many matches as it has threads.
        concurrency = config.concurrency or cluster.thread_count()
        yield (lambda _workers: cluster.executor()), concurrency
    except ClusterError as exc:
        fail(parser, command, str(exc))
    finally:
        cluster.close()


def _build_bots(
    config: TournamentConfig, level: SandboxLevel, builds: Path
) -> tuple[str | None, dict[str, Path]]:
    """Build every bot once, on this machine, under the sandbox.

    A sandbox builds in a private copy that goes with its launcher, so each built copy is
    kept in the run folder (``builds/<bot>``) and every match starts its bot from there.
    Returns the first failure's message (None when all built) and the built folders.
    """
    built: dict[str, Path] = {}
    try:
        launcher = launcher_for(level, overrides=dict(config.resource_limits))
    except (SandboxUnavailableError, LimitsError) as exc:
        return str(exc), built
    try:
        for bot in config.bots:
            manifest = load_manifest(bot.manifest)
            try:
                build = run_build(manifest, launcher=launcher)
            except BotStartError as exc:
                return f"cannot build {bot.name!r}: {exc}", built
            if not build.is_ok:
                return f"building {bot.name!r} ({bot.manifest}) failed: {build.reason}", built
            copy = launcher.built_copy(manifest)
            if copy is not None:
                target = builds / safe_file_name(bot.name)
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(copy, target, symlinks=True)
                built[bot.name] = target.resolve()
    finally:
        launcher.close()
    return None, built


def _other_tournament(db: ResultsDatabase, config: TournamentConfig) -> str | None:
    """The name of a tournament in the database with other settings, if any."""
    key = fingerprint(config)
    for record in db.tournaments():
        if record.fingerprint != key:
            return record.name
    return None


def _display(out: TextIO, show_progress: bool) -> Display:
    is_terminal = hasattr(out, "isatty") and out.isatty()
    if show_progress and is_terminal:
        return LiveDisplay(Console(file=out))
    return PlainDisplay(out)


def _report(config: TournamentConfig, run: TournamentRun, out_dir: Path, out: TextIO) -> int:
    standings = build_standings(config, run)
    _write_json(out_dir / STANDINGS_FILE_NAME, standings.to_dict())
    console = Console(file=out, width=max(120, Console(file=sys.stdout).width))
    print_standings(console, standings)
    out.write(f"results database: {out_dir / DATABASE_FILE_NAME}\n")
    out.write(f"standings:        {out_dir / STANDINGS_FILE_NAME}\n")
    if run.resumed_matches:
        out.write(f"resumed: {run.resumed_matches} matches were already finished\n")
    if run.failures:
        for outcome in run.failures:
            out.write(f"FAILED {outcome.match_id}: {outcome.error}\n")
        out.write(
            f"{len(run.failures)} match(es) failed; the others are stored. Fix the cause and "
            "run the same command again to play the rest.\n"
        )
        return 1
    return 0


def _write_json(path: Path, document: Mapping[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
