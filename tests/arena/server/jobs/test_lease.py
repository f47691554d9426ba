"""The lease queue (:class:`arena.server.jobs.lease.LeaseQueue`) on the versions table: a
worker stopped by a signal puts its row back with the attempt not counted; a worker that
lost its claim can neither renew it nor write a step; a worker that loses the race for a
row passes to the next one."""

from __future__ import annotations

import pytest
from django.db.models import F

from arena.server.site.models import BotVersion, VersionStatus
from arena.server.validation.queue import QUEUE, claim_next, record_step
from arena.server.validation.report import StepReport, StepStatus
from tests.arena.server.factories import make_team, make_version

pytestmark = pytest.mark.usefixtures("db")


def test_a_released_row_waits_again_and_its_attempt_does_not_count() -> None:
    make_version(make_team("ants"))
    version = claim_next("w1")
    assert version is not None and version.attempts == 1
    QUEUE.release(version, "w1")
    back = BotVersion.objects.get(pk=version.pk)
    assert (back.status, back.attempts, back.claimed_by, back.lease_expires) == (
        VersionStatus.QUEUED, 0, "", None,
    )  # fmt: skip
    again = claim_next("w2")
    assert again is not None and again.attempts == 1 and again.claimed_by == "w2"


def test_a_worker_that_lost_its_claim_cannot_renew_it_or_show_a_step() -> None:
    make_version(make_team("ants"))
    version = claim_next("w1")
    assert version is not None
    QUEUE.release(version, "w1")  # as if its lease had gone to another worker
    assert not QUEUE.renew(version, "w1")
    record_step(version, "w1", StepReport("protocol_check", StepStatus.RUNNING))
    assert not version.steps.exists()
    assert BotVersion.objects.get(pk=version.pk).status == VersionStatus.QUEUED


def test_a_step_the_statuses_do_not_name_leaves_the_status_as_it_is() -> None:
    make_version(make_team("ants"))
    version = claim_next("w1")
    assert version is not None
    record_step(version, "w1", StepReport("warm_up", StepStatus.RUNNING, "warming up"))
    assert BotVersion.objects.get(pk=version.pk).status == VersionStatus.BUILDING
    assert [step.step for step in version.steps.all()] == ["warm_up"]


def test_a_worker_that_loses_the_race_for_a_row_takes_the_next() -> None:
    team = make_team("ants")
    first, second = make_version(team), make_version(team)

    def another_worker_wins(version: BotVersion) -> dict[str, object]:
        # Between this worker's read and its conditional update, another claims the row.
        if version.pk == first.pk:
            BotVersion.objects.filter(pk=first.pk).update(
                status=VersionStatus.BUILDING, claimed_by="w0", attempts=F("attempts") + 1
            )
        return {"status": VersionStatus.BUILDING}

    won = QUEUE.claim_next(
        "w1", max_attempts=3, give_up=lambda _row, _now: None, claimed=another_worker_wins
    )
    assert won == second.pk
    assert BotVersion.objects.get(pk=first.pk).claimed_by == "w0"
    assert BotVersion.objects.get(pk=second.pk).claimed_by == "w1"
