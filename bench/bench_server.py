"""How the competition site holds up under browsing while matches are played, and how long
an uploaded starter bot waits for its verdict.

Run: ``.venv/bin/python bench/bench_server.py`` (``--quick`` for the test suite's small
run; ``--seconds``, ``--clients``, ``--think``, ``--workers``, ``--database``).

A live site (``arena server init`` + ``arena server run`` on a free loopback port, in a
temporary folder, gone at the end; see ``tests/arena/server/browser/live.py``) with a
small tournament imported (``arena server import-tournament``), so that the leaderboard
and the match pages have something to show, and one team per starter bot with an API
token. Then, for ``--seconds`` (60):

1. ``--clients`` (50) simulated people, each a thread with its own keep-alive connection,
   request pages one after another: the leaderboard, a match page, a team page, the JSON
   API (leaderboard, matches), chosen at random, with a pause of ``--think`` seconds on
   average between two (drawn uniformly between 0 and twice that; 0 is a closed loop that
   measures capacity). Each request's latency is timed from sending to the last byte;
   an error is any answer but 200 or a failed connection.
2. Meanwhile every starter bot (``sample_bots/*``) is uploaded through the API, once each,
   one after another, by its own team; the time from the upload to its verdict is timed.
   The workers play each bot's validation match while the clients browse: those are the
   matches being played. When every bot has its verdict and time remains, they are
   uploaded again (new versions) so that the workers stay busy to the end. Each upload
   asks not to be activated (``?activate=false``): the matches being played are the
   validation matches, as before the first accepted version of a team began to play on
   the ladder by itself, so that ``bench/compare_revisions.py`` compares the same load
   with earlier revisions (``--ladder`` activates them, and the ladder's games are played
   too). With ``--workers 0`` nothing is uploaded (no verdict would come): the clients
   browse for ``--seconds`` and the bench ends.

SIGTERM (``timeout``, a service manager) ends the bench as Ctrl-C does: the clients stop,
the site and its workers are stopped and the temporary folder is removed.

Printed: requests, requests/s, p50/p90/p99/max latency and errors, overall and per page;
each bot's verdict and time to it; the web server process's CPU time per request (which,
unlike the latencies, does not depend on what else the machine runs) and the machine's
load average. Targets: p99 under 250 ms with no errors (50 clients on
a 2-core machine), every starter bot accepted in under 60 s. Only 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402

from arena.uploads import pack  # noqa: E402
from tests.arena.report.runs import write_tournament  # noqa: E402
from tests.arena.server.browser.live import (  # noqa: E402
    STARTER_BOTS,
    LiveSite,
    arena,
    competition,
    live_site,
)

#: The tournament imported so that the pages have rows (a round robin: six pairs).
TOURNAMENT_BOTS = ("ann", "bob", "cat", "dan")

#: The longest the benchmark waits for one upload's verdict (the target is 60 s).
VERDICT_SECONDS = 300.0


@dataclass
class Sample:
    """One request: which page, how long, whether it failed (and why)."""

    page: str
    seconds: float
    error: str | None


@dataclass
class Verdict:
    """One upload: the bot, its verdict and the seconds from the upload to it."""

    bot: str
    status: str
    seconds: float
    reason: str = ""


@dataclass
class Load:
    """What the clients and the uploader recorded (appended from their threads)."""

    samples: list[Sample] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Set when the bench is cut short (Ctrl-C, SIGTERM): every thread ends at once.
    stopped: threading.Event = field(default_factory=threading.Event)

    def add(self, sample: Sample) -> None:
        with self.lock:
            self.samples.append(sample)


class Client:
    """One keep-alive HTTP connection to the site (reopened after a failure)."""

    def __init__(self, base: str, *, timeout: float = 30.0) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.connection: http.client.HTTPConnection | None = None

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes]:
        """The status and body of one request."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.connection.request(method, path, body=body, headers=headers or {})
            response = self.connection.getresponse()
            return response.status, response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def browse(
    base: str, pages: dict[str, list[str]], think: float, until: float, load: Load, seed: int
) -> None:
    """One simulated person: random pages with pauses until ``until`` (monotonic)."""
    rng = random.Random(seed)
    client = Client(base)
    kinds = sorted(pages)
    # Start spread over one pause, as people do not all click at the same instant.
    load.stopped.wait(rng.uniform(0, 2 * think))
    try:
        while time.monotonic() < until and not load.stopped.is_set():
            kind = rng.choice(kinds)
            path = rng.choice(pages[kind])
            started = time.perf_counter()
            error = None
            try:
                status, _body = client.request("GET", path)
                if status != 200:
                    error = f"HTTP {status} {path}"
            except (OSError, http.client.HTTPException) as exc:
                error = f"{type(exc).__name__} {path}: {exc}"
            load.add(Sample(kind, time.perf_counter() - started, error))
            if think > 0:
                load.stopped.wait(rng.uniform(0, 2 * think))
    finally:
        client.close()


