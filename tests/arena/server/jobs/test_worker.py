"""The workers' loop (:class:`arena.server.jobs.worker.Worker`), with jobs in a list: it
claims until nothing is left (``once``) or after ``jobs`` jobs, stores what the work gave,
turns work that raises into the ``failed`` result ("the site failed, not the bot") and says
so, and on a stop signal releases the job in hand and ends, its closing run either way (a
second signal cannot cut that short); the lease is renewed only while the work shows
progress; a paced loop starts a job at most every ``spacing`` seconds."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from dataclasses import replace

import pytest
from django.test import override_settings

from arena.server.jobs import worker as worker_module
from arena.server.jobs.models import NOTICE_AFTER
from arena.server.jobs.worker import Stop, Worker


class Jobs:
    """Jobs to hand out and what became of them."""

    def __init__(self, *jobs: str) -> None:
        self.waiting = list(jobs)
        self.stored: list[tuple[str, str]] = []
        self.released: list[str] = []
        self.said: list[str] = []
        self.closed = 0
        self.renewed = threading.Event()

    def claim(self) -> str | None:
        return self.waiting.pop(0) if self.waiting else None

    def renew(self, job: str, worker: str) -> bool:
        self.renewed.set()
        return True

    def release(self, job: str, worker: str) -> None:
        self.released.append(f"{job} by {worker}")

    def depth(self) -> int:
        return len(self.waiting)

    def worker(self, work: object) -> Worker[str, str]:
        return Worker(
            worker="w1",
            claim=self.claim,
            leases=self,
            work=work,  # type: ignore[arg-type]
            failed=lambda job, error: f"{job}: the site failed ({type(error).__name__})",
            store=lambda job, result: self.stored.append((job, result)),
            name=lambda job: f"job {job}",
            warn=self.said.append,
        )

    def close(self) -> None:
        self.closed += 1


def test_once_the_loop_works_every_job_then_stops() -> None:
    jobs = Jobs("a", "b")
    jobs.worker(str.upper).run(once=True, closing=jobs.close)
    assert jobs.stored == [("a", "A"), ("b", "B")]
    assert jobs.closed == 1 and not jobs.released


def test_the_loop_stops_after_the_jobs_it_was_asked_for() -> None:
    jobs = Jobs("a", "b", "c")
    jobs.worker(str.upper).run(jobs=2)
    assert jobs.stored == [("a", "A"), ("b", "B")] and jobs.waiting == ["c"]


def test_work_that_raises_is_the_sites_failure_and_the_loop_goes_on() -> None:
    def work(job: str) -> str:
        if job == "a":
            raise OSError("the disk is full")
        return job.upper()

    jobs = Jobs("a", "b")
    jobs.worker(work).run(once=True)
    assert jobs.stored == [("a", "a: the site failed (OSError)"), ("b", "B")]
    assert jobs.said == ["job a failed: OSError('the disk is full')"]


def test_a_stop_signal_releases_the_job_in_hand_and_ends_the_loop() -> None:
    def work(job: str) -> str:
        os.kill(os.getpid(), signal.SIGTERM)  # as arena server run stops its workers
        raise AssertionError("the signal stops the work first")

    before = signal.getsignal(signal.SIGTERM)
    jobs = Jobs("a", "b")
    jobs.worker(work).run(closing=jobs.close, jobs=5)
    # Not stored, not counted as a failure: put back for the next worker; "b" never taken.
    assert (jobs.released, jobs.stored, jobs.waiting, jobs.closed) == (["a by w1"], [], ["b"], 1)
    assert signal.getsignal(signal.SIGTERM) == before  # the handlers are the caller's again


def test_stop_is_not_an_exception_the_work_could_catch() -> None:
    # The work's own "except Exception" must not swallow the stop.
    assert not issubclass(Stop, Exception)


def test_with_nothing_to_claim_the_loop_waits_and_looks_again() -> None:
    jobs = Jobs()
    claims = iter([None, "a"])
    replace(jobs.worker(str.upper), claim=lambda: next(claims)).run(jobs=1, poll=0.0)
    assert jobs.stored == [("a", "A")]


def test_the_lease_is_renewed_while_the_work_runs() -> None:
    jobs = Jobs("a")

    def work(job: str) -> str:
        # A lease of 30 ms is renewed every 10 ms: the work waits until it has been.
        return "renewed" if jobs.renewed.wait(60) else "never renewed"

    with override_settings(ARENA_LEASE_SECONDS=0.03):
        jobs.worker(work).run(once=True)
    assert jobs.stored == [("a", "renewed")]


def test_a_second_stop_signal_cannot_cut_the_first_ones_cleanup_short() -> None:
    # The kernel's parent-death SIGTERM can arrive twice. The second one lands while the
    # job in hand is being put back: the release still finishes, and closing runs once.
    jobs = Jobs("a")

    def work(job: str) -> str:
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("the signal stops the work first")

    def release(job: str, worker: str) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # the second signal, in the middle of cleanup
        jobs.released.append(f"{job} by {worker}")

    jobs.release = release  # type: ignore[method-assign]
    jobs.worker(work).run(closing=jobs.close, jobs=5)
    assert (jobs.released, jobs.closed) == (["a by w1"], 1)


def test_a_stop_signal_already_on_its_way_when_the_first_stopped_does_nothing() -> None:
    before = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    handler = worker_module._StopOnce()
    try:
        with pytest.raises(Stop):
            handler(signal.SIGTERM, None)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
        handler(signal.SIGINT, None)  # queued before the signals were ignored: no second Stop
    finally:
        for number, previous in before.items():
            signal.signal(number, previous)


def test_the_lease_is_not_renewed_while_the_work_shows_no_progress() -> None:
    # A worker stuck on its job (a hung pool) must let the lease expire, so that another
    # worker plays the job again: renewal follows progress, not a thread being alive.
    jobs = Jobs("a")
    looks = threading.Semaphore(0)

    def stuck(job: str) -> int:
        looks.release()
        return 7  # the same hand count at every look

    def work(job: str) -> str:
        for _ in range(4):  # the keeper's first look and three renewal times
            looks.acquire()
        return "done"

    with override_settings(ARENA_LEASE_SECONDS=0.03):
        replace(jobs.worker(work), progress=stuck).run(once=True)
    assert jobs.stored == [("a", "done")] and not jobs.renewed.is_set()


def test_the_lease_is_renewed_when_the_work_has_advanced() -> None:
    jobs = Jobs("a")
    hands = iter(range(1000))

    def work(job: str) -> str:
        return "renewed" if jobs.renewed.wait(60) else "never renewed"

    with override_settings(ARENA_LEASE_SECONDS=0.03):
        replace(jobs.worker(work), progress=lambda _job: next(hands)).run(once=True)
    assert jobs.stored == [("a", "renewed")]


def test_a_lost_claim_ends_the_renewals() -> None:
    jobs = Jobs("a")
    tries: list[str] = []

    def lost(job: str, worker: str) -> bool:
        tries.append(job)
        return False

    def work(job: str) -> str:
        while not tries:
            jobs.renewed.wait(0.01)
        return "done"

    jobs.renew = lost  # type: ignore[method-assign]
    with override_settings(ARENA_LEASE_SECONDS=0.03):
        jobs.worker(work).run(once=True)
    assert tries == ["a"]  # tried once, then the keeper stopped


class FakeClock:
    """``time`` for the loop: sleeping moves the clock, nothing waits."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_paced_loop_starts_a_job_at_most_every_spacing_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = FakeClock()
    monkeypatch.setattr(worker_module, "time", clock)
    jobs = Jobs("a", "b", "c")

    def work(job: str) -> str:
        clock.now += 10.0  # each job takes 10 s
        return job

    jobs.worker(work).run(jobs=3, spacing=60.0)
    # Started at 100, 160 and 220: after each 10 s job, the loop waits the other 50 s.
    assert clock.slept == [50.0, 50.0] and [job for job, _ in jobs.stored] == ["a", "b", "c"]


