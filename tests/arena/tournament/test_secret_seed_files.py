"""Every file of a run that holds a secret seed is for the arena's user only (mode 0600):
the results database, each match's hands.jsonl and results.json, and, once a finished
tournament reveals its secret seed, standings.json and report.html. A seed given with
--seed is no secret: those two stay readable by others (issue 22 #20)."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import main
from arena.store.run_folder import RunFolder
from tests.arena.tournament.helpers import FOLDER, STATION, run_tournament

pytestmark = pytest.mark.allow_error_logs


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """Files not made private get the umask's mode: the usual 022 here."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _tournament(out: Path, *extra: str) -> dict[str, object]:
    code, text = run_tournament(
        FOLDER, STATION, "--deals", "2", "--block-deals", "2", "--out", out,
        "--sandbox", "none", "--concurrency", "1", "--no-progress", *extra,
    )  # fmt: skip
    assert code == 0, text
    document: dict[str, object] = json.loads((out / RunFolder.STANDINGS).read_text("utf-8"))
    return document


def test_a_finished_tournament_keeps_its_secret_seed_in_private_files_only(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    standings = _tournament(out)
    assert isinstance(standings["seed"], int)  # revealed at the end, to the arena's user
    folder = RunFolder(out)
    assert _mode(folder.standings) == 0o600
    assert _mode(folder.report) == 0o600
    assert _mode(folder.database) == 0o600
    matches = sorted((out / RunFolder.MATCHES).iterdir())
    assert matches
    for match in matches:
        assert _mode(match / RunFolder.HISTORY) == 0o600
        assert _mode(match / RunFolder.RESULTS) == 0o600
    # Written again by a resume (from an earlier, readable file), still private.
    folder.standings.chmod(0o644)
    _tournament(out)
    assert _mode(folder.standings) == 0o600


def test_a_seed_given_on_the_command_line_is_no_secret(tmp_path: Path) -> None:
    out = tmp_path / "run"
    standings = _tournament(out, "--seed", "5")
    assert standings["seed"] == 5
    folder = RunFolder(out)
    assert _mode(folder.standings) == 0o644
    assert _mode(folder.report) == 0o644
    assert _mode(folder.database) == 0o600  # it holds the matches' seeds either way


def test_a_match_report_that_shows_its_seed_is_private_as_its_results(tmp_path: Path) -> None:
    out = tmp_path / "match"
    argv = ["match", str(STATION), str(FOLDER), "--hands", "2", "--sandbox", "none"]
    assert main([*argv, "--no-progress", "--out", str(out)]) == 0
    folder = RunFolder(out)
    assert _mode(folder.results) == 0o600
    assert _mode(folder.report) == 0o600
    # A hand history alone shows no seed: its report is for anyone.
    alone = tmp_path / "alone.html"
    assert main(["report", str(folder.history), "-o", str(alone)]) == 0
    assert _mode(alone) == 0o644
