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
import time
from pathlib import Path
from typing import TextIO

from arena.bots.manifest import ManifestError, load_manifest
from arena.commands import play
from arena.commands.play import DEMO_SEED, _build, _missing_program, limit_overrides, open_launcher
from arena.commands.tournament import run_tournament
from arena.commands.values import fail
from arena.match.config import MIN_SEATS
from arena.tournament.config import build_config
from arena.tournament.config_keys import TournamentConfigError

__all__ = ["DEMO_BLOCK_DEALS", "DEMO_DEALS", "add_demo_options", "run_demo"]

#: Deals each pair of starter bots plays (each dealt twice, the seats swapped).
DEMO_DEALS = 100
#: Deals per block: pairs are split in blocks so both cores have work.
DEMO_BLOCK_DEALS = 50


def add_demo_options(parser: argparse.ArgumentParser) -> None:
    """The demo's own options (the sandbox options are added by the caller)."""
    parser.add_argument(
        "--deals", type=int, default=DEMO_DEALS, help=f"deals per pair ({DEMO_DEALS})"
    )
    parser.add_argument(
        "--block-deals",
        type=int,
        default=DEMO_BLOCK_DEALS,
        help=f"deals per block ({DEMO_BLOCK_DEALS})",
    )
    parser.add_argument("--seed", type=int, default=DEMO_SEED, help=f"seed ({DEMO_SEED})")
    parser.add_argument("--out", type=Path, default=None, help="run folder (runs/demo-<time>)")
    parser.add_argument(
        "--concurrency", type=int, default=None, help="matches at once (the CPU count)"
    )
    parser.add_argument(
        "--decision-timeout", type=float, default=2.0, metavar="T", help="seconds (2)"
    )
    parser.add_argument("--no-progress", action="store_true", help="one line per match")
    parser.add_argument(
        "--no-report", action="store_true", help="do not write report.html at the end"
    )


def run_demo(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    """Build the starter bots and play their round robin (see the module docstring)."""
    launcher = open_launcher(args, parser, out)
    manifests: list[Path] = []
    try:
        for path in play.sample_bot_manifests():  # (looked up late: tests replace it)
            try:
                manifest = load_manifest(path)
            except ManifestError as exc:
                out.write(f"note: skipping {path}: {exc}\n")
                continue
            missing = _missing_program(manifest)
            if missing is not None:
                out.write(f"note: skipping {manifest.label}: {missing!r} is not installed\n")
                continue
            build = _build(manifest, launcher)
            if not build.is_ok:
                out.write(f"note: skipping {manifest.label}: its build failed: {build.reason}\n")
                continue
            manifests.append(path)
    finally:
        launcher.close()
    if len(manifests) < MIN_SEATS:
        out.write(f"demo: only {len(manifests)} starter bot(s) can run here; a match needs 2\n")
        return 1
    stamp = time.strftime("%Y%m%d-%H%M%S")
    overrides: dict[str, object] = {
        "name": "demo",
        "format": "round_robin",
        "bots": [str(path) for path in manifests],
        "deals": args.deals,
        "block_deals": args.block_deals,
        "seed": args.seed,
        "out": str(args.out if args.out is not None else Path("runs") / f"demo-{stamp}"),
        "limits.decision_timeout": args.decision_timeout,
    }
    if args.concurrency is not None:
        overrides["concurrency"] = args.concurrency
    if args.sandbox is not None:
        overrides["sandbox"] = args.sandbox
    for key, value in limit_overrides(args).items():
        overrides[f"limits.{key}"] = value
    try:
        config = build_config(overrides=overrides, base_dir=Path.cwd())
    except TournamentConfigError as exc:
        fail(parser, "demo", str(exc))
    out.write(
        f"demo: {len(manifests)} starter bots, a duplicate round robin of {config.deals} "
        f"deals per pair, seed {config.seed}\n"
    )
    return run_tournament(
        config,
        parser,
        out,
        show_progress=not args.no_progress,
        write_report=not args.no_report,
        command="demo",
        show_sandbox=False,  # said once already, before the builds
    )
