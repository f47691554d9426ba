"""The worker (``validate_uploads``) in this process: it validates what is queued with the
pipeline, shows each step, keeps the bot's stderr; a pipeline that raises is the site's
failure, never the bot's. The admin's actions: validate again, disable, re-run only an
infrastructure failure."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from arena.server.site.admin import rerun_infrastructure_failures
from arena.server.site.models import (
    BotVersion,
    FailureKind,
    Match,
    MatchStatus,
    SiteSettings,
    VersionStatus,
)
from arena.server.site.versions import revalidate
from arena.server.validation.queue import RETRY_SECONDS, claim_next
from arena.server.validation.report import Verdict
from arena.server.validation.worker import validation_worker
from tests.arena.server.factories import PASSWORD, bot_archive, make_team, make_version
from tests.arena.server.scripted_pipeline import accept

pytestmark = pytest.mark.usefixtures("db")


def test_the_worker_validates_the_queue_and_keeps_the_steps() -> None:
    version = make_version(make_team("ants"))
    validation_worker(io.StringIO().write, pipeline=accept).run(once=True)
    done = BotVersion.objects.get(pk=version.pk)
    assert (done.status, done.stderr) == (VersionStatus.ACCEPTED, "hello from the bot")
    steps = [(step.step, step.status) for step in done.steps.all()]
    assert steps == [
        (name, "passed") for name in ("building", "protocol_check", "validation_match")
    ]
    revalidate(done)
    again = BotVersion.objects.get(pk=version.pk)
    assert again.status == VersionStatus.QUEUED and not again.steps.exists()


def test_a_pipeline_that_raises_is_the_sites_failure() -> None:
    version = make_version(make_team("ants"))
    said = io.StringIO()
    validation_worker(said.write, pipeline=_broken).run(once=True)
    done = BotVersion.objects.get(pk=version.pk)
    assert done.status == VersionStatus.REJECTED
    assert "not the bot" in done.reason and "RuntimeError" in done.reason
    assert f"validation of version {version.pk} failed: RuntimeError" in said.getvalue()
    # The exception's text stays in the worker's log: the page shows what failed only.
    assert [step.message for step in done.steps.all()] == ["the site failed"]
    page = Client()
    assert page.login(username="ants-1", password=PASSWORD)
    assert "the disk is full" not in page.get(f"/versions/{version.pk}/").content.decode()


def _broken(*args: object) -> Verdict:
    raise RuntimeError("the disk is full")


def test_only_an_infrastructure_failure_is_run_again() -> None:
    ours = Match.objects.create(
        status=MatchStatus.FAILED,
        source="ladder",
        external_id="1",
        failure_kind=FailureKind.INFRASTRUCTURE,
    )
    bots = Match.objects.create(
        status=MatchStatus.FAILED,
        source="ladder",
        external_id="2",
        failure_kind=FailureKind.BOT_FAULT,
    )
    played = Match.objects.create(status=MatchStatus.FINISHED, source="ladder", external_id="3")
    assert rerun_infrastructure_failures(Match.objects.all()) == (1, 2)
    statuses = {match.pk: match.status for match in Match.objects.all()}
    assert statuses == {
        ours.pk: MatchStatus.QUEUED,
        bots.pk: MatchStatus.FAILED,
        played.pk: MatchStatus.FINISHED,
    }


def test_a_validation_that_cannot_run_here_goes_back_to_the_queue(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The default pipeline, with a house bot that cannot be loaded: the site's failure.
    SiteSettings.objects.update_or_create(
        pk=1, defaults={"validation_house_bot": str(tmp_path / "missing" / "bot.toml")}
    )
    version = make_version(make_team("ants"), data=bot_archive())
    call_command("validate_uploads", once=True)
    waiting = BotVersion.objects.get(pk=version.pk)
    assert (waiting.status, waiting.attempts, waiting.claimed_by) == ("building", 1, "")
    assert "house bot cannot be loaded" in waiting.reason
    # Claimed again once the retry's lease expires, not before.
    assert claim_next("w2") is None
    later = timezone.now() + timedelta(seconds=RETRY_SECONDS + 1)
    again = claim_next("w2", now=later)
    assert again is not None and again.attempts == 2
