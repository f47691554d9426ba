"""The real PostgreSQL the server's tests run against (tests/postgres.py): it starts, serves
a fresh database per test, and leaves no process and no folder behind."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from tests import postgres
from tests.postgres import PostgresServer, postgres_server, postgres_url  # noqa: F401


def test_a_fresh_database_takes_writes_and_its_backends_end_with_it(
    postgres_server: PostgresServer,  # noqa: F811
) -> None:
    import psycopg

    name = postgres_server.create_database("check")
    with psycopg.connect(postgres_server.url(name)) as connection:
        connection.execute("CREATE TABLE seat (name text)")
        connection.execute("INSERT INTO seat VALUES ('ann')")
        assert connection.execute("SELECT name FROM seat").fetchall() == [("ann",)]
        assert postgres_server.client_backends()  # this connection's backend
    leftover = psycopg.connect(postgres_server.url(name))  # still open: the drop ends it
    try:
        postgres_server.drop_database(name)
        assert postgres_server.client_backends(name) == []
    finally:
        leftover.close()
    with postgres_server.connect() as connection:
        found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        assert found.fetchall() == []
        assert postgres_server.client_backends() == [connection.info.backend_pid]
    assert postgres_server.client_backends() == []  # the connection's backend is gone too


def test_each_test_gets_its_own_empty_database(postgres_url: str) -> None:  # noqa: F811
    import psycopg

    with psycopg.connect(postgres_url) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'"
        ).fetchone()
    assert tables == (0,)
    assert postgres_url.startswith("postgresql://arena:") and "@127.0.0.1:" in postgres_url


def test_the_server_runs_as_an_unprivileged_user_and_leaves_nothing_behind() -> None:
    if (reason := postgres.skip_reason()) is not None:
        pytest.skip(reason)
    with postgres.running_postgres() as server:
        folder, pid = server.folder, server.process.pid
        assert psutil.Process(pid).uids().real != 0
        assert (folder / "data" / "PG_VERSION").is_file()
    assert not folder.exists()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_without_the_binaries_the_reason_says_how_to_install_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARENA_POSTGRES_BIN", str(tmp_path))
    monkeypatch.setattr(Path, "glob", lambda self, pattern: iter(()))
    assert postgres.postgres_bin() is None
    reason = postgres.skip_reason()
    assert reason is not None and "apt-get install postgresql" in reason


def test_the_newest_installed_version_is_chosen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for version in ("9.6", "15", "13"):
        folder = tmp_path / version / "bin"
        folder.mkdir(parents=True)
        for program in ("initdb", "postgres"):
            (folder / program).touch()
    monkeypatch.delenv("ARENA_POSTGRES_BIN", raising=False)
    real_glob = Path.glob
    monkeypatch.setattr(
        Path, "glob", lambda self, pattern: real_glob(tmp_path, pattern) if pattern else iter(())
    )
    assert postgres.postgres_bin() == tmp_path / "15" / "bin"
    monkeypatch.setenv("ARENA_POSTGRES_BIN", str(tmp_path / "9.6" / "bin"))
    assert postgres.postgres_bin() == tmp_path / "9.6" / "bin"
