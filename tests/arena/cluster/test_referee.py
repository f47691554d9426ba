"""The referee: one pickled job in, one pickled outcome (files packed in) out."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.cluster import executor, files, referee
from arena.cluster.job import MatchJob
from arena.cluster.task import RefereeCall
from arena.match.config import MatchConfig
from arena.store.outcome import MatchOutcome
from arena.tournament.worker import play_match
from tests.arena.tournament.helpers import FOLDER, ROOT, STATION

pytestmark = pytest.mark.allow_error_logs


def job_for(tmp_path: Path, hands: int = 4) -> MatchJob:
    """A short heads-up match between the folder and the calling station."""
    return MatchJob(
        match_id="m-1",
        config=MatchConfig(hand_count=hands, seed=5, match_id="m-1"),
        bots=("fold", "call"),
        manifests=(FOLDER, STATION),
        sandbox="none",
        tournament_dir=tmp_path / "host",
    )


def chatty_match(job: MatchJob) -> MatchOutcome:
    """Prints to standard output first, as careless code might."""
    print("a stray line on stdout")
    return play_match(job)


def not_an_outcome(job: MatchJob) -> object:
    """Returns something other than an outcome."""
    return job.match_id


def _call(tmp_path: Path, play: object = play_match) -> bytes:
    return pickle.dumps(RefereeCall(play, job_for(tmp_path)))  # type: ignore[arg-type]


def _play(tmp_path: Path, data: bytes) -> tuple[int, MatchOutcome | None]:
    sink = io.BytesIO()
    code = referee.play_call(io.BytesIO(data), sink, tmp_path / "referee")
    return code, (pickle.loads(sink.getvalue()) if sink.getvalue() else None)


def test_the_referee_plays_in_its_own_folder_and_packs_the_files(tmp_path: Path) -> None:
    code, outcome = _play(tmp_path, _call(tmp_path))
    assert code == 0 and outcome is not None and outcome.is_counted
    assert len(outcome.hands) == 4
    assert outcome.hands_path == "matches/m-1/hands.jsonl"  # relative: the same on the host
    names = {name: mode for name, mode, _data in outcome.files}
    assert {"hands.jsonl", "results.json"} <= set(names)
    assert names["hands.jsonl"] == 0o600  # it holds the seed: the mode travels with it
    assert (tmp_path / "referee" / "matches" / "m-1" / "hands.jsonl").exists()
    assert not (tmp_path / "host").exists()  # the host's folder is the host's to write


def test_without_shipping_the_referee_plays_in_the_shared_run_folder(tmp_path: Path) -> None:
    data = pickle.dumps(RefereeCall(play_match, job_for(tmp_path), ship_files=False))
    code, outcome = _play(tmp_path, data)
    assert code == 0 and outcome is not None and outcome.is_counted
    assert outcome.files == ()
    assert (tmp_path / "host" / "matches" / "m-1" / "hands.jsonl").exists()
    assert not (tmp_path / "referee").exists()


def test_an_unreadable_job_is_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _play(tmp_path, b"not a pickle") == (referee.EXIT_BAD_JOB, None)
    assert "cannot read the job" in capsys.readouterr().err
    assert _play(tmp_path, pickle.dumps({"job": 1})) == (referee.EXIT_BAD_JOB, None)
    assert "expected a RefereeCall, got dict" in capsys.readouterr().err


def test_a_match_function_that_returns_no_outcome_is_a_failed_match(tmp_path: Path) -> None:
    code, outcome = _play(tmp_path, _call(tmp_path, not_an_outcome))
    assert code == 0 and outcome is not None and not outcome.is_counted
    assert outcome.error == "the match function returned str, not a MatchOutcome"


def test_files_too_big_to_send_back_are_a_failed_match_naming_block_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_FILES_BYTES", 10)
    code, outcome = _play(tmp_path, _call(tmp_path))
    assert code == 0 and outcome is not None and not outcome.is_counted
    assert outcome.error is not None and "block_deals" in outcome.error
    assert outcome.files == ()


def test_die_with_parent_leaves_at_once_when_the_parent_is_already_gone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[object, ...]] = []
    exits: list[int] = []

    class FakeLibc:
        def prctl(self, *args: object) -> int:
            calls.append(args)
            return 0

    monkeypatch.setattr(executor, "_LIBC", FakeLibc())
    monkeypatch.setattr(os, "_exit", exits.append)
    executor.die_with_parent(os.getppid())
    assert len(calls) == 1 and calls[0][0] == 1  # PR_SET_PDEATHSIG
    assert exits == []
    executor.die_with_parent(os.getppid() + 1_000_000)  # no such parent: it is gone already
    assert exits == [referee.EXIT_FAILED]


def test_main_plays_the_job_on_stdin_into_the_folder_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sink = io.BytesIO()
    sink.close = lambda: None  # type: ignore[method-assign]  # read it after main closed it
    parents: list[int] = []
    monkeypatch.setattr(referee, "_protected_stdout", lambda: sink)
    monkeypatch.setattr(referee, "die_with_parent", parents.append)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_call(tmp_path))))
    assert referee.main(["--folder", str(tmp_path / "given"), "--parent", "4242"]) == 0
    assert parents == [4242]
    assert pickle.loads(sink.getvalue()).is_counted
    assert (tmp_path / "given" / "matches" / "m-1" / "results.json").exists()


def test_main_without_a_folder_plays_in_a_temporary_one_it_removes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp(prefix: str) -> str:
        made.append(real_mkdtemp(prefix=prefix, dir=tmp_path))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", mkdtemp)
    monkeypatch.setattr(referee, "_protected_stdout", io.BytesIO)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"garbage")))
    assert referee.main([]) == referee.EXIT_BAD_JOB
    assert len(made) == 1 and not Path(made[0]).exists()


def test_protected_stdout_sends_stray_output_to_stderr() -> None:
    saved = os.dup(1)
    try:
        sink = referee._protected_stdout()
        assert os.path.sameopenfile(sink.fileno(), saved)  # the real stdout, for the outcome
        assert os.path.sameopenfile(1, 2)  # print() now writes to stderr
        sink.close()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def test_the_referee_as_a_script_keeps_its_stdout_for_the_outcome(tmp_path: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "arena.cluster.referee", "--parent", str(os.getpid())],
        input=_call(tmp_path, chatty_match),
        capture_output=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr.decode()
    outcome = pickle.loads(completed.stdout)
    assert isinstance(outcome, MatchOutcome) and outcome.is_counted
    assert b"a stray line on stdout" in completed.stderr
