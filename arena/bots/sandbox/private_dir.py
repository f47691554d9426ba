"""A bot's private directory: made per start, owned by the bot's user, swept when its arena
is gone.

The limits layer (:class:`~arena.bots.sandbox.limited.LimitsLauncher`) gives each start of a
bot a private temporary directory: ``bot/`` is a copy of the bot's directory
(:func:`copy_bot_dir`; capped by :data:`DEFAULT_COPY_CAP_BYTES` and
:data:`DEFAULT_COPY_CAP_FILES`, and only regular files, directories and symbolic links are
copied), ``tmp/`` its ``TMPDIR``, the directory itself its ``HOME``. When the arena runs
as root the directory is given to the bot's own user id (:func:`fresh_user_id`,
:func:`give_to`), a fresh one per start, far above any real account's.

The directory's name says whose it is: ``arena-bot-<pid>-<start>-<random>``, the arena's
process id and start time (:func:`owner_prefix`, :func:`private_dir_owner`). An arena
killed by ``kill -9`` cannot remove its directories (nor can a strict layer's supervisor,
which lacks the right to delete the bot's files), so each new launcher sweeps those of
arenas that are gone (:func:`sweep_private_dirs`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from pathlib import Path

from arena.bots.sandbox.cgroup import is_running
from arena.bots.sandbox.confinement import remove_private_dir
from arena.bots.transport import BotStartError

__all__ = [
    "DEFAULT_COPY_CAP_BYTES",
    "DEFAULT_COPY_CAP_FILES",
    "PrivateDirError",
    "copy_bot_dir",
    "fresh_user_id",
    "give_to",
    "owner_prefix",
    "private_dir_owner",
    "sweep_private_dirs",
]

#: The most a bot's directory may hold; it is copied at every start.
DEFAULT_COPY_CAP_BYTES = 256 * 1024 * 1024

#: The most files (directories and links included) a bot's directory may hold.
DEFAULT_COPY_CAP_FILES = 20_000

#: User ids for bots are drawn from here: far above any account, below the 32-bit top.
_BOT_ID_BASE = 0x4000_0000
_BOT_ID_SPAN = 1 << 24

#: Every private directory's name begins so (then the owner, see :func:`private_dir_owner`).
_PRIVATE_PREFIX = "arena-bot-"


class PrivateDirError(BotStartError):
    """A bot's private directory could not be made (too big, unreadable file...)."""

    code = "private_dir"


def copy_bot_dir(
    source: Path,
    target: Path,
    *,
    cap_bytes: int,
    cap_files: int,
    bot_name: str,
    skip: Path | None = None,
) -> None:
    """Copy ``source`` to ``target`` (new): regular files, directories and symbolic links
    (as links), nothing else; raise :class:`PrivateDirError` past either cap.

    Files are opened without following links, so a link swapped in meanwhile is not read.
    ``skip`` is left out (the private directory, should it lie inside the bot's own).
    """
    budget = [cap_bytes, cap_files]

    def spend(size: int, path: Path) -> None:
        budget[0] -= size
        budget[1] -= 1
        if budget[0] < 0 or budget[1] < 0:
            raise PrivateDirError(
                f"cannot start bot {bot_name!r}: its directory {str(source)!r} holds more than "
                f"{cap_bytes} bytes or {cap_files} files (reached at {str(path)!r}); it is "
                "copied at every start, so keep big data out of it"
            )

    def copy(from_dir: Path, to_dir: Path) -> None:
        to_dir.mkdir(mode=0o700)
        with os.scandir(from_dir) as entries:
            for entry in entries:
                from_path, to_path = Path(entry.path), to_dir / entry.name
                if from_path == skip:
                    continue
                if entry.is_symlink():
                    spend(0, from_path)
                    os.symlink(os.readlink(from_path), to_path)
                elif entry.is_dir(follow_symlinks=False):
                    spend(0, from_path)
                    copy(from_path, to_path)
                elif entry.is_file(follow_symlinks=False):
                    spend(entry.stat(follow_symlinks=False).st_size, from_path)
                    _copy_file(from_path, to_path)
        shutil.copymode(from_dir, to_dir)

    try:
        copy(source, target)
    except PrivateDirError:
        raise
    except OSError as exc:
        raise PrivateDirError(
            f"cannot start bot {bot_name!r}: cannot copy its directory {str(source)!r}: "
            f"{exc.strerror or exc} ({exc.filename!r})"
        ) from exc


