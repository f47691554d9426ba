"""The validation worker: versions from the queue (:mod:`arena.server.validation.queue`)
through the pipeline (:func:`arena.server.validation.pipeline.validate`) to their verdict,
in the workers' loop (:class:`arena.server.jobs.worker.Worker`).

A validation the site cannot run here (the pipeline's
:class:`~arena.server.validation.report.InfrastructureError`: the sandbox does not work, the
competition file or the house bot cannot be read) goes back to the queue to be tried again
later; a pipeline that raises anything else is the site's failure, never the bot's: the
version is rejected saying so.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from arena.server.jobs.lease import worker_name
from arena.server.jobs.models import RecordTally
from arena.server.jobs.worker import Worker
from arena.server.site.models import BotVersion, SiteSettings
from arena.server.validation import queue
from arena.server.validation.pipeline import validate
from arena.server.validation.report import InfrastructureError, StepReport, StepStatus, Verdict
from arena.server.validation.rules import ValidationRules, rules_for_site

__all__ = ["Pipeline", "rules_now", "validation_worker"]

#: What the worker validates with: the archive, a work folder, the rules and a callback for
#: each step in, the verdict out (:func:`~arena.server.validation.pipeline.validate`; the
#: tests put a scripted one in its place).
Pipeline = Callable[[Path, Path, ValidationRules, Callable[[StepReport], None]], Verdict]


def rules_now() -> ValidationRules:
    """The validation's rules as the site's settings and competition file say now;
    :class:`InfrastructureError` when the competition file cannot be read."""
    competition = settings.ARENA_COMPETITION_FILE
    return rules_for_site(
        None if competition is None else Path(competition), SiteSettings.current().rules()
    )


def validation_worker(
    warn: Callable[[str], object], *, pipeline: Pipeline = validate
) -> Worker[BotVersion, Verdict | InfrastructureError]:
    """The worker that validates queued versions with ``pipeline``, telling ``warn`` (the
    command's stderr) what goes wrong on the site's side."""
    worker = worker_name()

    def work(version: BotVersion) -> Verdict | InfrastructureError:
        folder = Path(settings.ARENA_WORK_DIR) / f"version-{version.pk}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, mode=0o700)
        try:
            return pipeline(
                Path(version.archive.path),
                folder,
                rules_now(),
                lambda report: queue.record_step(version, worker, report),
            )
        except InfrastructureError as error:  # not the bot's: tried again later
            return error
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def store(version: BotVersion, result: Verdict | InfrastructureError) -> None:
        if isinstance(result, InfrastructureError):
            warn(f"validation of version {version.pk} cannot run here: {result}")
            queue.retry_later(version, worker, str(result))
        else:
            queue.finish(version, worker, result)

    return Worker(
        worker=worker,
        claim=lambda: queue.claim_next(worker),
        leases=queue.QUEUE,
        work=work,
        failed=_site_failed,
        store=store,
        name=lambda version: f"validation of version {version.pk}",
        warn=warn,
        site_failure=lambda result: (
            str(result) if isinstance(result, InfrastructureError) else None
        ),
        tally=RecordTally(worker, "validation"),
    )


def _site_failed(_version: BotVersion, error: Exception) -> Verdict:
    """The verdict when the validation itself broke: the site's failure, not the bot's."""
    return Verdict(
        is_accepted=False,
        reason=f"the site's validation failed ({type(error).__name__}), not the bot",
        hint="tell the organisers; the upload can be validated again from the admin",
        # The exception's text (paths, the host's state) is for the worker's log only.
        steps=(StepReport("building", StepStatus.FAILED, "the site failed"),),
    )
