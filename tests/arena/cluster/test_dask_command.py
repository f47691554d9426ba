"""``arena tournament --executor dask``: the same tournament on a local Dask cluster of 2
workers gives the local pool's results, survives a worker killed mid-match, and says
clearly when the cluster cannot play."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import psutil
import pytest

from arena.cli import main
from arena.cluster import dask_executor
from tests.arena.cluster.helpers import WorkerKiller, slow_bot
from tests.arena.tournament.helpers import (
    FOLDER,
    HAND_STRENGTH,
    STATION,
    run_tournament,
    standings,
)

pytestmark = pytest.mark.allow_error_logs

COMMON = ("--deals", "20", "--block-deals", "10", "--concurrency", "2", "--no-progress")


def _finished_once(out: Path) -> dict[str, int]:
    with sqlite3.connect(out / "results.sqlite") as db:
        rows = db.execute("SELECT match_id, status FROM matches").fetchall()
    counts: dict[str, int] = {}
    for _match_id, status in rows:
        counts[status] = counts.get(status, 0) + 1
    return counts


# In make test-long: a local tournament and a cluster of its own (10 s of CPU); make test
# plays matches on a cluster through the executor (test_dask_executor.py).
@pytest.mark.slow
def test_a_cluster_run_gives_the_local_results_and_its_files_replay(tmp_path: Path) -> None:
    # Under the limits layer each match starts its bots from their builds in the run folder.
    settings = (FOLDER, STATION, HAND_STRENGTH, *COMMON, "--seed", "9", "--sandbox", "limits")
    code, text = run_tournament(*settings, "--out", tmp_path / "local")
    assert code == 0, text
    code, text = run_tournament(*settings, "--out", tmp_path / "dask", "--executor", "dask")
    assert code == 0, text
    assert (
        "executor: dask, a local cluster: 2 workers, 2 threads; matches write into the shared"
        " run folder"
    ) in text
    assert standings(tmp_path / "dask") == standings(tmp_path / "local")
    assert _finished_once(tmp_path / "dask") == {"finished": 12}  # 3 pairs x 2 blocks x 2
    with sqlite3.connect(tmp_path / "dask" / "results.sqlite") as db:
        paths = [row[0] for row in db.execute("SELECT hands_path FROM matches")]
    for path in paths:  # the worker's files were written on the host, where the DB says
        assert (tmp_path / "dask" / path).is_file()
        assert (tmp_path / "dask" / path).with_name("results.json").is_file()
    replayed = io.StringIO()
    assert main(["replay", str(tmp_path / "dask" / paths[0])], stdout=replayed) == 0


@pytest.mark.slow  # make test: the same on the executor, test_dask_worker_loss.py
def test_a_worker_killed_mid_match_leaves_no_bot_and_its_match_is_played_again_once(
    tmp_path: Path,
) -> None:
    # Under the limits layer the bots' supervisors die with their referee, and a killed
    # worker's private folders may be swept by two launchers at once.
    settings: list[str | Path] = [slow_bot(tmp_path), STATION, *COMMON, "--seed", "11"]
    settings += ["--deals", "10", "--block-deals", "5", "--sandbox", "limits"]
    code, text = run_tournament(*settings, "--out", tmp_path / "local")
    assert code == 0, text

    killer = WorkerKiller()
    killer.start()
    try:
        code, text = run_tournament(*settings, "--out", tmp_path / "dask", "--executor", "dask")
    finally:
        killer.stop.set()
        killer.join()
    assert code == 0, text
    assert killer.killed_worker is not None, "no match was caught in the middle"
    # The worker's zygote, its referee and the bots (under their supervisors) died with it.
    _gone, alive = psutil.wait_procs(killer.victims, timeout=10)
    assert not alive, f"outlived their killed worker: {alive}"
    assert _finished_once(tmp_path / "dask") == {"finished": 4}  # each match stored once
    assert standings(tmp_path / "dask") == standings(tmp_path / "local")


def test_an_unreachable_scheduler_is_exit_code_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(dask_executor, "CONNECT_TIMEOUT_S", 0.5)
    code, _text = run_tournament(
        FOLDER, STATION, *COMMON, "--out", tmp_path / "out",
        "--executor", "dask", "--scheduler", "tcp://127.0.0.1:1",
    )  # fmt: skip
    assert code == 2
    error = capsys.readouterr().err
    assert "arena tournament: error: cannot reach the Dask scheduler at tcp://127.0.0.1:1" in error


def test_bots_the_workers_cannot_start_are_exit_code_2_before_any_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unbuilt = tmp_path / "unbuilt"
    unbuilt.mkdir()
    (unbuilt / "bot.toml").write_text('name = "c bot"\ncommand = ["build/bot"]\n', "utf-8")
    code, _text = run_tournament(
        unbuilt / "bot.toml", STATION, *COMMON, "--sandbox", "none",
        "--out", tmp_path / "out", "--executor", "dask",
    )  # fmt: skip
    assert code == 2
    error = capsys.readouterr().err
    assert "error: the bots cannot start on every Dask worker" in error
    assert "bot 'c bot': its program" in error
    assert not (tmp_path / "out" / "matches").exists()
