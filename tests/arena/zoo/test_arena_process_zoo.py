"""Zoo attacks on the arena process itself, run against ``arena match`` as a subprocess
(the command line's default layer): a ``kill -9`` of the arena in the middle of a match
with bots that fork, and a bot that sends SIGSTOP then SIGKILL up its chain of parents.
Run in a subprocess, a sandbox that failed could stop only that arena, never the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests import REPO_ROOT, TEST_BOTS
from tests.arena.zoo.harness import processes_with, wait_for_no_process_with

#: The longest a test waits for the arena to get going or to finish.
DEADLINE_S = 60.0


def copy_bot(folder: str, target: Path, args: list[str], marker: str) -> Path:
    """tests/bots/<folder> copied to ``target`` with its script's arguments set to ``args``
    and ``ZOO_MARKER`` in its environment; the copy's manifest."""
    shutil.copytree(TEST_BOTS / folder, target)
    manifest = target / "bot.toml"
    lines = manifest.read_text(encoding="utf-8").splitlines()
    command = next(line for line in lines if line.startswith("command"))
    program = json.loads(command.partition("=")[2])[:2]
    kept = [line for line in lines if not line.startswith(("command", "[env]", "ZOO_"))]
    kept.append(f"command = {json.dumps([*program, *args])}")
    kept.append("[env]")
    kept.append(f'ZOO_MARKER = "{marker}"')
    manifest.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return manifest


def arena_match(manifests: list[Path], out: Path, *options: str) -> subprocess.Popen[bytes]:
    """``arena match`` on ``manifests`` in a new process, writing into ``out``."""
    argv = [sys.executable, "-m", "arena.cli", "match", *map(str, manifests)]
    argv += ["--out", str(out), "--no-progress", "--decision-timeout", "0.3", *options]
    return subprocess.Popen(
        argv,
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_kill_9_of_the_arena_mid_match_leaves_no_bot_process(tmp_path: Path) -> None:
    marker = f"zoo-{uuid.uuid4().hex}"
    # Each bot leaves a grandchild that left its session and environment (the marker is in
    # its arguments), and starts three more children.
    manifests = [
        copy_bot("sandbox_escaper", tmp_path / f"escaper{index}", [marker, "3"], marker)
        for index in range(2)
    ]
    arena = arena_match(manifests, tmp_path / "run", "--hands", "1000000")
    try:
        deadline = time.monotonic() + DEADLINE_S
        # Mid-match: hands are being written and every bot has forked.
        while len(processes_with(marker)) < 10 or not (tmp_path / "run" / "hands.jsonl").exists():
            assert arena.poll() is None, arena.stderr.read() if arena.stderr else ""
            assert time.monotonic() < deadline, processes_with(marker)
            time.sleep(0.05)
        assert len(processes_with(marker)) >= 10
        os.kill(arena.pid, signal.SIGKILL)
        arena.wait(DEADLINE_S)
        assert arena.returncode == -signal.SIGKILL
        left = wait_for_no_process_with(marker)
        assert not left, f"bot processes survived the arena: {left}"
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
        if arena.stderr is not None:
            arena.stderr.close()


def test_a_bot_cannot_stop_or_kill_the_arena(tmp_path: Path) -> None:
    marker = f"zoo-{uuid.uuid4().hex}"
    signaller = copy_bot("zoo_signaller", tmp_path / "signaller", ["arena"], marker)
    victim = copy_bot("zoo_station", tmp_path / "station", [marker], marker)
    arena = arena_match([signaller, victim], tmp_path / "run", "--hands", "20")
    try:
        _out, err = arena.communicate(timeout=DEADLINE_S)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    assert arena.returncode == 0, err.decode(errors="replace")[-2000:]
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    players = results["players"]
    assert [player["hands_played"] for player in players] == [20, 20]
    assert sum(player["chips_won"] for player in players) == 0
    for player in players:  # neither bot was stopped, blamed or benched
        assert not player["faults"]["faults"], player["faults"]
    assert not wait_for_no_process_with(marker)
