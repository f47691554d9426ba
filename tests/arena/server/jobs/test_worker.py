"""The workers' loop (:class:`arena.server.jobs.worker.Worker`), with jobs in a list: it
claims until nothing is left (``once``) or after ``jobs`` jobs, stores what the work gave,
turns work that raises into the ``failed`` result ("the site failed, not the bot") and says
so, and on a stop signal releases the job in hand and ends, its closing run either way."""

from __future__ import annotations

import os
import signal
import threading
from dataclasses import replace

from django.test import override_settings

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
