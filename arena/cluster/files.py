"""A match's files on their way from a worker to the host.

Where the host's run folder is not shared with the worker, the referee plays in a folder of
its own and sends the match's files back inside the outcome (:func:`pack_files`, compressed,
at most :data:`MAX_FILES_BYTES`); the host writes them under ``<run>/matches/<id>/``
(:func:`unpack_files`) before it stores the outcome, so ``hands_path`` and the stderr logs'
paths mean the same as for a local match.
"""

from __future__ import annotations

import os
import shutil
import stat
import zlib
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

__all__ = ["MAX_FILES_BYTES", "pack_files", "unpack_files"]

#: The most a match's files may weigh, compressed, on their way back to the host.
MAX_FILES_BYTES = 256 * 1024 * 1024


def pack_files(folder: Path) -> tuple[tuple[str, int, bytes], ...]:
    """Every regular file under ``folder`` as ``(relative path, mode, zlib bytes)``, in path
    order; nothing when the folder does not exist. Raises ``ValueError`` when the packed
    files exceed :data:`MAX_FILES_BYTES`."""
    if not folder.is_dir():
        return ()
    packed = []
    total = 0
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue  # a link could point anywhere on the worker: only the match's own files
        # The fastest level: a match's history shrinks about tenfold all the same.
        data = zlib.compress(path.read_bytes(), 1)
        total += len(data)
        if total > MAX_FILES_BYTES:
            raise ValueError(
                f"the match's files are more than {MAX_FILES_BYTES // 2**20} MiB compressed, "
                "too much to send back from a worker: play shorter blocks (block_deals)"
            )
        mode = stat.S_IMODE(path.stat().st_mode)
        packed.append((path.relative_to(folder).as_posix(), mode, data))
    return tuple(packed)


def unpack_files(files: Sequence[tuple[str, int, bytes]], folder: Path) -> None:
    """Write packed files into ``folder`` (emptied first: a match played again replaces its
    files). A path that would leave the folder or data that does not unpack is a
    ``ValueError`` naming it, and nothing more is written."""
    checked = []
    for name, mode, data in files:
        parts = PurePosixPath(name).parts
        if not parts or PurePosixPath(name).is_absolute() or ".." in parts:
            raise ValueError(f"a match file's path must stay in the match's folder: {name!r}")
        try:
            checked.append((parts, mode & 0o777, zlib.decompress(data)))
        except zlib.error as exc:
            raise ValueError(f"the match file {name!r} does not unpack: {exc}") from None
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for parts, mode, content in checked:
        path = folder.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Created with the mode it had on the worker (0600 for the files holding the seed)
        # so that it is never readable by others, not even for a moment.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(content)
