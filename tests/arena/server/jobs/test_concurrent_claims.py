"""Workers claiming at the same moment on a real PostgreSQL (each thread its own
connection, as each worker process has): every version is claimed exactly once, with its
one attempt counted, while the round-robin order makes every worker read the same first
row. SQLite's in-memory test database is one connection, so this runs on PostgreSQL only
(in the slow run, with the other PostgreSQL tests; skipped with the reason where there is
no server)."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator

import pytest
from django.db import connection

from arena.server.site.models import BotVersion
from arena.server.validation.queue import claim_next
from tests.arena.server.factories import make_team, make_version
from tests.postgres import PostgresServer, fresh_database

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("db")]

WORKERS = 4


@pytest.fixture
def database_url(postgres_server: PostgresServer) -> Iterator[str]:
    """PostgreSQL only (overrides the site tests' SQLite-or-PostgreSQL database)."""
    yield from fresh_database(postgres_server)


def test_workers_racing_for_the_same_rows_claim_each_version_once() -> None:
    for name in ("ants", "bees", "cats"):
        team = make_team(name)
        for _ in range(4):
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
