"""The site's tests: Django started once per session, a database per test.

The database comes from one fixture, :func:`database_url`: ``None`` (the default) is an
in-memory SQLite database made once per session, each test inside a transaction rolled
back at its end; a URL (a PostgreSQL fixture overriding ``database_url``) points Django's
connection at that database and migrates it for the test. Every test that touches the
database asks for :func:`db`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.server.django_start import start_django
from tests.postgres import (  # noqa: F401 (fixtures)
    PostgresServer,
    database_urls,
    postgres_server,
    sqlite_or_postgres,
)

start_django()


@pytest.fixture
def database_url(sqlite_or_postgres: PostgresServer | None) -> Iterator[str | None]:  # noqa: F811
    """The test's database: None for the session's in-memory SQLite; in the slow run also a
    fresh database on a real PostgreSQL (tests/postgres.py; skipped where there is none)."""
    yield from database_urls(sqlite_or_postgres)


@pytest.fixture(scope="session")
def _sqlite_database() -> Iterator[None]:
    from django.db import connection
    from django.test.utils import setup_test_environment, teardown_test_environment

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    yield
    connection.creation.destroy_test_db(old_name, verbosity=0)
    teardown_test_environment()


@pytest.fixture
def db(request: pytest.FixtureRequest, database_url: str | None, tmp_path: Path) -> Iterator[None]:
    """A database for the test, with the uploads and work folders in ``tmp_path``."""
    from django.test import override_settings

    # A fast password hash: the real one costs about a second of CPU per account.
    folders = override_settings(
        MEDIA_ROOT=str(tmp_path / "uploads"),
        ARENA_WORK_DIR=str(tmp_path / "work"),
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
    )
    with folders:
        if database_url is None:
            request.getfixturevalue("_sqlite_database")
            yield from _rolled_back()
        else:
            yield from _on_database(database_url)


def _rolled_back() -> Iterator[None]:
    from django.core.cache import cache
    from django.db import transaction

    atomic = transaction.atomic()
    atomic.__enter__()
    try:
        yield
    finally:
        transaction.set_rollback(True)
        atomic.__exit__(None, None, None)
        cache.clear()


def _on_database(url: str) -> Iterator[None]:
    """The test's default connection on the database at ``url``, migrated.

    A connection's backend is fixed when it is made (its class is the engine's), so editing
    its settings would leave a SQLite connection opening a file named after the PostgreSQL
    database: the default connection is made anew from the URL's settings, and the session's
    own (its in-memory SQLite database open) is put back afterwards.
    """
    from django.core.management import call_command
    from django.db import DEFAULT_DB_ALIAS, connection, connections

    from arena.server.site_folder import database_settings

    saved_settings: dict[str, Any] = connections.settings[DEFAULT_DB_ALIAS]
    saved_connection = connections[DEFAULT_DB_ALIAS]
    # (the OPTIONS too: the session's SQLite options mean nothing to PostgreSQL)
    wanted = {**saved_settings, "OPTIONS": {}, **database_settings(url)}
    connections.settings[DEFAULT_DB_ALIAS] = connections.configure_settings(
        {DEFAULT_DB_ALIAS: wanted}
    )[DEFAULT_DB_ALIAS]
    del connections[DEFAULT_DB_ALIAS]
    try:
        assert connection.vendor == ("postgresql" if url.startswith("postgres") else "sqlite")
        call_command("migrate", verbosity=0, interactive=False)
        yield
    finally:
        connection.close()
        connections.settings[DEFAULT_DB_ALIAS] = saved_settings
        connections[DEFAULT_DB_ALIAS] = saved_connection