#: Each upload's number (see :func:`distinct_archive`).
_UPLOAD_NUMBERS = itertools.count(1)


def distinct_archive(bot: str, number: int) -> bytes:
    """``sample_bots/BOT`` packed with one file more, ``bench-upload.txt`` holding
    ``number``: every upload is a new archive and is validated. (The site links an upload
    byte for byte identical to one of the team's versions to that version, with its
    verdict at once: the same starter bot uploaded again would play no validation match,
    and the bench would measure a tight loop of uploads instead of the load it measured
    before that rule, which ``bench/compare_revisions.py`` compares with.)"""
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / bot
        shutil.copytree(ROOT / "sample_bots" / bot, copy)
        (copy / "bench-upload.txt").write_text(f"{number}\n", encoding="utf-8")
        return pack(copy)


def upload_and_wait(
    site: LiveSite, token: str, bot: str, *, activate: bool, stopped: threading.Event
) -> Verdict:
    """Upload ``sample_bots/BOT`` with ``token`` (to play on the ladder once accepted if
    ``activate``); its verdict once the worker gives it (or "stopped" once ``stopped``)."""
    client = Client(site.url, timeout=60.0)
    headers = {"Authorization": f"Bearer {token}"}
    archive = distinct_archive(bot, next(_UPLOAD_NUMBERS))
    started = time.monotonic()
    try:
        status, body = client.request(
            "POST", f"/api/v1/versions/?activate={'true' if activate else 'false'}", archive,
            {**headers, "Content-Type": "application/gzip"},
        )  # fmt: skip
        if status != 201:
            return Verdict(bot, f"HTTP {status}", 0.0, "the upload was refused")
        url = urlsplit(json.loads(body)["url"]).path
        while time.monotonic() - started < VERDICT_SECONDS:
            if stopped.is_set():
                return Verdict(bot, "stopped", time.monotonic() - started)
            status, body = client.request("GET", url, headers=headers)
            version = json.loads(body) if status == 200 else {}
            if version.get("status") in ("accepted", "rejected"):
                seconds = time.monotonic() - started
                return Verdict(bot, version["status"], seconds, version.get("reason") or "")
            stopped.wait(0.2)
        return Verdict(bot, "no verdict", time.monotonic() - started)
    finally:
        client.close()


def upload_all(
    site: LiveSite,
    tokens: dict[str, str],
    bots: Sequence[str],
    until: float,
    load: Load,
    *,
    activate: bool,
) -> None:
    """Each bot uploaded in turn (again while time remains): the workers' matches."""
    first_round = True
    while first_round or time.monotonic() < until:
        for bot in bots:
            if load.stopped.is_set() or (not first_round and time.monotonic() >= until):
                return
            verdict = upload_and_wait(
                site, tokens[bot], bot, activate=activate, stopped=load.stopped
            )
            if first_round:
                with load.lock:
                    load.verdicts.append(verdict)
        first_round = False


def import_tournament(site: LiveSite, folder: Path, deals: int) -> None:
    """A tournament of four bots put on the site (its hands played by the engine, written in
    the arena's layouts: the pages read it as they read a real run)."""
    run = write_tournament(
        folder / "tournament", bots=TOURNAMENT_BOTS, deals=deals, block_deals=min(deals, 5)
    )
    subprocess.run(
        arena("server", "import-tournament", str(site.root), str(run)),
        check=True, capture_output=True, timeout=600, cwd=folder,
    )  # fmt: skip


