"""A live competition site, as an organiser runs it: ``arena server init`` and ``arena
server run`` as real processes on a free loopback port, in a folder of the caller's, and
stopped at the end. The browser journeys and ``bench/bench_server.py`` use it.

The server is started in its own session (process group) with ``--port 0`` and says its
address on its first line (``serving ... on http://127.0.0.1:PORT/``). It is stopped as
Ctrl-C would: SIGTERM, then its workers stop with it; a server that does not end within
:data:`STOP_SECONDS` is killed with its whole group, so nothing is left running.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tests import REPO_ROOT


def competition(validation_hands: int = 20) -> str:
    """A competition file: open sign-up (the journeys sign up through the form), showdowns
    shown to other teams, and a validation match of ``validation_hands`` hands (the site's
    default is 200; 20 judges an upload in seconds)."""
    return (
        '[site]\nsignup = "open"\nvisibility = "showdowns"\n\n'
        f"[validation]\nhands = {validation_hands}\n"
    )


#: The competition of the journeys.
COMPETITION = competition()

#: The administrator's password of every live site (loopback only, gone at the end).
ADMIN_PASSWORD = "a live site's administrator"

START_SECONDS = 120.0
STOP_SECONDS = 30.0


def arena(*argv: str) -> list[str]:
    """The command line of ``arena ARGV`` with this interpreter."""
    return [sys.executable, "-m", "arena.cli", *argv]


@dataclass
class LiveSite:
    """A running site: its folder, its address and its server process."""

    root: Path
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    #: The environment the server runs with over this process's (its management commands
    #: run with it too: the same ladder settings, say).
    environment: Mapping[str, str] = field(default_factory=dict)

    def log(self) -> str:
        """What the server wrote (stdout and stderr), for a failing test's message."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def manage(self, *argv: str, stdin: str = "") -> str:
        """Run a Django management command for this site (``shell -c ...``); its output."""
        done = subprocess.run(
            [sys.executable, "-m", "arena.server.manage", *argv],
            input=stdin, capture_output=True, text=True, timeout=START_SECONDS, check=False,
            env={**os.environ, **self.environment, "ARENA_SITE_DIR": str(self.root)},
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"manage {argv[0]} failed: {done.stderr[-2000:]}")
        return done.stdout


def init_site(
    folder: Path,
    *,
    competition: str = COMPETITION,
    database: str | None = None,
    options: Sequence[str] = (),
) -> Path:
    """``arena server init`` of a new site in ``folder/site`` (with ``options``, such as
    ``--behind-tls``); the site's folder."""
    folder.mkdir(parents=True, exist_ok=True)
    competition_file = folder / "competition.toml"
    competition_file.write_text(competition, encoding="utf-8")
    password_file = folder / "admin-password"
    password_file.write_text(ADMIN_PASSWORD + "\n", encoding="utf-8")
    site = folder / "site"
    command = arena("server", "init", str(site), "--competition", str(competition_file),
                    "--admin-password-file", str(password_file))  # fmt: skip
    if database is not None:
        command += ["--database", database]
    command += options
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=START_SECONDS, check=False, cwd=folder
    )
    if done.returncode != 0:
        raise RuntimeError(f"arena server init failed ({done.returncode}): {done.stderr}")
    return site


@contextlib.contextmanager
def running_site(
    site: Path,
    *,
    workers: int = 1,
    threads: int = 8,
    options: Sequence[str] = (),
    environment: Mapping[str, str] | None = None,
) -> Iterator[LiveSite]:
    """``arena server run`` of ``site`` on a free loopback port until the block ends (with
    ``options``, such as ``--trusted-proxy``, and ``environment`` over this process's,
    such as ``ARENA_LADDER``)."""
    log_path = site.parent / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            arena("server", "run", str(site), "--host", "127.0.0.1", "--port", "0",
                  "--workers", str(workers), "--threads", str(threads), *options),
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            cwd=site.parent, start_new_session=True, env={**os.environ, **(environment or {})},
        )  # fmt: skip
    try:
        address = _wait_for_address(process, log_path)
        live = LiveSite(site, address, process, log_path, dict(environment or {}))
        yield live
    finally:
        stop(process)


def _wait_for_address(process: subprocess.Popen[bytes], log_path: Path) -> str:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        text = log_path.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"serving .* on (http://127\.0\.0\.1:\d+/)", text)
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"arena server run exited ({process.returncode}): {text[-3000:]}")
        time.sleep(0.05)
    raise RuntimeError(f"arena server run said no address in {START_SECONDS:.0f} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (as Ctrl-C); the whole group killed if it has not ended in time."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=STOP_SECONDS)
    # The group: the server's workers and what they started, should any outlive it.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=STOP_SECONDS)


@contextlib.contextmanager
def live_site(
    folder: Path,
    *,
    competition: str = COMPETITION,
    database: str | None = None,
    workers: int = 1,
    threads: int = 8,
    environment: Mapping[str, str] | None = None,
) -> Iterator[LiveSite]:
    """A new site in ``folder``, served until the block ends (``environment``: as
    :func:`running_site`'s)."""
    site = init_site(folder, competition=competition, database=database)
    with running_site(site, workers=workers, threads=threads, environment=environment) as live:
        yield live


#: The starter bots a team may begin from (sample_bots/).
STARTER_BOTS = sorted(path.parent.name for path in (REPO_ROOT / "sample_bots").glob("*/bot.toml"))
