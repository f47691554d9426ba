"""A bot's disk: its private folder held to ``disk_bytes`` by the kernel.

Theory of operation. A bot (or a build) writes in its private folder (its copy, ``HOME``,
``TMPDIR``) and in ``/tmp``. On the host's disk nothing but ``RLIMIT_FSIZE`` would hold it,
and that caps each file, not their sum: a bot writing many files could fill the disk the
site's database lives on. So where the arena may mount (it runs as root), each private
folder is a tmpfs of its own, of ``disk_bytes`` (:func:`hold_disk`), made before the bot's
copy goes in: everything in it, the copy included, counts, and past the size a write fails
with ``ENOSPC``. The sandbox layers then show the folder's ``tmp/`` as the bot's ``/tmp``
(:mod:`arena.bots.sandbox.bwrap`, :mod:`arena.bots.sandbox.supervisor`), so one size holds
all a bot can write, and nothing it writes outlives its start: the tmpfs is unmounted
when the folder is removed (:func:`release_disk`), and with it every byte.

A tmpfs lives in memory (and swap), not on a disk: what a bot writes there is charged to
its cgroup's memory as well, so a bot with a cgroup cannot use more than its memory limit
for both together. Files count too: one inode per 4 KiB of the size (at least
:data:`MIN_INODES`), so a bot cannot exhaust the kernel's memory with empty files either.

Whether the disk limit stopped a bot is read from the folder once it is dead
(:func:`disk_breach`): a folder with less than :data:`FULL_SLACK_BYTES` free (or no inode
left) was filled.
"""

from __future__ import annotations

import ctypes
import errno
import logging
import os
from pathlib import Path

from arena.bots.sandbox.resources import LimitReason, format_size
from arena.bots.sandbox.watch import LimitBreach

__all__ = [
    "FULL_SLACK_BYTES",
    "MIN_INODES",
    "disk_breach",
    "hold_disk",
    "is_held",
    "release_disk",
    "tmpfs_options",
]

logger = logging.getLogger("arena.bots")

#: A folder with less free space than this counts as filled (a write of a block failed).
FULL_SLACK_BYTES = 64 * 1024

#: The fewest inodes a folder's tmpfs gets (a bot's copy may hold many small files).
MIN_INODES = 4096

_BYTES_PER_INODE = 4096
_MS_NOSUID = 2
_MS_NODEV = 4
_MNT_DETACH = 2

_libc = ctypes.CDLL(None, use_errno=True)


def tmpfs_options(size_bytes: int, *, mode: int = 0o700) -> str:
    """The mount options of a folder's tmpfs: its size, its inodes and its mode.

    >>> tmpfs_options(8 * 1024 * 1024)
    'size=8388608,nr_inodes=4096,mode=0700'
    """
    inodes = max(size_bytes // _BYTES_PER_INODE, MIN_INODES)
    return f"size={size_bytes},nr_inodes={inodes},mode={mode:04o}"


def hold_disk(folder: Path, size_bytes: int) -> bool:
    """Mount a tmpfs of ``size_bytes`` on the empty ``folder``; False (and nothing done)
    where the arena may not mount (it is not root), True when the kernel now holds it.

    Raises ``OSError`` for any other failure (a size the kernel refuses, say).
    """
    result = _libc.mount(
        b"tmpfs",
        os.fsencode(folder),
        b"tmpfs",
        ctypes.c_ulong(_MS_NOSUID | _MS_NODEV),
        tmpfs_options(size_bytes).encode(),
    )
    if result == 0:
        return True
    error = ctypes.get_errno()
    if error == errno.EPERM:
        return False
    raise OSError(error, f"cannot mount a tmpfs on {str(folder)!r}: {os.strerror(error)}")


def is_held(folder: Path) -> bool:
    """Whether ``folder`` is a mount of its own (a tmpfs :func:`hold_disk` made)."""
    return not folder.is_symlink() and os.path.ismount(folder)


def release_disk(folder: Path) -> None:
    """Unmount ``folder``'s tmpfs, if it has one: what the bot wrote is gone at once
    (detached: a process still inside keeps it only until it lets go)."""
    if is_held(folder) and _libc.umount2(os.fsencode(folder), _MNT_DETACH) != 0:
        error = ctypes.get_errno()
        logger.warning("cannot unmount %s: %s", folder, os.strerror(error))


def disk_breach(folder: Path | None, size_bytes: int) -> LimitBreach | None:
    """The disk limit, when ``folder`` is a held tmpfs that the bot filled."""
    if folder is None or not is_held(folder):
        return None
    usage = os.statvfs(folder)
    free = usage.f_bavail * usage.f_frsize
    if free >= FULL_SLACK_BYTES and (usage.f_files == 0 or usage.f_ffree > 0):
        return None
    what = "space" if free < FULL_SLACK_BYTES else "files"
    return LimitBreach(
        LimitReason.DISK,
        f"it filled its disk limit of {format_size(size_bytes)} (no {what} left in its "
        "private folder and /tmp: a write failed with ENOSPC)",
    )
