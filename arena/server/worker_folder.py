"""A worker machine's folder: what ``arena server join`` makes so that a machine other
than the web's runs ladder (and validation) workers for a site, given only the site's
database URL, its secret key, a copy of its competition file and a folder holding its
archives, mounted at any path.

It is a site folder (:class:`~arena.server.site_folder.SiteFolder`) whose ``site.json``
names the shared PostgreSQL database, whose ``uploads`` is a link to the archive store
(the web's ``uploads`` folder as this machine mounts it, read only is enough: an archive
is found by its name in the database, relative to ``uploads``, so no two machines need the
same path) and whose ``work`` folder is this machine's own (builds and match files). The
secret key is the site's: a game's seed is an HMAC under it, whichever machine schedules
the game.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from arena.server.site_folder import SiteFolder
from arena.settings import UsageError

__all__ = ["join_site"]


def join_site(
    root: Path, *, database: str, competition: Path, secret_key_file: Path, archives: Path
) -> SiteFolder:
    """Make the worker folder ``root`` (new or empty); :class:`UsageError` naming what is
    wrong (a database that is not PostgreSQL: SQLite is one machine's; a file or folder
    that is not there)."""
    if not database.startswith(("postgres://", "postgresql://")):
        raise UsageError(
            f"--database: workers on other machines share a PostgreSQL database, got {database!r}"
        )
    for name, path, is_dir in (("--competition", competition, False),
                               ("--secret-key-file", secret_key_file, False),
                               ("--archives", archives, True)):  # fmt: skip
        if not (path.is_dir() if is_dir else path.is_file()):
            kind = "folder" if is_dir else "file"
            raise UsageError(f"{name}: no {kind} at {str(path)!r}")
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UsageError(f"{str(root)!r} exists and is not an empty folder")
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    site = SiteFolder(root.absolute(), competition_file=competition.absolute(), database=database)
    layout = site.layout
    descriptor = os.open(layout.secret_key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(secret_key_file.read_text(encoding="utf-8").strip() + "\n")
    layout.uploads.symlink_to(archives.absolute(), target_is_directory=True)
    layout.work.mkdir(mode=0o700)
    site.save()
    shutil.copymode(layout.secret_key_file, layout.config_file)  # both the owner's only
    return site
