"""The validation queue: a claim is exclusive, a lease that expires is claimed again, the
verdict needs the claim, a version that never finishes is given up, and teams take turns
(the team served longest ago first, then its oldest upload)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.server.site.models import BotVersion, VersionStatus
from arena.server.validation.queue import MAX_ATTEMPTS, QUEUE, claim_next, finish, record_step
from arena.server.validation.report import StepReport, StepStatus, Verdict
from tests.arena.server.factories import make_team, make_version

pytestmark = pytest.mark.usefixtures("db")


def test_a_queued_version_is_claimed_once() -> None:
    version = make_version(make_team("ants"))
    claimed = claim_next("w1")
    assert claimed is not None and claimed.pk == version.pk
    assert claimed.status == VersionStatus.BUILDING and claimed.claimed_by == "w1"
    assert claim_next("w2") is None


def test_an_expired_lease_is_claimed_again_from_scratch() -> None:
    make_version(make_team("ants"))
    first = claim_next("w1")
    assert first is not None
    record_step(first, "w1", StepReport("building", StepStatus.RUNNING, "building"))
    assert first.steps.count() == 1
    later = timezone.now() + timedelta(hours=1)
    again = claim_next("w2", now=later)
    assert again is not None and again.pk == first.pk and again.claimed_by == "w2"
    assert again.attempts == 2 and again.steps.count() == 0
    # The first worker lost its claim: its verdict is not written.
    assert not finish(first, "w1", Verdict(True, "every step passed", "", ()))
    assert finish(again, "w2", Verdict(False, "no bot.toml", "", ()))
    assert BotVersion.objects.get(pk=first.pk).status == VersionStatus.REJECTED


def test_steps_show_the_status_and_the_verdict_keeps_them() -> None:
    make_version(make_team("ants"))
    version = claim_next("w1")
    assert version is not None
    record_step(version, "w1", StepReport("protocol_check", StepStatus.RUNNING))
    assert BotVersion.objects.get(pk=version.pk).status == VersionStatus.PROTOCOL_CHECK
    steps = (
        StepReport("building", StepStatus.PASSED, "built", duration_s=1.5),
        StepReport("protocol_check", StepStatus.PASSED, "spoke", duration_s=0.25),
    )
    assert finish(version, "w1", Verdict(True, "every step passed", "", steps, "thinking..."))
    done = BotVersion.objects.get(pk=version.pk)
    # An accepted version keeps no reason; the team log is its stderr.
    assert (done.status, done.reason, done.stderr) == (VersionStatus.ACCEPTED, "", "thinking...")
    assert [step.message for step in done.steps.all()] == ["built", "spoke"]
    assert [step.duration_s for step in done.steps.all()] == [1.5, 0.25]


def test_a_version_that_never_finishes_is_given_up_as_the_sites_failure() -> None:
    version = make_version(make_team("ants"))
    now = timezone.now()
    for attempt in range(MAX_ATTEMPTS):
        assert claim_next(f"w{attempt}", now=now) is not None
        now += timedelta(hours=1)
    assert claim_next("last", now=now) is None
    given_up = BotVersion.objects.get(pk=version.pk)
    assert given_up.status == VersionStatus.REJECTED
    assert "not the bot's" in given_up.reason


def test_a_disabled_queued_version_is_not_claimed() -> None:
    version = make_version(make_team("ants"))
    BotVersion.objects.filter(pk=version.pk).update(is_disabled=True)
    assert claim_next("w1") is None


def _validate_all(worker: str = "w1") -> list[str]:
    """Validate every queued version one at a time, as one worker does: the order served."""
    served = []
    while (version := claim_next(worker)) is not None:
        assert finish(version, worker, Verdict(True, "every step passed", "", ()))
        served.append(str(version))
    return served


def test_one_teams_many_uploads_do_not_delay_another_teams_upload() -> None:
    # Round robin, not first in first out: B uploads after A's three and is validated
    # second (A just served), not fourth.
    ants, bees = make_team("ants"), make_team("bees")
    for _ in range(3):
        make_version(ants)
    make_version(bees)
    assert _validate_all() == ["ants v1", "bees v1", "ants v2", "ants v3"]


def test_teams_never_served_take_turns_by_their_oldest_upload() -> None:
    ants, bees, cats = make_team("ants"), make_team("bees"), make_team("cats")
    make_version(bees)
    make_version(ants)
    make_version(bees)
    make_version(cats)
    make_version(ants)
    assert _validate_all() == ["bees v1", "ants v1", "cats v1", "bees v2", "ants v2"]


def test_a_team_with_a_version_in_validation_waits_behind_a_team_with_none() -> None:
    # Two workers at once: the second does not take A's next version while A's first is
    # still being validated and B waits.
    ants, bees = make_team("ants"), make_team("bees")
    make_version(ants)
    make_version(ants)
    make_version(bees)
    first, second = claim_next("w1"), claim_next("w2")
    assert (str(first), str(second)) == ("ants v1", "bees v1")


def test_the_team_served_longest_ago_goes_first_whatever_the_upload_order() -> None:
    ants, bees = make_team("ants"), make_team("bees")
    judged_ants, judged_bees = make_version(ants), make_version(bees)
    an_hour_ago = timezone.now() - timedelta(hours=1)
    # Ants were judged a minute ago, bees an hour ago (as the verdicts wrote it).
    BotVersion.objects.filter(pk=judged_ants.pk).update(
        status=VersionStatus.ACCEPTED, attempts=1, updated=an_hour_ago + timedelta(minutes=59)
    )
    BotVersion.objects.filter(pk=judged_bees.pk).update(
        status=VersionStatus.ACCEPTED, attempts=1, updated=an_hour_ago
    )
    make_version(ants)
    make_version(bees)
    assert _validate_all() == ["bees v2", "ants v2"]


def test_a_version_released_unclaimed_does_not_count_as_its_teams_turn() -> None:
    # A worker stopped by a signal puts its version back with the attempt not counted: its
    # team was not served, and its version goes first again.
    ants, bees = make_team("ants"), make_team("bees")
    make_version(ants)
    make_version(bees)
    stopped = claim_next("w1")
    assert stopped is not None and str(stopped) == "ants v1"
    QUEUE.release(stopped, "w1")
    assert _validate_all() == ["ants v1", "bees v1"]


def test_a_killed_workers_version_is_claimed_again_after_the_teams_served_before_it() -> None:
    # kill -9: the lease expires and the version is claimed again, the attempt counted;
    # its team was served by the lost claim, so the team waiting since then goes first.
    ants, bees = make_team("ants"), make_team("bees")
    make_version(ants)
    lost = claim_next("killed")
    assert lost is not None and lost.attempts == 1
    make_version(bees)
    later = timezone.now() + timedelta(hours=1)
    first, again = claim_next("w1", now=later), claim_next("w2", now=later)
    assert str(first) == "bees v1"
    assert again is not None and again.pk == lost.pk
    assert (again.claimed_by, again.attempts) == ("w2", 2)
