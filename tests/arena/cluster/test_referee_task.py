"""The cluster task's side: a referee per match under a deadline, its files, its checks.

These run the task function in this process (as a Dask worker's thread would), so the
referees' zygote is a child of the test and is stopped after each test.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import socket
import struct
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from arena.cluster import checks, files, task
from arena.cluster import zygote as zygote_module
from arena.cluster.checks import check_bots_here
from arena.cluster.files import pack_files, unpack_files
from arena.cluster.job import MatchJob
from arena.cluster.task import match_deadline, run_in_referee
from arena.cluster.zygote import Zygote, ZygoteError, close_zygote
from arena.match.config import MatchConfig, StackPolicy
from arena.session.policy import TimeLimits
from arena.store.outcome import MatchOutcome
from arena.tournament.worker import play_match
from tests import TEST_BOTS
from tests.arena.cluster.helpers import stall
from tests.arena.tournament.helpers import FOLDER, STATION

pytestmark = pytest.mark.allow_error_logs

HANG = TEST_BOTS / "hang" / "bot.toml"
F_SETPIPE_SZ = 1031  # Linux: a pipe's capacity


@pytest.fixture(autouse=True)
def stop_the_zygote() -> Iterator[None]:
    yield
    close_zygote()


def job_for(
    tmp_path: Path, manifests: tuple[Path, ...] = (FOLDER, STATION), **config: object
) -> MatchJob:
    settings: dict[str, object] = {"hand_count": 4, "seed": 5, "match_id": "m-1", **config}
    return MatchJob(
        match_id="m-1",
        config=MatchConfig(**settings),  # type: ignore[arg-type]
        bots=("first", "second"),
        manifests=manifests,
        sandbox="none",
        tournament_dir=tmp_path,
    )


def exit_mid_match(job: MatchJob) -> MatchOutcome:
    """A referee that dies without an outcome, saying why on stderr."""
    print("the referee fell over", file=sys.stderr, flush=True)
    os._exit(3)


def _playing() -> list[psutil.Process]:
    """The zygote's referees that are playing (they have bots) with their bots: not the
    spare referee that waits for the next match."""
    zygote = zygote_module._zygote
    if zygote is None:
        return []
    found: list[psutil.Process] = []
    try:
        for referee in psutil.Process(zygote.process.pid).children():
            bots = referee.children(recursive=True)
            if bots:
                found += [referee, *bots]
    except psutil.NoSuchProcess:
        return found
    return found


def _referee_count() -> int:
    zygote = zygote_module._zygote
    return 0 if zygote is None else len(psutil.Process(zygote.process.pid).children())


# -- the task ----------------------------------------------------------------------------------


def test_a_match_in_a_referee_gives_the_same_outcome_as_in_this_process(tmp_path: Path) -> None:
    remote_outcome = run_in_referee(play_match, job_for(tmp_path / "a"), 120.0)
    local = play_match(job_for(tmp_path / "b"))
    assert remote_outcome.is_counted
    assert remote_outcome.hands == local.hands
    assert [s.chips_won for s in remote_outcome.seats] == [s.chips_won for s in local.seats]
    assert {name for name, _mode, _data in remote_outcome.files} >= {"hands.jsonl"}
    assert not (tmp_path / "a").exists()  # the referee wrote in its own folder


def test_a_hung_match_is_a_timeout_fault_and_its_referee_and_bots_are_killed(
    tmp_path: Path,
) -> None:
    # The bot never answers and the decision limit is long: only the deadline ends it. The
    # deadline leaves the referee and both bots time to start on a loaded machine (at 2 s,
    # under a load of 15 on two cores, the deadline came before the bots had started).
    job = job_for(tmp_path, (HANG, STATION), time_limits=TimeLimits(decision_s=60.0))
    outcome: list[MatchOutcome] = []
    runner = threading.Thread(target=lambda: outcome.append(run_in_referee(play_match, job, 8.0)))
    runner.start()
    seen: list[psutil.Process] = []
    while runner.is_alive() and len(seen) < 3:  # the referee and its two bots
        seen = _playing()
        time.sleep(0.05)
    runner.join()
    assert len(seen) >= 3, "the match never started"
    (result,) = outcome
    assert result.ended_reason == "timeout" and not result.is_counted
    assert result.error is not None and result.error.startswith("timeout: ")
    assert "deadline of 8 s" in result.error
    _gone, alive = psutil.wait_procs(seen, timeout=10)
    assert not alive


def test_a_cancelled_match_has_its_referee_killed_at_once_not_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host cancels the match while it plays (its tournament stopped): the task kills
    # the referee at its next check instead of letting it play on to the 300 s deadline.
    # (The referee's bots go with it as at a deadline: see the hung match above.)
    handed = _spy_on_referees(monkeypatch)
    cancelled = threading.Event()
    outcome: list[MatchOutcome] = []

    def wanted() -> bool:
        return not cancelled.is_set()

    def play() -> None:
        job = job_for(tmp_path)
        outcome.append(run_in_referee(stall, job, 300.0, ship_files=False, is_wanted=wanted))

    runner = threading.Thread(target=play)
    runner.start()
    while runner.is_alive() and not (tmp_path / "started").exists():  # the referee plays
        time.sleep(0.05)
    (referee,) = [psutil.Process(pid) for pid in handed]
    cancelled.set()
    runner.join(timeout=60)
    assert not runner.is_alive(), "the cancelled match played on"
    (result,) = outcome
    assert not result.is_counted and result.error is not None
    assert result.error.startswith("cancelled: the host no longer wanted the match on ")
    _gone, alive = psutil.wait_procs([referee], timeout=10)
    assert not alive


def _spy_on_referees(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process ids of the referees the zygote hands a match from now on."""
    handed: list[int] = []
    spawn = Zygote.spawn

    def counted(self: Zygote, stdin: int, stdout: int, stderr: int) -> int:
        handed.append(spawn(self, stdin, stdout, stderr))
        return handed[-1]

    monkeypatch.setattr(Zygote, "spawn", counted)
    return handed


