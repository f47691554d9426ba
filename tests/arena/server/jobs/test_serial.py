"""Work one worker at a time (:func:`arena.server.jobs.serial.one_at_a_time`): on
PostgreSQL a second worker waits for the first one's transaction (each thread its own
connection, as each worker process has); on SQLite it is a plain transaction."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from django.db import OperationalError, connection, transaction

from arena.server.jobs.serial import one_at_a_time
from arena.server.site.models import Team
from tests.arena.server.factories import make_team
from tests.postgres import PostgresServer, fresh_database


@pytest.mark.usefixtures("db")
def test_the_work_is_one_transaction() -> None:
    with pytest.raises(RuntimeError), one_at_a_time("make a team"):
        make_team("ants")
        raise RuntimeError("the work failed")
    assert not Team.objects.filter(name="ants").exists()  # rolled back whole


@pytest.mark.slow
@pytest.mark.usefixtures("db")
class TestOnPostgres:
    """(PostgreSQL only: the advisory lock.)"""

    @pytest.fixture
    def database_url(self, postgres_server: PostgresServer) -> Iterator[str]:
        """PostgreSQL only (overrides the site tests' SQLite-or-PostgreSQL database)."""
        yield from fresh_database(postgres_server)

    def test_a_second_worker_waits_for_the_first_to_commit(self) -> None:
        inside, done = threading.Event(), threading.Event()

        def first() -> None:
            try:
                with one_at_a_time("store"):
                    inside.set()
                    done.wait()
            finally:
                connection.close()

        holder = threading.Thread(target=first)
        holder.start()
        try:
            assert inside.wait(60)
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '200ms'")
            with pytest.raises(OperationalError, match="lock timeout"), one_at_a_time("store"):
                pass  # waits for the first: the lock timeout ends the wait
            with one_at_a_time("other work"):  # another name does not wait
                pass
        finally:
            done.set()
            holder.join()
        with transaction.atomic(), one_at_a_time("store"):  # free once the first committed
            pass
