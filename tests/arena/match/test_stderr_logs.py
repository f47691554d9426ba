"""Each seat's stderr kept per match: ``<out_dir>/stderr/<seat>-<name>.log`` with the head
and tail of every process of the seat (restarts appended after a marker line), named in
the results, and printed by ``arena match`` for a bot that crashed."""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path

from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.stderr_log import DEFAULT_STDERR_CAP_BYTES
from arena.cli import main
from arena.match.config import MatchConfig
from arena.match.results import MatchResult
from arena.match.run import open_sessions, run_match
from tests.arena.scripted import SAMPLE_BOTS

STATION = SAMPLE_BOTS / "python_calling_station" / "bot.toml"

# A calling station that talks on stderr: what ``say.txt`` holds before its ready, ``DIE``
# (then exit code 3) at its first act when set.
BOT_SOURCE = r"""
import json, os, sys
with open("say.txt") as file:
    sys.stderr.write(file.read())
sys.stderr.flush()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "ready", "seq": message["seq"], "name": "talker", "protocol_version": 1}
    elif kind == "act":
        if os.environ.get("DIE"):
            sys.stderr.write(os.environ["DIE"])
            sys.exit(3)
        action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
        reply = {"type": "action", "seq": message["seq"], "action": action}
    elif kind == "match_end":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""

LOUD_TEXT = "HEAD of the loud bot\n" + "noise " * 100_000 + "\nTAIL of the loud bot\n"


def talker(tmp_path: Path, name: str, say: str, die: str = "") -> Path:
    """A manifest file for the talking bot, in its own folder."""
    folder = tmp_path / name.replace(" ", "_")
    folder.mkdir()
    (folder / "bot.py").write_text(BOT_SOURCE)
    (folder / "say.txt").write_text(say)
    lines = [f"name = {json.dumps(name)}", 'command = ["{python}", "bot.py"]']
    if die:
        lines += ["[env]", f"DIE = {json.dumps(die)}"]
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder / "bot.toml"


def manifests(*paths: Path) -> list[BotManifest]:
    return [load_manifest(path) for path in paths]


def test_a_loud_bot_stderr_is_kept_head_and_tail_and_named_in_the_results(
    tmp_path: Path,
) -> None:
    config = MatchConfig(hand_count=3, seed=2)
    out_dir = tmp_path / "run"
    bots = manifests(talker(tmp_path, "loud bot", LOUD_TEXT), STATION)
    result = run_match(config, open_sessions(bots, config), out_dir)
    log = out_dir / "stderr" / "0-loud_bot.log"
    text = log.read_text()
    assert text.startswith("HEAD of the loud bot\n")
    assert text.endswith("\nTAIL of the loud bot\n")
    dropped = len(LOUD_TEXT) - DEFAULT_STDERR_CAP_BYTES
    assert f"\n[... {dropped} bytes dropped ...]\n" in text
    assert len(text) < DEFAULT_STDERR_CAP_BYTES + 100  # bounded by the cap and the marker
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    loud, station = result.players
    assert (loud.stderr_log, loud.stderr_bytes) == ("stderr/0-loud_bot.log", len(LOUD_TEXT))
    # A quiet bot still gets its (empty) file: one file per seat per match.
    station_log = f"stderr/1-{station.name.replace(' ', '_')}.log"
    assert (station.stderr_log, station.stderr_bytes) == (station_log, 0)
    assert (out_dir / station_log).read_bytes() == b""
    saved = MatchResult.read_json(out_dir / "results.json")
    assert saved.players[0].stderr_log == "stderr/0-loud_bot.log"
    assert saved.players[0].stderr_bytes == len(LOUD_TEXT)


def test_restarts_are_appended_to_the_seat_file_after_a_marker_line(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=5, seed=3, restart_budget=2)
    out_dir = tmp_path / "run"
    crasher = talker(tmp_path, "crasher", "starting\n", die="dying on the first act\n")
    result = run_match(config, open_sessions(manifests(crasher, STATION), config), out_dir)
    text = (out_dir / "stderr" / "0-crasher.log").read_text()
    run = "starting\ndying on the first act\n"
    assert text == f"{run}--- restart 1 ---\n{run}--- restart 2 ---\n{run}"
    player = result.players[0]
    assert player.is_sitting_out and player.faults["counts"]["crash"] == 3
    assert player.stderr_bytes == 3 * len(run)


def test_without_an_output_folder_no_stderr_file_is_written(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=2, seed=4)
    sessions = open_sessions(manifests(talker(tmp_path, "quiet", "hello\n"), STATION), config)
    result = run_match(config, sessions, None)
    assert all(session.stderr_log is None for _name, session in sessions)
    assert [(p.stderr_log, p.stderr_bytes) for p in result.players] == [(None, None)] * 2
    assert not list(tmp_path.rglob("*.log"))


def test_arena_match_prints_the_stderr_file_of_a_bot_that_crashed(tmp_path: Path) -> None:
    crasher = talker(tmp_path, "crasher", "starting\n", die="dying\n")
    out_dir = tmp_path / "run"
    out = io.StringIO()
    argv = ["match", str(crasher), str(STATION), "--hands", "2", "--seed", "1"]
    argv += ["--out", str(out_dir), "--no-progress", "--sandbox", "none"]
    assert main(argv, stdout=out) == 0
    printed = out.getvalue()
    path = out_dir / "stderr" / "0-crasher.log"
    assert f"stderr of crasher (seat 0, crash 2): {path}\n" in printed
    assert "stderr of python" not in printed  # the calling station did not crash
    assert path.read_text().startswith("starting\ndying\n--- restart 1 ---\n")