def test_a_match_cancelled_before_its_referee_is_forked_forks_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Dask may start a task its host has already cancelled: it must ask for no referee.
    asked: list[tuple[int, int, int]] = []

    class Noting:
        """A zygote that notes each request for a referee and forks none."""

        def spawn(self, stdin: int, stdout: int, stderr: int) -> int:
            asked.append((stdin, stdout, stderr))
            raise ZygoteError("this zygote forks no referee")

    monkeypatch.setattr(task, "shared_zygote", Noting)
    outcome = run_in_referee(play_match, job_for(tmp_path), 60.0, is_wanted=lambda: False)
    assert outcome.error is not None and outcome.error.startswith("cancelled: ")
    assert asked == []
    wanted = run_in_referee(play_match, job_for(tmp_path), 60.0)
    assert wanted.error == "this zygote forks no referee" and len(asked) == 1  # it is asked


def test_a_referee_that_dies_is_a_failed_match_quoting_its_stderr(tmp_path: Path) -> None:
    outcome = run_in_referee(exit_mid_match, job_for(tmp_path), 60.0)
    assert not outcome.is_counted and outcome.ended_reason == "error"
    assert outcome.error == ("the referee ended without an outcome: the referee fell over")


def test_a_job_that_cannot_be_sent_leaves_no_referee_behind(tmp_path: Path) -> None:
    with pytest.raises((pickle.PicklingError, AttributeError)):
        run_in_referee(lambda job: play_match(job), job_for(tmp_path), 60.0)
    assert _playing() == [] and _referee_count() <= 1  # at most the spare, waiting


def test_one_zygote_serves_many_matches_and_one_that_died_is_started_again(
    tmp_path: Path,
) -> None:
    first = run_in_referee(play_match, job_for(tmp_path / "a"), 120.0)
    assert first.is_counted and zygote_module._zygote is not None
    old = zygote_module._zygote.process
    assert run_in_referee(play_match, job_for(tmp_path / "c"), 120.0).is_counted
    assert zygote_module._zygote.process is old
    old.kill()
    old.wait()
    second = run_in_referee(play_match, job_for(tmp_path / "b"), 120.0)
    assert second.is_counted
    assert zygote_module._zygote is not None and zygote_module._zygote.process.pid != old.pid


