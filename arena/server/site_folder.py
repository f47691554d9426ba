"""The site folder: everything one competition site keeps on disk, made by ``arena server
init`` and read by the Django settings (:mod:`arena.server.settings`) at every start.

==================  ======================================================================
``site.json``       the database URL, the host names served, whether TLS is in front,
                    the competition file's path (mode 0600)
``secret_key``      Django's secret key (signs sessions and CSRF tokens), mode 0600
``site.sqlite3``    the database, unless ``site.json`` names a PostgreSQL one
``uploads/``        every uploaded archive, kept (back it up with the database)
``work/``           validation's scratch folders (safe to delete while stopped)
==================  ======================================================================
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from arena.settings import UsageError

__all__ = [
    "SiteFolder",
    "SiteLayout",
    "database_settings",
    "security_settings",
    "write_secret_key",
]

#: The environment variable that names the site folder to the Django settings.
SITE_ENV = "ARENA_SITE_DIR"
#: The environment variable whose database URL wins over ``site.json``'s (tests, containers).
DATABASE_ENV = "ARENA_DATABASE_URL"
#: Seconds a web thread keeps its database connection between requests (Django's
#: ``CONN_MAX_AGE``). A new connection per request costs more than most pages: about 1.7 ms
#: of the web server's 5 ms per request on SQLite, where Django sets up each connection anew
#: (bench/bench_server.py's pages, measured against a live site).
CONNECTION_MAX_AGE_S = 60


@dataclass(frozen=True, slots=True)
class SiteLayout:
    """The paths of a site folder."""

    root: Path

    @property
    def config_file(self) -> Path:
        """``site.json``."""
        return self.root / "site.json"

    @property
    def secret_key_file(self) -> Path:
        """``secret_key`` (mode 0600)."""
        return self.root / "secret_key"

    @property
    def sqlite_file(self) -> Path:
        """The default database."""
        return self.root / "site.sqlite3"

    @property
    def uploads(self) -> Path:
        """Uploaded archives."""
        return self.root / "uploads"

    @property
    def work(self) -> Path:
        """Validation's scratch folders."""
        return self.root / "work"


