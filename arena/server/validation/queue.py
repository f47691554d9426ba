"""The validation's queue: the ``bot_version`` table, a version claimed by a worker with a
lease (:class:`arena.server.jobs.lease.LeaseQueue`: a queued version, or one whose
worker's lease expired) and renewed while it is validated.

Teams take turns (docs/server.md, "Teams take turns for validation"): the claim takes the
oldest claimable version of the team served longest ago, a team never served first; a
team's last service is the latest change (``updated``) among its versions a worker has
claimed (``attempts`` above 0).

Each step's progress is written as it happens, so the version's page shows it live. The
verdict, the steps and the status are written in one transaction, so a worker killed at
any moment leaves either the verdict or a lease that expires and a claim that starts the
validation again from the archive, which is never changed. After :data:`MAX_ATTEMPTS`
claims a version is rejected as our failure, never the bot's, so a version that kills its
worker every time cannot block the queue."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from arena.server.jobs.lease import DEFAULT_MAX_ATTEMPTS, LeaseQueue, round_robin
from arena.server.site.models import IN_PROGRESS, BotVersion, ValidationStep, VersionStatus
from arena.server.site.versions import on_accepted
from arena.server.validation.report import StepReport, Verdict

__all__ = [
    "MAX_ATTEMPTS",
    "QUEUE",
    "claim_next",
    "finish",
    "record_step",
    "retry_later",
]

#: Claims of one version before it is given up as our failure.
MAX_ATTEMPTS = DEFAULT_MAX_ATTEMPTS
#: Seconds before a validation the site could not run is tried again (times the attempts).
RETRY_SECONDS = 60.0

#: The versions as a queue: queued ones (not disabled) wait; a worker holds one while it
#: is building, in its protocol check or in its validation match. Teams take turns (the
#: module's rule): the team served longest ago first, then its oldest upload.
QUEUE = LeaseQueue(
    BotVersion,
    waiting=Q(status=VersionStatus.QUEUED, is_disabled=False),
    held=Q(status__in=IN_PROGRESS),
    released={"status": VersionStatus.QUEUED},
    order=(round_robin(BotVersion, "team", Q(attempts__gt=0), "updated"), "created", "pk"),
)


def claim_next(worker: str, *, now: datetime | None = None) -> BotVersion | None:
    """Claim for ``worker`` the oldest claimable version of the team served longest ago
    (the module's rule); None when there is none. A version claimed again starts afresh
    (its old steps go)."""
    now = now or timezone.now()
    fresh = {"status": VersionStatus.BUILDING, "reason": "", "hint": "", "stderr": ""}
    claimed = QUEUE.claim_next(
        worker,
        max_attempts=MAX_ATTEMPTS,
        give_up=_give_up,
        claimed=lambda _version: {**fresh, "updated": now},
        then=lambda pk: ValidationStep.objects.filter(version_id=pk).delete(),
        now=now,
    )
    return None if claimed is None else BotVersion.objects.get(pk=claimed)


def _give_up(version: BotVersion, now: datetime) -> None:
    BotVersion.objects.filter(pk=version.pk, attempts=version.attempts).update(
        status=VersionStatus.REJECTED,
        reason=f"validation stopped {version.attempts} times without a verdict "
        "(the site's failure, not the bot's)",
        hint="upload it again; if it happens again, tell the organisers",
        lease_expires=None,
        updated=now,
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
    QUEUE.holding(version, worker).update(
        status=VersionStatus.BUILDING,
        claimed_by="",
        lease_expires=timezone.now() + delay,
        reason=f"the site could not validate it yet ({why}); it will try again",
        hint="nothing to do: the organisers are told",
    )


def record_step(version: BotVersion, worker: str, report: StepReport) -> None:
    """Show a step's progress on the version's page (and the status it is at)."""
    with transaction.atomic():
        if not QUEUE.renew(version, worker):
            return
        stage = STAGES.get(report.step)
        if stage is not None:
            BotVersion.objects.filter(pk=version.pk).update(status=stage)
        # A new step goes last; a step seen before keeps its place and takes the report.
        position = ValidationStep.objects.filter(version_id=version.pk).count()
        ValidationStep.objects.update_or_create(
            version_id=version.pk,
            step=report.step,
            defaults=asdict(report),
            create_defaults={**asdict(report), "position": position},
        )


def finish(version: BotVersion, worker: str, verdict: Verdict) -> bool:
    """Write the verdict (the reason of a rejection only), every step and the team log (the
    bot's build output and stderr) in one transaction; False (and nothing written) when
    ``worker`` no longer holds the claim."""
    with transaction.atomic():
        updated = QUEUE.holding(version, worker).update(
            status=VersionStatus.ACCEPTED if verdict.is_accepted else VersionStatus.REJECTED,
            reason="" if verdict.is_accepted else verdict.reason,
            hint=verdict.hint,
            stderr=verdict.team_log,
            lease_expires=None,
            updated=timezone.now(),
        )
        if not updated:
            return False
        if verdict.is_accepted:
            on_accepted(version)
        ValidationStep.objects.filter(version_id=version.pk).delete()
        ValidationStep.objects.bulk_create(
            ValidationStep(version_id=version.pk, position=index, **asdict(report))
            for index, report in enumerate(verdict.steps)
        )
        return True