def test_a_zygote_that_cannot_start_is_a_failed_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Zygote:
        raise ZygoteError("the referee zygote did not start (exit code 1)")

    monkeypatch.setattr(task, "shared_zygote", broken)
    outcome = run_in_referee(play_match, job_for(tmp_path), 60.0)
    assert outcome.error == "the referee zygote did not start (exit code 1)"


def test_a_zygote_that_cannot_hand_over_a_referee_is_a_failed_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Refusing:
        root = tmp_path

        def spawn(self, stdin: int, stdout: int, stderr: int) -> int:
            raise ZygoteError("the referee zygote could not fork a referee (b'')")

    monkeypatch.setattr(task, "shared_zygote", Refusing)
    outcome = run_in_referee(play_match, job_for(tmp_path), 60.0)
    assert outcome.error == "the referee zygote could not fork a referee (b'')"


def test_a_zygote_whose_python_cannot_run_the_arena_says_so() -> None:
    with pytest.raises(ZygoteError, match=r"did not start \(exit code 1\)"):
        Zygote(python="/bin/false")


def test_a_zygote_that_never_says_ready_is_killed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = tmp_path / "silent"
    silent.write_text("#!/bin/sh\nexec sleep 60\n", encoding="utf-8")
    silent.chmod(0o755)
    monkeypatch.setattr(zygote_module, "ZYGOTE_START_S", 0.2)
    monkeypatch.setattr(zygote_module, "ZYGOTE_STOP_S", 0.2)
    with pytest.raises(ZygoteError, match="did not start: timed out"):
        Zygote(python=str(silent))


def _fake_zygote() -> tuple[Zygote, socket.socket]:
    zygote = object.__new__(Zygote)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    zygote._lock = threading.Lock()
    zygote._socket = ours
    return zygote, theirs


def test_a_zygote_that_cannot_fork_or_is_gone_is_an_error() -> None:
    zygote, theirs = _fake_zygote()
    read, write = os.pipe()
    try:
        theirs.send(struct.pack("!i", -1))
        with pytest.raises(ZygoteError, match="could not fork"):
            zygote.spawn(read, write, write)
        zygote._socket.close()
        with pytest.raises(ZygoteError, match="stopped answering"):
            zygote.spawn(read, write, write)
    finally:
        theirs.close()
        os.close(read)
        os.close(write)


def test_exchange_reads_everything_even_when_the_referee_never_read_its_job() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    os.close(stdin_r)  # the referee died before it read: writing breaks the pipe
    fcntl.fcntl(stderr_w, F_SETPIPE_SZ, 1 << 20)  # room for more than one read of it
    os.write(stderr_w, b"x" * 200_000 + b" and its last words")  # only the tail is kept
    os.write(stdout_w, b"partial")
    os.close(stdout_w)
    os.close(stderr_w)
    try:
        data, said = task._exchange(stdin_w, stdout_r, stderr_r, b"x" * 100, time.monotonic() + 10)
    finally:
        os.close(stdout_r)
        os.close(stderr_r)
    assert data == b"partial"
    assert len(said) == task.STDERR_TAIL_BYTES and said.endswith(b" and its last words")


def test_exchange_writes_a_big_job_in_pieces_while_it_reads() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    payload = os.urandom(1 << 20)  # far more than a pipe holds: written as it is read
    received: list[bytes] = []

    def referee() -> None:
        with os.fdopen(stdin_r, "rb") as source, os.fdopen(stdout_w, "wb") as sink:
            received.append(source.read())
            os.write(stderr_w, b"playing")
            sink.write(b"done")  # stderr stays open: a bot may hold it

    thread = threading.Thread(target=referee)
    thread.start()
    try:
        data, said = task._exchange(stdin_w, stdout_r, stderr_r, payload, time.monotonic() + 60)
    finally:
        thread.join()
        for fd in (stdout_r, stderr_r, stderr_w):
            os.close(fd)
    assert data == b"done" and received == [payload] and said == b"playing"


