"""``arena report`` and the report a match or tournament writes when it ends."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.cli import build_parser, command_parser, run_command
from arena.commands.report import default_output, report_after_run
from arena.store.run_folder import RunFolder
from tests.arena.report.conftest import embedded_data


def _run(*argv: str | Path) -> tuple[int, str]:
    """``arena report ARGV`` through its own parser (as arena.cli wires it)."""
    out = io.StringIO()
    code = run_command("report", [str(arg) for arg in argv], out)
    return code, out.getvalue()


def test_the_report_goes_to_the_run_folder_by_default(rr_run: Path, tmp_path: Path) -> None:
    assert default_output(rr_run) == rr_run / RunFolder.REPORT
    assert default_output(rr_run / "matches" / "x" / "hands.jsonl") == (
        rr_run / "matches" / "x" / RunFolder.REPORT
    )
    code, out = _run(rr_run, "-o", tmp_path / "out.html", "--max-hands", "5")
    assert code == 0
    assert out.startswith(f"report: {tmp_path / 'out.html'} (")
    assert "5 of 60 hands in the viewer" in out


def test_hand_options_embed_and_open_those_hands(rr_run: Path, tmp_path: Path) -> None:
    target = tmp_path / "hand.html"
    code, _out = _run(
        rr_run, "--hand", "rr-001-b01/2", "--hand", "rr-003-b02/5", "-o", target, "--max-hands", "0"
    )
    assert code == 0
    data = embedded_data(target.read_text(encoding="utf-8"))
    assert [hand["id"] for hand in data["hands"]] == ["rr-001-b01/2", "rr-003-b02/5"]
    assert data["open"] == "rr-001-b01/2"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{tmp}/missing"], "missing: no such file or folder"),
        (["{tmp}"], "is not a run folder"),
        (["{rr}", "--hand", "rr-001-b01/999"], "match 'rr-001-b01' has no hand 999"),
        (["{rr}", "--hand", "seven"], "'seven' does not name a hand"),
        (["{rr}", "--max-hands", "-3"], "'-3' must not be negative"),
    ],
)
def test_a_bad_source_or_value_is_one_line_and_exit_code_2(
    rr_run: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    message: str,
) -> None:
    filled = [arg.format(tmp=tmp_path, rr=rr_run) for arg in argv]
    with pytest.raises(SystemExit) as exit_info:
        _run(*filled, "-o", tmp_path / "r.html")
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    first, hint = error.splitlines()
    assert first.startswith("arena report: error: ") and message in first
    assert hint == "  see `arena report --help`"
    assert "Traceback" not in error


def test_after_a_run_the_report_is_written_and_named(rr_run: Path, tmp_path: Path) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(rr_run, run)
    out = io.StringIO()
    path = report_after_run(run, out)
    assert path == run / RunFolder.REPORT and path.is_file()
    assert out.getvalue() == f"report: {path}\n"


def test_after_a_run_a_report_problem_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    out = io.StringIO()
    assert report_after_run(tmp_path / "gone", out) is None
    assert out.getvalue().startswith(f"warning: no report written for {tmp_path / 'gone'}: ")


def test_the_parser_documents_every_option() -> None:
    text = command_parser(build_parser(only="report"), "report").format_help()
    for option in ("--out", "--viewer-hands", "--hand", "SOURCE", "MATCH/N"):
        assert option in text
    assert "--max-hands" not in text  # the old spelling, kept working but not shown
