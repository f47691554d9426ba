"""The ``arena`` command: ``match``, ``replay``, ``check-bot`` and ``demo``.

Every bad flag or bad manifest is reported as ``arena <command>: error: <message naming the
bad value>`` with exit code 2 (argparse's convention), never as a traceback. A bot that
misbehaves during a match is a recorded fault, not an error of the command; an exception
from our own code is a bug and is allowed to stop the command with its traceback.

Examples::

    arena match sample_bots/python_calling_station/bot.toml sample_bots/python_random/bot.toml \\
        --hands 500 --seed 7
    arena match a/bot.toml b/bot.toml c/bot.toml --freezeout --stack 500 --schedule double@50
    arena replay runs/seed7-20260101-120000/hands.jsonl
    arena check-bot sample_bots/python_random/bot.toml
    arena demo
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from arena.bots.build import run_build
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.match.config import MatchConfig, MatchConfigError, StackPolicy
from arena.match.log import LOG_LEVELS, configure_logging
from arena.match.progress import Progress
from arena.match.run import open_sessions, run_match
from arena.session.policy import TimeLimits
from arena.store.jsonl import HISTORY_FILE_NAME, RESULTS_FILE_NAME, HandLogError
from arena.tools.checkbot import check_bot
from arena.tools.replay import replay_file
from arena.tools.results_table import format_results_table
from engine.config import BettingStructure, ConfigError, GameConfig, Variant
from engine.schedule import BlindLevel, BlindSchedule, ScheduleError

__all__ = [
    "build_parser",
    "main",
    "parse_duration",
    "parse_schedule",
    "sample_bot_manifests",
]

MIN_BOTS, MAX_BOTS = 2, 10
#: Hands of a match when --hands is not given (and it is not a freezeout).
DEFAULT_HAND_COUNT = 100
#: The demo's seed when --seed is not given: the same demo every time.
DEMO_SEED = 2024
#: The starter bots that ``arena demo`` plays.
SAMPLE_BOTS_DIR = Path(__file__).resolve().parent.parent / "sample_bots"

# ---------------------------------------------------------------- value parsers


def _whole_number(text: str, minimum: int, below_minimum: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{text!r} {below_minimum}")
    return value


def _positive_int(text: str) -> int:
    return _whole_number(text, 1, "must be at least 1")


def _non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "must not be negative")


def _seed(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer seed") from None


_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(ms|s)?\s*$")


def parse_duration(text: str, *, allow_zero: bool = False) -> float:
    """Seconds from ``"5"``, ``"2.5s"`` or ``"250ms"``; a bad value names itself.

    >>> parse_duration("250ms"), parse_duration("2"), parse_duration("0", allow_zero=True)
    (0.25, 2.0, 0.0)
    """
    match = _DURATION.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not a duration (seconds, e.g. 5, 2.5s or 250ms)")
    value = float(match.group(1))
    if match.group(2) == "ms":
        value /= 1000.0
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{text!r} must be a positive duration")
    return value


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _duration_or_zero(text: str) -> float:
    try:
        return parse_duration(text, allow_zero=True)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_LEVEL = re.compile(r"^(\d+)/(\d+)(?:/(\d+))?$")
_PERIOD = re.compile(r"^(\d+)(h|hands|s|m)?$")


def parse_schedule(text: str, *, small_blind: int, big_blind: int, ante: int) -> BlindSchedule:
    """A blind schedule from ``LEVELS@PERIOD``.

    ``LEVELS`` is ``SB/BB[/ANTE]`` levels separated by commas, or ``double`` for seed 003's
    schedule (start at the given blinds and double forever). ``PERIOD`` is a number of hands
    (``50`` or ``50h``), seconds (``90s``) or minutes (``10m``). A ``.json`` file in
    :meth:`BlindSchedule.to_dict` form is accepted too.

    >>> parse_schedule("double@50", small_blind=1, big_blind=2, ante=0).level_for(
    ...     hands_played=100)
    BlindLevel(small_blind=4, big_blind=8, ante=0)
    >>> parse_schedule("1/2,2/4,5/10/1@90s", small_blind=1, big_blind=2, ante=0).every_seconds
    90.0
    """
    if text.endswith(".json"):
        import json

        path = Path(text)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"cannot read schedule file {text!r}: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError(f"schedule file {text!r} does not hold a JSON object")
        return BlindSchedule.from_dict(data)
    levels_text, at, period_text = text.partition("@")
    if not at:
        raise ValueError(
            f"schedule {text!r} has no '@PERIOD' (e.g. 1/2,2/4@50 or double@90s)",
        )
    period = _PERIOD.match(period_text.strip())
    if period is None or int(period.group(1)) < 1:
        raise ValueError(
            f"schedule period {period_text!r} is not a positive number of hands (50), "
            "seconds (90s) or minutes (10m)",
        )
    amount, unit = int(period.group(1)), period.group(2) or "h"
    timing: dict[str, float | int] = (
        {"every_hands": amount}
        if unit in ("h", "hands")
        else {"every_seconds": float(amount * (60 if unit == "m" else 1))}
    )
    if levels_text.strip() == "double":
        return BlindSchedule.doubling(small_blind, big_blind, ante=ante, **timing)  # type: ignore[arg-type]
    levels = []
    for part in levels_text.split(","):
        level = _LEVEL.match(part.strip())
        if level is None:
            raise ValueError(f"schedule level {part!r} is not SB/BB or SB/BB/ANTE (e.g. 5/10/1)")
        levels.append(
            BlindLevel(int(level.group(1)), int(level.group(2)), int(level.group(3) or 0)),
        )
    return BlindSchedule(levels, **timing)  # type: ignore[arg-type]


# ---------------------------------------------------------------------- parser


def _add_match_options(parser: argparse.ArgumentParser, *, hands_default: int | None) -> None:
    game = parser.add_argument_group("game")
    game.add_argument(
        "--hands",
        type=_positive_int,
        default=hands_default,
        help="hands to play (with --freezeout: the most hands before placing by chips)",
    )
    game.add_argument("--seed", type=_seed, default=None, help="match seed (default: random)")
    game.add_argument(
        "--freezeout",
        action="store_true",
        help="carry stacks until one bot holds every chip; finishing places",
    )
    game.add_argument(
        "--no-reset",
        action="store_true",
        help="carry stacks from hand to hand (busted bots are eliminated); "
        "default: every hand starts from --stack",
    )
    game.add_argument("--stack", type=_positive_int, default=200, help="starting stack (200)")
    game.add_argument("--small-blind", type=_non_negative_int, default=1, help="small blind (1)")
    game.add_argument("--big-blind", type=_non_negative_int, default=2, help="big blind (2)")
    game.add_argument("--ante", type=_non_negative_int, default=0, help="ante (0)")
    game.add_argument(
        "--schedule",
        default=None,
        metavar="LEVELS@PERIOD",
        help="blind schedule, e.g. 1/2,2/4,5/10/1@50 (hands), double@90s, or a .json file",
    )
    game.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.HOLDEM.value,
    )
    game.add_argument(
        "--structure",
        choices=[structure.value for structure in BettingStructure],
        default=BettingStructure.NO_LIMIT.value,
    )
    limits = parser.add_argument_group("time limits (seconds, or e.g. 250ms)")
    limits.add_argument("--decision-timeout", type=_duration, default=5.0, metavar="T")
    limits.add_argument("--startup-timeout", type=_duration, default=10.0, metavar="T")
    limits.add_argument(
        "--time-bank",
        type=_duration_or_zero,
        default=0.0,
        metavar="T",
        help="extra time per match a bot may spend over the decision limit (0)",
    )
    limits.add_argument(
        "--check-on-timeout",
        action="store_true",
        help="after a timeout, check when checking is free instead of folding",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--out",
        type=Path,
        default=None,
        help="directory for hands.jsonl and results.json (default runs/seed<S>-<time>)",
    )
    output.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        default="warning",
        type=str.lower,
        help="match log lines at this level and above (default warning: bot faults)",
    )
    output.add_argument("--log-file", type=Path, default=None, help="write log lines here")
    output.add_argument("--no-progress", action="store_true", help="no progress bar")


def build_parser() -> argparse.ArgumentParser:
    """The ``arena`` argument parser with its four commands."""
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Run poker bots against each other (JSON lines over stdin/stdout).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    match = commands.add_parser(
        "match",
        help="play a match between 2 to 10 bots",
        description="Play a match; writes hands.jsonl and results.json to --out.",
    )
    match.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    _add_match_options(match, hands_default=None)

    replay = commands.add_parser(
        "replay",
        help="re-run a match from its hand history and check every hand is identical",
    )
    replay.add_argument("history", type=Path, metavar="HANDS_JSONL")
    replay.add_argument("--quiet", action="store_true", help="print only mismatches and totals")

    check = commands.add_parser("check-bot", help="check that a bot builds, starts and plays")
    check.add_argument("manifest", type=Path, metavar="MANIFEST")
    check.add_argument("--decision-timeout", type=_duration, default=5.0, metavar="T")
    check.add_argument("--startup-timeout", type=_duration, default=10.0, metavar="T")
    check.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.HOLDEM.value,
    )

    demo = commands.add_parser("demo", help="a match between the starter bots of every language")
    _add_match_options(demo, hands_default=200)
    demo.set_defaults(decision_timeout=2.0)
    # Kept for _fail: a late error prints the usage of the command that failed.
    parser.command_parsers = {  # type: ignore[attr-defined]
        "match": match,
        "replay": replay,
        "check-bot": check,
        "demo": demo,
    }
    return parser


# --------------------------------------------------------------------- helpers


def _fail(parser: argparse.ArgumentParser, command: str, message: str) -> NoReturn:
    """Print the command's usage and ``arena <command>: error: message``; exit 2.

    The same form and exit code as argparse's own errors, whether the bad value is caught
    by a flag's type or later (a manifest, a blind schedule, a combination of flags).
    """
    subparsers = getattr(parser, "command_parsers", {})
    subparsers.get(command, parser).error(message)
    raise AssertionError("unreachable: ArgumentParser.error exits")  # pragma: no cover


def load_manifests(paths: Sequence[Path]) -> list[BotManifest]:
    """Load every manifest; the first bad one raises ``ManifestError`` naming it."""
    return [load_manifest(path) for path in paths]


def _default_out_dir(seed: int) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("runs") / f"seed{seed}-{stamp}"


# ----------------------------------------------------------------------- entry


def main(argv: Sequence[str] | None = None, *, stdout: TextIO | None = None) -> int:
    """Run the ``arena`` command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    out = stdout if stdout is not None else sys.stdout
    handlers: dict[str, Callable[[argparse.Namespace, argparse.ArgumentParser, TextIO], int]] = {
        "match": _command_match,
        "replay": _command_replay,
        "check-bot": _command_check_bot,
        "demo": _command_demo,
    }
    return handlers[args.command](args, parser, out)