@dataclass(frozen=True, slots=True)
class SiteFolder:
    """``site.json``'s content.

    >>> SiteFolder(Path("/srv/site")).database_url
    'sqlite:////srv/site/site.sqlite3'
    """

    root: Path
    competition_file: Path | None = None
    allowed_hosts: tuple[str, ...] = ("localhost", "127.0.0.1", "[::1]")
    behind_tls: bool = False
    database: str | None = None

    @property
    def layout(self) -> SiteLayout:
        """The folder's paths."""
        return SiteLayout(self.root)

    @property
    def database_url(self) -> str:
        """The database: ``site.json``'s, or the folder's SQLite file (the environment's
        ``ARENA_DATABASE_URL`` wins over both: see :mod:`arena.server.settings`)."""
        return self.database or f"sqlite:///{self.layout.sqlite_file}"

    def save(self) -> None:
        """Write ``site.json``."""
        data = {
            "competition_file": None
            if self.competition_file is None
            else str(self.competition_file),
            "allowed_hosts": list(self.allowed_hosts),
            "behind_tls": self.behind_tls,
            "database": self.database,
        }
        # The database URL may hold a password: the file is its owner's only.
        descriptor = os.open(self.layout.config_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(json.dumps(data, indent=2) + "\n")

    @classmethod
    def load(cls, root: Path) -> SiteFolder:
        """The site folder at ``root``; :class:`UsageError` when it is not one."""
        config = SiteLayout(root).config_file
        try:
            data: dict[str, Any] = json.loads(config.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UsageError(
                f"{str(root)!r} is not a site folder (no site.json): make one with "
                "`arena server init SITE_DIR --competition FILE`"
            ) from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"{config}: cannot be read: {exc}") from None
        competition = data.get("competition_file")
        return cls(
            root=root,
            competition_file=None if competition is None else Path(competition),
            allowed_hosts=tuple(data.get("allowed_hosts", ())),
            behind_tls=bool(data.get("behind_tls", False)),
            database=data.get("database"),
        )

    def secret_key(self) -> str:
        """The secret key from its file."""
        return self.layout.secret_key_file.read_text(encoding="utf-8").strip()


def write_secret_key(path: Path) -> None:
    """A new secret key at ``path``, readable by its owner only (created 0600, never
    world-readable for a moment)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(secrets.token_urlsafe(50) + "\n")


def database_settings(url: str) -> dict[str, Any]:
    """Django's ``DATABASES["default"]`` for a database URL: ``sqlite:///ABSOLUTE/PATH`` or
    ``postgresql://USER:PASSWORD@HOST:PORT/NAME``.

    >>> database_settings("sqlite:////srv/site/site.sqlite3")["NAME"]
    '/srv/site/site.sqlite3'
    >>> settings = database_settings("postgresql://arena:s%40cret@db:5433/comp")
    >>> settings["ENGINE"], settings["USER"], settings["PASSWORD"], settings["PORT"]
    ('django.db.backends.postgresql', 'arena', 's@cret', 5433)
    >>> database_settings("mysql://x/y")
    Traceback (most recent call last):
    ...
    arena.settings.model.UsageError: database URL 'mysql://x/y': must start with sqlite:/// or postgresql://
    """
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        name = unquote(url.removeprefix("sqlite:///"))
        if not url.startswith("sqlite:///") or not name:
            raise UsageError(f"database URL {url!r}: needs a file, sqlite:////absolute/path")
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": name,
                "CONN_MAX_AGE": CONNECTION_MAX_AGE_S,
                "OPTIONS": {"timeout": 20, "transaction_mode": "IMMEDIATE",
                            "init_command": "PRAGMA journal_mode=WAL;"}}  # fmt: skip
    if parts.scheme in ("postgres", "postgresql"):
        name = parts.path.lstrip("/")
        if not name:
            raise UsageError(f"database URL {url!r}: names no database (…/NAME)")
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": unquote(name),
            "USER": unquote(parts.username or ""),
            "PASSWORD": unquote(parts.password or ""),
            "HOST": parts.hostname or "",
            "PORT": parts.port or "",
            "CONN_MAX_AGE": CONNECTION_MAX_AGE_S,
        }
    raise UsageError(f"database URL {url!r}: must start with sqlite:/// or postgresql://")


def security_settings(*, behind_tls: bool, allowed_hosts: list[str]) -> dict[str, Any]:
    """Django's settings for a site served over TLS by a proxy in front (``behind_tls``):
    cookies are ``Secure``, plain HTTP is redirected and browsers are told to keep to
    HTTPS. Cookies are ``HttpOnly`` and ``SameSite=Lax`` either way. Django reads the
    scheme from the WSGI server, never from a header: waitress sets it from the trusted
    proxy's ``X-Forwarded-Proto`` only (``arena server run --trusted-proxy``), so no other
    client can claim https.

    >>> "SECURE_PROXY_SSL_HEADER" in security_settings(behind_tls=True, allowed_hosts=[])
    False

    >>> tls = security_settings(behind_tls=True, allowed_hosts=["poker.example.org"])
    >>> tls["CSRF_TRUSTED_ORIGINS"]
    ['https://poker.example.org']
    >>> security_settings(behind_tls=False, allowed_hosts=[])["SESSION_COOKIE_SECURE"]
    False
    """
    values: dict[str, Any] = {
        "SESSION_COOKIE_HTTPONLY": True,
        "SESSION_COOKIE_SAMESITE": "Lax",
        "CSRF_COOKIE_HTTPONLY": True,
        "CSRF_COOKIE_SAMESITE": "Lax",
        "SESSION_COOKIE_SECURE": behind_tls,
        "CSRF_COOKIE_SECURE": behind_tls,
    }
    if behind_tls:
        values.update(
            SECURE_SSL_REDIRECT=True,
            SECURE_HSTS_SECONDS=31_536_000,
            CSRF_TRUSTED_ORIGINS=[f"https://{host}" for host in allowed_hosts if host != "*"],
        )
    return values