def prepare(site: LiveSite, bots: Sequence[str]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """One team per bot, each with a member and an API token (bot -> token); and the paths
    the clients browse, by kind (the match and team ids read from the site). One Django
    start for both."""
    script = (
        "import json\n"
        "from arena.server.site.models import Match, Team\n"
        "from tests.arena.server.factories import make_team, make_token\n"
        f"tokens = {{bot: make_token(make_team('team-' + bot)) for bot in {list(bots)!r}}}\n"
        "print(json.dumps([tokens, list(Match.objects.values_list('pk', flat=True)),"
        " list(Team.objects.values_list('pk', flat=True))]))\n"
    )
    output = site.manage("shell", "-c", script).strip().splitlines()[-1]
    tokens, matches, teams = json.loads(output)
    pages = {
        "leaderboard": ["/"],
        "match page": [f"/matches/{pk}/" for pk in matches],
        "hand viewer": [f"/matches/{pk}/hands/" for pk in matches],
        "team page": [f"/teams/{pk}/" for pk in teams],
        "api leaderboard": ["/api/v1/leaderboard/"],
        "api match": [f"/api/v1/matches/{pk}/" for pk in matches],
        "api teams": ["/api/v1/teams/"],
    }
    return tokens, {kind: paths for kind, paths in pages.items() if paths}


@contextmanager
def database(kind: str) -> Iterator[str | None]:
    """The site's database: None (SQLite in the site folder) or a fresh PostgreSQL's URL."""
    if kind == "sqlite":
        yield None
        return
    from tests import postgres

    reason = postgres.skip_reason()
    if reason is not None:
        raise SystemExit(f"--database postgresql: {reason}")
    with postgres.running_postgres() as server:
        yield server.url(server.create_database("bench"))


def summarise(load: Load, seconds: float, out: Callable[[str], None]) -> None:
    """Print the latency table and the verdicts."""
    by_page: dict[str, list[Sample]] = {}
    for sample in load.samples:
        by_page.setdefault(sample.page, []).append(sample)
    header = f"{'page':<18}{'requests':>9}{'per s':>8}{'p50 ms':>9}{'p90 ms':>9}"
    out(header + f"{'p99 ms':>9}{'max ms':>9}{'errors':>8}")
    for page, samples in [*sorted(by_page.items()), ("all", load.samples)]:
        if not samples:
            continue
        times = [sample.seconds * 1000 for sample in samples]
        errors = sum(sample.error is not None for sample in samples)
        out(
            f"{page:<18}{len(samples):>9}{len(samples) / seconds:>8.1f}"
            f"{percentile(times, 0.5):>9.1f}{percentile(times, 0.9):>9.1f}"
            f"{percentile(times, 0.99):>9.1f}{max(times):>9.1f}{errors:>8}"
        )
    failures = [sample.error for sample in load.samples if sample.error]
    for failure in sorted(set(failures))[:5]:
        out(f"  error: {failure} (x{failures.count(failure)})")
    if load.samples:
        p99 = percentile([sample.seconds for sample in load.samples], 0.99) * 1000
        verdict = "met" if p99 < 250 and not failures else "NOT met"
        out(f"target p99 < 250 ms and no errors: {verdict} "
            f"(p99 {p99:.0f} ms, {len(failures)} errors)")  # fmt: skip
    out("")
    out(f"{'starter bot':<24}{'verdict':<12}{'seconds':>8}  reason")
    for item in load.verdicts:
        reason = " ".join(item.reason.split())[:60]
        out(f"{item.bot:<24}{item.status:<12}{item.seconds:>8.1f}  {reason}")
    if load.verdicts:
        slowest = max(item.seconds for item in load.verdicts)
        ok = all(item.status == "accepted" for item in load.verdicts) and slowest < 60
        out(f"target every bot accepted in < 60 s: {'met' if ok else 'NOT met'} "
            f"(slowest {slowest:.1f} s)")  # fmt: skip


def _terminated(signum: int, _frame: FrameType | None) -> None:
    """SIGTERM: unwind as Ctrl-C does (the site stopped, the folder removed), once: a
    second signal does not cut the clean-up short."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt(f"signal {signum}")


def run_load(threads: Sequence[threading.Thread], load: Load) -> None:
    """Start ``threads`` and wait for them; however this ends (Ctrl-C, SIGTERM), they are
    told to stop and joined, so that none outlives the site."""
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        load.stopped.set()
        for thread in threads:
            if thread.is_alive():
                thread.join()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="load duration (60)")
    parser.add_argument("--clients", type=int, default=50, help="simulated people (50)")
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean pause between requests, s (1.0; 0: closed loop)")  # fmt: skip
    parser.add_argument("--workers", type=int, default=1,
                        help="validation workers (1; 0: browse only, no uploads)")  # fmt: skip
    parser.add_argument("--ladder", action="store_true",
                        help="activate the uploads: the ladder plays them too")  # fmt: skip
    parser.add_argument("--threads", type=int, default=8, help="web server threads (8)")
    parser.add_argument("--validation-hands", type=int, default=200,
                        help="hands of an upload's validation match (200, as a site)")  # fmt: skip
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--bots", nargs="*", default=STARTER_BOTS, metavar="BOT",
                        help="starter bots to upload (sample_bots/ folder names; all)")  # fmt: skip
    parser.add_argument("--quick", action="store_true",
                        help="a small run for the tests (3 s, 4 clients, one bot)")  # fmt: skip
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminated)
    if args.quick:
        args.seconds, args.clients, args.bots = 3.0, 4, ["python_calling_station"]
        args.validation_hands = 20
    deals = 2 if args.quick else 10
    with (
        tempfile.TemporaryDirectory(prefix="bench-server-") as temporary,
        database(args.database) as url,
    ):
        folder = Path(temporary)
        rules = competition(args.validation_hands)
        with live_site(folder, competition=rules, database=url, workers=args.workers,
                       threads=args.threads) as site:  # fmt: skip
            import_tournament(site, folder, deals)
            tokens, pages = prepare(site, args.bots)
            print(f"site {site.url} ({args.database}, {args.workers} worker(s), "
                  f"{args.threads} threads); pages: {', '.join(sorted(pages))}")  # fmt: skip
            # Without a worker no verdict would come: browsing only.
            bots = args.bots if args.workers > 0 else []
            uploads = (f"uploading {len(bots)} starter bot(s), validation matches of "
                       f"{args.validation_hands} hands"
                       f"{', then ladder games' if args.ladder else ''}"
                       if bots else "no worker: nothing uploaded")  # fmt: skip
            print(f"{args.clients} clients for {args.seconds:.0f} s, mean pause {args.think} s; "
                  f"{uploads}")  # fmt: skip
            load = Load()
            web = psutil.Process(site.process.pid)  # waitress (the workers are its children)
            web_cpu = sum(web.cpu_times()[:2])
            started = time.monotonic()
            until = started + args.seconds
            threads = [
                threading.Thread(target=browse, args=(site.url, pages, args.think, until, load, n))
                for n in range(args.clients)
            ]
            if bots:
                threads.append(
                    threading.Thread(
                        target=upload_all,
                        args=(site, tokens, bots, until, load),
                        kwargs={"activate": args.ladder},
                    )
                )
            run_load(threads, load)
            web_cpu = sum(web.cpu_times()[:2]) - web_cpu
            summarise(load, max(args.seconds, 1e-9), print)
            # The web process's own processor time per request does not depend on what else
            # runs on the machine (the latencies do): the capacity it implies is per core.
            per_request = web_cpu / max(1, len(load.samples)) * 1000
            print(f"web server CPU: {web_cpu:.1f} s for {len(load.samples)} requests = "
                  f"{per_request:.1f} ms per request (about {1000 / per_request:.0f} "
                  "requests/s per free core)")  # fmt: skip
            busy = ", ".join(f"{value:.1f}" for value in os.getloadavg())
            print(f"machine's load average (1, 5, 15 min) at the end: {busy} on "
                  f"{os.cpu_count()} cores (others' work shares them)")  # fmt: skip
            print(f"(wall {time.monotonic() - started:.1f} s, including the last verdicts)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
