"""The site's worker (``validate_uploads``) with the real validation (its default
pipeline): a sample bot's archive is accepted with each step stored, a
hostile one is rejected with the rule and the entry."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from arena.server.site.models import BotVersion, VersionStatus
from arena.uploads import pack
from tests import REPO_ROOT
from tests.arena.server.factories import make_team, make_version
from tests.arena.uploads import hostile

pytestmark = pytest.mark.usefixtures("db")


@pytest.fixture
def database_url() -> None:
    """SQLite only: these tests are about the validation; the site's own tests try its
    storage on PostgreSQL too."""
    return None


def test_a_sample_bot_is_accepted_by_the_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    from arena.server.site.models import SiteSettings

    site = SiteSettings.current()
    site.validation_hands = 3
    site.save()
    version = make_version(
        make_team("ants"), data=pack(REPO_ROOT / "sample_bots" / "python_random")
    )
    call_command("validate_uploads", once=True)
    done = BotVersion.objects.get(pk=version.pk)
    assert done.status == VersionStatus.ACCEPTED, (done.reason, done.hint)
    steps = [(step.step, step.status) for step in done.steps.all()]
    assert steps == [
        (name, "passed") for name in ("unpack", "build", "protocol_check", "validation_match")
    ]


def test_a_zip_slip_is_rejected_by_the_worker_naming_the_entry() -> None:
    archive = hostile.zip_bytes(("bot.toml", b"x"), ("../../evil", b"x"))
    version = make_version(make_team("bees"), data=archive)
    call_command("validate_uploads", once=True)
    done = BotVersion.objects.get(pk=version.pk)
    assert done.status == VersionStatus.REJECTED
    assert done.reason == "entry '../../evil': a path may not leave the bot's folder"
    # The validation's own step reports, as they are: the first failed, the others skipped.
    assert [(step.step, step.status) for step in done.steps.all()] == [
        ("unpack", "failed"), ("build", "skipped"), ("protocol_check", "skipped"),
        ("validation_match", "skipped"),
    ]  # fmt: skip
