"""The ``arena`` front door: the command table, ``--version``, help for every flag, no
abbreviated flags, interrupts at any moment, and the one-line errors of the commands."""

from __future__ import annotations

import argparse
import io
import os
import signal
import threading
from pathlib import Path

import pytest

from arena import cli
from arena.bots.transport import BotStartError
from arena.cli import build_parser, command_parser, main, run_command
from arena.commands import COMMANDS, check_bot, load, replay
from tests.arena.scripted import SAMPLE_BOTS

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")


def _exit_code(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    code = info.value.code
    assert isinstance(code, int)
    return code


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
