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
    from django.core.management import call_command
    from django.db import connection

    from arena.server.site import database_settings

    saved: dict[str, Any] = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(database_settings(url))
    try:
        call_command("migrate", verbosity=0, interactive=False)
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