def test_an_unpaced_loop_never_waits_between_jobs(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = FakeClock()
    monkeypatch.setattr(worker_module, "time", clock)
    jobs = Jobs("a", "b")
    jobs.worker(str.upper).run(jobs=2)
    assert clock.slept == []


class ListTally:
    """The worker's counts, in lists."""

    def __init__(self) -> None:
        self.depths: list[int] = []
        self.failures: list[str | None] = []

    def looked(self, depth: Callable[[], int]) -> None:
        self.depths.append(depth())

    def finished(self, failure: str | None) -> int:
        self.failures.append(failure)
        in_a_row = 0
        for found in reversed(self.failures):
            if found is None:
                break
            in_a_row += 1
        return in_a_row


def test_the_loop_counts_the_site_s_failures_and_the_queue_s_depth() -> None:
    # Work that raises, and a result the site could not produce here, are the site's
    # failures; a bot's bad result is not.
    def work(job: str) -> str:
        if job == "boom":
            raise OSError("disk full")
        return job

    jobs, tally = Jobs("ok", "boom", "no-sandbox", "ok"), ListTally()
    replace(jobs.worker(work), tally=tally,
            site_failure=lambda result: "no sandbox" if result == "no-sandbox" else None,
            ).run(once=True)  # fmt: skip
    assert tally.depths == [3, 2, 1, 0, 0]  # waiting after each claim; the last look: none
    assert tally.failures == [None, "OSError('disk full')", "no sandbox", None]


def test_a_worker_that_keeps_failing_says_so_once_the_failures_come_in_a_row() -> None:
    jobs = Jobs(*[f"j{n}" for n in range(NOTICE_AFTER + 2)])
    replace(jobs.worker(str.upper), tally=ListTally(),
            site_failure=lambda result: f"{result} could not run").run(once=True)  # fmt: skip
    notices = [line for line in jobs.said if "site failures in a row" in line]
    assert notices == [f"worker w1: {NOTICE_AFTER} site failures in a row, the last: "
                       f"J{NOTICE_AFTER - 1} could not run"]  # fmt: skip


def test_a_result_the_database_refuses_is_said_and_the_loop_goes_on() -> None:
    # Never a dead worker: the job's claim runs out and another plays it again.
    jobs, tally = Jobs("a", "b"), ListTally()

    def store(job: str, result: str) -> None:
        if job == "a":
            raise RuntimeError("duplicate key")
        jobs.stored.append((job, result))

    replace(jobs.worker(str.upper), store=store, tally=tally).run(once=True)
    assert jobs.stored == [("b", "B")]
    assert jobs.said == ["job a: its result could not be stored: RuntimeError('duplicate key')"]
    assert tally.failures == ["storing: RuntimeError('duplicate key')", None]
