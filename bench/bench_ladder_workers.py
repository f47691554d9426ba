"""Games per hour of the ladder with 1, 2 and 4 ladder workers on this machine, and with two
workers whose folders share nothing (two machines simulated: each a worker folder of
``arena server join``), against ``arena tournament`` playing the same games, and the
worker's overhead per game.

Run: ``.venv/bin/python bench/bench_ladder_workers.py`` (``--quick`` for a small run;
``--deals``, ``--games`` per worker, ``--workers 1,2,4``, ``--pair``, ``--rounds``).

1. A site on a real PostgreSQL (started in a temporary folder, as the tests'
   ``tests/postgres.py`` does; gone at the end) whose only versions are the two starter
   bots of ``--pair`` (``sample_bots/*``, each its own team's accepted, active version, put
   in the database directly: validation is not measured here), so every ladder game is
   that pair: the tournament can play the very same games. The competition plays one
   match at a time per worker (``concurrency = 1``), the strict sandbox and luck on; a
   game is ``--deals`` deals each way round. Two worker folders of ``arena server join``
   (their own work folder and builds; the archives through a link of their own to the
   site's uploads) are the two machines.
2. Every folder a worker plays from builds the versions first, untimed (one game each,
   side by side).
3. For each count ``W`` of ``--workers``, and for the two machines (``W = 2``), in each of
   ``--rounds`` interleaved rounds: ``W`` processes of ``ladder_worker --games G
   --verbosity 2`` started together, then ``arena tournament`` of the same pair with
   ``--concurrency W``, ``W * G`` blocks of ``--deals`` deals (a block is a game: the same
   two matches, seats swapped; the same sandbox, luck estimator, executor and matches at
   once). The two run in the opposite order in the next round.
4. Games per hour in the steady state, by one rule for both: the games' (blocks') ends
   in time order, from the ``W``-th to the ``W``-th from last (before the first, each
   process was starting: Django, its pool, the referee zygote, the tournament's builds;
   after the last, fewer than ``W`` games were in play). The worker's overhead per game:
   the ladder's seconds per game against the tournament's; and, from the workers'
   per-game lines, the time a worker adds to its game's matches (the cycle from one
   game's store to the next's, less the matches' own time), with its claim and store.
   Printed per round and as medians over the rounds, with the hands per game on both
   sides (the same games: the same hands) and a game's matches' own time on both sides
   (each process's first games left out): are the matches slower in the ladder?

The machine's load average is printed with each figure: on a shared machine the figures
move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.server.ladder.config import LadderSettings  # noqa: E402
from arena.server.worker_folder import join_site  # noqa: E402
from tests.arena.server.browser.live import arena, init_site  # noqa: E402
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

#: Each game finished since a moment: its end (seconds since the epoch) and hands.
FINISHED = """
import json
from datetime import datetime, timezone
from arena.server.ladder.models import Game
since = datetime.fromtimestamp({since!r}, tz=timezone.utc)
games = Game.objects.filter(finished__gte=since).values_list("finished", "hand_count")
print(json.dumps([[end.timestamp(), hands] for end, hands in games]))
"""


def load() -> str:
    """The machine's load averages (1, 5, 15 minutes) and its cores."""
    one, five, fifteen = os.getloadavg()
    return f"load {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


@dataclass(frozen=True, slots=True)
class Run:
    """One side's run: its games' ends (seconds, any origin), hands per game, the mean of a
    game's matches' own seconds (each as the process that played it measured it; the
    ladder's: its first game in each worker left out), and for the ladder each game's
    per-worker figures (``GameClock`` lines)."""

    ends: list[float]
    hands: float
    own: float
    clocks: list[dict[str, float]]

    def per_hour(self, lanes: int) -> float:
        """Games per hour in the steady state (module docstring, step 4)."""
        ends = sorted(self.ends)
        first, last = ends[lanes - 1], ends[len(ends) - lanes]
        if last <= first:
            raise SystemExit(f"{len(ends)} games over {lanes} lanes leave no steady state: "
                             "play more --games")  # fmt: skip
        return (len(ends) - 2 * lanes + 1) / (last - first) * 3600