def _game_config(args: argparse.Namespace, parser: argparse.ArgumentParser) -> GameConfig:
    try:
        return GameConfig(
            small_blind=args.small_blind,
            big_blind=args.big_blind,
            ante=args.ante,
            variant=Variant(args.variant),
            structure=BettingStructure(args.structure),
        )
    except ConfigError as exc:
        _fail(parser, args.command, str(exc))


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
        _fail(parser, args.command, f"argument --schedule: {exc}")


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
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
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
        )
    except MatchConfigError as exc:
        _fail(parser, args.command, str(exc))


def _play(
    args: argparse.Namespace,
    config: MatchConfig,
    manifests: Sequence[BotManifest],
    out: TextIO,
    *,
    default_out: Path,
    is_build_needed: bool = True,
) -> int:
    """Build, run and report a match (the shared part of ``match`` and ``demo``)."""
    built: set[Path | None] = set()
    for manifest in manifests:
        if not is_build_needed or manifest.path in built:
            continue
        built.add(manifest.path)
        build = run_build(manifest)
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
        sessions = open_sessions(manifests, config)
        result = run_match(config, sessions, out_dir, progress=progress)
    except KeyboardInterrupt:
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\ninterrupted: the hands played so far are in {out_dir / HISTORY_FILE_NAME}\n")
        return 130
    finally:
        remove_logging()
    out.write(format_results_table(result) + "\n")
    out.write(
        f"{result.hands_played} hands in {result.duration_s:.1f} s "
        f"({result.hands_per_second:.0f} hands/s, {result.decision_count} decisions)\n",
    )
    out.write(f"hand history: {out_dir / HISTORY_FILE_NAME}\n")
    out.write(f"results:      {out_dir / RESULTS_FILE_NAME}\n")
    return 0


