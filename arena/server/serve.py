"""``arena server run``: the web server (waitress) and the workers, started together and
stopped together.

The workers (``python -m arena.server.manage validate_uploads``, ``ladder_worker``) are
supervised: one that dies after a steady run is started again within a second; one that
keeps failing at its start (its database out of reach) after a back-off that doubles up to
a minute. SIGINT or SIGTERM stops the server, then the workers (SIGTERM, a few seconds'
grace, SIGKILL); a worker whose parent dies gets SIGTERM from the kernel. A signal is a
server's normal end, so it prints ``stopped`` and exits 0 (not ``interrupted`` and 130,
which a service manager would count as a failure). An address it cannot listen on is a
:class:`UsageError` (exit code 2) before any worker starts. No state lives in these
processes (an upload is stored before it is answered, a worker's job is leased), so
``kill -9`` of any of them loses nothing.

Behind a proxy that ends TLS (``--trusted-proxy ADDR``), waitress takes the client's
scheme and address from that proxy's ``X-Forwarded-Proto`` and ``X-Forwarded-For`` and
from no one else (:func:`waitress_options`): ``REMOTE_ADDR``, which the log-in limit counts
by, is then the browser's. A request body past the upload limit and :data:`BODY_SLACK` is
refused by waitress before the application reads a byte of it."""

from __future__ import annotations

import ipaddress
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from arena.server.django_start import start_django
from arena.server.jobs.backoff import Backoff
from arena.server.lifeline import parent_env
from arena.server.site_folder import SITE_ENV, SiteFolder
from arena.settings import UsageError

__all__ = ["BODY_SLACK", "WorkerPool", "proxy_address", "serve", "waitress_options", "work"]

#: Seconds a worker has to stop after SIGTERM before it is killed.
STOP_GRACE = 5.0


#: Room above the site's upload limit for a request body: a form's other fields and its
#: multipart framing (an upload is an archive of at most the limit, plus these).
BODY_SLACK = 256 * 1024

#: The proxy headers waitress takes from the trusted proxy: the scheme and the client.
PROXY_HEADERS = frozenset({"x-forwarded-proto", "x-forwarded-for"})


def proxy_address(text: str) -> str:
    """A trusted proxy's address (an IPv4 or IPv6 address, as the proxy connects from);
    ``ValueError`` naming the value otherwise.

    >>> proxy_address("127.0.0.1")
    '127.0.0.1'
    >>> proxy_address("nginx")
    Traceback (most recent call last):
    ...
    ValueError: a trusted proxy is an IP address (as it connects from), got 'nginx'
    """
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise ValueError(
            f"a trusted proxy is an IP address (as it connects from), got {text!r}"
        ) from None


def waitress_options(
    *, threads: int, upload_bytes: int, trusted_proxy: str | None = None
) -> dict[str, Any]:
    """waitress's settings: ``threads``, a body limit of ``upload_bytes`` (the site's upload
    limit) and :data:`BODY_SLACK`, and with a ``trusted_proxy`` the client's scheme and
    address taken from that proxy's headers only (module docstring).

    >>> options = waitress_options(threads=4, upload_bytes=1000, trusted_proxy="127.0.0.1")
    >>> options["max_request_body_size"], options["trusted_proxy_count"]
    (263145, 1)
    >>> "trusted_proxy" in waitress_options(threads=4, upload_bytes=1000)
    False
    """
    options: dict[str, Any] = {
        "threads": threads,
        # waitress refuses a body of this size or more: the limit and its slack pass.
        "max_request_body_size": upload_bytes + BODY_SLACK + 1,
    }
    if trusted_proxy is not None:
        options.update(
            trusted_proxy=trusted_proxy,
            trusted_proxy_count=1,
            trusted_proxy_headers=set(PROXY_HEADERS),
            clear_untrusted_proxy_headers=True,
        )
    return options


#: How a worker is started: the site's management commands (the command's name follows).
MANAGE = (sys.executable, "-m", "arena.server.manage")


#: A worker that ran this many seconds before it ended was working: it is started again
#: at once. One that ended sooner failed at its start, and waits longer each time in a row
#: (:class:`~arena.server.jobs.backoff.Backoff`, up to :data:`RESTART_MOST` seconds).
STEADY_SECONDS = 30.0
RESTART_MOST = 60.0


@dataclass(slots=True)
class _Slot:
    """One worker's place in the pool: its process, when it started, its back-off, and
    when it is due to start again (None while it runs)."""

    process: subprocess.Popen[bytes]
    started: float
    backoff: Backoff = field(default_factory=lambda: Backoff(first=1.0, most=RESTART_MOST))
    due: float | None = None


