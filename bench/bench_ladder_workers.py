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
4. The worker's overhead, like for like: a second site whose only two versions are the
   pair ``--pair`` (so every ladder game is that pair), one worker playing ``--games``
   games with ``--verbosity 2`` (its per-game lines: the matches' own time as the process
   that played them measured it, and the whole cycle from one game's end to the next's),
   interleaved over ``--rounds`` with ``arena tournament`` of the same pair, ``--games``
   blocks of ``--deals`` deals (the same games: same bots, deals, sandbox, luck estimator,
   executor and concurrency), whose matches' own times come from its results database.
   Each run's first game is left out (the pool's and the referee zygote's start-up, once
   per worker, not per game). Printed per round and as medians: the worker's added time
   per game (cycle less the matches), as a share of the matches' own time, and the
   ladder's matches against the tournament's (are matches slower in the ladder?).

The machine's load average is printed before and after each step: on a shared machine
the figures move with it.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.server.ladder.config import LadderSettings  # noqa: E402
from arena.server.worker_folder import join_site  # noqa: E402
from tests.arena.server.browser.live import STARTER_BOTS, arena, init_site  # noqa: E402
from tests.postgres import PostgresServer, running_postgres  # noqa: E402

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


def _timed_games(folder: Path, games: int, env: dict[str, str]) -> list[dict[str, float]]:
    """One ``ladder_worker --games games --verbosity 2`` on ``folder``: each game's
    figures (:class:`arena.server.ladder.management.commands.ladder_worker.GameClock`)."""
    command = [sys.executable, "-m", "arena.server.manage", "ladder_worker", "--games",
               str(games), "--verbosity", "2"]  # fmt: skip
    done = subprocess.run(command, env={**env, "ARENA_SITE_DIR": str(folder)}, check=True,
                          capture_output=True, text=True, timeout=3600)  # fmt: skip
    lines = [line.split("seconds: ")[1] for line in done.stdout.splitlines() if "seconds: " in line]
    return [{k: float(v) for k, v in (pair.split("=") for pair in line.split())} for line in lines]


def _tournament_games(pair: list[str], args: argparse.Namespace, out: Path) -> list[float]:
    """``arena tournament`` of ``pair``: ``--games`` blocks of ``--deals`` deals, one match
    at a time, strict sandbox, luck on; each block's (game's) matches' own seconds."""
    manifests = [str(ROOT / "sample_bots" / bot / "bot.toml") for bot in pair]
    command = arena("tournament", *manifests, "--deals", str(args.deals * args.games),
                    "--block-deals", str(args.deals), "--concurrency", "1", "--sandbox",
                    "strict", "--luck", "on", "--out", str(out), "--no-progress",
                    "--no-report")  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=3600)
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT block_id, SUM(duration_s) FROM matches GROUP BY block_id "
                          "ORDER BY MIN(id)").fetchall()  # fmt: skip
    return [float(seconds) for _block, seconds in rows]


def _overhead(
    args: argparse.Namespace, folder: Path, server: PostgresServer, env: dict[str, str]
) -> None:
    """Step 4 of the module docstring: the worker's added time per game against the
    matches' own time, and the ladder's matches against the tournament's."""
    pair = args.pair.split(",")
    database = server.url(server.create_database("pair"))
    site = init_site(folder / "pair", competition=COMPETITION, database=database)
    _manage(site, "shell", "-c", SEED.format(bots=pair), env=env)
    _workers([site], 1, env)  # the builds, untimed
    shares, slower = [], []
    for round_number in range(args.rounds):
        games = _timed_games(site, args.games, env)[1:]  # the first: the pool's start-up
        plain = _tournament_games(pair, args, folder / f"pair-t{round_number}")[1:]
        added = statistics.mean(game["cycle"] - game["matches"] for game in games)
        own = statistics.mean(game["matches"] for game in games)
        claim = statistics.mean(game["claim"] for game in games)
        store = statistics.mean(game["store"] for game in games)
        shares.append(added / own)
        slower.append(own / statistics.mean(plain))
        print(f"round {round_number + 1}: ladder game {own:.3f} s of matches + {added:.3f} s "
              f"added (claim {claim:.3f}, store {store:.3f}) = {100 * shares[-1]:+.1f}%; "
              f"the tournament's game {statistics.mean(plain):.3f} s of matches, the "
              f"ladder's matches {slower[-1]:.2f}x; {load()}", flush=True)  # fmt: skip
    share = statistics.median(shares)
    print(f"{'+'.join(pair)}, {args.deals} deals each way, {len(games)} games a round, "
          f"median of {args.rounds} rounds: worker overhead {100 * share:+.1f}% "
          f"of the game's own time (target under 10%), the ladder's matches "
          f"{statistics.median(slower):.2f}x the tournament's; {load()}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--deals", type=int, default=LadderSettings().deals,
                        help="deals a game each way round (default: the ladder's)")  # fmt: skip
    parser.add_argument("--games", type=int, default=8, help="games per worker")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument("--bots", type=int, default=5, help="4 or more")
    parser.add_argument("--pair", default="c,python_calling_station", help="step 4's two bots")
    parser.add_argument("--rounds", type=int, default=3, help="step 4's interleaved rounds")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.games, args.workers, args.bots, args.rounds = 10, 3, "1,2", 4, 1
    counts = [int(text) for text in args.workers.split(",")]
    bots = STARTER_BOTS[: args.bots]
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
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
        played = _manage(site, "shell", "-c", DONE, env=env).split()[-1]
        print(f"games stored on the site: {played}", flush=True)
        _overhead(args, folder, server, env)


if __name__ == "__main__":
    main()