def _command_match(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    count = len(args.manifests)
    if not MIN_BOTS <= count <= MAX_BOTS:
        _fail(parser, "match", f"a match needs {MIN_BOTS} to {MAX_BOTS} manifests, got {count}")
    try:
        manifests = load_manifests(args.manifests)
    except ManifestError as exc:
        _fail(parser, "match", f"bad manifest: {exc}")
    config = _match_config(args, parser)
    return _play(args, config, manifests, out, default_out=_default_out_dir(config.seed))


def _command_replay(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    try:
        report = replay_file(args.history)
    except (HandLogError, KeyError, TypeError, ValueError) as exc:
        # KeyError/TypeError/ValueError: a header that is JSON but not ours.
        _fail(parser, "replay", f"cannot replay {str(args.history)!r}: {exc}")
    out.write(report.format(verbose=not args.quiet) + "\n")
    return 0 if report.is_ok else 1


def _command_check_bot(
    args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO
) -> int:
    if not args.manifest.is_file():
        _fail(parser, "check-bot", f"manifest {str(args.manifest)!r} is not a file")
    limits = TimeLimits(decision_s=args.decision_timeout, startup_s=args.startup_timeout)
    report = check_bot(args.manifest, limits=limits, variant=args.variant)
    out.write(report.format() + "\n")
    return 0 if report.passed else 1


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


def _command_demo(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    manifests = []
    for path in sample_bot_manifests():
        try:
            manifest = load_manifest(path)
        except ManifestError as exc:
            out.write(f"note: skipping {path}: {exc}\n")
            continue
        missing = _missing_program(manifest)
        if missing is not None:
            out.write(f"note: skipping {manifest.label}: {missing!r} is not installed\n")
            continue
        build = run_build(manifest)
        if not build.is_ok:
            out.write(f"note: skipping {manifest.label}: its build failed: {build.reason}\n")
            continue
        manifests.append(manifest)
    if len(manifests) < MIN_BOTS:
        out.write(f"demo: only {len(manifests)} starter bot(s) can run here; a match needs 2\n")
        return 1
    if args.seed is None:
        args.seed = DEMO_SEED
    config = _match_config(args, parser, match_id=f"demo-seed{args.seed}")
    out.write(
        f"demo: {len(manifests)} starter bots, {config.hand_count} hands, seed {config.seed}: "
        + ", ".join(manifest.name for manifest in manifests)
        + "\n",
    )
    default_out = Path("runs") / f"demo-seed{config.seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    return _play(args, config, manifests, out, default_out=default_out, is_build_needed=False)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
