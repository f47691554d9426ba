"""Games per hour of the ladder with 1, 2 and 4 ladder workers on this machine, and with two
workers whose folders share nothing (two machines simulated: each a worker folder of
``arena server join``), against ``arena tournament`` playing games of the same shape.

Run: ``.venv/bin/python bench/bench_ladder_workers.py`` (``--quick`` for a small run;
``--deals``, ``--games`` per worker, ``--workers 1,2,4``, ``--bots``).

1. A site on a real PostgreSQL (started in a temporary folder, as the tests'
   ``tests/postgres.py`` does; gone at the end) with ``--bots`` starter bots
   (``sample_bots/*``), each its own team's accepted, active version (put in the database
   directly: validation is not measured here). The competition plays one match at a time
   per worker (``concurrency = 1``), the strict sandbox and luck on; a game is ``--deals``
   deals each way round.
2. Every folder a worker plays from builds the versions first, untimed (one game).
3. For each count ``W`` of ``--workers``: ``W`` processes of ``ladder_worker --games G``
   started together, on the site's folder; the wall time until the last has stored its
   last game gives the games per hour (``W * G`` games). Then the same with two workers,
   each on a worker folder of its own (its own work folder and builds; the archives
   through a link of its own to the site's uploads).
4. ``arena tournament`` of the same bots, a round robin of one block of ``--deals`` deals
   per pair, ``--concurrency 1``, the strict sandbox, luck on: its wall time per game
   against one ladder worker's, start-up excluded (each the difference of a long run and a
   short one, per game more: the ladder's ``--games`` against one game, the tournament's
   ``--bots`` against three bots' pairs). The worker's overhead per game is the difference,
   as a share of the tournament's own time per game. The ladder's games are the pairs
   matchmaking picks, the tournament's every pair once: a mix of bots of other speeds.

The machine's load average is printed before and after each step: on a shared machine
the figures move with it.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.server.worker_folder import join_site  # noqa: E402
from tests.arena.server.browser.live import STARTER_BOTS, arena, init_site  # noqa: E402
from tests.postgres import running_postgres  # noqa: E402

COMPETITION = 'concurrency = 1\nsandbox = "strict"\n[site]\nsignup = "open"\n'

SEED = """
from tests.arena.server.ladder.conftest import accepted
from tests.arena.server.factories import make_team
from arena.uploads import pack
from tests import REPO_ROOT
for name in {bots!r}:
    accepted(make_team(name.replace("_", "-")), pack(REPO_ROOT / "sample_bots" / name))
"""

DONE = """
from arena.server.ladder.models import Game
print(Game.objects.filter(status="done").count())
"""


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes) and its cores."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def _manage(folder: Path, *arguments: str, env: dict[str, str]) -> str:
    command = [sys.executable, "-m", "arena.server.manage", *arguments]
    done = subprocess.run(command, env={**env, "ARENA_SITE_DIR": str(folder)}, check=True,
                          capture_output=True, text=True, timeout=3600)  # fmt: skip
    return done.stdout


def _workers(folders: list[Path], games: int, env: dict[str, str]) -> float:
    """Wall seconds for one ``ladder_worker --games games`` per folder, started together."""
    started = time.monotonic()
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "arena.server.manage", "ladder_worker", "--games", str(games)],
            env={**env, "ARENA_SITE_DIR": str(folder)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for folder in folders
    ]
    for process in processes:
        _out, errors = process.communicate(timeout=3600)
        if process.returncode != 0:
            raise SystemExit(f"a ladder worker failed ({process.returncode}): {errors!r}")
    return time.monotonic() - started


def _tournament(bots: list[str], args: argparse.Namespace, out: Path) -> float:
    """Wall seconds of ``arena tournament`` of ``bots``: a round robin of one block of
    ``--deals`` deals per pair, one match at a time, strict sandbox, luck on."""
    manifests = [str(ROOT / "sample_bots" / bot / "bot.toml") for bot in bots]
    command = arena("tournament", *manifests, "--deals", str(args.deals), "--block-deals",
                    str(args.deals), "--concurrency", "1", "--sandbox", "strict", "--luck",
                    "on", "--out", str(out), "--no-progress", "--no-report")  # fmt: skip
    started = time.monotonic()
    subprocess.run(command, check=True, capture_output=True, timeout=3600)
    return time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--games", type=int, default=8, help="games per worker")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument("--bots", type=int, default=5, help="4 or more")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.games, args.workers, args.bots = 10, 3, "1,2", 4
    counts = [int(text) for text in args.workers.split(",")]
    bots = STARTER_BOTS[: args.bots]
    print(f"{len(bots)} bots, {args.deals} deals a game each way round, {args.games} games "
          f"per worker; {load()}", flush=True)  # fmt: skip
    env = {**os.environ, "ARENA_LADDER": f'{{"deals": {args.deals}, "placement_games": 1}}'}
    rates: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, running_postgres() as server:
        folder = Path(tmp)
        database = server.url(server.create_database("bench"))
        site = init_site(folder, competition=COMPETITION, database=database)
        _manage(site, "shell", "-c", SEED.format(bots=bots), env=env)
        machines = []
        for name in ("a", "b"):
            mount = folder / f"machine-{name}" / "archives"
            mount.parent.mkdir()
            mount.symlink_to(site / "uploads")
            joined = join_site(folder / f"machine-{name}" / "worker", database=database,
                               competition=folder / "competition.toml",
                               secret_key_file=site / "secret_key", archives=mount)  # fmt: skip
            machines.append(joined.root)
        for warm in (site, *machines):  # the builds, untimed
            _workers([warm], 1, env)
        for count in counts:
            wall = _workers([site] * count, args.games, env)
            rates[f"{count} worker(s), one folder"] = count * args.games / wall * 3600
            print(f"{count} worker(s), one folder: {count * args.games} games in {wall:.1f} s, "
                  f"{rates[f'{count} worker(s), one folder']:.0f} games/hour; {load()}",
                  flush=True)  # fmt: skip
        wall = _workers(machines, args.games, env)
        separate = "2 workers, separate folders"
        rates[separate] = 2 * args.games / wall * 3600
        print(f"{separate}: {2 * args.games} games in {wall:.1f} s, "
              f"{rates[separate]:.0f} games/hour; {load()}", flush=True)  # fmt: skip
        # Per game, start-up excluded: the difference of a long and a short run, per game
        # more (the ladder: games per worker; the tournament: pairs of more bots).
        short, long = _workers([site], 1, env), _workers([site], args.games, env)
        ladder = (long - short) / (args.games - 1)
        few, many = (
            _tournament(bots[:3], args, folder / "t3"),
            _tournament(bots, args, folder / "tn"),
        )
        added = math.comb(len(bots), 2) - 3
        plain = (many - few) / added
        played = _manage(site, "shell", "-c", DONE, env=env).split()[-1]
    print(f"per game, start-up excluded: one ladder worker {ladder:.2f} s, arena tournament "
          f"{plain:.2f} s ({args.games - 1} games more / {added} pairs more)")  # fmt: skip
    print(f"worker overhead per game: {ladder - plain:+.2f} s, "
          f"{100 * (ladder - plain) / plain:+.1f}% of the game's own time; {load()}")  # fmt: skip
    print(f"games stored on the site: {played}")


if __name__ == "__main__":
    main()
