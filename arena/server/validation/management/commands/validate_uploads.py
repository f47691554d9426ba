"""``validate_uploads``: the worker. It claims queued versions one at a time (see
:mod:`arena.server.validation.queue`), validates each with the pipeline
(:mod:`arena.server.validation.seam`) while a thread renews its lease, and writes the
verdict. SIGTERM or SIGINT stops it; a job it was working on goes back to the queue at once.
Started by ``arena server run``, which also restarts it when it dies; it dies with its
parent (Linux's parent-death signal)."""

from __future__ import annotations

import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db.models import F

from arena.server.lifeline import die_with_parent
from arena.server.site.models import BotVersion, SiteSettings, StepStatus, VersionStatus
from arena.server.validation.queue import (
    LEASE_SECONDS,
    StepReport,
    claim_next,
    finish,
    record_step,
    renew,
    retry_later,
    worker_name,
)
from arena.server.validation.seam import SiteFailure, ValidationRules, Verdict, load_pipeline

__all__ = ["Command", "rules_now"]

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class _Stop(BaseException):
    """SIGTERM or SIGINT arrived (a BaseException: a pipeline's ``except Exception`` lets
    it through)."""


def _stop(_signum: int, _frame: object) -> None:
    raise _Stop


def rules_now() -> ValidationRules:
    """The validation's rules as the site's settings say now."""
    site = SiteSettings.current().rules()
    archive = site.archive_limits
    competition = settings.ARENA_COMPETITION_FILE
    return ValidationRules(
        competition_file=None if competition is None else Path(competition),
        hands=site.validation_hands,
        allowed_faults=site.validation_allowed_faults,
        house_bot=site.validation_house_bot,
        archive_bytes=archive.max_archive_bytes,
        unpacked_bytes=archive.max_unpacked_bytes,
        file_count=archive.max_entry_count,
    )


class Command(BaseCommand):
    """The validation worker."""

    help = "claim queued bot versions and validate them, until stopped"

    def add_arguments(self, parser: CommandParser) -> None:
        """``--once``: validate what is queued, then stop; ``--poll`` seconds between looks."""
        parser.add_argument("--once", action="store_true")
        parser.add_argument("--poll", type=float, default=1.0)

    def handle(self, *args: Any, **options: Any) -> None:
        """Claim and validate until stopped (or, with ``--once``, until the queue is empty)."""
        if not options["once"]:
            # Die with arena server run, even when it is killed with SIGKILL.
            die_with_parent()
        previous = {number: signal.signal(number, _stop) for number in _STOP_SIGNALS}
        worker = worker_name()
        pipeline = load_pipeline()
        try:
            while True:
                version = claim_next(worker)
                if version is None:
                    if options["once"]:
                        return
                    time.sleep(options["poll"])
                    continue
                self._validate(version, worker, pipeline)
        except _Stop:
            return
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)

    def _validate(self, version: BotVersion, worker: str, pipeline: Any) -> None:
        work = Path(settings.ARENA_WORK_DIR) / f"version-{version.pk}"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True, mode=0o700)
        done = threading.Event()
        keeper = threading.Thread(target=_keep_lease, args=(version, worker, done), daemon=True)
        keeper.start()
        try:
            verdict: Verdict = pipeline(
                Path(version.archive.path),
                work,
                rules_now(),
                lambda report: record_step(version, worker, report),
            )
        except _Stop:
            _release(version, worker)
            raise
        except SiteFailure as failure:  # not the bot's: try again later (MAX_ATTEMPTS)
            self.stderr.write(f"validation of version {version.pk} cannot run here: {failure}")
            retry_later(version, worker, str(failure))
            return
        except Exception as error:  # our bug or the host's: the bot is not to blame
            self.stderr.write(f"validation of version {version.pk} failed: {error!r}")
            verdict = Verdict(
                accepted=False,
                # The exception's text (paths, the host's state) is for the log above only.
                steps=(StepReport("building", StepStatus.FAILED, "the site failed"),),
                reason=f"the site's validation failed ({type(error).__name__}), not the bot",
                hint="tell the organisers; the upload can be validated again from the admin",
            )
        finally:
            done.set()
            keeper.join()
            shutil.rmtree(work, ignore_errors=True)
        finish(
            version,
            worker,
            accepted=verdict.accepted,
            steps=verdict.steps,
            reason=verdict.reason,
            hint=verdict.hint,
            stderr=verdict.stderr,
        )


def _keep_lease(version: BotVersion, worker: str, done: threading.Event) -> None:
    while not done.wait(LEASE_SECONDS / 3):
        renew(version, worker)


def _release(version: BotVersion, worker: str) -> None:
    """Put a version this worker was stopped in the middle of back in the queue (the
    attempt does not count)."""
    BotVersion.objects.filter(pk=version.pk, claimed_by=worker).update(
        status=VersionStatus.QUEUED,
        lease_expires=None,
        attempts=F("attempts") - 1,
    )
