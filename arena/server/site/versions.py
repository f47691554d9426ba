"""A team's versions: storing an upload (checked by :mod:`arena.uploads` first), choosing
the active one, validating one again.

Which version plays: a team's first accepted version becomes active by itself (when no
version of the team plays yet); an upload may ask to play once accepted, or never by
itself (``activate``, stored as :attr:`BotVersion.activate_when_accepted`); the team
activates an accepted version at any time, or asks for a waiting one to play once
accepted (:func:`request_activation`). An upload identical to one of the team's versions
(the same SHA-256, :func:`identical_version`) is that version again: the form and the API
link it to that version instead of storing and validating it again. Plain functions the
web form, the API and the admin share; the views only translate their errors to HTTP.

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

__all__ = [
    "WAITING",
    "UploadRefused",
    "UploadTooSoon",
    "activate",
    "identical_version",
    "on_accepted",
    "plays_now",
    "request_activation",
    "revalidate",
    "store_upload",
]

#: The statuses of a version waiting for its verdict (queued, or held by a worker).
WAITING = (VersionStatus.QUEUED, *IN_PROGRESS)


class UploadRefused(ValueError):
    """An upload that breaks a rule; the message names the rule (and the entry)."""


class UploadTooSoon(UploadRefused):
    """An upload refused for now (HTTP 429): a rate limit is used up, or the team already has
    as many versions waiting for validation as the site allows."""


def store_upload(
    team: Team, data: bytes, *, address: str | None = None, activate: bool | None = None
) -> BotVersion:
    """Check ``data`` (a tar.gz or zip archive) and keep it as ``team``'s next version,
    queued for validation; :class:`UploadRefused` names the rule it breaks. Each upload
    counts towards the team's rate limit, and the address's when one is given (a client's);
    :class:`UploadTooSoon` when one is used up or the team has ``upload.queued_per_team``
    versions waiting already. ``activate``: whether it plays once accepted (None: only when
    no version of the team plays)."""
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
    archive_limits = rules.archive_limits
    if len(data) > archive_limits.max_archive_bytes:
        raise UploadRefused(
            f"the archive is {len(data):,} bytes, more than the limit of "
            f"{archive_limits.max_archive_bytes:,}"
        )
    try:
        inspect(data, archive_limits)
    except ArchiveError as error:
        raise UploadRefused(str(error)) from None
    digest = hashlib.sha256(data).hexdigest()
    for _attempt in range(5):  # two uploads of one team at once: the second takes the next
        try:
            with transaction.atomic():
                latest = team.versions.aggregate(latest=Max("number"))["latest"] or 0
                version = BotVersion(
                    team=team,
                    number=latest + 1,
                    archive_sha256=digest,
                    activate_when_accepted=activate,
                )
                version.archive.save(
                    f"team-{team.pk}-v{latest + 1}-{digest[:12]}", ContentFile(data), save=False
                )
                _flush(version.archive.path)
                version.save()
                return version
        except IntegrityError:
            continue
    raise UploadRefused("too many uploads at once; try again")


def identical_version(team: Team, data: bytes) -> BotVersion | None:
    """The team's latest version whose archive is ``data`` byte for byte (the same
    SHA-256; ``arena submit`` packs a folder the same way every time), or None. Such an
    upload is that version again: it is linked to it, not stored or validated again."""
    digest = hashlib.sha256(data).hexdigest()
    return (
        team.versions.filter(archive_sha256=digest)
        .select_related("team")
        .order_by("-number")
        .first()
    )


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


def request_activation(team: Team, version: BotVersion) -> bool:
    """Make ``version`` active now when it is accepted, or once it is when it still waits
    for its verdict; True when it plays now. :class:`UploadRefused` for a rejected or
    disabled version, or after the deadline."""
    if version.team_id != team.pk:
        raise ValueError("a team activates only its own versions")
    _refuse_after_the_deadline()
    with transaction.atomic():
        waiting = BotVersion.objects.filter(pk=version.pk, is_disabled=False).exclude(
            status__in=(VersionStatus.ACCEPTED, VersionStatus.REJECTED)
        )
        # The verdict may come between the read and this write: the filter decides.
        if waiting.update(activate_when_accepted=True):
            return False
    version.refresh_from_db()
    activate(team, version)
    return True


def on_accepted(version: BotVersion) -> None:
    """Called in the transaction that accepts ``version``: it becomes its team's active
    version when it asked to, or when it did not say and no version of the team plays
    yet (the first accepted one plays by itself). Nothing changes after the deadline."""
    version.refresh_from_db(fields=["activate_when_accepted", "is_disabled"])
    wish = version.activate_when_accepted
    if wish is False or version.is_disabled or is_frozen_now():
        return
    teams = Team.objects.filter(pk=version.team_id)
    if wish is None:  # only when none plays: a conditional write, safe against a race
        teams = teams.filter(active_version__isnull=True)
    teams.update(active_version=version)


def plays_now(version: BotVersion) -> str:
    """One sentence on what plays for ``version``'s team now and whether ``version`` will:
    the version's page and the API's answer both show it."""
    active = version.team.active_version
    if active is not None and active.pk == version.pk:
        return f"version {version.number} plays on the ladder now"
    now = "no version plays yet" if active is None else f"version {active.number} plays now"
    if version.status == VersionStatus.REJECTED or version.is_disabled:
        return f"{now}; version {version.number} cannot play"
    if version.status == VersionStatus.ACCEPTED:
        return f"{now}; activate version {version.number} to play with it"
    wish = version.activate_when_accepted
    if wish is True or (wish is None and active is None):
        return f"{now}; version {version.number} will play once accepted"
    return f"{now}; version {version.number} will not play by itself once accepted"


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
