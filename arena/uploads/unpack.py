"""Checking and unpacking an uploaded archive: :func:`unpack` into a new folder,
:func:`inspect` without writing anything (the server's check before it stores an upload).

Both run the rules of :mod:`arena.uploads.rules` (docs/uploads.md, "The archive rules") on
every entry, in order: the archive's size before anything is read, the number of
entries, the name, the kind (files and folders only: every link is refused, wherever it
points), tarfile's own ``data`` filter as a second layer, then the bytes, counted while
they are read (a bomb stops once it gave ``max_ratio`` times what was read of it, beyond
its first MiB). Files get fresh modes (``0644``, ``0755``): no set-uid bit, owner or time
is taken from the archive. A refused archive leaves nothing behind."""

from __future__ import annotations

import io
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from arena.uploads.formats import (
    TAR_GZ,
    Budget,
    Entry,
    EntryKind,
    read_entries,
    tar_second_layer,
)
from arena.uploads.rules import DEFAULT_ARCHIVE_LIMITS, ArchiveError, ArchiveLimits, clean_name

__all__ = ["ArchiveSummary", "inspect", "unpack"]

_COPY_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ArchiveSummary:
    """What an accepted archive holds: its format (``tar.gz`` or ``zip``), its files
    (cleaned names, in the archive's order), its folders and the files' bytes."""

    format: str
    files: tuple[str, ...]
    folder_count: int
    unpacked_bytes: int

    @property
    def file_count(self) -> int:
        """How many files."""
        return len(self.files)


class _Sink(Protocol):
    dest: str | None

    def folder(self, name: str) -> None: ...

    def file(self, name: str, is_executable: bool) -> IO[bytes]: ...


class _NullSink:
    """Writes nothing (:func:`inspect`)."""

    dest: str | None = None

    def folder(self, name: str) -> None:
        """Nothing to make."""

    def file(self, name: str, is_executable: bool) -> IO[bytes]:
        return io.BytesIO()  # emptied by _copy after each chunk


class _FolderSink:
    """Writes under ``root``, which this run created and nothing else writes in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dest: str | None = str(root)

    def folder(self, name: str) -> None:
        (self.root / name).mkdir(mode=0o755, parents=True, exist_ok=True)

    def file(self, name: str, is_executable: bool) -> IO[bytes]:
        path = self.root / name
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        # O_EXCL and O_NOFOLLOW: never through a link, never over a file (neither can be
        # there, the rules refuse both; this is the second lock on the door).
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        descriptor = os.open(path, flags, 0o755 if is_executable else 0o644)
        return os.fdopen(descriptor, "wb")


def inspect(
    source: Path | bytes, archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
) -> ArchiveSummary:
    """Check ``source`` (a path or the archive's bytes) against every rule without writing
    anything; raises :class:`ArchiveError` for the first rule broken."""
    return _run(source, archive_limits, _NullSink())


def unpack(
    source: Path | bytes, dest: Path, archive_limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
) -> ArchiveSummary:
    """Check ``source`` and unpack it into ``dest``, a folder that must not exist yet (it
    is created, mode 0755). Raises :class:`ArchiveError` for the first rule broken, and
    then ``dest`` is gone. ``FileExistsError`` when ``dest`` exists."""
    dest.mkdir(mode=0o755)
    try:
        return _run(source, archive_limits, _FolderSink(dest))
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def _run(source: Path | bytes, archive_limits: ArchiveLimits, sink: _Sink) -> ArchiveSummary:
    size = len(source) if isinstance(source, bytes) else source.stat().st_size
    if size > archive_limits.max_archive_bytes:
        raise ArchiveError("archive_too_large", size=size, limit=archive_limits.max_archive_bytes)
    archive: IO[bytes] = io.BytesIO(source) if isinstance(source, bytes) else source.open("rb")
    with archive:
        budget = Budget(archive_limits)
        kind, entries = read_entries(archive, budget)
        taken = _Taken()
        for entry in entries:
            taken.count += 1
            if taken.count > archive_limits.max_entry_count:
                raise ArchiveError("too_many_entries", limit=archive_limits.max_entry_count)
            name = _checked(entry, taken)
            if not name:
                continue  # the archive's root folder ("./")
            if kind == TAR_GZ:
                tar_second_layer(entry, sink.dest)
            if entry.kind is EntryKind.FOLDER:
                sink.folder(name)
                continue
            assert entry.open is not None
            with entry.open() as reader, sink.file(name, entry.is_executable) as writer:
                _copy(name, reader, writer, budget)
        return ArchiveSummary(kind, tuple(taken.files), len(taken.folders), budget.file_bytes)


@dataclass(slots=True)
class _Taken:
    """The names seen so far: files, folders declared or implied by a file's path."""

    count: int = 0
    files: list[str] = field(default_factory=list)
    file_set: set[str] = field(default_factory=set)
    folders: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)


def _checked(entry: Entry, taken: _Taken) -> str:
    """The entry's cleaned name once every name and kind rule passed; recorded."""
    name = clean_name(entry.name)
    if entry.kind in (EntryKind.SYMLINK, EntryKind.HARDLINK):
        to = f" to {entry.link_target!r}" if entry.link_target else ""
        raise ArchiveError("link", entry.name, kind=entry.kind.value, to=to)
    if entry.kind not in (EntryKind.FILE, EntryKind.FOLDER):
        raise ArchiveError("special_file", entry.name, kind=entry.kind.value)
    if entry.is_encrypted:
        raise ArchiveError("encrypted", entry.name)
    if not name:
        if entry.kind is EntryKind.FILE:
            raise ArchiveError("leaves_folder", entry.name)
        return name
    parts = name.split("/")
    for depth in range(1, len(parts)):
        parent = "/".join(parts[:depth])
        if parent in taken.file_set:
            raise ArchiveError("through_file", entry.name, parent=parent)
        taken.folders.add(parent)
    if name in taken.file_set or name in taken.declared:
        raise ArchiveError("duplicate", entry.name)
    if entry.kind is EntryKind.FOLDER:
        taken.declared.add(name)
        taken.folders.add(name)
    elif name in taken.folders:
        raise ArchiveError("duplicate", entry.name)
    else:
        taken.file_set.add(name)
        taken.files.append(name)
    return name


def _copy(name: str, reader: IO[bytes], writer: IO[bytes], budget: Budget) -> None:
    """Copy one file's bytes, each chunk counted before it is written."""
    while chunk := reader.read(_COPY_CHUNK):
        budget.add_file_bytes(name, len(chunk))
        writer.write(chunk)
        if isinstance(writer, io.BytesIO):  # inspecting: keep nothing
            writer.seek(0)
            writer.truncate()
