"""The limits layer: :class:`LimitsLauncher`, a launcher that needs no privilege.

Each start of a bot gets (what that keeps a bot from, and what not, is the README's
"Security" section):

* a private temporary directory (:attr:`~arena.bots.launcher.LaunchSpec.private_dir`,
  :mod:`arena.bots.sandbox.private_dir`): ``bot/`` is a copy of the bot's directory and its
  working directory, ``tmp/`` its ``TMPDIR``, the directory itself its ``HOME``. The
  process code removes it when the bot is closed, and a new launcher sweeps those of
  arenas killed before they could;
* a scrubbed environment: ``PATH``, ``LANG``, ``LC_*`` and ``TZ`` from the arena's, then
  the manifest's ``[env]``, then ``HOME``, ``TMPDIR`` and ``PYTHONUNBUFFERED=1``;
* the exec wrapper :mod:`arena.bots.sandbox.supervisor` in front of its command, which
  sets the resource limits, dies with the arena and leaves nothing behind;
* where a cgroup can be made (:mod:`arena.bots.sandbox.cgroup`), a cgroup of its own that
  it joins before its first instruction;
* when the arena runs as root, a user and group id of its own (a fresh one per start, far
  above any real account's), and a private directory that is a tmpfs of ``disk_bytes``
  (:mod:`arena.bots.sandbox.disk`), which the supervisor also makes the bot's ``/tmp``,
  ``/var/tmp``, ``/dev/shm`` and ``/run/lock``, in mount and IPC namespaces of its own
  (``--private-tmp``; docs/sandbox.md, "Disk and temporary files").

A build step (``prepare_build``) runs the same way in a private copy that the launcher
keeps until :meth:`LimitsLauncher.close`; later starts of that bot copy the built tree,
so the checkout is never written.

The manifest's ``[limits]`` table overrides the launcher's limits for its bot, and the
launcher's ``overrides`` (the command line's) are applied last: the host has the last word.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Mapping
from pathlib import Path

from arena.bots.launcher import LaunchSpec, expand_placeholders
from arena.bots.manifest import BotManifest
from arena.bots.sandbox.cgroup import BotCgroup, CgroupError, CgroupParent, join_command
from arena.bots.sandbox.confinement import remove_private_dir
from arena.bots.sandbox.disk import hold_disk
from arena.bots.sandbox.private_dir import (
    DEFAULT_COPY_CAP_BYTES,
    DEFAULT_COPY_CAP_FILES,
    PrivateDirError,
    copy_bot_dir,
    fresh_user_id,
    give_to,
    owner_prefix,
    sweep_private_dirs,
)
from arena.bots.sandbox.reach import (
    closed_directory,
    is_runnable_by_anyone,
    parse_expose,
    unreachable_message,
)
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimits
from arena.bots.transport import BotStartError

__all__ = [
    "ENV_ALLOWED",
    "PRIVATE_TMP_OPTION",
    "SUPERVISOR_PATH",
    "LimitsLauncher",
    "address_space_backstop",
]

logger = logging.getLogger("arena.bots")

#: The exec wrapper (a standalone script: a wrapping layer binds this one file).
SUPERVISOR_PATH = Path(__file__).with_name("supervisor.py")

#: The supervisor's option that gives the bot the private directory's ``tmp/`` as ``/tmp``
#: (a wrapping layer with a ``/tmp`` of its own leaves it out).
PRIVATE_TMP_OPTION = "--private-tmp=1"

#: Variables of the arena's environment a bot gets (``LC_*`` too).
ENV_ALLOWED = ("PATH", "LANG", "TZ")

#: RLIMIT_NPROC counts threads too: room for a threaded runtime beside the processes.
_TASKS_PER_PROCESS = 4

_GIB = 1024**3


def address_space_backstop(resources: ResourceLimits) -> int:
    """``RLIMIT_AS``, a backstop far above the watched memory limit (16 times, at least
    4 GiB): a JavaScript engine reserves much more address space than it uses."""
    return max(16 * resources.memory_bytes, 4 * _GIB)


class LimitsLauncher:
    """Runs each bot under the supervisor, in a private copy, with a scrubbed environment.

    ``resources`` are every bot's, before its manifest's ``[limits]``; ``overrides`` (the
    command line's) come after the manifest's. ``python`` runs the supervisor and is
    ``{python}`` in commands, except that a bot with a user id of its own gets
    ``bot_python`` when the arena's interpreter is not executable by other users.
    ``drop_privileges`` is whether bots get their own user id (default: when running as
    root). ``temp_dir`` holds the private directories (default: the system's).
    ``cgroups``, when given, is where each start and build gets a cgroup of its own.
    ``expose`` are the host's paths a wrapping layer shows the bot read-only (the strict
    layer's box, with ``is_boxed``); a program there counts as runnable when the bot's
    user can pass from the exposed directory down (the box opens its parents).
    ``hold_disks`` is whether each private directory is a tmpfs of ``disk_bytes``
    (only root may mount one: :func:`~arena.bots.sandbox.select.launcher_for` asks for it
    when the arena runs as root; where the mount is refused the folder stays plain).

    A bot dies with the *thread* that started it (that is how the kernel's death signal
    works): start bots from a thread that lives as long as they do.
    """

    supervisor_path = SUPERVISOR_PATH

    def __init__(
        self,
        resources: ResourceLimits = DEFAULT_RESOURCES,
        *,
        python: str = sys.executable,
        overrides: Mapping[str, object] | None = None,
        drop_privileges: bool | None = None,
        base_env: Mapping[str, str] | None = None,
        temp_dir: Path | None = None,
        copy_cap_bytes: int = DEFAULT_COPY_CAP_BYTES,
        copy_cap_files: int = DEFAULT_COPY_CAP_FILES,
        cgroups: CgroupParent | None = None,
        expose: tuple[Path, ...] = (),
        is_boxed: bool = False,
        hold_disks: bool = False,
    ) -> None:
        self.resources = resources
        self.python = python
        self.overrides = dict(overrides or {})
        resources.with_overrides(self.overrides, source="command line")  # fail early
        self.drop_privileges = os.geteuid() == 0 if drop_privileges is None else drop_privileges
        self.bot_python = python
        if self.drop_privileges and not is_runnable_by_anyone(python):
            fallback = shutil.which("python3", path=os.defpath)
            if fallback is not None and is_runnable_by_anyone(fallback):
                self.bot_python = fallback
        self.base_env = dict(os.environ if base_env is None else base_env)
        self.temp_dir = temp_dir
        self.copy_cap_bytes = copy_cap_bytes
        self.copy_cap_files = copy_cap_files
        self._lock = threading.Lock()
        self.cgroups = cgroups
        self.expose = parse_expose(expose)
        self.is_boxed = is_boxed
        if self.drop_privileges and not is_boxed:
            # Without a box nothing can be shown to the bot: only check it can reach it.
            for path in self.expose:
                closed = closed_directory(path)
                if closed is not None and not (path.is_file() and closed == path):
                    raise ValueError(
                        f"expose {str(path)!r}: the limits layer cannot show it to bots "
                        f"({str(closed)!r} is closed to other users); use --sandbox strict"
                    )
        self.hold_disks = hold_disks
        self._build_dirs: dict[Path, Path] = {}
        self._build_cgroups: dict[Path, BotCgroup] = {}
        self._finalizer = weakref.finalize(self, _remove_all, self._build_dirs, self._build_cgroups)
        sweep_private_dirs(Path(tempfile.gettempdir()) if temp_dir is None else temp_dir)

    def resources_for(self, manifest: BotManifest) -> ResourceLimits:
        """The launcher's limits, then the manifest's ``[limits]``, then ``overrides``."""
        source = str(manifest.path or manifest.name)
        resources = self.resources.with_overrides(manifest.resources, source=source)
        return resources.with_overrides(self.overrides, source="command line")

    def prepare(self, manifest: BotManifest, *, is_joined: bool = True) -> LaunchSpec:
        """A fresh private copy of the bot (of its build, if this launcher built it).

        ``is_joined`` False leaves the cgroup's join step out of ``argv`` (for a wrapping
        layer, which joins before its own command)."""
        with self._lock:
            built = self._build_dirs.get(manifest.working_dir)
        source = manifest.working_dir if built is None else built / "bot"
        return self._spec(manifest, manifest.command, source, is_joined=is_joined)

    def prepare_build(self, manifest: BotManifest, *, is_joined: bool = True) -> LaunchSpec | None:
        """A private copy to build in, kept for the bot's later starts; None without a build.

        Its cgroup, if any, is kept as long as the copy (nothing else closes a build's)."""
        if manifest.build is None:
            return None
        spec = self._spec(manifest, manifest.build, manifest.working_dir, is_joined=is_joined)
        assert spec.private_dir is not None
        with self._lock:
            previous = self._build_dirs.get(manifest.working_dir)
            self._build_dirs[manifest.working_dir] = spec.private_dir
            previous_cgroup = self._build_cgroups.pop(manifest.working_dir, None)
            if spec.cgroup is not None:
                self._build_cgroups[manifest.working_dir] = spec.cgroup
        if previous is not None:
            remove_private_dir(previous)
        if previous_cgroup is not None:
            _close_quietly(previous_cgroup)
        return spec

    def built_copy(self, manifest: BotManifest) -> Path | None:
        """The private copy the bot was built in by this launcher (None if it was not)."""
        with self._lock:
            built = self._build_dirs.get(manifest.working_dir)
        return None if built is None else built / "bot"

    def close(self) -> None:
        """Remove the build directories and their cgroups (also done when the launcher is
        collected)."""
        self._finalizer()

    def _spec(
        self, manifest: BotManifest, argv: tuple[str, ...], source: Path, *, is_joined: bool
    ) -> LaunchSpec:
        resources = self.resources_for(manifest)
        user = fresh_user_id() if self.drop_privileges else None
        private = Path(tempfile.mkdtemp(prefix=owner_prefix(), dir=self.temp_dir))
        try:
            # Before the copy goes in: the copy counts against the size too.
            is_held = self.hold_disks and _hold_disk(manifest.name, private, resources.disk_bytes)
            work = private / "bot"
            copy_bot_dir(
                source,
                work,
                cap_bytes=self.copy_cap_bytes,
                cap_files=self.copy_cap_files,
                bot_name=manifest.name,
                skip=private,
            )
            (private / "tmp").mkdir()
            python = self.python if user is None else self.bot_python
            command = list(expand_placeholders(argv, python=python, bot_dir=work))
            env = self._environment(manifest, private)
            command[0] = _resolve_program(
                manifest.name,
                command[0],
                work,
                env["PATH"],
                is_unprivileged=user is not None,
                exposed=self.expose if self.is_boxed else (),
                is_boxed=self.is_boxed,
            )
            if user is not None:
                give_to(private, user)
        except BaseException:
            remove_private_dir(private)
            raise
        wrapper = [
            self.python,
            "-I",
            "-S",
            str(self.supervisor_path),
            f"--cpu={resources.cpu_seconds}",
            f"--fsize={resources.file_size_bytes}",
            f"--nofile={resources.open_files}",
            f"--as={address_space_backstop(resources)}",
            f"--private-dir={private}",
        ]
        if is_held and not self.is_boxed:
            # The box makes its own /tmp; without one the supervisor's namespace does.
            wrapper.append(PRIVATE_TMP_OPTION)
        if user is not None:
            wrapper += [
                f"--nproc={resources.processes * _TASKS_PER_PROCESS}",
                f"--uid={user}",
                f"--gid={user}",
            ]
        cgroup = self._cgroup_for(manifest, resources)
        full = (*wrapper, "--", *command)
        return LaunchSpec(
            argv=join_command(cgroup, full) if cgroup is not None and is_joined else full,
            cwd=work,
            env=env,
            resources=resources,
            private_dir=private,
            cgroup=cgroup,
        )

    def _cgroup_for(self, manifest: BotManifest, resources: ResourceLimits) -> BotCgroup | None:
        """A cgroup with ``resources``; None without cgroups, or when one cannot be made now
        (then the watch alone holds the bot, as where no cgroup is writable)."""
        if self.cgroups is None:
            return None
        try:
            return self.cgroups.create_bot(
                memory_bytes=resources.memory_bytes,
                processes=resources.processes,
                cpu_percent=resources.cpu_percent,
            )
        except CgroupError as exc:
            logger.warning("bot %r runs without a cgroup: %s", manifest.name, exc)
            return None

    def _environment(self, manifest: BotManifest, private: Path) -> dict[str, str]:
        env = {
            key: value
            for key, value in self.base_env.items()
            if key in ENV_ALLOWED or key.startswith("LC_")
        }
        env.setdefault("PATH", os.defpath)
        env.update(manifest.env)
        env.update(HOME=str(private), TMPDIR=str(private / "tmp"), PYTHONUNBUFFERED="1")
        return env


def _resolve_program(
    bot_name: str,
    program: str,
    work: Path,
    path: str,
    *,
    is_unprivileged: bool,
    exposed: tuple[Path, ...] = (),
    is_boxed: bool = False,
) -> str:
    """The program to exec: a path with a directory in it is relative to the bot's copy;
    a bare name is looked up on ``path``. Raise :class:`BotStartError` if it is not there,
    or if an unprivileged bot could not run it (a program in one of the ``exposed`` paths
    of a box counts from that path down)."""
    if os.sep in program:
        resolved = program if os.path.isabs(program) else str(work / program)
        found = resolved if os.path.isfile(resolved) and os.access(resolved, os.X_OK) else None
    else:
        resolved = program  # exec looks it up on the bot's PATH again
        found = shutil.which(program, path=path)
    if found is None:
        where = "" if os.sep in program else f" on its PATH {path!r}"
        raise BotStartError(f"cannot run bot {bot_name!r}: no executable {program!r}{where}")
    is_own = Path(found).resolve().is_relative_to(work.resolve())
    if is_unprivileged and not is_own and not is_runnable_by_anyone(found, below=exposed):
        raise BotStartError(unreachable_message(bot_name, found, is_strict=is_boxed))
    return resolved


def _hold_disk(bot_name: str, private: Path, size_bytes: int) -> bool:
    """:func:`~arena.bots.sandbox.disk.hold_disk`, its failure a :class:`PrivateDirError`."""
    try:
        return hold_disk(private, size_bytes)
    except OSError as exc:
        raise PrivateDirError(f"cannot start bot {bot_name!r}: {exc.strerror or exc}") from exc


def _close_quietly(cgroup: BotCgroup) -> None:
    try:
        cgroup.close()
    except CgroupError as exc:  # left for the next arena's sweep
        logger.warning("%s", exc)


def _remove_all(directories: dict[Path, Path], cgroups: dict[Path, BotCgroup]) -> None:
    for directory in list(directories.values()):
        with contextlib.suppress(OSError):
            remove_private_dir(directory)
    directories.clear()
    for cgroup in list(cgroups.values()):
        _close_quietly(cgroup)
    cgroups.clear()
