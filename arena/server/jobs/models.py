"""What each worker process says of itself, so that the organiser sees the workers in the
admin: when it was last seen, how deep its queue was then, the jobs it finished and the
site's failures among them (the work raised, or could not run on this machine: the sandbox
missing, the cluster gone). A worker that keeps failing is the one whose failures in a row
grow; it also says so on its stderr (:data:`NOTICE_AFTER`)."""

from __future__ import annotations

import time
from collections.abc import Callable

from django.db import models
from django.db.models import F
from django.utils import timezone

#: Site failures in a row after which a worker says on stderr that it keeps failing.
NOTICE_AFTER = 5
#: An idle worker looks for a job every second; its look (and the queue's depth, a count)
#: is written at most this often. Written at every look, the count and the write doubled
#: the CPU of an idle worker, taken from the web process beside it.
LOOK_WRITTEN_EVERY_S = 10.0


class WorkerRecord(models.Model):
    """One worker process (by its name in the claims: host and process id)."""

    name = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=32)
    started = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)
    queue_depth = models.PositiveIntegerField(
        default=0, help_text="jobs waiting in its queue at its last look"
    )
    jobs_done = models.PositiveIntegerField(default=0)
    site_failures = models.PositiveIntegerField(default=0)
    failures_in_a_row = models.PositiveIntegerField(default=0)
    last_failure = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ("-failures_in_a_row", "-last_seen")

    def __str__(self) -> str:
        return f"{self.kind} worker {self.name}"


class RecordTally:
    """A worker's :class:`WorkerRecord`, kept as its loop goes (the loop's ``tally``)."""

    def __init__(self, name: str, kind: str) -> None:
        self.name = name
        self._written_at: float | None = None
        now = timezone.now()
        WorkerRecord.objects.update_or_create(
            name=name,
            defaults={"kind": kind, "started": now, "last_seen": now, "jobs_done": 0,
                      "site_failures": 0, "failures_in_a_row": 0, "last_failure": ""},
        )  # fmt: skip

    def looked(self, depth: Callable[[], int]) -> None:
        """The worker looked for a job; ``depth()`` were waiting. Kept at most every
        :data:`LOOK_WRITTEN_EVERY_S` seconds (``depth`` is not asked in between)."""
        now = time.monotonic()
        if self._written_at is not None and now - self._written_at < LOOK_WRITTEN_EVERY_S:
            return
        self._written_at = now
        WorkerRecord.objects.filter(name=self.name).update(
            last_seen=timezone.now(), queue_depth=depth()
        )

    def finished(self, failure: str | None) -> int:
        """A job is done: ``failure`` is what failed on the site's side (None: nothing).
        The site failures in a row now."""
        mine = WorkerRecord.objects.filter(name=self.name)
        if failure is None:
            mine.update(jobs_done=F("jobs_done") + 1, failures_in_a_row=0)
            return 0
        mine.update(jobs_done=F("jobs_done") + 1, site_failures=F("site_failures") + 1,
                    failures_in_a_row=F("failures_in_a_row") + 1,
                    last_failure=failure[:500])  # fmt: skip
        row = mine.values_list("failures_in_a_row", flat=True).first()
        return 0 if row is None else int(row)
