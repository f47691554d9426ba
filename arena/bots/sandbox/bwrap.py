"""The strict layer: the limits layer's supervisor and bot run inside bubblewrap (``bwrap``).

:class:`StrictLauncher` takes the spec of the limits layer
(:class:`~arena.bots.sandbox.limited.LimitsLauncher`: the supervisor that sets the resource
limits and changes to the bot's own uid, then the bot, in a private copy of its directory)
and runs it in a box; what the box keeps a bot from, and what it does not, is the README's
"Security" section. How it is made:

* own PID, network (a loopback of its own), IPC and UTS namespaces and a new terminal
  session; the supervisor is the box's first process (``--as-pid-1``): when it dies the
  kernel kills everything in the box, and ``--die-with-parent`` ties the box to the arena;
* read-only binds of what programs need (:data:`SYSTEM_DIRS`, the interpreter's and the
  bot program's installation when they live elsewhere: :func:`visible_paths`, the
  supervisor's one file), a ``/proc`` and ``/dev`` of its own, and two writable places: the
  bot's private directory and a private ``/tmp`` (``TMPDIR``). As root the private
  directory is a tmpfs of ``resources.disk_bytes`` (:mod:`arena.bots.sandbox.disk`) and
  ``/tmp`` is its ``tmp/``; without root ``/tmp`` is a tmpfs of ``resources.tmp_bytes``.
  Binds are ``nosuid`` and bwrap sets ``no_new_privs``;
* run as root, the box keeps only ``CAP_SETUID``, ``CAP_SETGID``, ``CAP_DAC_READ_SEARCH``
  and ``CAP_KILL`` for the supervisor, which changes to the bot's fresh uid, clearing all
  four, before the bot runs; run as another user, bwrap's user namespace shows the bot as
  uid 65534, which is still the arena's uid outside the box;
* the system call filter of :mod:`arena.bots.sandbox.seccomp` (``bwrap --seccomp``), and
  the bot's cgroup, where the limits layer makes one, joined before ``bwrap`` runs
  (:func:`~arena.bots.sandbox.cgroup.join_command`) so that bwrap and the box are held by it.

Builds run in the same box: the limits layer keeps the build's private copy and later
starts copy it. :meth:`StrictLauncher.close` removes those copies.

bwrap reports a box whose first process died of signal N as exit code 128 + N.

The filter is written once per launcher to a sealed memory file (``memfd``) that goes with
the arena's process however it ends (``kill -9`` leaves nothing in ``TMPDIR``); the ``sh``
in front of bwrap opens it through ``/proc`` as descriptor 5 for ``--seccomp 5`` (bwrap
reads it and closes it).

The bot's standard input and output reach the box as descriptors 3 and 4, not 0 and 1
(:data:`HAND_OVER_STREAMS`): bwrap's monitor, the process that stays outside the box until
it ends, keeps its own descriptors 0 to 2 open, so a bot that closed its output but ran on
would never be seen to close it. bwrap closes every other descriptor in its monitor, and
the supervisor moves 3 and 4 back onto 0 and 1 inside the box.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.bots.launcher import LaunchSpec
from arena.bots.manifest import BotManifest
from arena.bots.sandbox.cgroup import join_command
from arena.bots.sandbox.disk import is_held
from arena.bots.sandbox.limited import PRIVATE_TMP_OPTION, SUPERVISOR_PATH, LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.sandbox.seccomp import UnknownMachineError, filter_for_machine

__all__ = [
    "HAND_OVER_STREAMS",
    "HAND_OVER_STREAMS_AND_FILTER",
    "SECCOMP_FD",
    "Box",
    "StrictLauncher",
    "StrictUnavailableError",
    "check_box",
    "find_box",
    "visible_paths",
]

#: The uid a bot has inside the box when the arena is not root (bwrap's user namespace
#: maps it to the arena's own uid outside).
UNPRIVILEGED_UID = 65534

#: Directories every program needs, bound read-only when they exist.
SYSTEM_DIRS = (Path("/usr"), Path("/etc"))
#: Top-level names that are links into /usr on most systems (merged /usr) and directories
#: on some others; the box gets the same as the machine.
_TOP_LEVEL_NAMES = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
#: What bwrap itself makes before the binds: never made again as a bare directory.
_MADE_BY_BWRAP = (Path("/"), Path("/proc"), Path("/dev"), Path("/tmp"))

_PROBE_TIMEOUT_S = 10.0

#: A ``sh`` in front of bwrap: the bot's input and output move to descriptors 3 and 4,
#: and bwrap's own 0 and 1 become ``/dev/null`` (its 2 stays: its own errors go there).
#: Why not in the supervisor: bwrap's monitor, outside the box, holds what bwrap got as
#: 0, 1 and 2 until the box ends, so the arena would read no end of file from a bot that
#: closed its output and ran on; bwrap has no option to let them go, but its monitor closes
#: every descriptor above 2 (they were handed to the box), so descriptors 3 and 4 belong
#: to the box alone, and the end of the output is seen the moment the bot's tree lets go
#: of it, with no cost while it runs. (Watching ``/proc`` for holders of the pipe from the
#: supervisor would see it late, and spend time on it the whole match.) ``$0`` names the
#: shell in its errors; ``"$@"`` is bwrap's argv.
HAND_OVER_STREAMS = (
    "/bin/sh",
    "-c",
    'exec 3<&0 4>&1 </dev/null >/dev/null && exec "$@"',
    "arena-bwrap",
)
#: The same with the system call filter's file (``$1``) opened as descriptor 5.
HAND_OVER_STREAMS_AND_FILTER = (
    "/bin/sh",
    "-c",
    'exec 3<&0 4>&1 5<"$1" </dev/null >/dev/null && shift && exec "$@"',
    "arena-bwrap",
)
#: The descriptor the filter is read from.
SECCOMP_FD = 5
#: The supervisor's options that take the streams back from descriptors 3 and 4.
_STREAM_OPTIONS = ("--stdin-fd=3", "--stdout-fd=4")


class StrictUnavailableError(RuntimeError):
    """The strict layer cannot run here; the message says why and what to install."""

    code = "sandbox_unavailable"


@dataclass(frozen=True, slots=True)
class Box:
    """The ``bwrap`` program, how privileged the arena is and what this bwrap can do."""

    bwrap: str
    is_root: bool  # the supervisor changes to the bot's uid inside the box
    has_size_option: bool  # bwrap 0.7 and newer size a tmpfs with --size
    seccomp: bytes | None = None  # the system call filter (None: none known here)

    def arguments(
        self,
        *,
        private_dir: Path,
        cwd: Path,
        read_only: Iterable[Path],
        tmp_bytes: int,
        seccomp_fd: int | None = None,
        tmp_source: Path | None = None,
    ) -> list[str]:
        """bwrap's argv up to its ``--``, for a box whose only writable place is
        ``private_dir``; the command follows. ``seccomp_fd`` is the open descriptor of
        the system call filter, if one is applied. ``tmp_source`` is the box's ``/tmp``
        when given (the private directory's ``tmp/``, on its size-limited tmpfs), else a
        tmpfs of ``tmp_bytes``."""
        args = [
            self.bwrap,
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "bot",
            "--die-with-parent",
            "--new-session",
            "--as-pid-1",
        ]
        made = set(_MADE_BY_BWRAP)
        for name in _TOP_LEVEL_NAMES:
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), str(host)]
                made.add(host)
        args += ["--proc", "/proc", "--dev", "/dev"]
        if tmp_source is not None:
            args += ["--bind", str(tmp_source), "/tmp"]
        else:
            args += ["--perms", "1777"]
            if self.has_size_option:
                args += ["--size", str(tmp_bytes)]
            args += ["--tmpfs", "/tmp"]
        for path in read_only:
            if path.exists() and path not in made:
                args += _parent_directories(path, made)
                args += ["--ro-bind", str(path), str(path)]
                made.add(path)
        args += _parent_directories(private_dir, made)
        args += ["--bind", str(private_dir), str(private_dir), "--chdir", str(cwd)]
        if self.is_root:
            # bwrap run by root keeps every capability unless told otherwise. The
            # supervisor needs these four only: to enter the private directory, which
            # belongs to the bot's uid, to change to that uid (which clears all four for
            # the bot), and to kill the bot's processes, another uid's, at the end.
            # no_new_privs (always set by bwrap) keeps the bot from getting any back.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_DAC_READ_SEARCH"]
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            args += ["--cap-add", "CAP_KILL"]
        else:
            args += ["--unshare-user", "--uid", str(UNPRIVILEGED_UID)]
            args += ["--gid", str(UNPRIVILEGED_UID)]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        args.append("--")
        return args


def find_box(*, bwrap: str = "bwrap") -> Box:
    """The ``bwrap`` on the ``PATH`` and what it can do; raises
    :class:`StrictUnavailableError` naming what is missing."""
    path = shutil.which(bwrap)
    if path is None:
        raise StrictUnavailableError(
            f"{bwrap!r} (bubblewrap) is not installed (apt-get install bubblewrap)"
        )
    try:
        help_text = subprocess.run(
            [path, "--help"],
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
            check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StrictUnavailableError(f"cannot run {path!r}: {exc}") from exc
    for option in ("--perms", "--as-pid-1", "--die-with-parent"):
        if option not in help_text:
            raise StrictUnavailableError(
                f"{path!r} is too old: it has no {option} (bubblewrap 0.5 or newer needed)"
            )
    try:
        seccomp: bytes | None = filter_for_machine()
    except UnknownMachineError:
        seccomp = None  # the box still holds; the description says there is no filter
    return Box(
        path, is_root=os.geteuid() == 0, has_size_option="--size" in help_text, seccomp=seccomp
    )


def check_box(box: Box, *, python: str = sys.executable) -> None:
    """Run the interpreter once in a box made as a bot's is; raise
    :class:`StrictUnavailableError` with bwrap's own words when that fails (no namespaces
    in an unprivileged container, a kernel without user namespaces...)."""
    interpreter = os.path.realpath(python)
    filter_fd = None if box.seccomp is None else _filter_file(box.seccomp)
    with tempfile.TemporaryDirectory(prefix="arena-probe-") as work:
        argv = box.arguments(
            private_dir=Path(work),
            cwd=Path(work),
            read_only=visible_paths([interpreter]),
            tmp_bytes=DEFAULT_RESOURCES.tmp_bytes,
            seccomp_fd=None if box.seccomp is None else SECCOMP_FD,
        )
        argv += [interpreter, "-I", "-S", "-c", "pass"]
        front = HAND_OVER_STREAMS if filter_fd is None else _with_filter(filter_fd)
        try:
            result = subprocess.run(
                [*front, *argv],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=_PROBE_TIMEOUT_S,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StrictUnavailableError(f"cannot run {box.bwrap!r}: {exc}") from exc
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
    if result.returncode != 0:
        said = (result.stderr.strip().splitlines() or ["no message"])[-1]
        raise StrictUnavailableError(
            f"bwrap cannot make a box here (exit code {result.returncode}: {said})"
        )


def visible_paths(
    programs: Iterable[str], *, env_path: str | None = None, shown: Iterable[Path] = ()
) -> list[Path]:
    """The read-only paths a box needs to run ``programs`` (names or paths): the system
    directories, plus each program's installation when it lives elsewhere than there or in
    the directories already ``shown`` (the bot's private directory).

    A program at ``<root>/bin/<name>`` brings ``<root>`` (a pyenv or nvm installation: the
    interpreter with its library), any other program its own directory.
    """
    paths = [path for path in SYSTEM_DIRS if path.is_dir()]
    elsewhere = [Path(os.path.realpath(path)) for path in shown]
    for program in programs:
        found = program if os.sep in program else shutil.which(program, path=env_path)
        if found is None:
            continue  # the bot will fail to start and say why; nothing to show it
        real = Path(os.path.realpath(found))
        if any(real.is_relative_to(path) for path in [*paths, *elsewhere]):
            continue
        home = real.parent.parent if real.parent.name == "bin" else real.parent
        if home != Path("/"):  # never the whole machine
            paths.append(home)
    return _outermost(paths)


class StrictLauncher:
    """Runs the limits layer's specs inside a bwrap box (see the module docstring).

    ``inner`` makes the specs (its supervisor, private directories and cgroups). Call
    :meth:`close` after the match.
    """

    def __init__(self, inner: LimitsLauncher, box: Box) -> None:
        self.inner = inner
        self.box = box
        # The filter: the arena's alone, read by the sh in front of each box.
        self.filter_fd: int | None = None
        self._finalizer: weakref.finalize[[int], StrictLauncher] | None = None
        if box.seccomp is not None:
            self.filter_fd = _filter_file(box.seccomp)
            self._finalizer = weakref.finalize(self, os.close, self.filter_fd)

    def prepare(self, manifest: BotManifest) -> LaunchSpec:
        """The bot's spec (from its built copy, if it was built here) in a box."""
        return self._wrap(self.inner.prepare(manifest, is_joined=False))

    def prepare_build(self, manifest: BotManifest) -> LaunchSpec | None:
        """The build's spec in a box: it writes only its private copy, which later starts
        of the bot copy."""
        spec = self.inner.prepare_build(manifest, is_joined=False)
        return None if spec is None else self._wrap(spec)

    def built_copy(self, manifest: BotManifest) -> Path | None:
        """The private copy the inner layer built the bot in (None if it did not)."""
        return self.inner.built_copy(manifest)

    def close(self) -> None:
        """Remove the built copies (and their cgroups) and close the filter's file."""
        self.inner.close()
        if self._finalizer is not None:
            self._finalizer()

    def _wrap(self, spec: LaunchSpec) -> LaunchSpec:
        private_dir = spec.private_dir
        if private_dir is None:
            raise StrictUnavailableError(
                f"the inner launcher gave {spec.argv[0]!r} no private directory; the strict "
                "layer binds only that one"
            )
        resources = spec.resources or DEFAULT_RESOURCES
        # The interpreter's own path (a virtualenv's python is a link into the checkout).
        interpreter = os.path.realpath(spec.argv[0])
        env_path = spec.env.get("PATH")
        read_only = [
            *visible_paths(
                [interpreter, *_bot_program(spec.argv)], env_path=env_path, shown=[private_dir]
            ),
            *self.inner.expose,  # the host's: a toolchain in a home directory, say
            SUPERVISOR_PATH,
        ]
        front = HAND_OVER_STREAMS if self.filter_fd is None else _with_filter(self.filter_fd)
        argv: tuple[str, ...] = (
            *front,
            *self.box.arguments(
                private_dir=private_dir,
                cwd=spec.cwd,
                read_only=read_only,
                tmp_bytes=resources.tmp_bytes,
                seccomp_fd=None if self.filter_fd is None else SECCOMP_FD,
                # One size for all the bot writes, where its folder is a tmpfs of its own.
                tmp_source=private_dir / "tmp" if is_held(private_dir) else None,
            ),
            interpreter,
            *_with_stream_options(spec.argv[1:]),
        )
        if spec.cgroup is not None:
            argv = join_command(spec.cgroup, argv)
        # Temporary files go to the box's size-limited /tmp.
        env = {**spec.env, "TMPDIR": "/tmp"}
        return replace(spec, argv=argv, env=env)


def _filter_file(seccomp: bytes) -> int:
    """A sealed memory file holding ``seccomp``, open as the returned descriptor: no path,
    so nothing outlives the process, and no one can change it once written."""
    fd = os.memfd_create("arena-seccomp", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    with open(fd, "wb", closefd=False) as file:
        file.write(seccomp)
    seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
    return fd


def _with_filter(fd: int) -> tuple[str, ...]:
    """The ``sh`` in front of bwrap that also opens the filter's file, open in this process
    as ``fd``, as descriptor 5 (through ``/proc``: the arena's descriptors do not reach
    the child).

    >>> _with_filter(7)[4] == f"/proc/{os.getpid()}/fd/7"
    True
    """
    return (*HAND_OVER_STREAMS_AND_FILTER, f"/proc/{os.getpid()}/fd/{fd}")


def _bot_program(argv: Sequence[str]) -> list[str]:
    """The bot's program in a supervisor's argv: the first argument after its ``--``.

    >>> _bot_program(["/py", "-I", "-S", "supervisor.py", "--cpu=5", "--", "node", "bot.js"])
    ['node']
    """
    items = list(argv)
    if "--" not in items:
        return []
    return items[items.index("--") + 1 :][:1]


def _with_stream_options(arguments: Sequence[str]) -> list[str]:
    """The supervisor's ``arguments`` with the options that take the streams from
    descriptors 3 and 4, before its ``--``, and without :data:`PRIVATE_TMP_OPTION`.

    >>> _with_stream_options(["-I", "supervisor.py", "--cpu=5", "--private-tmp=1", "--", "bot"])
    ['-I', 'supervisor.py', '--cpu=5', '--stdin-fd=3', '--stdout-fd=4', '--', 'bot']
    """
    items = list(arguments)
    if "--" not in items:
        raise StrictUnavailableError(
            f"the inner launcher's command {items!r} has no supervisor '--' before the bot's"
        )
    split = items.index("--")
    # The box has its own /tmp, and its filter refuses the namespace the option would make.
    options = [item for item in items[:split] if item != PRIVATE_TMP_OPTION]
    return [*options, *_STREAM_OPTIONS, *items[split:]]


def _outermost(paths: Iterable[Path]) -> list[Path]:
    """``paths`` without those inside another one, in order, each once.

    >>> _outermost([Path("/usr"), Path("/usr/lib"), Path("/opt/x"), Path("/usr")])
    [PosixPath('/usr'), PosixPath('/opt/x')]
    """
    unique = list(dict.fromkeys(paths))
    return [
        path
        for path in unique
        if not any(other != path and path.is_relative_to(other) for other in unique)
    ]


def _parent_directories(target: Path, made: set[Path]) -> list[str]:
    """``--dir`` options with mode 0755 for ``target``'s ancestors not made yet.

    bwrap would make a missing one with the mode of the machine's (``/root`` is 0700),
    which the bot, another uid, could not pass through.
    """
    args: list[str] = []
    for parent in reversed(target.parents):
        if parent not in made:
            args += ["--perms", "0755", "--dir", str(parent)]
            made.add(parent)
    return args
