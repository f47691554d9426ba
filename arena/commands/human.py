"""``arena play``: a person plays at the terminal against one or more bots.

The person takes a seat (``--seat``, default 0) at a table of the bots named by their
manifests, sees the table drawn in text before each of their decisions and types their
action (see ``docs/human-seat.md``). The match is a real one: the same dealer, the same
sessions and the same run folder as ``arena match`` (``hands.jsonl``, ``results.json``,
``stderr/``, ``report.html``), and its hand history replays like any other. The person has
no time limit unless ``--human-timeout`` gives one; ``q`` or Ctrl-C leaves the table (exit
code 130, the hands played so far kept).

``add_play_parser`` adds the command to ``arena``'s parser; ``run_play_command`` runs it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, TextIO

from arena.bots.build import run_build
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.process import process_factory
from arena.bots.sandbox.select import SandboxLauncher, SandboxLevel
from arena.bots.transport import BotStartError
from arena.commands.play import open_launcher
from arena.commands.report import report_after_run
from arena.commands.values import (
    check_out_dir,
    duration,
    fail,
    non_negative_int,
    positive_int,
    seed_value,
)
from arena.human.seat import DEFAULT_HUMAN_NAME, FrontEnd, HumanSeat, LeftTableError
from arena.human.table import player_names, table_sessions
from arena.human.terminal import TerminalFrontEnd
from arena.match.config import (
    MAX_SEATS,
    MatchConfig,
    MatchConfigError,
    StackPolicy,
    new_secret_seed,
)
from arena.match.log import configure_logging
from arena.match.readiness import BotsNotReadyError
from arena.match.run import run_match
from arena.session.watchdog import BotSession
from arena.store.jsonl import HISTORY_FILE_NAME, RESULTS_FILE_NAME
from arena.tools.results_table import crash_stderr_lines, format_results_table
from engine.config import BettingStructure, ConfigError, GameConfig, Variant

__all__ = ["DEFAULT_PLAY_HANDS", "add_play_parser", "run_play_command"]

#: Hands of a game with a person when --hands is not given (and it is not a freezeout).
DEFAULT_PLAY_HANDS = 20
#: The longest name a seat may play under (the protocol's limit for ``ready.name``).
MAX_NAME_CHARS = 64
#: The hand ids of a game with a person are ``play-<n>``.
PLAY_MATCH_ID = "play"


def add_play_parser(commands: Any) -> argparse.ArgumentParser:
    """Add ``play`` to the ``arena`` subcommands."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "play",
        help="play poker yourself, at the terminal, against 1 to 9 bots",
        description=(
            "Sit at a table with bots and play: the table is drawn before each of your "
            "decisions and you type your action (? for help). Writes hands.jsonl and "
            "results.json to --out, like arena match."
        ),
    )
    parser.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    you = parser.add_argument_group("you")
    you.add_argument(
        "--seat",
        type=non_negative_int,
        default=0,
        help="your seat, 0 to the number of bots (default 0; the bots fill the others in order)",
    )
    you.add_argument(
        "--name", default=DEFAULT_HUMAN_NAME, help=f"your name (default {DEFAULT_HUMAN_NAME})"
    )
    you.add_argument(
        "--human-timeout",
        type=duration,
        default=None,
        metavar="T",
        help="your time per decision, then the default action as for a bot: fold, or stand "
        "pat in a draw (default: no limit)",
    )
    game = parser.add_argument_group("game")
    game.add_argument(
        "--hands",
        type=positive_int,
        default=None,
        help=f"hands to play (default {DEFAULT_PLAY_HANDS}; with --freezeout: the most "
        "hands, default none: until one player has every chip)",
    )
    game.add_argument(
        "--seed",
        type=seed_value,
        default=None,
        help="match seed, to deal the same cards again (default: a secret one)",
    )
    game.add_argument(
        "--freezeout", action="store_true", help="carry stacks until one player has every chip"
    )
    game.add_argument("--stack", type=positive_int, default=200, help="starting stack (200)")
    game.add_argument("--small-blind", type=non_negative_int, default=1, help="small blind (1)")
    game.add_argument("--big-blind", type=non_negative_int, default=2, help="big blind (2)")
    game.add_argument("--ante", type=non_negative_int, default=0, help="ante (0)")
    game.add_argument(
        "--variant",
        choices=[variant.value for variant in Variant],
        default=Variant.HOLDEM.value,
        help=f"the game (default {Variant.HOLDEM.value})",
    )
    game.add_argument(
        "--structure",
        choices=[structure.value for structure in BettingStructure],
        default=BettingStructure.NO_LIMIT.value,
        help=f"the betting structure (default {BettingStructure.NO_LIMIT.value})",
    )
    game.add_argument(
        "--decision-timeout",
        type=duration,
        default=5.0,
        metavar="T",
        help="the bots' time per decision (5)",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--out",
        type=Path,
        default=None,
        help="the run folder (default runs/play-<time>); it must not hold a match already",
    )
    output.add_argument(
        "--log-file",
        type=Path,
        default=None,
        help="write the match log (bot faults and up) here (default: no log)",
    )
    output.add_argument(
        "--no-report", action="store_true", help="do not write report.html at the end"
    )
    parser.add_argument(
        "--sandbox",
        choices=[level.value for level in SandboxLevel],
        default=None,
        help="how the bots are isolated (default: the strongest layer that works here)",
    )
    return parser


