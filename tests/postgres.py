"""A real PostgreSQL for the tests, started in a temporary folder and gone at the end.

Theory of operation: one server per test session (per xdist worker), one fresh database
per test.

- The binaries are the newest ``/usr/lib/postgresql/*/bin`` (Debian's layout; or the folder
  ``ARENA_POSTGRES_BIN`` names). Without them, or without the ``psycopg`` driver, the
  fixtures skip the test with the reason.
- PostgreSQL refuses to run as root, and the tests run as root here: then ``initdb`` and
  ``postgres`` run as the ``postgres`` system user (``subprocess``'s ``user=``), in a folder
  under ``/tmp`` (which every user can traverse; pytest's own ``tmp_path`` is private to
  root) handed to that user. As any other user they run as that user.
- The server listens on a free loopback port and a password (random, per session) guards
  it, so the URL is the plain ``postgresql://user:password@127.0.0.1:port/name`` any
  settings parser reads. Durability is off (``fsync``, ``synchronous_commit``): nothing
  outlives the session. Autovacuum and parallel workers are off so that the server starts
  no process of its own while a test runs (the suite fails a test that leaves a child
  process behind).
- ``postgres`` is the test process's own child (never ``pg_ctl``'s daemon), stopped by a
  fast shutdown (SIGINT) at the end, killed if it does not stop, and its folder removed.
- A test's database is dropped ``WITH (FORCE)`` at its end, and the fixture waits until
  every backend that served it has exited (as ``connect()`` does for its own on closing),
  so none is left for the process check.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

#: The role the tests connect as (the cluster's superuser).
ROLE = "arena"

#: How long the server may take to start or to stop, in seconds (generous: a loaded machine).
START_SECONDS = 60.0
STOP_SECONDS = 30.0

#: Settings for a throw-away server: nothing needs to survive a crash, and the server
#: should start no process on its own while a test runs.
_SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "fsync": "off",
    "synchronous_commit": "off",
    "full_page_writes": "off",
    "autovacuum": "off",
    "max_parallel_workers_per_gather": "0",
    "max_connections": "200",
    "shared_buffers": "32MB",
}


def postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server binaries (``initdb``, ``postgres``), newest first."""
    named = os.environ.get("ARENA_POSTGRES_BIN")
    candidates = [Path(named)] if named else []

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))

    candidates += sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=version, reverse=True)
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "postgres").is_file():
            return folder
    return None


def _runner() -> pwd.struct_passwd | None:
    """Whom PostgreSQL runs as: ourselves, or the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return None
    return pwd.getpwnam("postgres")


def skip_reason() -> str | None:
    """Why a real PostgreSQL cannot run here, or None when it can."""
    if postgres_bin() is None:
        return (
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin: apt-get install "
            "postgresql, or set ARENA_POSTGRES_BIN to the folder of initdb and postgres)"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "the psycopg driver is not installed (pip install '.[server]')"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no 'postgres' user to run PostgreSQL as"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run_as(user: pwd.struct_passwd | None) -> dict[str, Any]:
    """``subprocess`` keywords that run a program as ``user`` (nothing when we are it)."""
    if user is None:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


@dataclass
class PostgresServer:
    """A running PostgreSQL: its folder, its process, and how to reach it."""

    folder: Path
    process: subprocess.Popen[bytes]
    port: int
    password: str
    _count: int = field(default=0)

    def url(self, database: str = "postgres") -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://{ROLE}:{self.password}@127.0.0.1:{self.port}/{database}"

    @contextlib.contextmanager
    def connect(self, database: str = "postgres") -> Iterator[Any]:
        """An autocommit psycopg connection, closed at the end and its backend gone."""
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True, connect_timeout=10) as opened:
            backend = opened.info.backend_pid
            yield opened
        self.wait_for_gone(lambda: {backend} & set(self.client_backends()))

    def create_database(self, prefix: str = "test") -> str:
        """A new empty database; its name."""
        self._count += 1
        name = f"{prefix}_{os.getpid()}_{self._count}"
        with self.connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return name

    def drop_database(self, name: str) -> None:
        """Drop ``name``, ending its open connections, and wait until their backends are gone."""
        with self.connect() as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.wait_for_gone(lambda: self.client_backends(name))

    def client_backends(self, database: str | None = None) -> list[int]:
        """The server's processes that serve a client (of ``database``, or any), not its own."""
        found = []
        for child in psutil.Process(self.process.pid).children():
            with contextlib.suppress(psutil.NoSuchProcess):
                # A backend's title names its user, database and client: "arena db 127.0.0.1(5)
                # idle"; a closed connection's backend keeps it while it exits.
                title = " ".join(child.cmdline()).split()
                if any(word.startswith("127.0.0.1(") for word in title) and (
                    database is None or database in title
                ):
                    found.append(child.pid)
        return found

    def wait_for_gone(self, alive: Callable[[], Collection[int]]) -> None:
        """Return once ``alive()`` finds no backend (each exits soon after its client left)."""
        deadline = time.monotonic() + STOP_SECONDS
        while left := alive():
            if time.monotonic() > deadline:
                raise AssertionError(f"PostgreSQL backends still running: {sorted(left)}")
            time.sleep(0.02)

    def log(self) -> str:
        """The server's log (what it said on stderr)."""
        path = self.folder / "server.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stop(self) -> None:
        """Fast shutdown (killed if it hangs); then remove the folder."""
        try:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGINT)
                try:
                    self.process.wait(timeout=STOP_SECONDS)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait(timeout=STOP_SECONDS)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def _make_folder(user: pwd.struct_passwd | None) -> Path:
    # Under /tmp when PostgreSQL runs as another user: it must reach its folder.
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-", dir="/tmp" if user else None))
    if user is not None:
        os.chown(folder, user.pw_uid, user.pw_gid)
    return folder


