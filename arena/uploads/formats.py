"""Reading the two archive formats as one stream of :class:`Entry` values, with the bytes
counted as they are read (:class:`Budget`), never as the headers claim.

A tar.gz is read as a stream (``tarfile`` mode ``r|``) from :class:`_GzipStream`, which
decompresses at most what is asked for and counts both sides: the compressed bytes read
from the archive and the bytes they gave. A zip is read from a file object that counts
what ``zipfile`` reads of it. So the compression ratio is the real one, whatever an entry's
header says, and a bomb is stopped after a few megabytes of output.

tarfile's own ``data`` filter (:func:`tarfile.data_filter`) is applied to every tar entry
after this package's rules, as a second layer: it refuses the same things (absolute paths,
links out, devices) in its own words, so a gap in our rules is still closed.
"""

from __future__ import annotations

import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import IO

from arena.uploads.rules import RATIO_FREE_BYTES, ArchiveError, ArchiveLimits

__all__ = ["TAR_GZ", "ZIP", "Budget", "Entry", "EntryKind", "read_entries", "tar_second_layer"]

#: The two formats' names.
TAR_GZ, ZIP = "tar.gz", "zip"

_CHUNK = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
# Room in a tar stream beside the files' bytes: a 512-byte header per entry, long-name
# and pax headers, padding, the end blocks.
_TAR_OVERHEAD_PER_ENTRY = 4096
_TAR_OVERHEAD = 64 * 1024
# Where tarfile's data filter is told the archive goes when nothing is written.
_NOWHERE = "/arena-upload-check"


