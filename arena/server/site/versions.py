"""A team's versions: storing an upload (checked by :mod:`arena.uploads` first), choosing
the active one, validating one again. Plain functions the web form, the API and the admin
share; the views only translate their errors to HTTP.

An upload is written to the uploads folder and flushed to disk before its row is committed,
and the row before the client is answered: once ``201`` is sent, ``kill -9`` of anything
loses nothing, and the queue (:mod:`arena.server.validation.queue`) picks it up.
"""

from __future__ import annotations

import hashlib
import os

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Max

from arena.server.current import is_frozen_now
from arena.server.site import ratelimit, throttle
from arena.server.site.models import IN_PROGRESS, BotVersion, SiteSettings, Team, VersionStatus
from arena.uploads import ArchiveError, inspect

__all__ = ["WAITING", "UploadRefused", "UploadTooSoon", "activate", "revalidate", "store_upload"]

#: The statuses of a version waiting for its verdict (queued, or held by a worker).
WAITING = (VersionStatus.QUEUED, *IN_PROGRESS)


class UploadRefused(ValueError):
    """An upload that breaks a rule; the message names the rule (and the entry)."""


class UploadTooSoon(UploadRefused):
    """An upload refused for now (HTTP 429): a rate limit is used up, or the team already has
    as many versions waiting for validation as the site allows."""


def store_upload(team: Team, data: bytes, *, address: str | None = None) -> BotVersion:
    """Check ``data`` (a tar.gz or zip archive) and keep it as ``team``'s next version,
    queued for validation; :class:`UploadRefused` names the rule it breaks. Each upload
    counts towards the team's rate limit, and the address's when one is given (a client's);
    :class:`UploadTooSoon` when one is used up or the team has ``upload.queued_per_team``
    versions waiting already."""
    _refuse_after_the_deadline()
    rules = SiteSettings.current().rules()
    checks = [(ratelimit.TEAM_UPLOADS, f"team {team.pk}")]
    if address is not None:
        checks.append((ratelimit.UPLOADS_FROM_ADDRESS, address))
    for limit, key in checks:
        if throttle.is_over(limit, key):
            raise UploadTooSoon(limit.refusal)
    waiting = team.versions.filter(status__in=WAITING, is_disabled=False).count()
    if waiting >= rules.upload_queued_per_team:
        raise UploadTooSoon(
            f"the team has {waiting} versions waiting for validation, the most the site "
            f"allows (upload.queued_per_team = {rules.upload_queued_per_team}): upload again "
            "once one is done"
        )
    for limit, key in checks:
        throttle.note(limit, key)
    limits = rules.archive_limits
    if len(data) > limits.max_archive_bytes:
        raise UploadRefused(
            f"the archive is {len(data):,} bytes, more than the limit of "
            f"{limits.max_archive_bytes:,}"
        )
    try:
        inspect(data, limits)
    except ArchiveError as error:
        raise UploadRefused(str(error)) from None
    digest = hashlib.sha256(data).hexdigest()
    for _attempt in range(5):  # two uploads of one team at once: the second takes the next
        try:
            with transaction.atomic():
                latest = team.versions.aggregate(latest=Max("number"))["latest"] or 0
                version = BotVersion(team=team, number=latest + 1, archive_sha256=digest)
                version.archive.save(
                    f"team-{team.pk}-v{latest + 1}-{digest[:12]}", ContentFile(data), save=False
                )
                _flush(version.archive.path)
                version.save()
                return version
        except IntegrityError:
            continue
    raise UploadRefused("too many uploads at once; try again")


def _refuse_after_the_deadline() -> None:
    """From the competition's deadline on, the finals play the versions active then: no
    upload and no change of version counts any more."""
    if is_frozen_now():
        raise UploadRefused("the deadline has passed: uploads and activations are frozen")


def _flush(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def activate(team: Team, version: BotVersion) -> None:
    """Make ``version`` (accepted, the team's, not disabled) the one the team plays with."""
    if version.team_id != team.pk:
        raise ValueError("a team activates only its own versions")
    _refuse_after_the_deadline()
    if version.status != VersionStatus.ACCEPTED or version.is_disabled:
        raise UploadRefused(f"version {version.number} is not accepted: only an accepted one plays")
    Team.objects.filter(pk=team.pk).update(active_version=version)


def revalidate(version: BotVersion) -> None:
    """Put ``version`` back in the queue (the admin's action): its old verdict goes."""
    BotVersion.objects.filter(pk=version.pk).update(
        status=VersionStatus.QUEUED,
        reason="",
        hint="",
        claimed_by="",
        lease_expires=None,
        attempts=0,
    )
    version.steps.all().delete()
