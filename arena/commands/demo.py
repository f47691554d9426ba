"""``arena demo``: a duplicate round robin of the starter bots of every language.

The demo builds each starter bot (skipping, with a note, those whose language is not
installed here or whose build fails), then runs the same competition as ``arena tournament
--format round_robin``: every pair plays the same deals with the seats one way and then
swapped, the results go to an SQLite database and the leaderboard, crosstable and
confidence intervals are printed. Its seed is fixed (:data:`DEMO_SEED`) so the demo is the
same every time; each run gets its own folder, ``runs/demo-<time>``.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path
from typing import TextIO

from arena.bots.build import build_bots
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.commands.common import default_out_dir, open_launcher
from arena.commands.tournament import run_tournament
from arena.match.config import MIN_SEATS
from arena.settings import add_groups, given, group
from arena.tournament.config import build_config

__all__ = [
    "DEMO_BLOCK_DEALS",
    "DEMO_DEALS",
    "DEMO_SEED",
    "DESCRIPTION",
    "add_arguments",
    "run",
    "sample_bot_manifests",
]

#: Deals each pair of starter bots plays (each dealt twice, the seats swapped).
DEMO_DEALS = 100
#: Deals per block: pairs are split in blocks so both cores have work.
DEMO_BLOCK_DEALS = 50
#: The demo's seed when --seed is not given: the same demo every time.
DEMO_SEED = 2024
#: The demo's decision time, in seconds (the starter bots answer in milliseconds).
DEMO_DECISION_S = 2.0
#: The starter bots that ``arena demo`` plays.
SAMPLE_BOTS_DIR = Path(__file__).resolve().parent.parent.parent / "sample_bots"

DESCRIPTION = "Build the starter bots and play a duplicate round robin between them."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena demo``'s arguments: a few of the tournament's settings, with the demo's
    defaults."""
    add_groups(
        parser,
        "tournament",
        "run",
        "limits",
        only=("deals", "block_deals", "concurrency", "seed", "out", "limits.decision_timeout"),
        defaults={
            "deals": DEMO_DEALS,
            "block_deals": DEMO_BLOCK_DEALS,
            "seed": DEMO_SEED,
            "limits.decision_timeout": DEMO_DECISION_S,
        },
        shown={"out": "runs/demo-<time>"},
    )
    add_groups(parser, "sandbox", "output")


def sample_bot_manifests(root: Path = SAMPLE_BOTS_DIR) -> list[Path]:
    """Every starter bot's ``bot.toml``, in folder-name order."""
    return sorted(root.glob("*/bot.toml"))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Build the starter bots and play their round robin (see the module docstring)."""
    launcher = open_launcher(args, out)
    playable: list[BotManifest] = []
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
        playable.append(manifest)
    manifests: list[Path] = []
    try:
        for bot in build_bots(((m.name, m) for m in playable), launcher=launcher):
            if not bot.result.is_ok:
                reason = bot.result.reason
                out.write(f"note: skipping {bot.manifest.label}: its build failed: {reason}\n")
                continue
            assert bot.manifest.path is not None
            manifests.append(bot.manifest.path)
    finally:
        launcher.close()
    if len(manifests) < MIN_SEATS:
        out.write(f"demo: only {len(manifests)} starter bot(s) can run here; a match needs 2\n")
        return 1
    overrides: dict[str, object] = {
        **given(args, group("tournament", "run", "limits", "sandbox")),  # the flags it took
        "name": "demo",
        "format": "round_robin",
        "bots": [str(path) for path in manifests],
        "out": str(args.out if args.out is not None else default_out_dir("demo")),
    }
    config = build_config(overrides=overrides, base_dir=Path.cwd())
    out.write(
        f"demo: {len(manifests)} starter bots, a duplicate round robin of {config.deals} "
        f"deals per pair, seed {config.seed}\n"
    )
    return run_tournament(
        config,
        out,
        show_progress=not args.no_progress,
        write_report=not args.no_report,
        show_sandbox=False,  # said once already, before the builds
        verbose=args.verbose,
    )


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
