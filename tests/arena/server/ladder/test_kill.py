"""A ladder worker killed with SIGKILL in the middle of a game loses nothing: its claim's
lease expires, another worker plays the game again from its start (the same seed), and
the result is counted once; a ring competition's table too. ``arena server run`` killed
with SIGKILL at the moment a game starts, again and again (once in the quick run,
:data:`LONG_KILLS` times under load in the slow one): no process of it is left, and every
game it started is finished or played again. Real processes on a real site (SQLite in a
file)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

#: Long enough for a loaded machine; the test waits only as long as it must.
WAIT = 120.0

SEED_SITE = """
from tests.arena.server.ladder.conftest import team_with
team_with("ants", "station")
team_with("bees", "folder")
"""

#: A ring competition of three seats, and a third team to fill its table.
RING = 'format = "ring"\n[site]\nsignup = "open"\n[ring]\nseats = 3\n'
SEED_RING = SEED_SITE + 'team_with("cats", "random")\n'

REPORT = """
import json
from django.db import transaction
from arena.server.ladder.models import Game, VersionSumsRow
with transaction.atomic():  # one snapshot: a game stored meanwhile is in both or neither
    print(json.dumps({
        "games": [[g.pk, g.status, g.attempts, g.end_reason, g.hand_count]
                  for g in Game.objects.order_by("pk")],
        # What the ratings are fitted from: each version's running sums (the fit itself
        # runs at most every few seconds, so the ratings' own counts may lag behind).
        "counted": list(VersionSumsRow.objects.values_list("game_count", flat=True)),
    }))
"""


def _until(what: str, check: Any) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _manage(root: Path, *arguments: str, **options: Any) -> Any:
    env = {
        **os.environ,
        "ARENA_SITE_DIR": str(root),
        "ARENA_LADDER": json.dumps({"deals": 150, "placement_games": 1}),
        "ARENA_SERVER_LEASE_SECONDS": "2",
    }
    command = [sys.executable, "-m", "arena.server.manage", *arguments]
    if options.pop("background", False):
        return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, **options)
    return subprocess.run(command, env=env, check=True, capture_output=True, text=True,
                          timeout=WAIT, **options)  # fmt: skip


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return _site(tmp_path, '[site]\nsignup = "open"\n', SEED_SITE)


@pytest.fixture
def ring_site(tmp_path: Path) -> Path:
    return _site(tmp_path, RING, SEED_RING)


def _site(tmp_path: Path, text: str, seed: str) -> Path:
    competition = tmp_path / "competition.toml"
    competition.write_text(text, encoding="utf-8")
    root = tmp_path / "site"
    command = ["server", "init", str(root), "--competition", str(competition)]
    subprocess.run([sys.executable, "-m", "arena.cli", *command],
                   check=True, capture_output=True, timeout=WAIT)  # fmt: skip
    _manage(root, "shell", "-c", seed)
    return root


def _report(root: Path) -> dict[str, Any]:
    """The site's games and each version's counted games (:data:`REPORT`)."""
    found: dict[str, Any] = json.loads(_manage(root, "shell", "-c", REPORT).stdout.splitlines()[-1])
    return found


def _hands_started(root: Path) -> bool:
    return any(path.stat().st_size > 0 for path in (root / "work").rglob("hands.jsonl"))


@pytest.mark.slow  # real processes, about 8 s of CPU; test_worker.py has the in-process case
def test_a_killed_worker_s_game_is_played_again_and_counted_once(site: Path) -> None:
    _kill_and_play_again(site, seats=2)


@pytest.mark.slow  # real processes; test_ring.py has the in-process case
def test_a_killed_worker_s_table_is_played_again_and_counted_once(ring_site: Path) -> None:
    _kill_and_play_again(ring_site, seats=3)


def _kill_and_play_again(site: Path, *, seats: int) -> None:
    """Kill the worker in the middle of the site's first game, play it again: once, whole."""
    first = _manage(site, "ladder_worker", "--games", "1", background=True)
    try:
        _until("the game's first hands", lambda: _hands_started(site))
        children = psutil.Process(first.pid).children(recursive=True)
        first.send_signal(signal.SIGKILL)
        first.wait(WAIT)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    # Its match processes die with it (their parent-death signal).
    _until("the dead worker's processes to end",
           lambda: not any(c.is_running() and c.status() != "zombie"
                           for c in children))  # fmt: skip
    killed = _report(site)
    assert [game[1] for game in killed["games"]] == ["claimed"]
    time.sleep(2.5)  # the dead worker's lease expires
    _manage(site, "ladder_worker", "--games", "1")
    after = _report(site)
    ((game_id, status, attempts, reason, hands),) = after["games"]
    assert (game_id, status, attempts) == (killed["games"][0][0], "done", 2)
    assert "stopped" in reason or reason == "played to its end"
    assert hands == 150 * seats  # played once, whole, from its start
    assert after["counted"] == [1] * seats  # counted once for each of its versions


