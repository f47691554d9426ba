"""Workers claiming at the same moment on a real PostgreSQL (each thread its own
connection, as each worker process has): every version is claimed exactly once, with its
one attempt counted, while the round-robin order makes every worker read the same first
row; and a claim never waits for another claim's transaction (``FOR UPDATE SKIP LOCKED``:
a row another claim holds is passed over, not waited for). SQLite's in-memory test
database is one connection, so this runs on PostgreSQL only (in the slow run, with the
other PostgreSQL tests; skipped with the reason where there is no server)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from django.db import connection

from arena.server.site.models import BotVersion, VersionStatus
from arena.server.validation.queue import QUEUE, claim_next
from tests.arena.server.factories import make_team, make_version
from tests.postgres import PostgresServer, fresh_database

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db")]

WORKERS = 8


@pytest.fixture
def database_url(postgres_server: PostgresServer) -> Iterator[str]:
    """PostgreSQL only (overrides the site tests' SQLite-or-PostgreSQL database)."""
    yield from fresh_database(postgres_server)


def test_workers_racing_for_the_same_rows_claim_each_version_once() -> None:
    for name in ("ants", "bees", "cats"):
        team = make_team(name)
        for _ in range(2 * WORKERS):
            make_version(team)
    start = threading.Barrier(WORKERS)
    claimed: list[tuple[str, int]] = []
    errors: list[BaseException] = []

    def work(worker: str) -> None:
        try:
            start.wait()
            while (version := claim_next(worker)) is not None:
                claimed.append((worker, version.pk))
        except BaseException as error:  # shown by the assertion below
            errors.append(error)
        finally:
            connection.close()  # this thread's own connection

    threads = [threading.Thread(target=work, args=(f"w{n}",)) for n in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    counts = Counter(pk for _worker, pk in claimed)
    everything = set(BotVersion.objects.values_list("pk", flat=True))
    assert set(counts) == everything and set(counts.values()) == {1}
    rows = {row.pk: row for row in BotVersion.objects.all()}
    assert all(rows[pk].claimed_by == worker for worker, pk in claimed)
    assert {row.attempts for row in rows.values()} == {1}


def test_a_claim_passes_over_the_row_another_claim_holds_instead_of_waiting() -> None:
    # Worker A stops inside its claim's transaction (its ``then``), the first row locked
    # and not yet committed; worker B claims meanwhile. Without SKIP LOCKED, B reads the
    # same first row (A's claim is not visible yet) and its update waits on A's lock; A
    # waits for B: a deadlock that only lock_timeout ends, as an error. With it, B takes
    # the next row at once and A goes on.
    team = make_team("ants")
    first, second = make_version(team), make_version(team)
    inside, b_done = threading.Event(), threading.Event()
    a_claimed: list[int | None] = []

    def hold_the_row(_pk: int) -> None:
        inside.set()
        b_done.wait()

    def worker_a() -> None:
        try:
            found = QUEUE.claim_next(
                "a", max_attempts=3, give_up=_nothing, claimed=_building, then=hold_the_row
            )
            a_claimed.append(found)
        finally:
            connection.close()

    a = threading.Thread(target=worker_a)
    a.start()
    try:
        assert inside.wait(60), "worker A never reached its claim"
        with connection.cursor() as cursor:  # a regression errors here instead of hanging
            cursor.execute("SET lock_timeout = '30s'")
        claimed_by_b = claim_next("b")
    finally:
        b_done.set()
        a.join()
    assert claimed_by_b is not None and claimed_by_b.pk == second.pk
    assert a_claimed == [first.pk]
    rows = {row.pk: row.claimed_by for row in BotVersion.objects.all()}
    assert rows == {first.pk: "a", second.pk: "b"}


def _building(_version: BotVersion) -> dict[str, object]:
    return {"status": VersionStatus.BUILDING}


def _nothing(_row: BotVersion, _now: object) -> None:
    """No row reaches its last attempt here."""