def test_exchange_gives_up_at_the_deadline() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    os.close(stderr_w)  # a closed stderr is read to its end once
    try:
        late = time.monotonic() + 0.2
        assert task._exchange(stdin_w, stdout_r, stderr_r, b"job", late) == (None, b"")
        gone = time.monotonic() - 1
        assert task._exchange(os.dup(stdout_w), stdout_r, stderr_r, b"", gone) == (None, b"")
    finally:
        for fd in (stdin_r, stdout_r, stdout_w, stderr_r):
            os.close(fd)


def test_exchange_gives_up_when_the_match_is_no_longer_wanted() -> None:
    stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    answers = iter([True, False])  # wanted at the first check, cancelled at the second
    try:
        later = time.monotonic() + 60
        data = task._exchange(stdin_w, stdout_r, stderr_r, b"job", later, lambda: next(answers))
        assert data == (None, b"")
        assert os.read(stdin_r, 10) == b"job"  # sent before the cancel was seen
    finally:
        for fd in (stdin_r, stdout_r, stdout_w, stderr_r, stderr_w):
            os.close(fd)


def test_killing_a_referee_that_is_gone_does_nothing() -> None:
    task._kill(2**22 + 12345, None, with_descendants=True)  # no such group: no error


# -- the deadline ------------------------------------------------------------------------------


def test_the_deadline_allows_every_start_and_four_full_decisions_per_seat_and_hand(
    tmp_path: Path,
) -> None:
    job = job_for(
        tmp_path, hand_count=100, time_limits=TimeLimits(decision_s=5.0, time_bank_s=10.0)
    )
    # 60 s margin + 2 seats x 4 starts x 10 s + 100 hands x 2 seats x 4 x 5 s + 2 x 10 s
    assert match_deadline(job) == 60 + 80 + 4000 + 20


def test_a_freezeout_without_a_cap_on_hands_gets_the_uncapped_allowance(tmp_path: Path) -> None:
    job = job_for(
        tmp_path,
        hand_count=None,
        stack_policy=StackPolicy.FREEZEOUT,
        time_limits=TimeLimits(decision_s=1.0),
    )
    assert match_deadline(job) == 60 + 2 * 4 * 10 + task.UNCAPPED_HANDS * 2 * 4 * 1


# -- the files ---------------------------------------------------------------------------------


def test_files_travel_with_their_modes_and_replace_the_hosts_folder(tmp_path: Path) -> None:
    source = tmp_path / "worker"
    (source / "stderr").mkdir(parents=True)
    (source / "hands.jsonl").write_text("hand\n", encoding="utf-8")
    (source / "hands.jsonl").chmod(0o600)
    (source / "stderr" / "p0.log").write_text("log\n", encoding="utf-8")
    (source / "link").symlink_to("/etc/passwd")  # never followed, never sent
    packed = pack_files(source)
    assert [name for name, _mode, _data in packed] == ["hands.jsonl", "stderr/p0.log"]
    target = tmp_path / "host" / "m-1"
    target.mkdir(parents=True)
    (target / "stale.txt").write_text("from a run cut short", encoding="utf-8")
    unpack_files(packed, target)
    assert sorted(p.relative_to(target).as_posix() for p in target.rglob("*")) == [
        "hands.jsonl",
        "stderr",
        "stderr/p0.log",
    ]
    assert (target / "hands.jsonl").read_text(encoding="utf-8") == "hand\n"
    assert (target / "hands.jsonl").stat().st_mode & 0o777 == 0o600


def test_a_missing_folder_packs_nothing_and_unpacks_into_a_new_folder(tmp_path: Path) -> None:
    assert pack_files(tmp_path / "nowhere") == ()
    unpack_files((), tmp_path / "runs" / "matches" / "m-1")
    assert (tmp_path / "runs" / "matches" / "m-1").is_dir()