def run_play_command(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    out: TextIO,
    *,
    front_end: FrontEnd | None = None,
) -> int:
    """Play the game ``args`` describes; returns the exit code (0 played, 2 a bad flag,
    manifest or bot, 130 the person left). ``front_end`` replaces the terminal (tests)."""
    bot_count = len(args.manifests)
    if not 1 <= bot_count <= MAX_SEATS - 1:
        fail(
            parser, "play", f"a table takes 1 to {MAX_SEATS - 1} bots besides you, got {bot_count}"
        )
    if args.seat > bot_count:
        fail(
            parser,
            "play",
            f"argument --seat: seat {args.seat} is not at a table of {bot_count + 1} "
            f"(0..{bot_count})",
        )
    if not 1 <= len(args.name) <= MAX_NAME_CHARS:
        fail(
            parser,
            "play",
            f"argument --name: {args.name!r} must be 1 to {MAX_NAME_CHARS} characters",
        )
    try:
        manifests = [load_manifest(path) for path in args.manifests]
    except ManifestError as exc:
        fail(parser, "play", f"bad manifest: {exc}")
    config = _config(args, parser)
    out_dir: Path = args.out if args.out is not None else _default_out_dir()
    problem = check_out_dir(out_dir, (HISTORY_FILE_NAME, RESULTS_FILE_NAME))
    if problem is not None:
        fail(parser, "play", problem)
    launcher = open_launcher(args, parser, out)
    try:
        for manifest in {manifest.path: manifest for manifest in manifests}.values():
            _build(manifest, launcher, out)
        seat = HumanSeat(
            front_end if front_end is not None else TerminalFrontEnd(output=out),
            name=args.name,
            names=player_names([manifest.name for manifest in manifests], seat_index=args.seat),
        )
        bots = [(m.name, process_factory(m, launcher=launcher)) for m in manifests]
        sessions = table_sessions(
            bots,
            config,
            seat,
            seat_index=args.seat,
            timeout_s=args.human_timeout,
        )
        return _play(args, parser, config, sessions, out_dir, out)
    finally:
        launcher.close()


def _config(args: argparse.Namespace, parser: argparse.ArgumentParser) -> MatchConfig:
    try:
        game = GameConfig(
            small_blind=args.small_blind,
            big_blind=args.big_blind,
            ante=args.ante,
            variant=Variant(args.variant),
            structure=BettingStructure(args.structure),
        )
        if args.freezeout:
            policy, hand_count = StackPolicy.FREEZEOUT, args.hands
        else:
            policy = StackPolicy.RESET
            hand_count = args.hands if args.hands is not None else DEFAULT_PLAY_HANDS
        return MatchConfig(
            game=game,
            hand_count=hand_count,
            seed=args.seed if args.seed is not None else new_secret_seed(),
            starting_stack=args.stack,
            stack_policy=policy,
            match_id=PLAY_MATCH_ID,
            decision_timeout_s=args.decision_timeout,
            # No work ahead while a person thinks: nothing to gain, and it holds back
            # hand_start/hand_end lines the person should read when they happen.
            prefetch=False,
        )
    except (ConfigError, MatchConfigError) as exc:
        fail(parser, "play", str(exc))


def _default_out_dir() -> Path:
    # Not named after the seed, as arena match's: a path is no place for a secret.
    return Path("runs") / f"play-{time.strftime('%Y%m%d-%H%M%S')}"


def _build(manifest: BotManifest, launcher: SandboxLauncher, out: TextIO) -> None:
    """Build a bot; a failed build is noted (the bot then fails to start, exit code 2)."""
    try:
        build = run_build(manifest, launcher=launcher)
    except BotStartError as exc:
        out.write(f"note: building {manifest.label} failed: {exc}\n")
        return
    if not build.is_ok:
        out.write(f"note: building {manifest.label} failed: {build.reason}\n")


def _play(
    args: argparse.Namespace,
    parser: argparse.ArgumentParser,
    config: MatchConfig,
    sessions: list[tuple[str, BotSession]],
    out_dir: Path,
    out: TextIO,
) -> int:
    """Play the match and print its results, as ``arena match`` does."""
    # Match log lines would land between the table's lines: a file, or none at all.
    level = "warning" if args.log_file is not None else "off"
    remove_logging = configure_logging(level, log_file=args.log_file, game_id=config.match_id)
    try:
        result = run_match(config, sessions, out_dir)
    except BotsNotReadyError as exc:
        fail(parser, "play", f"{exc}; fix the bot and try again")
    except (KeyboardInterrupt, LeftTableError):
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\nyou left the table: the hands played are in {out_dir / HISTORY_FILE_NAME}\n")
        return 130
    finally:
        remove_logging()
    out.write("\n" + format_results_table(result) + "\n")
    for line in crash_stderr_lines(result, out_dir):
        out.write(line + "\n")
    out.write(f"hand history: {out_dir / HISTORY_FILE_NAME}\n")
    out.write(f"results:      {out_dir / RESULTS_FILE_NAME}\n")
    if not args.no_report:
        report_after_run(out_dir, out)
    return 0