def _initdb(binaries: Path, folder: Path, password: str, user: pwd.struct_passwd | None) -> None:
    secret = folder / "password"
    secret.write_text(password + "\n", encoding="utf-8")
    if user is not None:
        os.chown(secret, user.pw_uid, user.pw_gid)
    command = [
        str(binaries / "initdb"),
        "--pgdata",
        str(folder / "data"),
        "--username",
        ROLE,
        "--pwfile",
        str(secret),
        "--auth",
        "scram-sha-256",
        "--encoding",
        "UTF8",
        "--locale",
        "C",
        "--no-sync",
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, timeout=START_SECONDS, cwd=folder,
        **_run_as(user),
    )  # fmt: skip
    secret.unlink()
    if done.returncode != 0:
        raise RuntimeError(f"initdb failed ({done.returncode}): {done.stderr.strip()[-2000:]}")


def _start(
    binaries: Path, folder: Path, port: int, user: pwd.struct_passwd | None
) -> subprocess.Popen[bytes]:
    settings = [f"--{key}={value}" for key, value in _SERVER_SETTINGS.items()]
    command = [str(binaries / "postgres"), "-D", str(folder / "data"), "-p", str(port)]
    command += ["-k", str(folder), *settings]
    with open(folder / "server.log", "wb") as log:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=folder,
            start_new_session=True, **_run_as(user),
        )  # fmt: skip


def _wait_until_ready(server: PostgresServer) -> None:
    import psycopg

    deadline = time.monotonic() + START_SECONDS
    while True:
        if server.process.poll() is not None:
            raise RuntimeError(f"PostgreSQL exited at start: {server.log()[-2000:]}")
        try:
            with server.connect():
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@contextlib.contextmanager
def running_postgres(attempts: int = 3) -> Iterator[PostgresServer]:
    """Start a PostgreSQL in a temporary folder; stop it and remove the folder at the end.

    A free port may be taken between choosing it and the server binding it: then the
    server exits at start and another port is tried, up to ``attempts`` times.
    """
    binaries = postgres_bin()
    assert binaries is not None, skip_reason()
    user = _runner()
    password = secrets.token_urlsafe(16)
    folder = _make_folder(user)
    server: PostgresServer | None = None
    try:
        _initdb(binaries, folder, password, user)
        for attempt in range(attempts):
            port = _free_port()
            server = PostgresServer(folder, _start(binaries, folder, port, user), port, password)
            try:
                _wait_until_ready(server)
                break
            except RuntimeError:
                if attempt == attempts - 1 or "could not bind" not in server.log():
                    raise
        assert server is not None
        yield server
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One real PostgreSQL for the session (skipped with the reason where there is none)."""
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_postgres() as server:
        yield server


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A fresh, empty database on the session's PostgreSQL: its URL."""
    yield from fresh_database(postgres_server)


@pytest.fixture(
    scope="session",
    params=[None, pytest.param("postgresql", marks=pytest.mark.slow)],
    ids=["sqlite", "postgresql"],
)
def sqlite_or_postgres(request: pytest.FixtureRequest) -> PostgresServer | None:
    """Each test that asks for it twice: None (SQLite), then, in the slow run, the session's
    PostgreSQL. Session-scoped so that the server starts before a test's process check
    takes its list of the processes already running."""
    if request.param is None:
        return None
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server


def database_urls(server: PostgresServer | None) -> Iterator[str | None]:
    """For a function fixture: None without a server, else a fresh database's URL, dropped
    (and its backends gone) after the test."""
    if server is None:
        yield None
    else:
        yield from fresh_database(server)


def fresh_database(server: PostgresServer) -> Iterator[str]:
    """A new database's URL; the database dropped (and its backends gone) afterwards."""
    name = server.create_database()
    try:
        yield server.url(name)
    finally:
        server.drop_database(name)