def test_too_many_bytes_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "big.bin").write_bytes(os.urandom(4096))
    monkeypatch.setattr(files, "MAX_FILES_BYTES", 1000)
    with pytest.raises(ValueError, match=r"more than 0 MiB compressed.*block_deals"):
        pack_files(tmp_path)


@pytest.mark.parametrize("name", ["../escape.txt", "/etc/escape", "a/../../b", ""])
def test_a_path_that_leaves_the_match_folder_is_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="must stay in the match's folder"):
        unpack_files([(name, 0o600, zlib.compress(b"x"))], tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_data_that_does_not_unpack_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"'hands\.jsonl' does not unpack"):
        unpack_files([("hands.jsonl", 0o600, b"not zlib")], tmp_path / "m")


# -- the check on each worker ------------------------------------------------------------------


def test_a_worker_sees_the_hosts_file_only_with_its_token(tmp_path: Path) -> None:
    marker = tmp_path / ".dask-check"
    marker.write_text("token", encoding="utf-8")
    assert checks.sees_file(marker, "token")
    assert not checks.sees_file(marker, "another token")
    assert not checks.sees_file(tmp_path / "missing", "token")


def test_bots_that_can_start_here_give_no_problem() -> None:
    assert check_bots_here([FOLDER, STATION], "none") == []


def test_every_reason_a_bot_cannot_start_here_is_named(tmp_path: Path) -> None:
    unbuilt = tmp_path / "unbuilt"
    unbuilt.mkdir()
    (unbuilt / "bot.toml").write_text('name = "c bot"\ncommand = ["build/bot"]\n', "utf-8")
    (tmp_path / "bot.toml").write_text(
        'name = "nowhere"\ncommand = ["no-such-program-anywhere"]\n', "utf-8"
    )
    problems = check_bots_here(
        [tmp_path / "missing.toml", unbuilt / "bot.toml", tmp_path / "bot.toml"], "bogus"
    )
    assert problems[0].startswith("'bogus' is not a valid SandboxLevel")
    assert problems[1].startswith(f"{tmp_path / 'missing.toml'}: ")
    assert problems[2] == f"bot 'c bot': its program {str(unbuilt / 'build' / 'bot')!r} is not here"
    assert problems[3] == "bot 'nowhere': its program 'no-such-program-anywhere' is not here"
    assert len(problems) == 4


def test_a_built_bot_is_checked_in_its_build_where_the_matches_start_it(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "bot.toml").write_text('name = "c bot"\ncommand = ["build/bot"]\n', "utf-8")
    build = tmp_path / "run" / "builds" / "c_bot"
    (build / "build").mkdir(parents=True)
    (build / "build" / "bot").write_text("#!/bin/sh\n", encoding="utf-8")
    (build / "build" / "bot").chmod(0o755)
    manifests = [source / "bot.toml", STATION]
    assert check_bots_here(manifests, "none", working_dirs=[build, None]) == []
    gone = tmp_path / "elsewhere" / "builds" / "c_bot"
    assert check_bots_here(manifests, "none", working_dirs=[gone]) == [
        f"bot 'c bot': its build {gone} is not here (the run folder must be at the same path"
        " on every worker)"
    ]


def test_a_bot_whose_folder_is_missing_is_named(tmp_path: Path) -> None:
    (tmp_path / "gone.toml").write_text(
        'name = "gone"\ncommand = ["{python}"]\nworking_dir = "gone"\n', "utf-8"
    )
    (problem,) = check_bots_here([tmp_path / "gone.toml"], "none")
    assert problem.endswith(f"key 'working_dir': '{tmp_path / 'gone'}' is not a directory")


def test_a_zygote_that_cannot_start_is_a_problem_of_the_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken() -> Zygote:
        raise ZygoteError("the referee zygote did not start (exit code 1)")

    monkeypatch.setattr(checks, "shared_zygote", broken)
    assert check_bots_here([FOLDER], "none") == ["the referee zygote did not start (exit code 1)"]
