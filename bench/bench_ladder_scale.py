"""The ladder at scale: per game claim, store and rating refresh on a PostgreSQL site filled
with synthetic history, and the ladder's pages under 50 concurrent clients.

Run: ``.venv/bin/python bench/bench_ladder_scale.py`` (``--sizes 10:1000,1000:1000000``,
the default: versions and stored games of each site; ``--claims``, ``--refits``;
``--clients``, ``--seconds``: the pages' load, run at the largest size, ``--clients 0``
for none). Each size runs in a process of its own (Django serves one site per process):

1. A throwaway PostgreSQL (``tests/postgres.py``) and a site on it (``arena server
   init``). ``V`` teams, each with one accepted, active version; ``G`` rated games made
   directly in the database (``COPY``), each between two versions close in a hidden
   true order (most within ten places, some anywhere), scored ``s_a - s_b`` plus noise of
   300 mbb/hand; the running sums (a row per pair, a row per version) made from the same
   games with numpy, the games marked counted, and a first fit.
2. ``--claims`` times: :func:`~arena.server.ladder.queue.claim_next` (matchmaking on the
   sums and the stored fit) and :func:`~arena.server.ladder.queue.store_played` of a
   played result (the game added to the sums in the store's transaction), each timed;
   the fit is held off meanwhile (its row's time in the future) so a store is timed
   alone. Then ``--refits`` full refits (:func:`~arena.server.ladder.fitting.refresh_ratings`:
   the sums read, numpy's fit, every active version's rows written), timed.
3. At the largest size: ``arena server run`` (no validation or ladder worker) and
   ``--clients`` clients, each with its own kept-alive connection and taking gzip as a
   browser does (no ``If-None-Match`` and no cookie: each request is a new visitor's),
   asking (after one request for each page, untimed: a site that has been up has drawn
   them) for the ladder page, ``/api/v1/ladder/``, the leaderboard and a match's hand
   viewer (a stored ladder match of 200 engine-played hands) in turn for ``--seconds``
   seconds while this process claims and stores a game every 0.2 s (a fit every 5 s, as
   a worker does): the requests' median, p99 and errors, the web process's CPU per
   request and the clients' own, and the claims and stores timed under that load.
   The clients are coroutines on one event loop in a process of their own, writing each
   request and reading its answer by its length (no gzip decoding, which the server's
   time does not include): as threads with ``http.client`` in one process they used
   0.17 ms of CPU a request (0.39 of a core at 2,300 requests a second), time each
   request spent waiting for its own process's interpreter and counted as the server's;
   on the event loop, 0.08 ms. In the process that stores the games they would also wait
   for its fits.

Printed: each figure's median and p99 in milliseconds (wall; and the bench process's own
CPU for a claim and store and for a refit, which a loaded machine inflates less: the
database's own work is in its process, not counted there), the SQL statements
of a claim and of a store as Django logs them, ``BEGIN`` and ``COMMIT`` among them (the
same at every size: constant work; a store that also tries the value fit runs more),
with ``uptime``'s line before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.arena.server.browser.live import init_site, running_site  # noqa: E402
from tests.postgres import running_postgres  # noqa: E402

#: The pages step 3 asks for, in turn (and a match's hand viewer, :func:`_viewer_match`).
PAGES = ("/ladder/", "/api/v1/ladder/", "/")
#: What each client sends with a request, as a browser does: it takes gzip (the pages are
#: kept gzipped too). No ``If-None-Match``: every request is a new reader's, drawn in full.
REQUEST_HEADERS = "Accept-Encoding: gzip\r\n"
#: The hands of the match whose viewer step 3 asks for (the viewer shows at most 200).
VIEWER_HANDS = 200
#: The spread of one game's luck-adjusted score in the synthetic history (mbb/hand).
NOISE_MBB = 300.0


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]
    return {"median_ms": 1000 * statistics.median(ordered), "p99_ms": 1000 * p99,
            "max_ms": 1000 * ordered[-1], "n": len(ordered)}  # fmt: skip


def _fill(versions: int, games: int, rng: random.Random) -> None:
    """Step 1's teams, versions, games and sums, straight into the database."""
    import numpy as np
    from django.db import connection

    from arena.server.ladder.models import Game, PairSumsRow, RatingFit, VersionSumsRow
    from arena.server.site.models import BotVersion, Team, VersionStatus

    teams = Team.objects.bulk_create(Team(name=f"team{i:04d}") for i in range(versions))
    made = BotVersion.objects.bulk_create(
        BotVersion(team=team, number=1, status=VersionStatus.ACCEPTED,
                   archive=f"archives/{team.pk}-1.tar.gz", archive_sha256="0" * 64)
        for team in teams
    )  # fmt: skip
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Team._meta.db_table} AS t SET active_version_id = v.id "
            f"FROM {BotVersion._meta.db_table} AS v WHERE v.team_id = t.id"
        )
    ids = np.array([version.pk for version in made])
    generator = np.random.default_rng(rng.randrange(2**32))
    truth = generator.normal(0.0, 100.0, versions)
    order = np.argsort(-truth)  # place -> version index
    near = generator.integers(1, 11, games)
    anywhere = generator.random(games) < 0.1
    at = generator.integers(0, versions, games)
    other = np.where(anywhere, generator.integers(0, versions, games), at + near)
    other = np.clip(other, 0, versions - 1)
    other = np.where(other == at, (at + 1) % versions, other)
    one, two = order[at], order[other]
    first, second = np.minimum(one, two), np.maximum(one, two)  # by number: the rows' side
    adjusted = truth[first] - truth[second] + generator.normal(0.0, NOISE_MBB, games)
    raw = adjusted + generator.normal(0.0, 2 * NOISE_MBB, games)
    hands = 200
    now = time.time()
    created = now - 14 * 86400 * (1.0 - np.arange(games) / games)
    columns = ("id", "kind", "is_rated", "reason", "first_id", "second_id", "status",
               "claimed_by", "attempts", "seed", "deals", "seat_count", "adjusted_mbb",
               "raw_mbb", "hand_count", "units", "faults", "first_at_fault",
               "second_at_fault", "end_reason", "rotation_matches", "created", "finished",
               "counted", "estimator")  # fmt: skip
    from datetime import UTC, datetime

    with connection.cursor() as cursor:
        sql = f"COPY {Game._meta.db_table} ({', '.join(columns)}) FROM STDIN"
        with cursor.cursor.copy(sql) as copy:
            for k in range(games):
                when = datetime.fromtimestamp(float(created[k]), UTC)
                copy.write_row((k + 1, "uncertainty", True, "", int(ids[first[k]]),
                                int(ids[second[k]]), "done", "", 1, str(k), hands // 2, 2,
                                float(adjusted[k]), float(raw[k]), hands, "{}", "{}", False,
                                False, "", "[]", when, when, True, ""))  # fmt: skip
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{Game._meta.db_table}', 'id'), %s)",
            [games],
        )
    code = first * versions + second
    pairs, inverse = np.unique(code, return_inverse=True)

    def total(values: Any) -> Any:
        return np.bincount(inverse, weights=values, minlength=len(pairs))

    counts = np.bincount(inverse, minlength=len(pairs))
    sums = {"adjusted": total(adjusted), "adjusted2": total(adjusted**2),
            "raw": total(raw), "raw2": total(raw**2)}  # fmt: skip
    PairSumsRow.objects.bulk_create(
        (PairSumsRow(first_id=int(ids[pair // versions]), second_id=int(ids[pair % versions]),
                     game_count=int(counts[k]), information=float(counts[k]),
                     weighted_sum=float(sums["adjusted"][k]),
                     adjusted_sum=float(sums["adjusted"][k]),
                     adjusted_squares=float(sums["adjusted2"][k]), raw_sum=float(sums["raw"][k]),
                     raw_squares=float(sums["raw2"][k]), hand_count=int(counts[k]) * hands)
         for k, pair in enumerate(pairs)),
        batch_size=5000,
    )  # fmt: skip
    played = np.bincount(first, minlength=versions) + np.bincount(second, minlength=versions)
    last = np.zeros(versions, dtype=np.int64)
    numbers = np.arange(1, games + 1)
    np.maximum.at(last, first, numbers)
    np.maximum.at(last, second, numbers)
    VersionSumsRow.objects.bulk_create(
        VersionSumsRow(version_id=int(ids[k]), game_count=int(played[k]),
                       hand_count=int(played[k]) * hands, last_game=int(last[k]) or None)
        for k in range(versions)
    )  # fmt: skip
    # The games done, as the stores would have counted them (the fit shows the count).
    RatingFit.objects.update_or_create(pk=1, defaults={"done_count": games})
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _viewer_match(folder: Path) -> str:
    """A ladder match of :data:`VIEWER_HANDS` engine-played hands between the first two
    teams, stored as the worker stores one; its hand viewer's path."""
    from arena.server.site.models import BotVersion, Match, MatchSeat, MatchStatus
    from tests.arena.server.factories import write_hands

    first, second = BotVersion.objects.select_related("team").order_by("pk")[:2]
    names = (first.team.name, second.team.name)
    hands = write_hands(folder / "viewer-hands.jsonl", names, count=VIEWER_HANDS)
    match = Match.objects.create(status=MatchStatus.FINISHED, source="ladder",
                                 external_id="bench-viewer", hands_file=str(hands),
                                 hands_played=VIEWER_HANDS)  # fmt: skip
    MatchSeat.objects.bulk_create(
        MatchSeat(match=match, seat_index=index, name=name, player_id=f"p{index}",
                  version=version, team=version.team)
        for index, (name, version) in enumerate(zip(names, (first, second), strict=True))
    )  # fmt: skip
    return f"/matches/{match.pk}/hands/"


def _play_one(rng: random.Random, worker: str) -> Timing:
    """One claim and one store of a made-up result, timed."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from arena.ladder.ends import EndCause
    from arena.ladder.games import GameResult
    from arena.server.ladder import config
    from arena.server.ladder.models import version_label
    from arena.server.ladder.play import PlayedGame
    from arena.server.ladder.queue import claim_next, store_played

    settings = config.current()
    connection.queries_log.clear()  # its length is capped: counted from empty each time
    with CaptureQueriesContext(connection) as claim_queries:
        started, cpu = time.perf_counter(), time.process_time()
        game = claim_next(worker, settings, rng)
        claimed, claimed_cpu = time.perf_counter(), time.process_time()
    # Counted now: the context reads the shared log when asked, which the store's
    # statements replace (counted later, the claim's would be capped at the store's).
    claim_count = len(claim_queries)
    assert game is not None, "matchmaking found nothing to play"
    score = rng.gauss(0.0, NOISE_MBB)
    result = GameResult(version_label(game.first), version_label(game.second), score,
                        score + rng.gauss(0.0, NOISE_MBB), 2 * game.deals)  # fmt: skip
    units = {"adjusted": [score] * game.deals, "raw": [score] * game.deals}
    connection.queries_log.clear()
    with CaptureQueriesContext(connection) as store_queries:
        stored = store_played(game, worker, PlayedGame(EndCause.PLAYED, result=result,
                              units=units), settings)  # fmt: skip
    assert stored
    store_cpu = time.process_time() - claimed_cpu
    return Timing(claimed - started, time.perf_counter() - claimed, claimed_cpu - cpu,
                  store_cpu, claim_count, len(store_queries))  # fmt: skip


@dataclass(frozen=True, slots=True)
class Timing:
    """One claim and store: wall seconds, this process's CPU seconds, SQL statements."""

    claim: float
    store: float
    claim_cpu: float
    store_cpu: float
    claim_queries: int
    store_queries: int


def _load(address: str, clients: int, seconds: float, pages: tuple[str, ...]) -> dict[str, Any]:
    """Step 3's clients: each asks for the ``pages`` in turn until the time is up."""
    cpu_started = time.process_time()
    times, by_path, errors = asyncio.run(_clients(address, clients, seconds, pages))
    # The clients' own CPU a request: near a core's worth in all, they would be timing
    # their own wait for the interpreter, not the server.
    client_cpu = time.process_time() - cpu_started
    each = {path: _percentiles(values) for path, values in by_path.items() if values}
    return {**_percentiles(times), "errors": len(errors), "first_errors": errors[:5],
            "per_second": len(times) / seconds, "requests": len(times),
            "paths": list(pages), "by_path": each,
            "client_cpu_ms": 1000 * client_cpu / max(1, len(times)),
            "client_cpu_share": client_cpu / seconds}  # fmt: skip


async def _clients(
    address: str, clients: int, seconds: float, pages: tuple[str, ...]
) -> tuple[list[float], dict[str, list[float]], list[str]]:
    """:func:`_load`'s clients on one event loop: each request's seconds, by page too, and
    the errors."""
    host, port = address.removeprefix("http://").rstrip("/").split(":")
    times: list[float] = []
    by_path: dict[str, list[float]] = {path: [] for path in pages}
    errors: list[str] = []
    # Each page asked for once before the clock starts, as a site that has been up has
    # drawn it: the viewer's document made (its hands replayed once), the fit read.
    reader, writer = await asyncio.open_connection(host, int(port))
    for path in pages:
        await _ask(reader, writer, host, path)
    writer.close()
    stop_at = time.monotonic() + seconds

    async def client(number: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        k = number
        while time.monotonic() < stop_at:
            path = pages[k % len(pages)]
            k += 1
            started = time.perf_counter()
            try:
                status = await asyncio.wait_for(_ask(reader, writer, host, path), 30)
                if status != 200:
                    errors.append(f"{path}: {status}")
            except (OSError, ValueError, asyncio.IncompleteReadError, TimeoutError) as error:
                errors.append(f"{path}: {error!r}")
                writer.close()
                reader, writer = await asyncio.open_connection(host, int(port))
            taken = time.perf_counter() - started
            times.append(taken)
            by_path[path].append(taken)
        writer.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return times, by_path, errors


async def _ask(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, path: str
) -> int:
    """One ``GET`` of ``path`` on a kept-alive connection, its body read to the end (by
    its ``Content-Length``, or chunk by chunk); its status."""
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{REQUEST_HEADERS}\r\n".encode())
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    fields = {name.strip().lower(): value.strip()
              for name, _, value in (line.partition(":") for line in head[1:] if line)}  # fmt: skip
    if "content-length" in fields:
        await reader.readexactly(int(fields["content-length"]))
    elif fields.get("transfer-encoding") == "chunked":
        while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
            await reader.readexactly(size + 2)
        await reader.readuntil(b"\r\n")
    elif status not in (204, 304):
        raise ValueError(f"{path}: an answer with no length")
    return status


def one_size(versions: int, games: int, args: argparse.Namespace) -> dict[str, Any]:
    """Steps 1 to 3 at one size (in this process: Django starts here)."""
    rng = random.Random(versions * 7 + games)
    with running_postgres() as server, tempfile.TemporaryDirectory() as temporary:
        database = server.create_database("bench")
        site = init_site(Path(temporary), database=server.url(database))
        from arena.server.django_start import start_django

        os.environ["ARENA_DATABASE_URL"] = server.url(database)
        start_django(site)
        from django.db import connection
        from django.utils import timezone

        from arena.server.ladder.fitting import refresh_if_due, refresh_ratings
        from arena.server.ladder.models import PairSumsRow, RatingFit

        figures: dict[str, Any] = {"versions": versions, "games": games}
        started = time.perf_counter()
        _fill(versions, games, rng)
        figures["fill_s"] = time.perf_counter() - started
        viewer = _viewer_match(Path(temporary))
        figures["pairs"] = PairSumsRow.objects.count()
        started = time.perf_counter()
        refresh_ratings()
        figures["first_fit_s"] = time.perf_counter() - started
        # Step 2: no fit comes due while the claims and stores are timed.
        RatingFit.objects.update(fitted=timezone.now() + timedelta(days=1))
        timings = [_play_one(rng, "bench") for _ in range(args.claims)]
        figures["claim"] = _percentiles([t.claim for t in timings])
        figures["store"] = _percentiles([t.store for t in timings])
        figures["claim_and_store"] = _percentiles([t.claim + t.store for t in timings])
        figures["claim_and_store_cpu"] = _percentiles([t.claim_cpu + t.store_cpu for t in timings])
        figures["queries"] = {
            "claim": sorted({t.claim_queries for t in timings}),
            "store": sorted({t.store_queries for t in timings}),
        }
        refits, refit_cpu = [], []
        for _ in range(args.refits):
            started, cpu = time.perf_counter(), time.process_time()
            refresh_ratings()
            refits.append(time.perf_counter() - started)
            refit_cpu.append(time.process_time() - cpu)
        figures["refit"] = _percentiles(refits)
        figures["refit_cpu"] = _percentiles(refit_cpu)
        if args.pages and args.clients:
            connection.close()
            with running_site(site, workers=0, threads=args.threads,
                              options=("--ladder-workers", "0")) as live:  # fmt: skip
                done = threading.Event()
                played: list[Timing] = []
                fitted: list[Timing] = []  # a store that ran the fit (every 5 s) after it

                def fit_time() -> Any:
                    return RatingFit.objects.values_list("fitted", flat=True).first()

                def play() -> None:  # during the load, as a worker does
                    while not done.is_set():
                        before = fit_time()
                        timing = _play_one(rng, "bench-live")
                        (played if fit_time() == before else fitted).append(timing)
                        refresh_if_due()
                        done.wait(0.2)

                player = threading.Thread(target=play)
                player.start()
                try:
                    # The clients in a process of their own, as a site's readers are: this
                    # one's fits (its GIL) would hold up their reading of the answers.
                    with multiprocessing.get_context("spawn").Pool(1) as clients:
                        cpu_before = _cpu_seconds(live.process.pid)
                        figures["pages"] = clients.apply(
                            _load, (live.url, args.clients, args.seconds, (*PAGES, viewer))
                        )
                        web_cpu = _cpu_seconds(live.process.pid) - cpu_before
                finally:
                    done.set()
                    player.join()
                    connection.close()
                figures["pages"]["games_played_meanwhile"] = len(played) + len(fitted)
                figures["pages"]["stores_that_fitted"] = len(fitted)
                figures["claim_and_store_under_load"] = _percentiles(
                    [t.claim + t.store for t in played]
                )
                figures["claim_and_store_cpu_under_load"] = _percentiles(
                    [t.claim_cpu + t.store_cpu for t in played]
                )
                # The web process's CPU per request (warm-up included: a few requests).
                figures["pages"]["web_cpu_ms"] = 1000 * web_cpu / figures["pages"]["requests"]
        connection.close()
        server.drop_database(database)
    return figures


def _sizes(text: str) -> list[tuple[int, int]]:
    sizes = []
    for item in text.split(","):
        versions, _, games = item.partition(":")
        sizes.append((int(versions), int(games)))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10:1000,1000:1000000", help="versions:games,...")
    parser.add_argument("--claims", type=int, default=300)
    parser.add_argument("--refits", type=int, default=5)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=8, help="the web server's threads")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--pages", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        ((versions, games),) = _sizes(args.one)
        print(json.dumps(one_size(versions, games, args)))
        return
    sizes = _sizes(args.sizes)
    largest = max(sizes)
    print(f"uptime before: {_uptime()}")
    for versions, games in sizes:
        command = [sys.executable, __file__, "--one", f"{versions}:{games}",
                   "--claims", str(args.claims), "--refits", str(args.refits),
                   "--clients", str(args.clients), "--seconds", str(args.seconds),
                   "--threads", str(args.threads)]  # fmt: skip
        if (versions, games) == largest:
            command.append("--pages")
        load = os.getloadavg()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"size {versions}:{games} failed:\n{done.stderr[-4000:]}")
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"\n{versions} versions, {games} games (load average before: "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {figures['pairs']} pairs; "
              f"fill {figures['fill_s']:.1f} s, "
              f"first fit {figures['first_fit_s']:.2f} s)")  # fmt: skip
        for name in ("claim", "store", "claim_and_store", "claim_and_store_cpu", "refit",
                     "refit_cpu", "claim_and_store_under_load",
                     "claim_and_store_cpu_under_load"):  # fmt: skip
            row = figures.get(name)
            if row is None:  # (under the pages' load: at the largest size only)
                continue
            print(f"  {name:16} median {row['median_ms']:8.1f} ms   p99 {row['p99_ms']:8.1f} ms"
                  f"   max {row['max_ms']:8.1f} ms   n={row['n']}")  # fmt: skip
        print(
            f"  SQL statements per claim {figures['queries']['claim']}, per store "
            f"{figures['queries']['store']} (the distinct counts seen, BEGIN and COMMIT "
            "included)"
        )
        pages = figures.get("pages")
        if pages:
            print(f"  pages ({args.clients} clients, {args.seconds:g} s, "
                  f"{', '.join(pages['paths'])} in "
                  f"turn, a game stored every 0.2 s): median {pages['median_ms']:.1f} ms, p99 "
                  f"{pages['p99_ms']:.1f} ms, {pages['per_second']:.1f} requests/s, "
                  f"{pages['errors']} errors {pages['first_errors']}; "
                  f"{pages['games_played_meanwhile']} games stored meanwhile (the "
                  f"{pages['stores_that_fitted']} stores that ran a fit after their "
                  "transaction left out of claim_and_store_under_load); the web "
                  f"process's CPU {pages['web_cpu_ms']:.2f} ms a request, the clients' "
                  f"{pages['client_cpu_ms']:.2f} ms "
                  f"({pages['client_cpu_share']:.2f} of a core)")  # fmt: skip
            for path, row in pages["by_path"].items():
                print(f"    {path:24} median {row['median_ms']:8.1f} ms   p99 "
                      f"{row['p99_ms']:8.1f} ms   n={row['n']}")  # fmt: skip
    print(f"\nuptime after: {_uptime()}")


def _cpu_seconds(pid: int) -> float:
    """The CPU seconds (user and system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _uptime() -> str:
    """``uptime``'s line: the machine's load, printed with the figures."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


if __name__ == "__main__":
    main()