class EntryKind(StrEnum):
    """What an entry is; only ``file`` and ``folder`` are accepted."""

    FILE = "file"
    FOLDER = "folder"
    SYMLINK = "symbolic link"
    HARDLINK = "hard link"
    DEVICE = "device"
    FIFO = "fifo"
    SOCKET = "socket"
    OTHER = "special entry"


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of an archive: its name as the archive gives it, its kind, its link's
    target (links only), whether it is executable, and its bytes (files only: a function
    returning a file object to read, in the archive's order)."""

    name: str
    kind: EntryKind
    is_executable: bool = False
    link_target: str = ""
    is_encrypted: bool = False
    open: Callable[[], IO[bytes]] | None = None
    tar_member: tarfile.TarInfo | None = None


class Budget:
    """The archive's byte counts, checked on every change: compressed bytes read, bytes
    they gave (``stream``: a tar's whole stream, a zip's files), and files' bytes."""

    def __init__(self, archive_limits: ArchiveLimits) -> None:
        self.archive_limits = archive_limits
        self.compressed_bytes = 0
        self.stream_bytes = 0
        self.file_bytes = 0
        self.stream_cap = (
            archive_limits.max_unpacked_bytes
            + _TAR_OVERHEAD
            + (archive_limits.max_entry_count + 1) * _TAR_OVERHEAD_PER_ENTRY
        )

    def read_compressed(self, count: int) -> None:
        """``count`` more bytes were read from the archive."""
        self.compressed_bytes += count

    def add_stream(self, count: int) -> None:
        """``count`` more bytes came out of decompression: the ratio is checked."""
        self.stream_bytes += count
        if self.stream_bytes > self.stream_cap:
            raise ArchiveError("unpacked_too_large", limit=self.archive_limits.max_unpacked_bytes)
        ratio_bytes = self.stream_bytes - RATIO_FREE_BYTES
        if ratio_bytes > self.archive_limits.max_ratio * max(self.compressed_bytes, 1):
            raise ArchiveError("compression_ratio", limit=self.archive_limits.max_ratio)

    def add_file_bytes(self, name: str, count: int) -> None:
        """``count`` more bytes of the file ``name`` are about to be written."""
        self.file_bytes += count
        if self.file_bytes > self.archive_limits.max_unpacked_bytes:
            raise ArchiveError(
                "unpacked_too_large", name, limit=self.archive_limits.max_unpacked_bytes
            )


def read_entries(archive: IO[bytes], budget: Budget) -> tuple[str, Iterator[Entry]]:
    """The format of ``archive`` (``tar.gz`` or ``zip``, told by its first bytes) and its
    entries, in order.

    Each file's bytes must be read before the next entry is asked for (a tar.gz is a
    stream). Raises :class:`ArchiveError` (``not_an_archive``, ``damaged``, or a limit).
    """
    start = archive.read(4)
    archive.seek(0)
    if start.startswith(_GZIP_MAGIC):
        return TAR_GZ, _tar_entries(archive, budget)
    if start in _ZIP_MAGICS:
        return ZIP, _zip_entries(archive, budget)
    raise ArchiveError("not_an_archive")


# -- tar.gz ----------------------------------------------------------------------------------


class _GzipStream:
    """A gzip file (one or more members) decompressed on demand, counted by ``budget``."""

    def __init__(self, raw: IO[bytes], budget: Budget) -> None:
        self._raw = raw
        self._budget = budget
        self._decompressor = zlib.decompressobj(31)
        self._is_done = False

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` decompressed bytes (``b""`` at the end)."""
        want = _CHUNK if size < 0 else size
        out = bytearray()
        while len(out) < want and not self._is_done:
            data = self._next_input()
            if data is None:
                break
            try:
                out += self._decompressor.decompress(data, want - len(out))
            except zlib.error as exc:
                raise ArchiveError("damaged", detail=f"gzip: {exc}") from None
        self._budget.add_stream(len(out))
        return bytes(out)

    def _next_input(self) -> bytes | None:
        decompressor = self._decompressor
        # End of member first: at the end zlib leaves the rest in unused_data and may keep
        # a stale copy of it in unconsumed_tail.
        if decompressor.eof:
            # Gzip members may follow one another; the stream ends with the file.
            rest = decompressor.unused_data or self._read_raw()
            if not rest:
                self._is_done = True
                return None
            self._decompressor = zlib.decompressobj(31)
            return rest
        if decompressor.unconsumed_tail:
            return decompressor.unconsumed_tail
        data = self._read_raw()
        if not data:
            raise ArchiveError("damaged", detail="the gzip stream ends early")
        return data

    def _read_raw(self) -> bytes:
        data = self._raw.read(_CHUNK)
        self._budget.read_compressed(len(data))
        return data


def _tar_kind(member: tarfile.TarInfo) -> EntryKind:
    if member.isreg():
        return EntryKind.FILE
    if member.isdir():
        return EntryKind.FOLDER
    if member.issym():
        return EntryKind.SYMLINK
    if member.islnk():
        return EntryKind.HARDLINK
    if member.ischr() or member.isblk():
        return EntryKind.DEVICE
    if member.isfifo():
        return EntryKind.FIFO
    return EntryKind.OTHER


def _tar_entries(archive: IO[bytes], budget: Budget) -> Iterator[Entry]:
    stream = _GzipStream(archive, budget)
    try:
        with tarfile.open(fileobj=stream, mode="r|", encoding="utf-8") as tar:  # type: ignore[call-overload]
            for member in tar:
                yield _tar_entry(tar, member)
    except (tarfile.TarError, EOFError) as exc:
        raise ArchiveError("damaged", detail=f"tar: {exc}") from None


def _tar_entry(tar: tarfile.TarFile, member: tarfile.TarInfo) -> Entry:
    kind = _tar_kind(member)
    opener: Callable[[], IO[bytes]] | None = None
    if kind is EntryKind.FILE:

        def opener() -> IO[bytes]:
            handle = tar.extractfile(member)
            assert handle is not None  # a regular file always has one
            return handle

    return Entry(
        member.name,
        kind,
        is_executable=bool(member.mode & 0o100),
        link_target=member.linkname,
        open=opener,
        tar_member=member,
    )


def tar_second_layer(entry: Entry, dest: str | None) -> None:
    """tarfile's ``data`` filter on the real tar member of ``entry``, which passed our
    rules (the second layer; ``dest`` None: nothing is written)."""
    if entry.tar_member is None:
        return
    try:
        tarfile.data_filter(entry.tar_member, dest or _NOWHERE)
    except tarfile.FilterError as exc:
        raise ArchiveError("data_filter", entry.name, detail=str(exc)) from exc


# -- zip -------------------------------------------------------------------------------------


class _CountingFile:
    """A seekable file whose reads ``budget`` counts as compressed bytes."""

    def __init__(self, raw: IO[bytes], budget: Budget) -> None:
        self._raw = raw
        self._budget = budget

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._budget.read_compressed(len(data))
        return data

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._raw.seek(offset, whence)

    def tell(self) -> int:
        return self._raw.tell()

    def seekable(self) -> bool:
        return True


class _CountedZipFile:
    """A zip entry's reader whose output ``budget`` counts as decompressed bytes."""

    def __init__(self, handle: IO[bytes], budget: Budget) -> None:
        self._handle = handle
        self._budget = budget

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._handle.read(size)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
            raise ArchiveError("damaged", detail=f"zip: {exc}") from None
        self._budget.add_stream(len(data))
        return data

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> _CountedZipFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _zip_kind(info: zipfile.ZipInfo) -> EntryKind:
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return EntryKind.SYMLINK
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return EntryKind.DEVICE
    if stat.S_ISFIFO(mode):
        return EntryKind.FIFO
    if stat.S_ISSOCK(mode):
        return EntryKind.SOCKET
    if info.filename.endswith("/") or stat.S_ISDIR(mode):
        return EntryKind.FOLDER
    return EntryKind.FILE


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The entry's name as stored: zipfile cuts a name at a NUL (so ``orig_filename``) and
    decodes a name without the UTF-8 flag as cp437 (so it is decoded again, as UTF-8)."""
    name = info.orig_filename
    if info.flag_bits & 0x800:
        return name
    raw = name.encode("cp437")
    return raw.decode("utf-8", errors="surrogateescape")


def _zip_entries(archive: IO[bytes], budget: Budget) -> Iterator[Entry]:
    counting = _CountingFile(archive, budget)
    try:
        zip_file = zipfile.ZipFile(counting)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, ValueError) as exc:
        raise ArchiveError("damaged", detail=f"zip: {exc}") from None
    with zip_file:
        infos = zip_file.infolist()
        if len(infos) > budget.archive_limits.max_entry_count:
            raise ArchiveError("too_many_entries", limit=budget.archive_limits.max_entry_count)
        for info in infos:
            kind = _zip_kind(info)
            opener: Callable[[], IO[bytes]] | None = None
            if kind is EntryKind.FILE:
                opener = _zip_opener(zip_file, info, budget)
            yield Entry(
                _zip_name(info),
                kind,
                is_executable=bool((info.external_attr >> 16) & 0o100),
                is_encrypted=bool(info.flag_bits & 0x1),
                open=opener,
            )


def _zip_opener(
    zip_file: zipfile.ZipFile, info: zipfile.ZipInfo, budget: Budget
) -> Callable[[], IO[bytes]]:
    def opener() -> IO[bytes]:
        try:
            handle = zip_file.open(info)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError) as exc:
            raise ArchiveError("damaged", detail=f"zip: {exc}") from None
        return _CountedZipFile(handle, budget)  # type: ignore[return-value]

    return opener
