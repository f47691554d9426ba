"""Each worker's record in the database and the admin
(:class:`arena.server.jobs.models.WorkerRecord`): its last look and the queue's depth
then, its jobs and the site's failures among them, those in a row starting over at a
success; the admin lists them read only, the one failing most in a row first."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import User
from django.test import Client

from arena.server.jobs import models
from arena.server.jobs.models import LOOK_WRITTEN_EVERY_S, RecordTally, WorkerRecord

pytestmark = pytest.mark.usefixtures("db")


def test_a_record_counts_jobs_failures_and_failures_in_a_row() -> None:
    tally = RecordTally("host:1", "ladder")
    tally.looked(lambda: 7)
    assert tally.finished("sandbox_unavailable: no bubblewrap") == 1
    assert tally.finished("arena_error: OSError") == 2
    record = WorkerRecord.objects.get(name="host:1")
    assert (record.kind, record.queue_depth, record.jobs_done) == ("ladder", 7, 2)
    assert (record.site_failures, record.failures_in_a_row) == (2, 2)
    assert record.last_failure == "arena_error: OSError"
    assert tally.finished(None) == 0
    record.refresh_from_db()
    assert (record.jobs_done, record.site_failures, record.failures_in_a_row) == (3, 2, 0)
    assert str(record) == "ladder worker host:1"


def test_a_worker_started_again_under_the_same_name_starts_its_counts_afresh() -> None:
    RecordTally("host:1", "ladder").finished("arena_error")
    RecordTally("host:1", "validation")
    record = WorkerRecord.objects.get(name="host:1")
    assert (record.kind, record.jobs_done, record.site_failures) == ("validation", 0, 0)


def test_a_record_gone_meanwhile_counts_nothing_and_fails_nothing() -> None:
    tally = RecordTally("host:2", "ladder")
    WorkerRecord.objects.all().delete()  # the organiser deleted a stale record
    assert tally.finished("arena_error") == 0


def test_the_admin_lists_the_workers_read_only_the_failing_one_first() -> None:
    RecordTally("host:ok", "ladder").finished(None)
    failing = RecordTally("host:bad", "validation")
    failing.finished("sandbox_unavailable")
    admin = User.objects.create_superuser("organiser", password="a long password 1")
    client = Client()
    client.force_login(admin)
    page = client.get("/admin/arena_jobs/workerrecord/")
    assert page.status_code == 200
    text = page.content.decode()
    assert text.index("host:bad") < text.index("host:ok")
    assert "sandbox_unavailable" in text
    assert client.get("/admin/arena_jobs/workerrecord/add/").status_code == 403
    record = WorkerRecord.objects.get(name="host:bad")
    change = client.get(f"/admin/arena_jobs/workerrecord/{record.pk}/change/")
    assert change.status_code == 200 and b'name="kind"' not in change.content


def test_an_idle_workers_look_is_written_at_most_every_few_seconds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A worker looks every second: a count and a write each time doubled its idle CPU.
    now = [1000.0]
    monkeypatch.setattr(models, "time", SimpleNamespace(monotonic=lambda: now[0]))
    tally = RecordTally("host:3", "ladder")
    asked: list[int] = []

    def depth(value: int) -> Callable[[], int]:
        def count() -> int:
            asked.append(value)
            return value

        return count

    tally.looked(depth(4))
    now[0] += LOOK_WRITTEN_EVERY_S - 0.5
    tally.looked(depth(9))  # too soon: neither counted nor written
    assert asked == [4] and WorkerRecord.objects.get(name="host:3").queue_depth == 4
    now[0] += 0.5
    tally.looked(depth(9))
    assert asked == [4, 9] and WorkerRecord.objects.get(name="host:3").queue_depth == 9
