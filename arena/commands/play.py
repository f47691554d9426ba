"""``arena match``: build the bots, play a match, print its results (and the helpers the
demo shares: starter bots, builds, the sandbox launcher)."""

from __future__ import annotations

import argparse
import os
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from arena.bots.build import BuildResult, run_build
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.sandbox.limits import LIMIT_KEYS, LimitsError
from arena.bots.sandbox.select import (
    SandboxLauncher,
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    describe,
    launcher_for,
)
from arena.bots.transport import BotStartError
from arena.commands.report import report_after_run
from arena.commands.values import check_out_dir, fail, parse_schedule
from arena.match.config import (
    MAX_SEATS,
    MIN_SEATS,
    MatchConfig,
    MatchConfigError,
    StackPolicy,
    new_secret_seed,
)
from arena.match.log import configure_logging
from arena.match.progress import Progress
from arena.match.readiness import BotsNotReadyError
from arena.match.run import open_sessions, run_match
from arena.store.jsonl import HISTORY_FILE_NAME, RESULTS_FILE_NAME
from arena.tools.results_table import crash_stderr_lines, format_results_table
from engine.config import BettingStructure, ConfigError, GameConfig, Variant
from engine.schedule import BlindSchedule, ScheduleError

__all__ = [
    "DEFAULT_HAND_COUNT",
    "DEMO_SEED",
    "limit_overrides",
    "open_launcher",
    "run_match_command",
    "sample_bot_manifests",
]

#: Hands of a match when --hands is not given (and it is not a freezeout).
DEFAULT_HAND_COUNT = 100
#: The demo's seed when --seed is not given: the same demo every time.
DEMO_SEED = 2024
#: The starter bots that ``arena demo`` plays.
SAMPLE_BOTS_DIR = Path(__file__).resolve().parent.parent.parent / "sample_bots"


def load_manifests(paths: Sequence[Path]) -> list[BotManifest]:
    """Load every manifest; the first bad one raises ``ManifestError`` naming it."""
    return [load_manifest(path) for path in paths]


def limit_overrides(args: argparse.Namespace) -> dict[str, int]:
    """The resource limits given on the command line, by key (those not given are left out,
    so a manifest's ``[limits]`` still counts for them)."""
    given = {key: getattr(args, key, None) for key in LIMIT_KEYS}
    return {key: value for key, value in given.items() if value is not None}


def open_launcher(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO
) -> SandboxLauncher:
    """The launcher of the sandbox layer ``--sandbox`` names (default: the strongest that
    works here), after saying on ``out`` which layer is active and why no stronger one is.

    A layer that does not work here is an error of the command (exit code 2), never a
    quiet step down to a weaker one.
    """
    requested = None if args.sandbox is None else SandboxLevel(args.sandbox)
    try:
        level, reasons = choose(requested)
        launcher = launcher_for(level, overrides=limit_overrides(args))
    except (SandboxUnavailableError, LimitsError) as exc:
        fail(parser, args.command, str(exc))
    for line in describe(level, reasons):
        out.write(line + "\n")
    return launcher


def _build(manifest: BotManifest, launcher: SandboxLauncher) -> BuildResult:
    """Build under the sandbox; a build that cannot even be prepared is a failed build."""
    try:
        return run_build(manifest, launcher=launcher)
    except BotStartError as exc:
        return BuildResult(manifest.name, has_run=False, is_ok=False, reason=str(exc))


def _default_out_dir(prefix: str) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    # Not named after the seed: a path is no place for a secret.
    return Path("runs") / f"{prefix}-{stamp}"


def _game_config(args: argparse.Namespace, parser: argparse.ArgumentParser) -> GameConfig:
    try:
        return GameConfig(
            small_blind=args.small_blind,
            big_blind=args.big_blind,
            ante=args.ante,
            variant=Variant(args.variant),
            structure=BettingStructure(args.structure),
            cap_heads_up=getattr(args, "cap_heads_up", False),
        )
    except ConfigError as exc:
        fail(parser, args.command, str(exc))


def _schedule(args: argparse.Namespace, parser: argparse.ArgumentParser) -> BlindSchedule | None:
    if args.schedule is None:
        return None
    try:
        return parse_schedule(
            args.schedule,
            small_blind=args.small_blind,
            big_blind=args.big_blind,
            ante=args.ante,
        )
    except (ValueError, ScheduleError) as exc:
        fail(parser, args.command, f"argument --schedule: {exc}")


