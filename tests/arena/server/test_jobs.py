"""The validation queue: a claim is exclusive, a lease that expires is claimed again, the
verdict needs the claim, a version that never finishes is given up."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from arena.server.site.models import BotVersion, VersionStatus
from arena.server.validation.queue import MAX_ATTEMPTS, claim_next, finish, record_step
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
