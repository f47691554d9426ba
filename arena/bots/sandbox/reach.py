"""Whether a bot's own user can run a program, what to do when it cannot, and the paths
the host exposes to the box (:func:`parse_expose`).

A sandboxed bot runs as a user of its own (when the arena is root), so a program it
names, or one its build tool calls, must be runnable by any user: every directory on the
way searchable, the file executable by others. A toolchain installed in a home directory
(rustup's ``~/.cargo`` and ``~/.rustup``, pyenv's ``~/.pyenv``, nvm's ``~/.nvm``) is not,
as long as the home directory is closed (``/root`` is 0700). The error then names the way
out (:func:`unreachable_message`): install the tool where every user can run it, or let the
host expose its directory read-only to the strict layer's box, which makes each exposed
directory's parents searchable inside the box (``--expose DIR``; a manifest never can).
For a rustup toolchain the error also names the ``[env]`` a manifest needs: rustup looks
for its toolchains in the bot's home, which in the box is the bot's own.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "closed_directory",
    "installation_of",
    "is_runnable_by_anyone",
    "parse_expose",
    "rustup_home_of",
    "unreachable_message",
]


def is_runnable_by_anyone(path: str | Path, *, below: Iterable[Path] = ()) -> bool:
    """True when any user may execute ``path``: every directory on the way is searchable
    and the file executable by others. Directories above one of ``below`` (exposed paths,
    whose parents the box makes searchable) are not looked at."""
    return closed_directory(path, below=below) is None


def closed_directory(path: str | Path, *, below: Iterable[Path] = ()) -> Path | None:
    """The first place on the way to ``path`` (the file included) that other users cannot
    pass, None when there is none (see :func:`is_runnable_by_anyone`)."""
    try:
        real = Path(os.path.realpath(path))
        roots = [Path(os.path.realpath(root)) for root in below]
        top = next((root for root in roots if real.is_relative_to(root)), None)
        for parent in reversed(real.parents):
            if top is not None and not parent.is_relative_to(top):
                continue
            if not parent.stat().st_mode & stat.S_IXOTH:
                return parent
        return None if real.stat().st_mode & stat.S_IXOTH else real
    except OSError as exc:
        return Path(exc.filename or str(path))


def installation_of(program: Path) -> Path:
    """The directory to expose for ``program``: ``<root>`` for ``<root>/bin/<name>``
    (the toolchain with its libraries), else the program's own directory.

    >>> installation_of(Path("/root/.cargo/bin/cargo"))
    PosixPath('/root/.cargo')
    """
    return program.parent.parent if program.parent.name == "bin" else program.parent


def unreachable_message(bot_name: str, program: str, *, is_strict: bool) -> str:
    """Why the bot's user cannot run ``program`` and the ways out.

    >>> print(unreachable_message("b", "/nowhere/bin/tool", is_strict=True))  # doctest: +ELLIPSIS
    cannot run bot 'b': its program cannot be run by the bot's own user (...
    """
    closed = closed_directory(program)
    where = f"{str(closed)!r} is closed to other users" if closed else "it is closed"
    expose = installation_of(Path(os.path.realpath(program)))
    rustup_home = rustup_home_of(expose)
    paths = (expose,) if rustup_home is None else (expose, rustup_home)
    flags = " ".join(f"--expose {path}" for path in paths)
    listed = ", ".join(repr(str(path)) for path in paths)
    # The way out comes first: a fault's detail and the match's one-line refusal are cut
    # to a few hundred characters, and long paths must not push it out.
    how = (
        f"the host can expose it read-only to the box: {flags} (expose = [{listed}] in a "
        "tournament config; add any other directory it uses)"
        if is_strict
        else f"run under --sandbox strict with {flags}, which shows it read-only in the box "
        "(the limits layer cannot)"
    )
    rustup = (
        ""
        if rustup_home is None
        else " The bot's home in the box is its own, where rustup finds no toolchain: its "
        f"manifest's [env] also needs RUSTUP_HOME = {str(rustup_home)!r}, CARGO_HOME = "
        f'{str(expose)!r} and RUSTUP_TOOLCHAIN = "stable" (or the toolchain it is built '
        "with); docs/sandbox.md has a worked example."
    )
    return (
        f"cannot run bot {bot_name!r}: its program cannot be run by the bot's own user "
        f"({where}). Ways out: {how}.{rustup} Install it where every user can run it (a "
        "system package, /usr/local, /opt): a toolchain installed in a home directory, as "
        f"rustup and pyenv do, is closed to other users. The program: {program!r}"
    )


def rustup_home_of(installation: Path) -> Path | None:
    """The toolchains' directory of a rustup installation (``~/.rustup`` beside the
    ``~/.cargo`` whose ``bin`` holds rustup and its proxies, or ``$RUSTUP_HOME``), None
    when ``installation`` is not one.

    >>> rustup_home_of(Path("/nowhere/.cargo")) is None
    True
    """
    if not (installation / "bin" / "rustup").exists():
        return None
    named = os.environ.get("RUSTUP_HOME")
    return Path(named) if named else installation.parent / ".rustup"


def parse_expose(values: Iterable[object]) -> tuple[Path, ...]:
    """The host's exposed paths, checked: absolute paths that exist, never ``/``.

    Raises ``ValueError`` naming the bad value.

    >>> parse_expose(["/usr"])
    (PosixPath('/usr'),)
    """
    paths: list[Path] = []
    for value in values:
        if not isinstance(value, str | os.PathLike):
            raise ValueError(f"expose {value!r}: must be a path")
        path = Path(value)
        if not path.is_absolute():
            raise ValueError(f"expose {str(value)!r}: must be an absolute path")
        if not path.exists():
            raise ValueError(f"expose {str(value)!r}: no such file or directory")
        if Path(os.path.realpath(path)) == Path("/"):
            raise ValueError(f"expose {str(value)!r}: the whole file system cannot be exposed")
        paths.append(path)
    return tuple(dict.fromkeys(paths))
