"""The ladder on a live site, on this machine: the five starter bots play, a sixth is
uploaded mid-run; how long until it has a rated result, how long until the top 3 stop
changing; and what a ladder worker costs per game against ``arena tournament`` playing as
many games of the same length.

Run: ``.venv/bin/python bench/bench_ladder_server.py`` (``--quick`` for a small run;
``--deals``, ``--before``, ``--stable``, ``--budget``, ``--sixth``, ``--games``,
``--rounds``; ``--seats N``: the same run with a ring competition of ``N`` seats too, its
figures printed beside heads-up's).

1. A live site (``arena server init`` + ``arena server run`` on a free loopback port, in a
   temporary folder, gone at the end; one validation worker and one ladder worker, which
   plays two matches at once: this machine has two cores). Each starter bot
   (``sample_bots/*``) is uploaded by its own team, validated by the site's worker (20
   hands) and made its team's active version. Games are ``--deals`` deals each way round.
2. After ``--before`` seconds of ladder games, a sixth bot (``--sixth``, default the
   folder of ``tests/bots``) is uploaded, validated and activated: the time from its
   activation to its first rated result is printed.
3. The ranking's top 3 are read every second from the ladder's start; after the sixth's
   first rated result the run stops when they have not changed for ``--stable`` seconds,
   or at ``--budget`` seconds after the sixth's activation (the bound): printed is the
   time from the ladder's start (and from the sixth's activation) to the top 3's last
   change, and whether it held for ``--stable`` seconds.
4. With the site stopped: ``ladder_worker --games N`` (one worker, two matches at once)
   against ``arena tournament`` of the six bots (a round robin of ``N`` pairs when
   ``--games`` is 15, one block of ``--deals`` deals per pair: the same games' shape),
   both with the strict sandbox and luck on, interleaved ``--rounds`` times. Printed: the
   wall time per game of each and the worker's overhead per game (their difference), with
   the CPU time of each process tree. Both include their start (Django and the process
   pool; the tournament's builds and pool).

With ``--seats N`` (3 to 10) the steps run twice, each in a process of its own (Django
is set up once per process): heads-up, then a site whose competition is a ring of ``N``
seats (every rated game a table of ``N`` versions of ``N`` teams, played in its ``N``
rotations; step 4's tournament a ring of ``N`` seats too), and the two runs' figures are
printed side by side at the end.

The site's own figures (ratings, pairs) are in its database; only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.server.django_start import start_django  # noqa: E402
from arena.uploads import pack  # noqa: E402
from tests.arena.server.browser.live import (  # noqa: E402
    STARTER_BOTS,
    arena,
    competition,
    init_site,
    running_site,
)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wait(what: str, check: object, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():  # type: ignore[operator]
            return time.monotonic() - started
        time.sleep(0.2)
    raise SystemExit(f"timed out after {timeout:.0f} s waiting for {what}")


def _upload_and_activate(team_name: str, folder: Path, timeout: float) -> tuple[int, float]:
    """Upload ``folder`` for a new team, wait for its verdict, activate it; its version's
    id and the time its validation took."""
    from arena.server.site.models import BotVersion, Team, VersionStatus
    from arena.server.site.versions import activate, store_upload

    team = Team.objects.create(name=team_name)
    version = store_upload(team, pack(folder))

    def verdict() -> bool:
        return BotVersion.objects.get(pk=version.pk).is_final

    took = _wait(f"{team_name}'s verdict", verdict, timeout)
    version.refresh_from_db()
    if version.status != VersionStatus.ACCEPTED:
        raise SystemExit(f"{team_name} was rejected: {version.reason}")
    activate(team, version)
    return version.pk, took


def _top(count: int) -> tuple[int, ...]:
    from arena.server.ladder.models import Rating

    return tuple(Rating.objects.order_by("place").values_list("version_id", flat=True)[:count])


#: The line that carries a run's figures to the process comparing runs (``--seats``).
FIGURES = "figures: "


def _competition(seats: int) -> str:
    """The site's competition file: heads-up, or a ring of ``seats`` seats; two matches at
    once (the ladder worker's executor, as the tournament's ``--concurrency 2``)."""
    text = f"concurrency = 2\n{competition(validation_hands=20)}"
    if seats > 2:
        text = f'format = "ring"\n{text}\n[ring]\nseats = {seats}\n'
    return text


def ladder_phase(args: argparse.Namespace, folder: Path, figures: dict[str, float]) -> None:
    """Steps 1 to 3 of the module docstring (their figures into ``figures``)."""
    os.environ["ARENA_LADDER"] = json.dumps({"deals": args.deals})
    site = init_site(folder, competition=_competition(args.seats))
    start_django(site)
    from arena.server.ladder.models import Game, Rating

    with running_site(site):
        bots = STARTER_BOTS[: args.bots]
        for bot in bots:
            _pk, took = _upload_and_activate(bot, ROOT / "sample_bots" / bot, args.timeout)
            print(f"{bot}: accepted in {took:.1f} s and made active")
        started = time.monotonic()
        top, changed = _top(3), started
        while time.monotonic() - started < args.before:
            time.sleep(1.0)
            if _top(3) != top:
                top, changed = _top(3), time.monotonic()
        before = Game.objects.filter(status="done").count()
        print(f"{before} games in the first {time.monotonic() - started:.0f} s; "
              f"top 3 {[_label(pk) for pk in _top(3)]}")  # fmt: skip
        sixth, took = _upload_and_activate("sixth", args.sixth, args.timeout)
        activated = time.monotonic()
        print(f"sixth ({args.sixth.name}): accepted in {took:.1f} s and made active")

        def rated() -> bool:
            return Rating.objects.filter(version_id=sixth, game_count__gt=0).exists()

        to_rated = _wait("the sixth's first rated result", rated, args.budget)
        figures["sixth's first rated result (s)"] = to_rated
        print(f"time from activation to the sixth's first rated result: {to_rated:.1f} s")
        rated_at = time.monotonic()  # watched for --stable seconds at least from here
        while (
            time.monotonic() - max(changed, rated_at) < args.stable
            and time.monotonic() - activated < args.budget
        ):
            time.sleep(1.0)
            now = _top(3)
            if now != top:
                top, changed = now, time.monotonic()
        held = time.monotonic() - max(changed, rated_at) >= args.stable
        games = Game.objects.filter(status="done")
        durations = [(g.finished - g.created).total_seconds() for g in games if g.finished]
        print(f"top 3 last changed {changed - started:.1f} s after the ladder started "
              f"({changed - activated:+.1f} s from the sixth's activation); "
              f"{'stable' if held else 'NOT stable'} for {time.monotonic() - changed:.0f} s "
              f"(bound {args.budget:.0f} s): {[_label(pk) for pk in top]}")  # fmt: skip
        each = sum(durations) / max(1, len(durations))
        elapsed = time.monotonic() - started
        hands = sum(game.hand_count for game in games)
        print(f"{games.count()} games played in {elapsed:.0f} s, "
              f"{each:.2f} s each from claim to result")  # fmt: skip
        figures.update({
            "top 3 last change from start (s)": changed - started,
            "top 3 stable (1 = yes)": float(held),
            "games played": float(games.count()),
            "seconds per game, claim to result": each,
            "hands per game": hands / max(1, games.count()),
            "hands per second": hands / elapsed,
        })  # fmt: skip


def _label(version_id: int) -> str:
    from arena.server.ladder.models import version_label
    from arena.server.site.models import BotVersion

    return version_label(BotVersion.objects.select_related("team").get(pk=version_id))


def overhead_phase(args: argparse.Namespace, folder: Path, figures: dict[str, float]) -> None:
    """Step 4 of the module docstring (the site of steps 1-3, stopped; its figures into
    ``figures``)."""
    site = folder / "site"
    manifests = [ROOT / "sample_bots" / bot / "bot.toml" for bot in STARTER_BOTS[: args.bots]]
    manifests.append(args.sixth / "bot.toml")
    env = {**os.environ, "ARENA_SITE_DIR": str(site)}
    timings: dict[str, list[tuple[float, float, int]]] = {"ladder": [], "tournament": []}
    for round_number in range(args.rounds):
        worker = [sys.executable, "-m", "arena.server.manage", "ladder_worker",
                  "--games", str(args.games)]  # fmt: skip
        out = folder / f"tournament-{round_number}"
        bots = _bots_for(args.games, args.seats)
        ring = ["--format", "ring", "--ring-seats", str(args.seats)] if args.seats > 2 else []
        tournament = arena("tournament", *map(str, manifests[:bots]), *ring,
                           "--deals", str(args.deals), "--block-deals", str(args.deals),
                           "--concurrency", "2", "--sandbox", "strict", "--luck", "on",
                           "--out", str(out), "--no-progress", "--no-report")  # fmt: skip
        for name, command, games in (
            ("ladder", worker, args.games),
            ("tournament", tournament, math.comb(bots, args.seats)),
        ):
            cpu, started = _children_cpu(), time.monotonic()
            subprocess.run(command, env=env, check=True, capture_output=True, timeout=3600)
            timings[name].append((time.monotonic() - started, _children_cpu() - cpu, games))
    for name, runs in timings.items():
        wall = sum(w for w, _c, _g in runs) / sum(g for _w, _c, g in runs)
        cpu = sum(c for _w, c, _g in runs) / sum(g for _w, _c, g in runs)
        print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU per game of "
              f"{args.seats * args.deals} hands ({len(runs)} run(s))")  # fmt: skip
        figures[f"{name}: wall s per game"] = wall
        figures[f"{name}: CPU s per game"] = cpu
    ladder = sum(w for w, _c, _g in timings["ladder"]) / sum(g for _w, _c, g in timings["ladder"])
    plain = sum(w for w, _c, _g in timings["tournament"]) / sum(
        g for _w, _c, g in timings["tournament"]
    )
    print(f"worker overhead per game against arena tournament: {ladder - plain:+.2f} s "
          f"({ladder / plain:.2f}x)")  # fmt: skip
    figures["worker overhead s per game"] = ladder - plain


def _bots_for(games: int, seats: int = 2) -> int:
    """The fewest bots (at most six, at least ``seats``) whose round robin (a ring: groups
    of ``seats``) has at least ``games`` pairs or groups."""
    count = seats
    while math.comb(count, seats) < games and count < 6:
        count += 1
    return count


def _compare(args: argparse.Namespace) -> None:
    """Heads-up and a ring of ``--seats`` seats, each run in a process of its own, their
    output shown, then their figures side by side."""
    runs: dict[int, dict[str, float]] = {}
    for seats in (2, args.seats):
        command = [sys.executable, str(Path(__file__).resolve()), *sys.argv[1:],
                   "--table", str(seats)]  # fmt: skip
        print(f"== {'heads-up' if seats == 2 else f'ring of {seats} seats'} ==", flush=True)
        done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=7200)
        for line in done.stdout.splitlines():
            if line.startswith(FIGURES):
                runs[seats] = json.loads(line.removeprefix(FIGURES))
            else:
                print(line)
    names = list(runs[2])
    width = max(len(name) for name in names)
    print(f"\n{'':{width}}  {'heads-up':>10}  {f'{args.seats} seats':>10}")
    for name in names:
        values = [runs[seats].get(name, math.nan) for seats in (2, args.seats)]
        print(f"{name:{width}}  " + "  ".join(f"{value:>10.2f}" for value in values))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small run")
    parser.add_argument("--deals", type=int, default=50)
    parser.add_argument("--bots", type=int, default=5, help="starter bots (default 5)")
    parser.add_argument("--before", type=float, default=60.0)
    parser.add_argument("--stable", type=float, default=60.0)
    parser.add_argument("--budget", type=float, default=600.0)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--sixth", type=Path, default=ROOT / "tests" / "bots" / "folder")
    parser.add_argument("--games", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seats", type=int, default=2,
                        help="3 to 10: a ring of N seats too, beside heads-up")  # fmt: skip
    parser.add_argument("--table", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 2 <= args.seats <= 10:
        parser.error(f"--seats must be 2 (heads-up) to 10, got {args.seats}")
    if args.seats > 2 and args.table is None:
        _compare(args)
        return
    if args.table is not None:  # one of --seats' runs: its figures for the parent
        args.seats = args.table
    if args.quick:
        args.deals, args.bots, args.before, args.stable = 5, 2, 2.0, 3.0
        args.budget, args.games, args.rounds = 60.0, 1, 1
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ladder_phase(args, folder, figures)
        overhead_phase(args, folder, figures)
    if args.table is not None:
        print(FIGURES + json.dumps(figures))


if __name__ == "__main__":
    main()
