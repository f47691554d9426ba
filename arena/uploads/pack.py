"""Packing a bot's folder into the archive ``arena submit`` uploads: :func:`pack`.

A tar.gz with the folder's contents at its top, the same bytes for the same folder (sorted
names, times 0, no owner, modes ``0644`` or ``0755``), without :data:`SKIPPED_NAMES`. The
server accepts no link, so a symbolic link to a file inside the folder is packed as a copy
of it and any other link, device, fifo or socket is an :class:`ArchiveError`; every name is
checked by the server's own rules, so what would be refused there is refused here first
(docs/uploads.md, "What is packed")."""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
from pathlib import Path

from arena.uploads.rules import DEFAULT_ARCHIVE_LIMITS, ArchiveError, ArchiveLimits, clean_name

__all__ = ["SKIPPED_NAMES", "pack"]

#: Files and folders never packed, wherever they are.
SKIPPED_NAMES = frozenset(
    {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
     ".DS_Store"}
)  # fmt: skip
_SKIPPED_SUFFIXES = (".pyc",)


def pack(folder: Path, archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS) -> bytes:
    """The tar.gz of ``folder``'s contents (see the module docstring).

    Raises :class:`ArchiveError` for a link out or to a folder, a special file, a name
    the server refuses, more entries or file bytes than ``archive_limits`` allow; ``ValueError``
    when ``folder`` is not a folder.
    """
    if not folder.is_dir():
        raise ValueError(f"{str(folder)!r} is not a folder")
    root = folder.resolve()
    buffer = io.BytesIO()
    total = 0
    count = 0
    with (
        gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as compressed,
        tarfile.open(fileobj=compressed, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path, name in _walk(root, ""):
            count += 1
            if count > archive_limits.max_entry_count:
                raise ArchiveError("too_many_entries", limit=archive_limits.max_entry_count)
            info, source = _member(root, path, name)
            data = None
            if source is not None:
                # The size on disk first: a huge file is refused before it is read.
                if total + source.stat().st_size > archive_limits.max_unpacked_bytes:
                    raise ArchiveError(
                        "unpacked_too_large", name, limit=archive_limits.max_unpacked_bytes
                    )
                data = source.read_bytes()
                info.size = len(data)
                total += info.size
                if total > archive_limits.max_unpacked_bytes:  # it grew while being read
                    raise ArchiveError(
                        "unpacked_too_large", name, limit=archive_limits.max_unpacked_bytes
                    )
            tar.addfile(info, None if data is None else io.BytesIO(data))
    return buffer.getvalue()


def _walk(root: Path, prefix: str) -> list[tuple[Path, str]]:
    """Every path to pack under ``root / prefix``, sorted, folders before their contents."""
    out: list[tuple[Path, str]] = []
    here = root / prefix if prefix else root
    for entry in sorted(os.scandir(here), key=lambda item: item.name):
        if entry.name in SKIPPED_NAMES or entry.name.endswith(_SKIPPED_SUFFIXES):
            continue
        name = f"{prefix}/{entry.name}" if prefix else entry.name
        out.append((Path(entry.path), name))
        if entry.is_dir(follow_symlinks=False):
            out.extend(_walk(root, name))
    return out


def _member(root: Path, path: Path, name: str) -> tuple[tarfile.TarInfo, Path | None]:
    """The tar header of ``path`` and the file to read its bytes from (None for a
    folder; a link's target for a link)."""
    clean_name(name)
    info = tarfile.TarInfo(name)
    info.mtime = 0
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    mode = path.lstat().st_mode
    if stat.S_ISLNK(mode):
        target = path.resolve()
        if not target.is_relative_to(root):
            raise ArchiveError(
                "link", name, kind="symbolic link", to=f" to {str(target)!r} (outside the folder)"
            )
        if not target.is_file():
            raise ArchiveError(
                "link", name, kind="symbolic link", to=f" to the folder {str(target)!r}"
            )
        mode = target.stat().st_mode
        path = target
    if stat.S_ISDIR(mode):
        info.type = tarfile.DIRTYPE
        info.mode = 0o755
        return info, None
    if not stat.S_ISREG(mode):
        kind = "fifo" if stat.S_ISFIFO(mode) else "socket" if stat.S_ISSOCK(mode) else "device"
        raise ArchiveError("special_file", name, kind=kind)
    info.mode = 0o755 if mode & stat.S_IXUSR else 0o644
    return info, path
