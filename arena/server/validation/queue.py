"""The validation queue: the ``bot_version`` table is the queue, a worker claims a row
with a lease and renews it while it works.

Theory of operation. A queued version, or one whose lease has expired (its worker died:
killed, out of memory, the machine restarted), is claimable. A worker claims one with a
single conditional ``UPDATE`` (the row still claimable, as it read it): two workers racing
for a row cannot both win, on SQLite or PostgreSQL. While it validates it renews the
lease every :data:`LEASE_SECONDS` / 3 seconds; each step's progress is written as it
happens, so the version's page shows it live. The verdict, the steps and the status are
written in one transaction, so a worker killed at any moment leaves either the verdict or
a lease that expires and a claim that starts the validation again from the archive, which
is never changed. After :data:`MAX_ATTEMPTS` claims a version is rejected as our failure,
never the bot's, so a version that kills its worker every time cannot block the queue.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.server.site.models import (
    IN_PROGRESS,
    BotVersion,
    StepStatus,
    ValidationStep,
    VersionStatus,
)
from arena.server.site.versions import on_accepted

__all__ = [
    "LEASE_SECONDS",
    "MAX_ATTEMPTS",
    "StepReport",
    "claim_next",
    "finish",
    "record_step",
    "renew",
    "retry_later",
    "worker_name",
]

#: How long a claim holds without renewal, in seconds (``ARENA_SERVER_LEASE_SECONDS``).
LEASE_SECONDS = float(os.environ.get("ARENA_SERVER_LEASE_SECONDS", "60"))
#: Claims of one version before it is given up as our failure.
MAX_ATTEMPTS = 3
#: Seconds before a validation the site could not run is tried again (times the attempts).
RETRY_SECONDS = 60.0


def worker_name() -> str:
    """This worker's name in the claims: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"[:64]


def _claimable(now: datetime) -> Q:
    return Q(status=VersionStatus.QUEUED, is_disabled=False) | Q(
        status__in=IN_PROGRESS, lease_expires__lt=now
    )


def claim_next(worker: str, *, now: datetime | None = None) -> BotVersion | None:
    """Claim the oldest claimable version for ``worker``; None when there is none. A version
    claimed again starts afresh (its old steps go)."""
    now = now or timezone.now()
    for candidate in BotVersion.objects.filter(_claimable(now)).order_by("created", "pk")[:5]:
        if candidate.attempts >= MAX_ATTEMPTS:
            _give_up(candidate, now)
            continue
        with transaction.atomic():
            claimed = BotVersion.objects.filter(
                _claimable(now), pk=candidate.pk, attempts=candidate.attempts
            ).update(
                status=VersionStatus.BUILDING,
                claimed_by=worker,
                lease_expires=now + timedelta(seconds=LEASE_SECONDS),
                attempts=candidate.attempts + 1,
                reason="",
                hint="",
                stderr="",
                updated=now,
            )
            if claimed:
                ValidationStep.objects.filter(version_id=candidate.pk).delete()
                return BotVersion.objects.get(pk=candidate.pk)
    return None


def _give_up(version: BotVersion, now: datetime) -> None:
    BotVersion.objects.filter(pk=version.pk, attempts=version.attempts).update(
        status=VersionStatus.REJECTED,
        reason=f"validation stopped {version.attempts} times without a verdict "
        "(the site's failure, not the bot's)",
        hint="upload it again; if it happens again, tell the organisers",
        lease_expires=None,
        updated=now,
    )


def renew(version: BotVersion, worker: str) -> bool:
    """Extend ``worker``'s lease on ``version``; False when the claim was lost."""
    until = timezone.now() + timedelta(seconds=LEASE_SECONDS)
    return bool(
        BotVersion.objects.filter(pk=version.pk, claimed_by=worker, status__in=IN_PROGRESS).update(
            lease_expires=until
        )
    )


#: The version's status while each validation step runs.
STAGES = {
    "unpack": VersionStatus.BUILDING,
    "build": VersionStatus.BUILDING,
    "building": VersionStatus.BUILDING,
    "protocol_check": VersionStatus.PROTOCOL_CHECK,
    "validation_match": VersionStatus.VALIDATION_MATCH,
}


def retry_later(version: BotVersion, worker: str, why: str) -> None:
    """Give up ``worker``'s claim on ``version``, which the site could not validate (the
    sandbox does not work, a file cannot be read): it is claimed again after
    :data:`RETRY_SECONDS` times its attempts, by the expiry of a lease nobody holds; the
    team sees why it waits."""
    delay = timedelta(seconds=RETRY_SECONDS * max(1, version.attempts))
    BotVersion.objects.filter(pk=version.pk, claimed_by=worker).update(
        status=VersionStatus.BUILDING,
        claimed_by="",
        lease_expires=timezone.now() + delay,
        reason=f"the site could not validate it yet ({why}); it will try again",
        hint="nothing to do: the organisers are told",
    )


@dataclass(frozen=True, slots=True)
class StepReport:
    """A step's state as the pipeline reports it (``step``: a key of :data:`STAGES`)."""

    step: str
    status: StepStatus
    message: str = ""
    hint: str = ""
    log: str = ""


def record_step(version: BotVersion, worker: str, report: StepReport) -> None:
    """Show a step's progress on the version's page (and the status it is at)."""
    with transaction.atomic():
        if not renew(version, worker):
            return
        stage = STAGES.get(report.step)
        if stage is not None:
            BotVersion.objects.filter(pk=version.pk).update(status=stage)
        step, _ = ValidationStep.objects.get_or_create(
            version_id=version.pk,
            step=report.step,
            defaults={
                "position": ValidationStep.objects.filter(version_id=version.pk).count(),
                "status": report.status,
            },
        )
        step.status = report.status
        step.message, step.hint, step.log = report.message, report.hint, report.log
        step.save()


def finish(
    version: BotVersion,
    worker: str,
    *,
    accepted: bool,
    steps: tuple[StepReport, ...],
    reason: str = "",
    hint: str = "",
    stderr: str = "",
) -> bool:
    """Write the verdict, every step and the bot's stderr in one transaction; False (and
    nothing written) when ``worker`` no longer holds the claim."""
    with transaction.atomic():
        updated = BotVersion.objects.filter(
            pk=version.pk, claimed_by=worker, status__in=IN_PROGRESS
        ).update(
            status=VersionStatus.ACCEPTED if accepted else VersionStatus.REJECTED,
            reason=reason,
            hint=hint,
            stderr=stderr,
            lease_expires=None,
            updated=timezone.now(),
        )
        if not updated:
            return False
        if accepted:
            on_accepted(version)
        ValidationStep.objects.filter(version_id=version.pk).delete()
        ValidationStep.objects.bulk_create(
            ValidationStep(
                version_id=version.pk,
                position=index,
                step=report.step,
                status=report.status,
                message=report.message,
                hint=report.hint,
                log=report.log,
            )
            for index, report in enumerate(steps)
        )
        return True