@pytest.mark.slow  # real processes: arena server run, killed and started again
def test_a_killed_server_s_game_is_played_again_when_it_starts_again(site: Path) -> None:
    env = {
        **os.environ,
        "ARENA_LADDER": json.dumps({"deals": 150, "placement_games": 1}),
        "ARENA_SERVER_LEASE_SECONDS": "2",
    }
    command = [sys.executable, "-m", "arena.cli", "server", "run", str(site), "--port", "0",
               "--workers", "0", "--ladder-workers", "1"]  # fmt: skip

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, start_new_session=True)  # fmt: skip

    server = start()
    try:
        _until("the game's first hands", lambda: _hands_started(site))
        children = psutil.Process(server.pid).children(recursive=True)
        assert any("ladder_worker" in " ".join(child.cmdline()) for child in children)
        server.send_signal(signal.SIGKILL)
        server.wait(WAIT)
        _until("the server's workers to end",
               lambda: not any(c.is_running() and c.status() != "zombie"
                               for c in children))  # fmt: skip
        server = start()
        _until("the game played again", lambda: _report(site)["games"][0][1] == "done")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(WAIT)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    after = _report(site)
    first = after["games"][0]
    assert first[1] == "done" and first[4] == 300  # played whole, from its start
    counted = after["counted"]
    done = [game for game in after["games"] if game[1] == "done"]
    assert sum(counted) == 2 * len(done)  # each finished game counted once per version


#: Kills of ``arena server run`` in the quick run and in the slow one (under load).
QUICK_KILLS, LONG_KILLS = 1, 50
#: The environment variable every process of a run inherits, to find them after the kill.
MARK_ENV = "ARENA_KILL_TEST_MARK"
#: Where a game ends: finished (a result, a forfeit, or left out by the infrastructure).
ENDED = ("done", "bot_fault", "failed_infrastructure")


def _games(root: Path) -> dict[int, tuple[str, int]]:
    """Each game's status and attempts, read from the site's database file directly (a
    ``manage shell`` takes seconds: too slow to catch a game's start)."""
    with contextlib.closing(
        sqlite3.connect(f"file:{root / 'site.sqlite3'}?mode=ro", uri=True)
    ) as db:
        db.execute("PRAGMA busy_timeout = 10000")
        rows = db.execute("SELECT id, status, attempts FROM arena_ladder_game").fetchall()
    return {game_id: (status, attempts) for game_id, status, attempts in rows}


def _marked(mark: str) -> list[psutil.Process]:
    """The processes still running that inherited ``mark`` (zombies have ended)."""
    found = []
    for process in psutil.process_iter():
        try:
            if process.environ().get(MARK_ENV) == mark and process.status() != "zombie":
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


@contextlib.contextmanager
def _load(processes: int) -> Iterator[None]:
    """``processes`` busy loops (the machine under load), ended on leaving."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(processes)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def test_run_killed_as_a_game_starts_leaves_no_process_and_every_game_is_played(
    site: Path,
) -> None:
    _kill_run_at_game_starts(site, QUICK_KILLS)


@pytest.mark.slow  # 50 kills of arena server run under load: minutes
def test_run_killed_fifty_times_under_load_leaves_nothing_and_loses_no_game(site: Path) -> None:
    with _load(os.cpu_count() or 2):
        _kill_run_at_game_starts(site, LONG_KILLS)


def _kill_run_at_game_starts(site: Path, kills: int) -> None:
    """Start ``arena server run``, SIGKILL it as soon as a new game is claimed (or a
    moment later), ``kills`` times; then let one run finish every game and stop it."""
    rng = random.Random(34)
    ladder = {"deals": 300, "placement_games": 1, "max_attempts": 1000}
    command = [sys.executable, "-m", "arena.cli", "server", "run", str(site), "--port", "0",
               "--workers", "0", "--ladder-workers", "1"]  # fmt: skip

    def start(mark: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "ARENA_LADDER": json.dumps(ladder), MARK_ENV: mark,
               "ARENA_SERVER_LEASE_SECONDS": "2"}  # fmt: skip
        return subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, start_new_session=True)  # fmt: skip

    cut_short: set[int] = set()
    for _kill in range(kills):
        cut_short |= _kill_once(start, site, rng)
    mark = uuid.uuid4().hex
    server = start(mark)
    try:
        _until("every game the kills cut short, played again",
               lambda: all(_games(site)[game][0] in ENDED for game in cut_short))  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(WAIT)
    _until("the last run's processes to end", lambda: not _marked(mark))
    games = _games(site)
    assert cut_short  # the kills did cut games short
    # Each was played again, to its end: no stray worker kept its lease alive.
    assert all(games[game][0] == "done" for game in cut_short)


def _kill_once(start: Callable[[str], subprocess.Popen[bytes]], site: Path,
               rng: random.Random) -> set[int]:  # fmt: skip
    """One run, killed as a game starts (or a moment later); the games it cut short: left
    claimed (its worker's lease runs out) or put back (the worker, told by the kernel that
    its parent died, releases its game before it ends)."""
    mark = uuid.uuid4().hex
    before = _games(site)
    server = start(mark)
    try:
        started = _until("a game's start", lambda: _started(before, _games(site)))
        time.sleep(rng.choice([0.0, 0.0, rng.uniform(0.0, 0.3)]))  # at or just after it
        server.send_signal(signal.SIGKILL)
        server.wait(WAIT)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    # Every process of that run ends: its workers by the parent-death signal, their pools'
    # processes and the bots with them. None is left to keep a lease alive.
    _until("the killed run's processes to end", lambda: not _marked(mark))
    after = _games(site)
    return {game for game in started if after[game][0] not in ENDED}


def _started(before: dict[int, tuple[str, int]], now: dict[int, tuple[str, int]]) -> set[int]:
    """The games claimed since ``before``: a new game, or one claimed once more."""
    return {
        game
        for game, (status, attempts) in now.items()
        if status == "claimed" and (game not in before or before[game][1] < attempts)
    }
