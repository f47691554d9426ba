"""``arena play`` in this process: a scripted person against the sample calling station
(a real bot process, no sandbox), its files, and every mistake of the command line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from arena.bots import build
from arena.bots.transport import BotStartError
from arena.cli import run_command
from arena.commands.play import DEFAULT_PLAY_HANDS
from arena.match.replay import replay_file
from tests import TEST_BOTS
from tests.arena.human.helpers import ScriptedFrontEnd
from tests.arena.scripted import SAMPLE_BOTS

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")


def run(
    argv: list[str], entries: list[str | None] | None = None
) -> tuple[int, str, ScriptedFrontEnd]:
    """Run ``arena play ARGV`` with a scripted person; returns the code, the output and the
    front end."""
    out = io.StringIO()
    front = ScriptedFrontEnd(list(entries or []))
    code = run_command("play", argv, out, front_end=front)
    return code, out.getvalue(), front


def test_a_game_against_a_bot_process_writes_a_run_that_replays(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    argv = [STATION, "--hands", "2", "--seed", "3", "--sandbox", "none", "--out", str(out_dir)]
    code, output, front = run([*argv, "--no-report", "--name", "ann"], ["c"] * 12)
    assert code == 0
    assert "Welcome, ann. You sit in seat 0 of 2" in front.screen
    assert "At the table: python calling station." in front.screen
    assert "match play: 2 hands, seed 3" in output
    assert f"hand history: {out_dir / 'hands.jsonl'}" in output
    assert "report:" not in output
    results = json.loads((out_dir / "results.json").read_text())
    assert [p["name"] for p in results["players"]] == ["ann", "python calling station"]
    assert replay_file(out_dir / "hands.jsonl").is_ok


def test_the_person_may_sit_after_the_bots_and_the_report_is_written(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    argv = [STATION, STATION, "--seat", "2", "--hands", "1", "--seed", "4"]
    argv += ["--sandbox", "none", "--out", str(out_dir), "--human-timeout", "60"]
    code, output, front = run(argv, ["f"] * 6)
    assert code == 0
    assert "You sit in seat 2 of 3" in front.screen
    assert all(timeout is not None for _, timeout in front.prompts)
    assert f"report: {out_dir / 'report.html'}" in output
    results = json.loads((out_dir / "results.json").read_text())
    assert results["players"][2]["name"] == "human"


def test_leaving_the_table_is_an_interrupt_that_keeps_the_hands(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    argv = [STATION, "--hands", "5", "--seed", "3", "--sandbox", "none", "--out", str(out_dir)]
    code, output, _ = run(argv, ["f", "q"])
    assert code == 130
    assert f"you left the table: the hands played are in {out_dir / 'hands.jsonl'}" in output
    assert replay_file(out_dir / "hands.jsonl").is_ok


def test_ctrl_c_leaves_the_table_as_quitting_does(tmp_path: Path) -> None:
    class Interrupted(ScriptedFrontEnd):
        def prompt(self, text: str, *, timeout_s: float | None = None) -> str | None:
            raise KeyboardInterrupt

    argv = [STATION, "--sandbox", "none", "--out", str(tmp_path / "run"), "--log-file"]
    out = io.StringIO()
    argv += [str(tmp_path / "match.log")]
    assert run_command("play", argv, out, front_end=Interrupted([])) == 130
    assert "you left the table" in out.getvalue()
    assert (tmp_path / "match.log").exists()  # --log-file: the match log goes there
    header = json.loads((tmp_path / "run" / "hands.jsonl").read_text().splitlines()[0])
    assert header["config"]["hand_count"] == DEFAULT_PLAY_HANDS


@pytest.mark.parametrize("build", ['build = ["false"]\n', ""])
def test_a_bot_that_cannot_start_stops_the_game_before_the_first_hand(
    tmp_path: Path, build: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its build failed, or it has none and its program is missing.
    bot = tmp_path / "broken" / "bot.toml"
    bot.parent.mkdir()
    bot.write_text(f'name = "broken"\ncommand = ["./missing-program"]\n{build}')
    argv = [str(bot), "--sandbox", "none", "--out", str(tmp_path / "run")]
    with pytest.raises(SystemExit) as caught:
        run(argv)
    assert caught.value.code == 2
    error = capsys.readouterr().err
    assert "arena play: error:" in error and "broken" in error
    assert "fix the bot and try again" in error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([STATION] * 10, "a table takes 1 to 9 bots besides you, got 10"),
        ([STATION, "--seat", "2"], "argument --seat: seat 2 is not at a table of 2 (0..1)"),
        ([STATION, "--name", ""], "argument --name: '' must be 1 to 64 characters"),
        ([STATION, "--name", "x" * 65], f"argument --name: {'x' * 65!r} must be 1 to 64"),
        (["no/such/bot.toml"], "bad manifest:"),
        ([STATION, "--small-blind", "5", "--big-blind", "2"], "small_blind 5 is larger than"),
    ],
)
def test_a_mistake_in_the_command_is_one_line_and_exit_code_2(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as caught:
        run([*argv, "--out", str(tmp_path / "run")])
    assert caught.value.code == 2
    assert f"arena play: error: {message}" in capsys.readouterr().err


def test_a_run_folder_that_holds_a_match_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hands.jsonl").write_text("{}\n")
    with pytest.raises(SystemExit):
        run([STATION, "--out", str(tmp_path)])
    assert "already holds a run (hands.jsonl)" in capsys.readouterr().err


def test_a_freezeout_plays_until_one_player_has_every_chip(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    argv = [STATION, "--freezeout", "--stack", "10", "--seed", "1", "--sandbox", "none"]
    code, _, front = run([*argv, "--out", str(out_dir), "--no-report"], ["a"] * 40)
    assert code == 0
    assert "until one player has every chip" in front.screen
    results = json.loads((out_dir / "results.json").read_text())
    assert {p["place"] for p in results["players"]} == {1, 2}


def test_a_bot_that_crashes_has_its_stderr_named_after_the_results(tmp_path: Path) -> None:
    out_dir = tmp_path / "run"
    argv = [str(TEST_BOTS / "crasher" / "bot.toml"), "--hands", "2", "--seed", "2"]
    argv += ["--sandbox", "none", "--out", str(out_dir), "--no-report"]
    code, output, _ = run(argv, ["c"] * 20)
    assert code == 0
    # It crashes on every flop and is started again before the next hand.
    log = out_dir / "stderr" / "1-crasher.log"
    assert f"stderr of crasher (seat 1, crash 2): {log}" in output
    assert "crasher: crashing at FLOP (exit)" in log.read_text()


def test_without_out_the_run_goes_to_a_play_folder_under_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, output, _ = run([STATION, "--hands", "1", "--sandbox", "none", "--no-report"], ["f"])
    assert code == 0
    (folder,) = (tmp_path / "runs").iterdir()
    assert folder.name.startswith("play-") and (folder / "results.json").exists()
    assert f"results:      {Path('runs') / folder.name / 'results.json'}" in output


def test_a_build_that_cannot_even_be_prepared_stops_the_game_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bot whose build failed cannot start (its program may be a stale one): the game is
    # refused, as a match is, before the person sits down.
    def unpreparable(*args: object, **kwargs: object) -> object:
        raise BotStartError("no such program: gcc")

    monkeypatch.setattr(build, "run_build", unpreparable)
    argv = [STATION, "--hands", "1", "--sandbox", "none", "--out", str(tmp_path / "run")]
    with pytest.raises(SystemExit) as caught:
        run([*argv, "--no-report"], ["f"])
    assert caught.value.code == 2
    error = capsys.readouterr().err
    assert "'python calling station' (seat 0): no such program: gcc" in error
    assert not (tmp_path / "run" / "hands.jsonl").exists()
