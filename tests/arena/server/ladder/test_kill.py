"""A ladder worker killed with SIGKILL in the middle of a game loses nothing: its claim's
lease expires, another worker plays the game again from its start (the same seed), and
the result is counted once; a ring competition's table too. Real processes on a real site
(SQLite in a file)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
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
from arena.server.ladder.models import Game, Rating
with transaction.atomic():  # one snapshot: a game stored meanwhile is in both or neither
    print(json.dumps({
        "games": [[g.pk, g.status, g.attempts, g.end_reason, g.hand_count]
                  for g in Game.objects.order_by("pk")],
        "ratings": list(Rating.objects.values_list("game_count", flat=True)),
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
    """The site's games and ratings (:data:`REPORT`)."""
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
    assert after["ratings"] == [1] * seats  # counted once for each of its versions


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
    ratings = after["ratings"]
    done = [game for game in after["games"] if game[1] == "done"]
    assert sum(ratings) == 2 * len(done)  # each finished game counted once per version
