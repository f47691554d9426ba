"""The lease queue (:class:`arena.server.jobs.lease.LeaseQueue`) on the versions table: a
worker stopped by a signal puts its row back with the attempt not counted; a worker that
lost its claim can neither renew it nor write a step; a worker that loses the race for a
row reads the order again and takes the next; a claim's tries are bounded; the round-robin
order serves the group served longest ago first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import F, Q
from django.utils import timezone

from arena.server.jobs.lease import CLAIM_TRIES, round_robin
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


def test_a_worker_that_loses_a_race_reads_the_order_again() -> None:
    # Round robin across teams: after losing ants' first version to another worker, the
    # loser takes bees' (ants were just served), not ants' second from its first read.
    ants, bees = make_team("ants"), make_team("bees")
    first, _ = make_version(ants), make_version(ants)
    waiting = make_version(bees)

    def another_worker_wins(version: BotVersion) -> dict[str, object]:
        if version.pk == first.pk:
            claim_next("w0")  # takes it: ants served now
        return {"status": VersionStatus.BUILDING}

    won = QUEUE.claim_next(
        "w1", max_attempts=3, give_up=lambda _row, _now: None, claimed=another_worker_wins
    )
    assert won == waiting.pk
    assert BotVersion.objects.get(pk=first.pk).claimed_by == "w0"


def test_a_row_given_up_is_passed_over_even_when_give_up_leaves_it() -> None:
    team = make_team("ants")
    spent, fresh = make_version(team), make_version(team)
    BotVersion.objects.filter(pk=spent.pk).update(attempts=3)
    handed: list[int] = []
    won = QUEUE.claim_next(
        "w1",
        max_attempts=3,
        give_up=lambda row, _now: handed.append(row.pk),
        claimed=lambda _row: {"status": VersionStatus.BUILDING},
    )
    assert (won, handed) == (fresh.pk, [spent.pk])


def test_a_claim_stops_after_its_tries_and_claims_nothing() -> None:
    # Bounded work per claim: rows left as they were by give_up are tried CLAIM_TRIES
    # times in all; the rest wait for the next claim.
    team = make_team("ants")
    for _ in range(CLAIM_TRIES + 1):
        make_version(team)
    BotVersion.objects.update(attempts=3)
    handed: list[int] = []
    won = QUEUE.claim_next(
        "w1",
        max_attempts=3,
        give_up=lambda row, _now: handed.append(row.pk),
        claimed=lambda _row: {"status": VersionStatus.BUILDING},
    )
    assert won is None and len(handed) == CLAIM_TRIES


def test_round_robin_orders_by_the_groups_last_service_never_served_first() -> None:
    ants, bees, cats = make_team("ants"), make_team("bees"), make_team("cats")
    recent, earlier = make_version(ants), make_version(bees)
    now = timezone.now()
    BotVersion.objects.filter(pk=recent.pk).update(attempts=1, updated=now)
    BotVersion.objects.filter(pk=earlier.pk).update(attempts=1, updated=now - timedelta(days=1))
    make_version(cats)
    order = round_robin(BotVersion, "team", Q(attempts__gt=0), "updated")
    teams = BotVersion.objects.order_by(order, "pk").values_list("team__name", flat=True)
    assert list(teams) == ["cats", "bees", "ants"]


def test_the_depth_counts_waiting_rows_and_expired_leases_not_held_ones() -> None:
    team = make_team("ants")
    for _ in range(3):
        make_version(team)
    held = claim_next("w1")
    assert held is not None
    assert QUEUE.depth() == 2  # the held one is not waiting
    later = timezone.now() + timedelta(hours=1)  # its lease has expired by then
    assert QUEUE.depth(later) == 3