class WorkerPool:
    """The worker processes (the management ``command``: ``validate_uploads``, the ladder's
    ``ladder_worker``), kept at ``count`` while running; a dead one is seen within
    ``check_every`` seconds and started again: at once after a steady run, with a growing
    back-off when it keeps failing at its start (:data:`STEADY_SECONDS`)."""

    def __init__(
        self,
        site: SiteFolder,
        count: int,
        out: TextIO,
        command: str = "validate_uploads",
        *,
        program: tuple[str, ...] = MANAGE,
        check_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.site = site
        self.count = count
        self.command = command
        self.out = out
        self.program = program
        self.check_every = check_every
        self.clock = clock
        self.slots: list[_Slot] = []
        self.stopping = threading.Event()
        self.lock = threading.Lock()

    @property
    def processes(self) -> list[subprocess.Popen[bytes]]:
        """Each worker's process (the last one started in its place)."""
        return [slot.process for slot in self.slots]

    def _start_one(self) -> subprocess.Popen[bytes]:
        env = {**os.environ, SITE_ENV: str(self.site.root), **parent_env()}
        argv = [*self.program, self.command]
        return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL)

    def start(self) -> None:
        """Start the workers and the thread that restarts a dead one."""
        with self.lock:
            self.slots = [_Slot(self._start_one(), self.clock()) for _ in range(self.count)]
        threading.Thread(target=self._watch, name="worker-watch", daemon=True).start()

    def _watch(self) -> None:
        while not self.stopping.wait(self.check_every):
            with self.lock:
                if not self.stopping.is_set():
                    self.check()

    def check(self) -> None:
        """See to each worker once: schedule a dead one's restart, start one that is due."""
        now = self.clock()
        for slot in self.slots:
            if slot.due is None and slot.process.poll() is not None:
                if now - slot.started >= STEADY_SECONDS:
                    slot.backoff.succeeded()  # it ran: this end is not a failed start
                    delay = 0.0
                else:
                    delay = slot.backoff.failed()
                slot.due = now + delay
                when = "at once" if delay == 0 else f"in {delay:g} s"
                self.out.write(
                    f"worker {slot.process.pid} ended (exit code {slot.process.returncode}); "
                    f"starting another {when}\n"
                )
                self.out.flush()
            if slot.due is not None and now >= slot.due:
                slot.process, slot.started, slot.due = self._start_one(), now, None

    def stop(self) -> None:
        """Stop every worker: SIGTERM, then SIGKILL after :data:`STOP_GRACE` seconds."""
        self.stopping.set()
        with self.lock:
            for process in self.processes:
                if process.poll() is None:
                    process.terminate()
            for process in self.processes:
                try:
                    process.wait(STOP_GRACE)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def work(
    root: Path,
    *,
    workers: int,
    ladder_workers: int,
    out: TextIO,
    program: tuple[str, ...] = MANAGE,
) -> int:
    """Run the workers of the site (or worker folder) at ``root`` and no web server, until
    SIGINT or SIGTERM (then 0): a worker machine's ``arena server work``. The database is
    the site's: its tables are the web's to migrate, so this migrates nothing."""
    site = SiteFolder.load(root.absolute())
    pool = WorkerPool(site, workers, out, program=program)
    ladder = WorkerPool(site, ladder_workers, out, "ladder_worker", program=program)
    try:  # (a signal from here on stops the workers)
        pool.start()
        ladder.start()
        out.write(f"working for {site.root} with {workers} validation and {ladder_workers} "
                  "ladder worker(s); Ctrl-C stops\n")  # fmt: skip
        out.flush()
        threading.Event().wait()
    except KeyboardInterrupt:  # SIGINT, or SIGTERM as the arena command turns it
        pass
    finally:
        pool.stop()
        ladder.stop()
    out.write("stopped\n")
    return 0


def serve(
    root: Path,
    *,
    host: str,
    port: int,
    workers: int,
    threads: int,
    out: TextIO,
    ladder_workers: int = 1,
    trusted_proxy: str | None = None,
    program: tuple[str, ...] = MANAGE,
) -> int:
    """Serve the site at ``root`` until SIGINT or SIGTERM (then 0, see the module
    docstring; behind ``trusted_proxy``, the address of a proxy in front); the exit code.
    The workers are ``program``'s commands (the site's ``manage``; the tests' scripted
    workers). :class:`UsageError` when it cannot listen on ``host:port``."""
    import waitress

    site = SiteFolder.load(root.absolute())
    start_django(site.root)
    from django.core.management import call_command

    from arena.server.wsgi import application

    call_command("migrate", verbosity=0, interactive=False)  # a newer arena's tables
    pool = WorkerPool(site, workers, out, program=program)
    ladder = WorkerPool(site, ladder_workers, out, "ladder_worker", program=program)
    from arena.server.site.models import SiteSettings

    # A request body larger than any upload the site takes is refused by waitress itself.
    limit = SiteSettings.current().upload_archive_bytes
    options = waitress_options(threads=threads, upload_bytes=limit, trusted_proxy=trusted_proxy)
    try:
        server = waitress.create_server(application, host=host, port=port, **options)
    except OSError as error:  # a busy port, an address not of this machine, a port < 1024
        why = error.strerror or str(error)
        raise UsageError(f"cannot listen on {host}:{port}: {why}") from None
    if site.behind_tls and trusted_proxy is None:
        out.write("note: the site is behind TLS but no --trusted-proxy is named: "
                  "every request is redirected to https\n")  # fmt: skip
    pool.start()
    ladder.start()
    try:
        where = f"http://{host}:{server.effective_port}/"
        out.write(f"serving {site.root} on {where} with {workers} worker(s); Ctrl-C stops\n")
        out.flush()
        server.run()
    finally:
        server.close()
        pool.stop()
        ladder.stop()
    out.write("stopped\n")
    return 0
