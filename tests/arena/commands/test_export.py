"""``arena export``: the files it writes, its report of refused hands and its exit codes
(0 every hand written, 1 some refused, 2 a bad source, format or output)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.cli import run_command
from arena.commands.export import default_output
from engine.config import BettingStructure, GameConfig
from tests.arena.export.runs import play_hands, write_hands
from tests.arena.report.runs import write_tournament


def run(*argv: str) -> tuple[int, str]:
    """Run ``arena export ARGV`` as the ``arena`` command line does; (exit code, output)."""
    out = io.StringIO()
    code = run_command("export", list(argv), out)
    return code, out.getvalue()


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        run(*argv)
    assert info.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 2 and "arena export: error: " in error  # usage, then one line
    return error


@pytest.fixture
def match(tmp_path: Path) -> Path:
    hands = play_hands(GameConfig(), 5, players=3)
    write_hands(tmp_path / "run" / "hands.jsonl", "m1", ["ann", "bob", "cat"], hands)
    return tmp_path / "run"


def test_phh_of_a_match_goes_to_its_folder_by_default(match: Path) -> None:
    code, output = run(str(match), "--format", "phh")
    assert code == 0
    target = default_output(match, "phh")
    assert target == match / "hands.phhs" and target.is_file()
    assert output == f"export: 5 hands written as PHH to {target}\n"


def test_acpc_of_a_tournament_is_a_log_per_match_in_a_folder(tmp_path: Path) -> None:
    run_folder = write_tournament(tmp_path / "t", deals=2, block_deals=2)
    code, output = run(str(run_folder), "--format", "acpc", "-o", str(tmp_path / "logs"))
    assert code == 0 and "export: 12 hands written as ACPC log lines" in output
    logs = sorted((tmp_path / "logs").iterdir())
    assert len(logs) == 6 and logs[0].name == "rr-001-b01-swap.log"
    lines = logs[0].read_text().splitlines()
    assert lines[0].startswith("# ") and lines[2].startswith("# match rr-001-b01-swap")
    assert [line[:6] for line in lines[3:]] == ["STATE:", "STATE:", "SCORE:"]


def test_acpc_in_one_file_ends_with_the_players_totals(match: Path, tmp_path: Path) -> None:
    target = tmp_path / "all.log"
    code, _ = run(str(match / "hands.jsonl"), "--format", "acpc", "-o", str(target))
    assert code == 0
    lines = target.read_text().splitlines()
    states = [line for line in lines if line.startswith("STATE:")]
    assert len(states) == 5
    totals = {"ann": 0, "bob": 0, "cat": 0}
    for line in states:
        _, values, names = line.rsplit(":", 2)
        for name, value in zip(names.split("|"), values.split("|"), strict=True):
            totals[name] += int(value)
    score = lines[-1]
    assert score.startswith("SCORE:")
    _, values, names = score.split(":")
    assert dict(zip(names.split("|"), map(int, values.split("|")), strict=True)) == totals


def test_refused_hands_exit_1_and_say_how_many_and_why(tmp_path: Path) -> None:
    config = GameConfig(structure=BettingStructure.POT_LIMIT)
    write_hands(tmp_path / "hands.jsonl", "pl", ["a", "b"], play_hands(config, 4))
    code, output = run(str(tmp_path / "hands.jsonl"), "--format", "phh")
    assert code == 1
    assert output.splitlines() == [
        "export: 0 hands written as PHH to nowhere (nothing to write)",
        "export: 4 hands left out, which PHH cannot express:",
        "  4 hands: PHH has no code for pot_limit holdem (only no-limit and fixed-limit "
        "hold'em are exported) (first: pl/1)",
    ]
    code, output = run(str(tmp_path / "hands.jsonl"), "--format", "acpc")
    assert code == 1 and "  4 hands: pot-limit: the ACPC protocol has limit and no-limit" in output


def test_some_hands_refused_still_writes_the_others(tmp_path: Path) -> None:
    hands = play_hands(GameConfig(), 3)
    hands[1:2] = play_hands(GameConfig(ante=1), 1)  # ACPC games have no antes
    write_hands(tmp_path / "hands.jsonl", "m", ["a", "b"], hands)
    code, output = run(str(tmp_path / "hands.jsonl"), "--format", "acpc")
    assert code == 1
    assert "export: 2 hands written" in output and "export: 1 hand left out" in output
    assert "  1 hand: the hand has antes, which ACPC games do not have (first: m/1)" in output


def test_a_bad_source_is_one_line_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    error = fails(capsys, str(tmp_path / "nowhere"), "--format", "phh")
    assert f"'{tmp_path / 'nowhere'}' does not exist" in error


def test_a_bad_format_is_refused_by_name(capsys: pytest.CaptureFixture[str], match: Path) -> None:
    with pytest.raises(SystemExit) as info:
        run(str(match), "--format", "xml")
    assert info.value.code == 2
    assert "argument --format: invalid choice: 'xml'" in capsys.readouterr().err


def test_an_output_of_the_wrong_kind_is_refused(
    capsys: pytest.CaptureFixture[str], match: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "taken.phhs"
    folder.mkdir()
    assert "is a folder" in fails(capsys, str(match), "--format", "phh", "-o", str(folder))
    file = tmp_path / "file"
    file.write_text("")
    assert "is a file, not a folder" in fails(
        capsys, str(match), "--format", "acpc", "-o", str(file)
    )
    error = fails(capsys, str(match), "--format", "phh", "-o", str(file / "x.phhs"))
    assert f"-o '{file / 'x.phhs'}': '{file}' is a file, not a folder" in error


@pytest.mark.parametrize("name", ["x.phhs", "per-hand"])
def test_an_output_in_a_missing_folder_is_refused_as_report_refuses_it(
    capsys: pytest.CaptureFixture[str], match: Path, tmp_path: Path, name: str
) -> None:
    # As `arena report -o`: the folders are never made, which for a typo would build a
    # tree at the file system's root; the error names the missing folder.
    target = tmp_path / "nowhere" / "dir" / name
    error = fails(capsys, str(match), "--format", "phh", "-o", str(target))
    assert f"-o '{target}': the folder '{target.parent}' does not exist" in error
    assert not (tmp_path / "nowhere").exists()


def test_a_broken_hand_file_stops_the_export_naming_the_line(
    capsys: pytest.CaptureFixture[str], match: Path
) -> None:
    path = match / "hands.jsonl"
    lines = path.read_text().splitlines()
    path.write_text("\n".join([*lines[:3], "garbage", *lines[3:]]) + "\n")
    assert "hands.jsonl:4: not a JSON record" in fails(capsys, str(match), "--format", "phh")