def _match_config(
    args: argparse.Namespace, parser: argparse.ArgumentParser, *, match_id: str = ""
) -> MatchConfig:
    game = _game_config(args, parser)
    schedule = _schedule(args, parser)
    if args.freezeout:
        policy = StackPolicy.FREEZEOUT
        hand_count = args.hands  # a cap; None plays until one bot has every chip
    else:
        policy = StackPolicy.CARRY if args.no_reset else StackPolicy.RESET
        hand_count = args.hands if args.hands is not None else DEFAULT_HAND_COUNT
    seed = args.seed if args.seed is not None else new_secret_seed()
    try:
        return MatchConfig(
            game=game,
            hand_count=hand_count,
            seed=seed,
            starting_stack=args.stack,
            stack_policy=policy,
            schedule=schedule,
            match_id=match_id,
            decision_timeout_s=args.decision_timeout,
            startup_timeout_s=args.startup_timeout,
            time_bank_s=args.time_bank,
            check_on_timeout=args.check_on_timeout,
            prefetch=not args.no_prefetch,
            allow_absent_bots=args.allow_absent,
        )
    except MatchConfigError as exc:
        fail(parser, args.command, str(exc))


def _play(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    config: MatchConfig,
    manifests: Sequence[BotManifest],
    out: TextIO,
    *,
    launcher: SandboxLauncher,
    default_out: Path,
) -> int:
    """Build, run and report a match."""
    built: set[Path | None] = set()
    for manifest in manifests:
        if manifest.path in built:
            continue
        built.add(manifest.path)
        build = _build(manifest, launcher)
        if not build.is_ok:
            # The bot's fault, not the command's: it will fail to start and sit out,
            # which the results show.
            out.write(f"note: building {manifest.label} failed: {build.reason}\n")
    out_dir: Path = args.out if args.out is not None else default_out
    remove_logging = configure_logging(
        args.log_level, log_file=args.log_file, game_id=config.match_id
    )
    progress = None if args.no_progress else Progress(config.hand_count)
    try:
        sessions = open_sessions(manifests, config, launcher=launcher)
        result = run_match(config, sessions, out_dir, progress=progress)
    except BotsNotReadyError as exc:
        # Nearly always a mistake of the command (a wrong path, a missing build): no hand
        # was played and the bots are stopped; the user may play on without them.
        fail(parser, args.command, f"{exc}; fix the bot or pass --allow-absent to play on")
    except KeyboardInterrupt:
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\ninterrupted: the hands played so far are in {out_dir / HISTORY_FILE_NAME}\n")
        return 130
    finally:
        remove_logging()
    out.write(format_results_table(result) + "\n")
    for line in crash_stderr_lines(result, out_dir):
        out.write(line + "\n")
    out.write(
        f"{result.hands_played} hands in {result.duration_s:.1f} s "
        f"({result.hands_per_second:.0f} hands/s, {result.decision_count} decisions)\n",
    )
    out.write(f"hand history: {out_dir / HISTORY_FILE_NAME}\n")
    out.write(f"results:      {out_dir / RESULTS_FILE_NAME}\n")
    if not args.no_report:
        report_after_run(out_dir, out)
    return 0


def run_match_command(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO
) -> int:
    count = len(args.manifests)
    if not MIN_SEATS <= count <= MAX_SEATS:
        fail(parser, "match", f"a match needs {MIN_SEATS} to {MAX_SEATS} manifests, got {count}")
    try:
        manifests = load_manifests(args.manifests)
    except ManifestError as exc:
        fail(parser, "match", f"bad manifest: {exc}")
    config = _match_config(args, parser)
    out_dir: Path = args.out if args.out is not None else _default_out_dir("match")
    problem = check_out_dir(out_dir, (HISTORY_FILE_NAME, RESULTS_FILE_NAME))
    if problem is not None:
        fail(parser, "match", problem)
    launcher = open_launcher(args, parser, out)
    try:
        return _play(
            args,
            parser,
            config,
            manifests,
            out,
            launcher=launcher,
            default_out=out_dir,
        )
    finally:
        launcher.close()


def _missing_program(manifest: BotManifest) -> str | None:
    """The first program the bot needs that is not installed (e.g. ``node``), if any."""
    for argv in (manifest.build, manifest.command):
        if not argv:
            continue
        program = argv[0]
        # "{python}" is the arena's own interpreter; "build/bot" is made by the build.
        if program.startswith("{") or "/" in program or os.sep in program:
            continue
        if shutil.which(program) is None:
            return program
    return None


def sample_bot_manifests(root: Path = SAMPLE_BOTS_DIR) -> list[Path]:
    """Every starter bot's ``bot.toml``, in folder-name order."""
    return sorted(root.glob("*/bot.toml"))
