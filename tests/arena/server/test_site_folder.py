"""The site folder's database settings (arena.server.site_folder.database_settings)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db.utils import ConnectionHandler

from arena.server.site_folder import CONNECTION_MAX_AGE_S, database_settings


@pytest.mark.parametrize("url", ["sqlite:////srv/site.sqlite3", "postgresql://a@db/comp"])
def test_both_databases_keep_a_connection_for_the_same_time(url: str) -> None:
    assert database_settings(url)["CONN_MAX_AGE"] == CONNECTION_MAX_AGE_S > 0


def test_a_web_thread_keeps_its_sqlite_connection_between_requests(tmp_path: Path) -> None:
    # Django closes a connection at the end of a request unless it may still be kept
    # (close_if_unusable_or_obsolete, on request_finished): opening one again costs more
    # than most pages, so the site's SQLite connection must survive a request's end.
    handler = ConnectionHandler({"default": database_settings(f"sqlite:///{tmp_path}/s.db")})
    connection = handler["default"]
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        opened = connection.connection
        assert opened is not None
        connection.close_if_unusable_or_obsolete()  # what the end of a request does
        assert connection.connection is opened
    finally:
        connection.close()
