"""``arena server run``: waitress and the workers start together and stop together; a
worker killed with SIGKILL in the middle of a validation loses nothing (its job's lease
expires and another worker validates it); SIGKILL of the server takes its workers with it,
and the upload and the verdict are still there when it is started again."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.arena.server.factories import bot_archive
from tests.arena.server.scripted_pipeline import MARKER_ENV

#: Long enough for a loaded machine; the test waits only as long as it must.
WAIT = 90.0


def _until(what: str, check: Any) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def initialised_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site made by ``arena server init`` once for the module (its migrations and the
    administrator's password hash cost seconds of CPU); each test runs a copy."""
    folder = tmp_path_factory.mktemp("initialised")
    competition = folder / "competition.toml"
    competition.write_text('[site]\nsignup = "open"\n', encoding="utf-8")
    root = folder / "site"
    argv = ["server", "init", str(root), "--competition", str(competition)]
    done = subprocess.run([sys.executable, "-m", "arena.cli", *argv], check=True,
                          capture_output=True, text=True, timeout=WAIT)  # fmt: skip
    # No password given: one is drawn and printed this once.
    assert re.search(r"administrator admin, password \S{16} \(shown this once\)", done.stdout)
    return root


@pytest.fixture
def site(initialised_site: Path, tmp_path: Path) -> Path:
    """The test's own copy of the initialised site (its database, keys and folders, their
    modes kept by copytree; the competition file it names is the module's, which no test edits)."""
    root = tmp_path / "site"
    shutil.copytree(initialised_site, root)
    return root


def _token(root: Path) -> str:
    script = (
        "from tests.arena.server.factories import make_team, make_token;"
        "print(make_token(make_team('ants')))"
    )
    done = subprocess.run(
        [sys.executable, "-m", "arena.server.manage", "shell", "-c", script],
        env={**os.environ, "ARENA_SITE_DIR": str(root)},
        check=True,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    return done.stdout.strip().splitlines()[-1]


class Server:
    """``arena server run`` in a process of its own, on a free port, its validation workers
    with a pipeline that hangs the first time (:mod:`tests.arena.server.scripted_site`)."""

    def __init__(self, root: Path, marker: Path) -> None:
        env = {**os.environ, "ARENA_SERVER_LEASE_SECONDS": "2", MARKER_ENV: str(marker)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.arena.server.scripted_site", "run", str(root)],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"on (http://127\.0\.0\.1:\d+/)", line)
        assert found, line
        self.url = found.group(1)

    def workers(self) -> list[psutil.Process]:
        return psutil.Process(self.process.pid).children()

    def call(self, path: str, token: str, data: bytes | None = None) -> tuple[int, Any]:
        request = urllib.request.Request(
            self.url + path.lstrip("/"), data=data, headers={"Authorization": f"Bearer {token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())


@pytest.fixture
def running(site: Path, tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    marker = tmp_path / "marker"
    server = Server(site, marker)
    yield server, marker
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(WAIT)


def test_a_killed_worker_loses_no_upload_and_run_stops_everything(
    running: tuple[Server, Path], site: Path, tmp_path: Path
) -> None:
    server, marker = running
    token = _token(site)
    status, body = server.call("/api/v1/versions/", token, bot_archive())
    assert status == 201 and body["status"] == "queued"
    version_url = f"/api/v1/versions/{body['id']}/"
    worker_pid = int(_until("the first attempt", lambda: marker.exists() and marker.read_text()))
    assert server.call(version_url, token)[1]["status"] == "building"
    os.kill(worker_pid, signal.SIGKILL)
    # The server starts another worker; it claims the job once the dead one's lease expires.
    done = _until(
        "the verdict",
        lambda: (v := server.call(version_url, token)[1])["status"] == "accepted" and v,
    )
    assert [step["status"] for step in done["steps"]] == ["passed"] * 3
    workers = server.workers()
    assert workers and worker_pid not in {worker.pid for worker in workers}
    # SIGKILL of the server: its workers die with it (their parent-death signal).
    server.process.kill()
    server.process.wait(WAIT)
    _until(
        "the workers to end",
        lambda: not any(w.is_running() and w.status() != "zombie" for w in workers),
    )
    again = Server(site, marker)
    try:
        assert again.call(version_url, token)[1]["status"] == "accepted"
    finally:
        again.process.send_signal(signal.SIGTERM)
        assert again.process.wait(WAIT) == 0


def test_a_busy_port_is_one_line_naming_it_and_exit_2(site: Path) -> None:
    # Issue 32: a busy port was a 20-line traceback and exit code 1.
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "arena.cli", "server", "run", str(site), "--port", str(port)],
            capture_output=True, text=True, timeout=WAIT,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    error = [line for line in done.stderr.splitlines() if "error:" in line]
    assert error == [f"arena server: error: cannot listen on 127.0.0.1:{port}: "
                     "Address already in use"]  # fmt: skip


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_is_a_servers_normal_end_stopped_and_0(
    running: tuple[Server, Path], stop: signal.Signals
) -> None:
    # The README's exit-code table names this exception to "interrupted, 130".
    server, _marker = running
    workers = server.workers()
    server.process.send_signal(stop)
    out, _ = server.process.communicate(timeout=WAIT)
    assert server.process.returncode == 0
    assert out.splitlines()[-1] == "stopped" and "interrupted" not in out
    assert not any(w.is_running() and w.status() != "zombie" for w in workers)


def test_the_readmes_exit_code_table_says_how_the_server_ends() -> None:
    from tests import REPO_ROOT

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    (row,) = [
        line for line in readme.splitlines() if line.startswith("| `arena server run SITE` |")
    ]
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert "stopped by Ctrl-C or SIGTERM" in cells[1] and "busy port" in cells[3]
    assert cells[4] == "-"  # never "interrupted, 130": the test above pins exit code 0
    assert "but for `arena server run SITE`" in readme