def _manage(folder: Path, *arguments: str, env: dict[str, str]) -> str:
    command = [sys.executable, "-m", "arena.server.manage", *arguments]
    done = subprocess.run(command, env={**env, "ARENA_SITE_DIR": str(folder)}, check=True,
                          capture_output=True, text=True, timeout=3600)  # fmt: skip
    return done.stdout


def _clocks(output: str) -> list[dict[str, float]]:
    """A worker's per-game figures from its ``--verbosity 2`` lines, its first game (the
    start-up's) left out."""
    lines = [line.split("seconds: ")[1] for line in output.splitlines() if "seconds: " in line]
    return [{k: float(v) for k, v in (pair.split("=") for pair in line.split())}
            for line in lines][1:]  # fmt: skip


def _ladder(folders: list[Path], games: int, site: Path, env: dict[str, str]) -> Run:
    """One ``ladder_worker --games games --verbosity 2`` per folder, started together."""
    since = time.time()
    command = [sys.executable, "-m", "arena.server.manage", "ladder_worker", "--games",
               str(games), "--verbosity", "2"]  # fmt: skip
    processes = [
        subprocess.Popen(
            command,
            env={**env, "ARENA_SITE_DIR": str(folder)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in folders
    ]
    clocks = []
    for process in processes:
        output, errors = process.communicate(timeout=3600)
        if process.returncode != 0:
            raise SystemExit(f"a ladder worker failed ({process.returncode}): {errors!r}")
        clocks += _clocks(output)
    printed = _manage(site, "shell", "-c", FINISHED.format(since=since), env=env)
    finished = json.loads(printed.splitlines()[-1])
    if len(finished) != len(folders) * games:
        raise SystemExit(f"{len(finished)} games stored, {len(folders) * games} played")
    own = statistics.mean(clock["matches"] for clock in clocks) if clocks else 0.0
    return Run([end for end, _hands in finished],
               statistics.mean(hands for _end, hands in finished), own, clocks)  # fmt: skip


def _tournament(pair: list[str], lanes: int, blocks: int, deals: int, out: Path) -> Run:
    """``arena tournament`` of ``pair``: ``blocks`` blocks of ``deals`` deals, ``lanes``
    matches at a time, strict sandbox, luck on."""
    manifests = [str(ROOT / "sample_bots" / bot / "bot.toml") for bot in pair]
    command = arena("tournament", *manifests, "--deals", str(deals * blocks),
                    "--block-deals", str(deals), "--concurrency", str(lanes), "--sandbox",
                    "strict", "--luck", "on", "--out", str(out), "--no-progress",
                    "--no-report")  # fmt: skip
    subprocess.run(command, check=True, capture_output=True, timeout=3600)
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT MAX(finished_at), SUM(hands_played), SUM(duration_s) "
                          "FROM matches GROUP BY block_id").fetchall()  # fmt: skip
    ends = [datetime.fromisoformat(end).timestamp() for end, _hands, _own in rows]
    # Its first games left out: each process's start (the ladder's are left out likewise).
    own = statistics.mean(seconds for _end, _hands, seconds in sorted(rows)[lanes:])
    return Run(ends, statistics.mean(hands for _end, hands, _own in rows), own, [])


@dataclass(slots=True)
class Figures:
    """One setting's figures over the rounds."""

    ladder: list[float]
    tournament: list[float]
    added: list[float]
    slower: list[float]

    def summary(self) -> str:
        """Medians over the rounds, the range of the overhead."""
        ladder, plain = statistics.median(self.ladder), statistics.median(self.tournament)
        overheads = [t / lad - 1 for lad, t in zip(self.ladder, self.tournament, strict=True)]
        return (f"ladder {ladder:.0f} games/hour, tournament {plain:.0f}: per game "
                f"{100 * statistics.median(overheads):+.1f}% ({100 * min(overheads):+.1f} to "
                f"{100 * max(overheads):+.1f}%); the worker adds "
                f"{100 * statistics.median(self.added):.1f}% to its matches' own time "
                f"({100 * min(self.added):.1f} to {100 * max(self.added):.1f}%); the ladder's "
                f"matches {statistics.median(self.slower):.2f}x the tournament's "
                f"({min(self.slower):.2f} to {max(self.slower):.2f}x)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--deals", type=int, default=LadderSettings().deals,
                        help="deals a game each way round (default: the ladder's)")  # fmt: skip
    parser.add_argument("--games", type=int, default=6, help="games per worker")
    parser.add_argument("--workers", default="1,2,4", help="worker counts, comma-separated")
    parser.add_argument("--pair", default="c,python_calling_station", help="the two bots")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds")
    args = parser.parse_args()
    if args.quick:
        args.deals, args.games, args.workers, args.rounds = 10, 3, "1", 1
    pair = args.pair.split(",")
    counts = [int(text) for text in args.workers.split(",")]
    print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{'+'.join(pair)}, {args.deals} deals a game each way round, {args.games} games "
          f"per worker, {args.rounds} rounds; {load()}", flush=True)  # fmt: skip
    env = {**os.environ, "ARENA_LADDER": f'{{"deals": {args.deals}, "placement_games": 1}}'}
    with tempfile.TemporaryDirectory() as tmp, running_postgres() as server:
        folder = Path(tmp)
        database = server.url(server.create_database("bench"))
        site = init_site(folder, competition=COMPETITION, database=database)
        _manage(site, "shell", "-c", SEED.format(bots=pair), env=env)
        machines = []
        for name in ("a", "b"):
            mount = folder / f"machine-{name}" / "archives"
            mount.parent.mkdir()
            mount.symlink_to(site / "uploads")
            joined = join_site(folder / f"machine-{name}" / "worker", database=database,
                               competition=folder / "competition.toml",
                               secret_key_file=site / "secret_key", archives=mount)  # fmt: skip
            machines.append(joined.root)
        _ladder([site, *machines], 1, site, env)  # the builds, untimed, side by side
        settings = {f"{count} worker(s), one folder": [site] * count for count in counts}
        settings["2 workers, separate folders"] = machines
        figures = {name: Figures([], [], [], []) for name in settings}
        runs = 0
        for round_number in range(args.rounds):
            for name, folders in settings.items():
                lanes = len(folders)
                runs += 1
                out = folder / f"tournament-{runs}"
                if round_number % 2 == 0:
                    ladder = _ladder(folders, args.games, site, env)
                    plain = _tournament(pair, lanes, lanes * args.games, args.deals, out)
                else:
                    plain = _tournament(pair, lanes, lanes * args.games, args.deals, out)
                    ladder = _ladder(folders, args.games, site, env)
                added = [clock["cycle"] - clock["matches"] for clock in ladder.clocks]
                own = ladder.own
                claim = statistics.mean(clock["claim"] for clock in ladder.clocks)
                store = statistics.mean(clock["store"] for clock in ladder.clocks)
                got = figures[name]
                got.ladder.append(ladder.per_hour(lanes))
                got.tournament.append(plain.per_hour(lanes))
                got.added.append(statistics.mean(added) / own)
                got.slower.append(own / plain.own)
                print(f"round {round_number + 1}, {name}: ladder {got.ladder[-1]:.0f} "
                      f"games/hour ({ladder.hands:.0f} hands a game), tournament "
                      f"{got.tournament[-1]:.0f} ({plain.hands:.0f} hands a game): per game "
                      f"{100 * (got.tournament[-1] / got.ladder[-1] - 1):+.1f}%; a game's "
                      f"matches {own:.3f} s (the tournament's {plain.own:.3f} s), the worker "
                      f"adds {statistics.mean(added):.3f} s "
                      f"= {100 * got.added[-1]:.1f}% (claim {claim:.3f}, store "
                      f"{store:.3f}); {load()}", flush=True)  # fmt: skip
        print(f"medians over {args.rounds} round(s), {'+'.join(pair)}, {args.deals} deals each "
              f"way, {args.games} games per worker (target: the worker's overhead under 10% "
              f"of the game's own time); {load()}")  # fmt: skip
        for name, got in figures.items():
            print(f"  {name}: {got.summary()}", flush=True)


if __name__ == "__main__":
    main()