def _copy_file(source: Path, target: Path) -> None:
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        mode = os.fstat(fd).st_mode
        with open(fd, "rb", closefd=False) as reader, open(target, "xb") as writer:
            shutil.copyfileobj(reader, writer)
        os.chmod(target, stat.S_IMODE(mode) | stat.S_IRUSR | stat.S_IWUSR)
    finally:
        os.close(fd)


def private_dir_owner(name: str) -> tuple[int, int] | None:
    """The process id and start time (clock ticks after boot) of the arena that made the
    private directory ``name``; None for a name it did not make.

    >>> private_dir_owner("arena-bot-4242-987654-x1y2z3w4"), private_dir_owner("arena-bot-ab")
    ((4242, 987654), None)
    """
    parts = name.removeprefix(_PRIVATE_PREFIX).split("-")
    if not name.startswith(_PRIVATE_PREFIX) or len(parts) != 3:
        return None
    if not all(part.isascii() and part.isdigit() for part in parts[:2]):
        return None
    return int(parts[0]), int(parts[1])


def sweep_private_dirs(temp_dir: Path) -> list[Path]:
    """Remove the private directories in ``temp_dir`` whose arena is gone; the removed.

    Only what this launcher's naming made, as a real directory (not a link) of the arena's
    user or a bot's: an owner whose process id is free, a zombie (ended, not yet collected by
    its parent), or taken by a process started at another time (the id was reused), is
    gone. A name without an owner is left alone.
    Never raises: a directory that cannot be removed now is left for the next sweep.
    """
    removed: list[Path] = []
    try:
        names = [name for name in os.listdir(temp_dir) if name.startswith(_PRIVATE_PREFIX)]
    except OSError:
        return removed
    own_uid = os.geteuid()
    for name in names:
        owner = private_dir_owner(name)
        if owner is None or _is_running(*owner):
            continue
        path = temp_dir / name
        try:
            status = path.lstat()
        except OSError:
            continue
        is_ours = status.st_uid == own_uid or _is_bot_id(status.st_uid)
        if stat.S_ISDIR(status.st_mode) and is_ours:
            with contextlib.suppress(OSError):
                remove_private_dir(path)
                removed.append(path)
    return removed


def owner_prefix() -> str:
    """``arena-bot-<pid>-<start>-``: this process, which a sweep must not take for gone."""
    pid = os.getpid()
    return f"{_PRIVATE_PREFIX}{pid}-{_start_time(pid) or 0}-"


def _start_time(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot), None if it is not there."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat_line = file.read()
    except OSError:
        return None
    # The name in parentheses may hold anything; the start time is field 22.
    fields = stat_line[stat_line.rfind(b")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 else None


def _is_running(pid: int, start: int) -> bool:
    """Whether the process that started at ``start`` as ``pid`` still runs (a start of 0:
    not known, the id alone decides). A zombie has ended: a killed arena whose parent has
    not collected it yet must not keep its folders from the sweep."""
    if not is_running(pid):
        return False
    now = _start_time(pid)
    return start == 0 or now is None or now == start


def _is_bot_id(user: int) -> bool:
    return _BOT_ID_BASE <= user < _BOT_ID_BASE + _BOT_ID_SPAN


def fresh_user_id() -> int:
    """A user id for one start of a bot, drawn from a range no real account uses."""
    return _BOT_ID_BASE + secrets.randbelow(_BOT_ID_SPAN)


def give_to(private: Path, user: int) -> None:
    """Make ``private`` and everything in it belong to the bot's user (links themselves)."""
    os.chown(private, user, user)
    for root, dirs, files in os.walk(private):
        for name in dirs + files:
            os.chown(os.path.join(root, name), user, user, follow_symlinks=False)
