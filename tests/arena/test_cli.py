"""The ``arena`` command line, in-process through ``main(argv)`` and once as a real program."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from arena import cli
from arena.bots.transport import BotStartError
from arena.cli import build_parser, command_parser, main, run_command
from arena.commands import COMMANDS, check_bot, demo, load, replay
from arena.match import host
from arena.match.config import MatchConfig
from arena.match.run import run_match
from arena.settings.grammar import parse_duration, parse_schedule
from engine.schedule import BlindLevel, ScheduleError
from tests.arena.scripted import (
    HOSTILE_BOTS,
    SAMPLE_BOTS,
    calling_station,
    min_raiser,
    play,
)

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
STRENGTH = str(SAMPLE_BOTS / "python_hand_strength" / "bot.toml")


def _exit_code(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    code = info.value.code
    assert isinstance(code, int)
    return code


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["match", STATION, STATION, "--hands", "x"], "argument --hands: 'x' is not a whole"),
        (["match", STATION, STATION, "--hands", "0"], "'0' must be at least 1"),
        (["match", STATION, STATION, "--stack", "-5"], "'-5' must be at least 1"),
        (["match", STATION, STATION, "--ante", "-1"], "'-1' must not be negative"),
        (["match", STATION, STATION, "--seed", "abc"], "'abc' is not an integer seed"),
        (["match", STATION, STATION, "--decision-timeout", "soon"], "'soon' is not a duration"),
        (["match", STATION, STATION, "--time-bank=-1s"], "'-1s' is not a duration"),
        (["match", STATION, STATION, "--startup-timeout", "0"], "'0' must be a positive"),
        (["match", STATION, STATION, "--variant", "omaha"], "invalid choice: 'omaha'"),
        (["match", STATION, STATION, "--log-level", "loud"], "invalid choice: 'loud'"),
        (["match", STATION, STATION, "--small-blind", "5"], "small_blind 5 is larger than big"),
        (["match", STATION, STATION, "--schedule", "1/2"], "schedule '1/2' has no '@PERIOD'"),
        (["match", STATION, STATION, "--schedule", "1-2@5"], "level '1-2' is not SB/BB"),
        (["match", STATION, STATION, "--schedule", "1/2@x"], "period 'x' is not a positive"),
        (["match", STATION, STATION, "--schedule", "2/4,1/2@5"], "does not increase"),
        (["match", STATION, "nowhere/bot.toml"], "nowhere/bot.toml: cannot read the manifest"),
        (["match", STATION], "a match needs 2 to 10 manifests, got 1"),
        (["match", *[STATION] * 11], "a match needs 2 to 10 manifests, got 11"),
        (["replay", "missing.jsonl"], "cannot replay 'missing.jsonl'"),
        (["check-bot", "missing.toml"], "manifest 'missing.toml' is not a file"),
        (["dance"], "invalid choice: 'dance'"),
        (["match", STATION, STATION, "--sandbox", "docker"], "invalid choice: 'docker'"),
        (["match", STATION, STATION, "--memory", "lots"], "argument --memory: 'lots': a size"),
        (["match", STATION, STATION, "--tmp-size", "0"], "--tmp-size: '0' must be at least 1"),
        (["demo", "--file-size", "1.5XB"], "argument --file-size: '1.5XB'"),
        (["match", STATION, STATION, "--processes", "0"], "'0' must be at least 1"),
        (["check-bot", STATION, "--cpu-seconds", "x"], "--cpu-seconds: 'x' is not a whole"),
    ],
)
def test_bad_arguments_exit_2_naming_the_bad_value(
    argv: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(argv) == 2
    err = capsys.readouterr().err
    assert named in err
    assert "Traceback" not in err
    # The message first, then one line saying where to look; no usage block.
    first, hint = err.splitlines()
    assert first.startswith("arena") and ": error: " in first
    command = first.split(": error: ")[0]
    assert hint == f"  see `{command} --help`"


def test_an_unknown_flag_after_a_command_is_that_commands_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _exit_code(["match", STATION, STATION, "--handz", "5"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "arena match: error: unrecognized arguments: --handz 5\n  see `arena match --help`\n"
    )


def test_a_bad_manifest_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bot.toml"
    bad.write_text('name = "x"\ncommand = "python bot.py"\n')
    assert _exit_code(["match", STATION, str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}: key 'command'" in err and "not the string 'python bot.py'" in err


def test_parse_duration_units() -> None:
    assert parse_duration("1.5s") == 1.5
    assert parse_duration("20ms") == pytest.approx(0.02)
    with pytest.raises(ValueError, match="must be a positive duration"):
        parse_duration("0ms")


def test_parse_schedule_forms(tmp_path: Path) -> None:
    minutes = parse_schedule("1/2,2/4@10m", small_blind=1, big_blind=2, ante=0)
    assert minutes.every_seconds == 600.0
    hands = parse_schedule("1/2,2/4/1@25hands", small_blind=1, big_blind=2, ante=0)
    assert hands.every_hands == 25 and hands.levels[1] == BlindLevel(2, 4, 1)
    doubling = parse_schedule("double@90s", small_blind=5, big_blind=10, ante=1)
    assert doubling.keeps_doubling and doubling.level(1) == BlindLevel(10, 20, 2)
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(hands.to_dict()))
    assert parse_schedule(str(path), small_blind=1, big_blind=2, ante=0) == hands
    path.write_text("[1]")
    with pytest.raises(ValueError, match="does not hold a JSON object"):
        parse_schedule(str(path), small_blind=1, big_blind=2, ante=0)
    with pytest.raises(ValueError, match=r"cannot read schedule file 'none\.json'"):
        parse_schedule("none.json", small_blind=1, big_blind=2, ante=0)
    path.write_text('{"levels": 3}')
    with pytest.raises(ScheduleError):
        parse_schedule(str(path), small_blind=1, big_blind=2, ante=0)


def test_replay_command_reports_ok_and_mismatch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    play([min_raiser, calling_station], MatchConfig(hand_count=4, seed=6), tmp_path)
    history = tmp_path / "hands.jsonl"
    assert main(["replay", str(history)]) == 0
    out = capsys.readouterr().out  # a summary by default, a line per hand with --verbose
    assert "hand 4" not in out and "4 hands replayed, 0 mismatched: identical" in out
    assert main(["replay", "--verbose", str(history)]) == 0
    assert "hand 4: OK" in capsys.readouterr().out
    text = history.read_text()
    history.write_text(
        text.replace('"seat_index":0,"player_id":"p0"', '"seat_index":1,"player_id":"p0"', 1)
    )
    assert main(["replay", "--quiet", str(history)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "NOT identical" in out
    history.write_text('{"type": "match", "format": 1}\n')
    assert _exit_code(["replay", str(history)]) == 2
    assert "cannot replay" in capsys.readouterr().err


def test_replay_checks_the_complete_hands_of_a_cut_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A run killed while writing leaves its last line cut short: the hands before it are
    # still checked, and the cut tail is reported.
    play([min_raiser, calling_station], MatchConfig(hand_count=4, seed=6), tmp_path)
    history = tmp_path / "hands.jsonl"
    lines = history.read_text().splitlines(keepends=True)
    cut = lines[3][: len(lines[3]) // 2]  # hand 3 half written
    history.write_text("".join(lines[:3]) + cut)
    assert main(["replay", str(history)]) == 0
    out = capsys.readouterr().out
    assert f"the last line ({len(cut.encode())} bytes) was cut short" in out
    assert "2 hands replayed, 0 mismatched: identical" in out


def test_replay_given_results_json_says_what_the_file_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    play([min_raiser, calling_station], MatchConfig(hand_count=2, seed=6), tmp_path)
    assert _exit_code(["replay", str(tmp_path / "results.json")]) == 2
    err = capsys.readouterr().err
    assert "is a match's results file (results.json), not its hand history" in err
    assert "give the hands.jsonl next to it" in err
    other = tmp_path / "other.json"
    other.write_text('{\n  "a": 1\n}\n')
    assert _exit_code(["replay", str(other)]) == 2
    assert "a JSON document, not a hand history (one JSON record per line" in (
        capsys.readouterr().err
    )


def test_match_command_plays_and_writes_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "run"
    log_file = tmp_path / "match.log"
    argv = ["match", STATION, STRENGTH, "--hands", "6", "--seed", "3", "--out", str(out_dir)]
    argv += ["--log-level", "info", "--log-file", str(log_file), "--decision-timeout", "2s"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "python calling station" in captured.out and "bb/100" in captured.out
    assert "match: 6 hands, seed 3" in captured.out and "match match" not in captured.out
    assert "hand 6/6 (100%)" in captured.err  # plain progress lines: stderr is not a TTY
    results = json.loads((out_dir / "results.json").read_text())
    assert results["hands_played"] == 6 and results["seed"] == 3
    assert sum(player["chips_won"] for player in results["players"]) == 0
    assert "HAND_START | Hand: 1, Players: 2" in log_file.read_text()


def test_match_command_freezeout_with_schedule_and_default_out_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["match", STATION, STATION, "--freezeout", "--stack", "20", "--schedule", "double@2"]
    assert main([*argv, "--no-progress", "--seed", "8", "--log-level", "off"]) == 0
    out = capsys.readouterr().out
    assert "freezeout" in out
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("match-")  # never named after the (secret) seed
    assert json.loads((run / "results.json").read_text())["ended_reason"] == "one_player_left"


def test_no_reset_match_without_seed_picks_and_records_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["match", STATION, STATION, "--no-reset", "--hands", "2", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["mode"] == "carry" and isinstance(results["seed"], int)


def test_a_bot_whose_build_fails_stops_the_match_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A bot that cannot be started at all when the match begins is nearly always a mistake
    # of whoever runs it: the match stops before its first hand, naming the bot and why.
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text(
        'name = "broken"\ncommand = ["./missing"]\nbuild = ["false"]\n',
    )
    argv = ["match", STATION, str(bot_dir / "bot.toml"), "--hands", "2", "--no-progress"]
    with pytest.raises(SystemExit) as stopped:
        main([*argv, "--out", str(tmp_path / "run"), "--log-level", "off"])
    assert stopped.value.code == 2
    captured = capsys.readouterr()
    assert "'broken' (seat 1)" in captured.err and "--allow-absent" in captured.err
    assert "cannot start, the build failed: 'broken' (seat 1): build 'false' failed" in captured.err
    assert not (tmp_path / "run" / "results.json").exists()


def test_a_failed_build_shows_the_end_of_its_output_even_without_verbose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The reason alone ("failed (exit code 2)") never says what to fix; the compiler's
    # error, at the end of the build's output, does: it is shown under the reason, and
    # the advice comes on a line of its own after it.
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    noise = "; ".join(f"print('step {n}')" for n in range(30))
    script = f"import sys; {noise}; print('bot.c:3:5: error: expected ;'); sys.exit(2)"
    (bot_dir / "bot.toml").write_text(
        f'name = "broken"\ncommand = ["./bot"]\nbuild = ["{{python}}", "-c", "{script}"]\n'
    )
    argv = ["match", STATION, str(bot_dir / "bot.toml"), "--hands", "2", "--no-progress"]
    assert _exit_code([*argv, "--out", str(tmp_path / "run"), "--log-level", "off"]) == 2
    err = capsys.readouterr().err
    assert "failed (exit code 2)" in err and "its output ends with:" in err
    lines = err.splitlines()
    error_line = lines.index("  | bot.c:3:5: error: expected ;")
    assert lines[error_line - 1] == "  | step 29" and "  | step 11" in lines
    assert "  | step 10" not in lines  # only the end: 20 lines
    assert lines[error_line + 1] == "fix the bot, or pass --allow-absent to play on without it"


def test_a_bot_that_cannot_start_stops_the_match_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text('name = "gone"\ncommand = ["./missing"]\n')
    argv = ["match", STATION, str(bot_dir / "bot.toml"), "--hands", "2", "--no-progress"]
    assert _exit_code([*argv, "--out", str(tmp_path / "run"), "--log-level", "off"]) == 2
    err = capsys.readouterr().err
    assert "not ready at the start of the match" in err and "--allow-absent" in err


def test_allow_absent_plays_on_without_a_bot_that_cannot_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text(
        'name = "broken"\ncommand = ["./missing"]\nbuild = ["false"]\n',
    )
    argv = ["match", STATION, str(bot_dir / "bot.toml"), "--hands", "2", "--no-progress"]
    argv += ["--allow-absent", "--out", str(tmp_path / "run"), "--log-level", "off"]
    assert main(argv) == 0
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert results["players"][1]["faults"]["counts"]["startup_failure"] >= 1


def test_check_bot_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-bot", STATION]) == 0
    out = capsys.readouterr().out
    assert "PASS  handshake" in out and "result: PASSED" in out
    garbage = str(HOSTILE_BOTS / "garbage" / "bot.toml")
    assert main(["check-bot", garbage, "--decision-timeout", "300ms"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  first_decision" in out and "result: FAILED" in out


@pytest.mark.usefixtures("one_pool_worker")
def test_demo_skips_bots_whose_tools_are_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_which = shutil.which
    monkeypatch.setattr(
        shutil,
        "which",
        lambda name, **options: None if name in ("node", "make") else real_which(name, **options),
    )
    argv = ["demo", "--deals", "3", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "note: skipping 'js tight'" in out and "'node' is not installed" in out
    assert "note: skipping 'c pairs'" in out
    assert "demo: 3 starter bots, a duplicate round robin of 3 deals per pair, seed 2024" in out


def test_demo_skips_a_bot_whose_build_fails_and_needs_two_bots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.toml").write_text('name = "bad"\ncommand = ["./x"]\nbuild = ["false"]\n')
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text("name = \n")
    monkeypatch.setattr(
        demo, "sample_bot_manifests", lambda: [bad / "bot.toml", broken / "bot.toml"]
    )
    assert main(["demo", "--out", str(tmp_path / "run")]) == 1
    out = capsys.readouterr().out
    assert "its build failed" in out and f"skipping {broken / 'bot.toml'}" in out
    assert "only 0 starter bot(s) can run here" in out


def test_sample_bot_manifests_lists_every_starter_bot() -> None:
    names = [path.parent.name for path in demo.sample_bot_manifests()]
    assert {"python_random", "python_calling_station", "js_tight", "c"} <= set(names)


def test_the_installed_arena_program_runs_and_rejects_bad_flags(tmp_path: Path) -> None:
    program = Path(sys.executable).parent / "arena"
    assert program.exists(), "the arena console script is installed by `make` (pyproject)"
    argv = [str(program), "match", STATION, STATION, "--hands", "2", "--seed", "1"]
    done = subprocess.run(
        [*argv, "--out", str(tmp_path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "hand history:" in done.stdout
    bad = subprocess.run(
        [str(program), "match", STATION, STATION, "--hands", "many"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "'many' is not a whole number" in bad.stderr and "Traceback" not in bad.stderr


def test_ctrl_c_stops_the_match_and_says_where_the_hands_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(host, "run_match", interrupted)
    argv = ["match", STATION, STATION, "--hands", "2", "--out", str(tmp_path), "--no-progress"]
    assert main(argv) == 130
    assert f"interrupted: the hands played so far are in {tmp_path}" in capsys.readouterr().out


def test_no_prefetch_plays_the_same_match_without_work_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[bool] = []

    def spy(config: MatchConfig, *args: Any, **kwargs: Any) -> Any:
        seen.append(config.prefetch)
        return run_match(config, *args, **kwargs)

    monkeypatch.setattr(host, "run_match", spy)
    argv = ["match", STATION, STRENGTH, "--hands", "8", "--seed", "5", "--no-progress"]
    argv += ["--log-level", "off"]
    assert main([*argv, "--out", str(tmp_path / "on")]) == 0
    assert main([*argv, "--no-prefetch", "--out", str(tmp_path / "off")]) == 0
    assert seen == [True, False]
    history = (tmp_path / "on" / "hands.jsonl").read_bytes()
    assert history.count(b'"type":"hand"') == 8
    assert (tmp_path / "off" / "hands.jsonl").read_bytes() == history


def test_out_that_is_a_file_or_holds_a_match_or_cannot_be_made_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    used = tmp_path / "used"
    used.mkdir()
    (used / "hands.jsonl").write_text("{}\n")
    for out, named in (
        (a_file, f"--out {str(a_file)!r} is a file, not a folder"),
        (used, f"--out {str(used)!r} already holds a run (hands.jsonl)"),
        (a_file / "sub", f"cannot write to --out {str(a_file / 'sub')!r}"),
    ):
        assert _exit_code(["match", STATION, STATION, "--hands", "1", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert named in err and "Traceback" not in err
    assert a_file.read_text() == "mine" and (used / "hands.jsonl").read_text() == "{}\n"


def test_cap_heads_up_flag_keeps_the_fixed_limit_cap_in_the_match_and_hello(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    argv = ["match", STATION, STATION, "--hands", "2", "--betting", "fixed_limit"]
    argv += ["--cap-heads-up", "--out", str(out), "--no-progress", "--no-report"]
    assert main([*argv, "--sandbox", "none"]) == 0
    header = json.loads((out / "hands.jsonl").read_text().splitlines()[0])
    assert header["config"]["game"]["cap_heads_up"] is True


def test_a_failed_build_never_plays_the_program_an_earlier_build_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A working ./bot.py from an earlier build, and a build that now fails: the match is
    # refused, and with --allow-absent the bot sits out instead of playing the old program.
    bot_dir = tmp_path / "bot"
    shutil.copytree(SAMPLE_BOTS / "python_calling_station", bot_dir)
    manifest = bot_dir / "bot.toml"
    manifest.write_text(manifest.read_text() + 'build = ["false"]\n')  # no tables in it
    argv = ["match", STATION, str(manifest), "--hands", "2", "--no-progress", "--log-level", "off"]
    assert _exit_code([*argv, "--out", str(tmp_path / "refused")]) == 2
    assert "cannot start, the build failed" in capsys.readouterr().err
    assert not (tmp_path / "refused" / "hands.jsonl").exists()
    assert main([*argv, "--allow-absent", "--out", str(tmp_path / "absent")]) == 0
    results = json.loads((tmp_path / "absent" / "results.json").read_text())
    assert results["players"][1]["faults"]["counts"]["startup_failure"] >= 1


def test_the_old_spelling_of_a_renamed_flag_still_works_but_is_not_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    argv = ["match", STATION, STATION, "--hands", "1", "--structure", "pot_limit"]
    assert main([*argv, "--out", str(out), "--no-progress", "--no-report"]) == 0
    header = json.loads((out / "hands.jsonl").read_text().splitlines()[0])
    assert header["config"]["game"]["structure"] == "pot_limit"
    capsys.readouterr()
    assert _exit_code(["match", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--betting {no_limit,pot_limit,fixed_limit}" in text and "--structure" not in text


def test_a_match_on_an_80_column_terminal_prints_its_tables_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The results and score tables of two long-named bots are wider than 80 columns: a
    # terminal cut or wrapped them. They are fitted to its width, and no cell is cut.
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "80")
    out = Terminal()
    argv = ["match", STATION, STRENGTH, "--hands", "4", "--seed", "2", "--no-progress"]
    argv += ["--out", str(tmp_path / "run"), "--no-report", "--log-level", "off"]
    assert main(argv, stdout=out) == 0
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # the terminal's colours
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("match: 4 hands"))
    tables = lines[
        start : next(i for i, line in enumerate(lines) if line.startswith("hand history"))
    ]
    assert tables and all(len(line) <= 80 for line in tables) and "…" not in text
    assert "python calling station" in text and "python hand strength" in text
    assert "raw" in text and "bb/100" in text  # the header wraps at its space
    assert "; rows by adjusted" in text  # the score the match is measured by


# -- the command table, its flags and the commands' one-line errors --------------------------
# The ``arena`` front door: the command table, ``--version``, help for every flag, no
# abbreviated flags, interrupts at any moment, and the one-line errors of the commands.


def test_the_docstring_names_every_command_of_the_table() -> None:
    assert cli.__doc__ is not None
    names = ", ".join(f"``{name}``" for name in COMMANDS)
    assert len(COMMANDS) == 11 and "eleven commands" in cli.__doc__
    for name in COMMANDS:
        assert f"``{name}``" in cli.__doc__, names
        module = load(name)
        assert module.DESCRIPTION and callable(module.add_arguments) and callable(module.run)


def test_plain_arena_lists_the_commands_and_exits_0() -> None:
    out = io.StringIO()
    assert main([], stdout=out) == 0
    text = out.getvalue()
    for name, info in COMMANDS.items():
        assert name in text and info.summary.split()[0] in text


def test_version_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["--version"]) == 0
    assert capsys.readouterr().out.startswith("arena ")


@pytest.mark.parametrize(
    ("argv", "unknown"),
    [
        (["match", STATION, STATION, "--hand", "10"], "--hand"),
        (["tournament", STATION, STATION, "--deal", "5"], "--deal"),
        (["report", "runs/x", "--viewer", "3"], "--viewer"),
    ],
)
def test_a_prefix_of_a_flag_is_refused_not_guessed(
    argv: list[str], unknown: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _exit_code(argv) == 2
    assert f"unrecognized arguments: {unknown}" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_flag_of_every_command_has_help_and_a_real_metavar(name: str) -> None:
    parser = command_parser(build_parser(only=name), name)
    assert parser.description
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"arena {name} {action.option_strings or action.dest}: no help"
        assert action.metavar != "V", f"arena {name} {action.option_strings}"


def test_tournament_help_shows_each_values_kind() -> None:
    text = command_parser(build_parser(only="tournament"), "tournament").format_help()
    for shown in ("--deals N", "--decision-timeout SECONDS", "--memory SIZE", "--seed SEED"):
        assert shown in text
    assert " V " not in text and "--max-hands" not in text  # the old spelling is hidden


def test_ctrl_c_during_start_up_is_the_interrupted_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(only: str | None = None) -> argparse.ArgumentParser:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    out = io.StringIO()
    assert main(["match", STATION, STATION], stdout=out) == 130
    assert out.getvalue() == "\narena: interrupted\n"


def test_main_runs_outside_the_main_thread_without_touching_signals() -> None:
    results: list[int] = []
    out = io.StringIO()
    worker = threading.Thread(target=lambda: results.append(main([], stdout=out)))
    worker.start()
    worker.join(timeout=60)
    assert results == [0] and "commands:" in out.getvalue()


def test_sigterm_ends_a_command_as_ctrl_c_does(monkeypatch: pytest.MonkeyPatch) -> None:
    def terminated(args: argparse.Namespace, out: object) -> int:
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not interrupt")  # pragma: no cover

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(replay, "run", terminated)
    out = io.StringIO()
    assert main(["replay", "x.jsonl"], stdout=out) == 130
    assert "interrupted" in out.getvalue()
    assert signal.getsignal(signal.SIGTERM) == before  # the handler goes with the command


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ('name = "x"\ncommand = [\n', "not valid TOML"),
        ('name = "x"\n', "key 'command': is missing"),
        ('name = "x"\ncommand = "python bot.py"\n', "not the string 'python bot.py'"),
        ('name = "x"\ncommand = ["a"]\ncolour = 1\n', "colour"),
    ],
)
def test_check_bot_on_a_manifest_it_cannot_read_is_one_line_and_exit_2(
    tmp_path: Path, body: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "bot.toml"
    manifest.write_text(body)
    assert _exit_code(["check-bot", str(manifest), "--sandbox", "none"]) == 2
    captured = capsys.readouterr()
    first, _hint = captured.err.splitlines()
    assert first.startswith("arena check-bot: error: bad manifest: ") and named in first
    assert "not run" not in captured.out


def test_check_bot_whose_build_tool_cannot_run_is_one_line_and_exit_1(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cannot_run(*args: object, **kwargs: object) -> object:
        raise BotStartError("cannot run 'rustc': No such file or directory")

    monkeypatch.setattr(check_bot, "check_bot", cannot_run)
    out = io.StringIO()
    assert run_command("check-bot", [STATION, "--sandbox", "none"], out) == 1
    (line,) = [
        line for line in out.getvalue().splitlines() if not line.startswith(("sandbox", " "))
    ]
    assert line == (
        f"result: FAILED: 'python calling station' ({STATION}) cannot be built or started "
        "here: cannot run 'rustc': No such file or directory"
    )


def test_report_into_a_folder_that_does_not_exist_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "nowhere" / "deeper" / "x.html"
    assert _exit_code(["report", str(tmp_path), "-o", str(target)]) == 2
    first, _hint = capsys.readouterr().err.splitlines()
    assert first == (
        f"arena report: error: -o {str(target)!r}: the folder {str(target.parent)!r} does not exist"
    )
    assert not (tmp_path / "nowhere").exists()


def test_tournament_out_at_an_existing_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("mine")
    argv = ["tournament", STATION, STATION, "--out", str(a_file), "--sandbox", "none"]
    assert _exit_code(argv) == 2
    first, _hint = capsys.readouterr().err.splitlines()
    assert first == (
        f"arena tournament: error: --out {str(a_file)!r} is a file, not a folder; give a "
        "folder for the run"
    )
    assert a_file.read_text() == "mine"
