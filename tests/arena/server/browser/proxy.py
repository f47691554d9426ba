"""A live site behind nginx over https, as docs/server.md deploys it: the configuration
the docs show (read from there, word for word; only the port, the host name, the
certificate and the site's address are this run's), a self-signed certificate made with
openssl in the caller's folder, nginx in the foreground on a free loopback port, stopped
at the end. ``test_tls_proxy`` and the browser journey use it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tests import REPO_ROOT
from tests.arena.server.browser.live import LiveSite

DOCS = REPO_ROOT / "docs" / "server.md"
#: The browser's address: a loopback address that is not the proxy's (127.0.0.1).
BROWSER = "127.0.0.2"
HOST = "localhost"
WAIT = 60.0
#: nginx, on the path or where Debian puts it (/usr/sbin is not on every user's path).
NGINX = shutil.which("nginx") or next(
    (str(p) for p in (Path("/usr/sbin/nginx"),) if os.access(p, os.X_OK)), None
)


def documented_nginx() -> str:
    """The nginx server block docs/server.md shows (its one ``nginx`` code block)."""
    blocks = re.findall(r"```nginx\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "docs/server.md shows one nginx configuration"
    return str(blocks[0])


def _replace_once(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"the documented configuration has {old!r} once"
    return text.replace(old, new)


def nginx_config(folder: Path, *, port: int, upstream: str, cert: Path, key: Path) -> str:
    """A whole nginx.conf: the documented server block (its port, host name, certificate
    and upstream made this test's) in an ``http`` block that keeps every file in
    ``folder``, in the foreground, one process."""
    server = documented_nginx()
    server = _replace_once(server, "listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
    server = _replace_once(server, "server_name poker.example.org;", f"server_name {HOST};")
    server = _replace_once(server, "/etc/ssl/certs/poker.example.org.pem", str(cert))
    server = _replace_once(server, "/etc/ssl/private/poker.example.org.key", str(key))
    server = _replace_once(server, "http://127.0.0.1:8000;", f"{upstream};")
    temp = "\n".join(f"    {kind}_temp_path {folder / kind};"
                     for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))  # fmt: skip
    return (
        f"daemon off;\nmaster_process off;\npid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'};\nevents {{ worker_connections 64; }}\n"
        f"http {{\n    access_log off;\n{temp}\n{server}}}\n"
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def certificate(folder: Path) -> tuple[Path, Path]:
    cert, key = folder / "site.pem", folder / "site.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=WAIT,
    )  # fmt: skip
    return cert, key


@contextlib.contextmanager
def nginx(folder: Path, config: str, port: int) -> Iterator[None]:
    """nginx with ``config`` until the block ends (stopped and waited for)."""
    path = folder / "nginx.conf"
    path.write_text(config, encoding="utf-8")
    process = subprocess.Popen(
        [str(NGINX), "-p", str(folder), "-c", str(path), "-e", str(folder / "error.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + WAIT
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 1):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                log = (folder / "error.log").read_text(errors="replace")
                raise RuntimeError(f"nginx did not start: {log[-2000:]}")
            time.sleep(0.05)
        yield
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=WAIT)


def missing_tool() -> str | None:
    """Why a site cannot be put behind nginx here (None: it can)."""
    if NGINX is None:
        return "nginx is not installed (make test-long installs it where it can)"
    if shutil.which("openssl") is None:
        return "openssl is not installed: no certificate can be made"
    return None


@dataclass(frozen=True)
class TlsSite:
    """A live site behind nginx: its https address (``https://localhost:PORT/``), nginx's
    port and the certificate a client must trust."""

    url: str
    port: int
    cert: Path


@contextlib.contextmanager
def behind_nginx(folder: Path, live: LiveSite) -> Iterator[TlsSite]:
    """``live`` behind nginx over https (files in ``folder``) until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = certificate(folder)
    port = free_port()
    config = nginx_config(folder, port=port, upstream=live.url.rstrip("/"), cert=cert, key=key)
    with nginx(folder, config, port):
        yield TlsSite(f"https://{HOST}:{port}/", port, cert)
