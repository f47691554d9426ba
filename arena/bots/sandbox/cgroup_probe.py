"""Finding where bot cgroups can go: :func:`probe_cgroups`, reading only.

A machine mounts cgroup v2 (one tree at ``/sys/fs/cgroup``), cgroup v1 (one tree per
controller: ``/sys/fs/cgroup/memory``, ``/sys/fs/cgroup/pids``...), or both ("hybrid": v1
controllers beside a v2 tree that holds none of them). The probe reads
``/proc/self/mountinfo`` (which trees are mounted where, and which part of each is
visible) and ``/proc/self/cgroup`` (the arena's own cgroup in each tree), tries cgroup v2
first and cgroup v1 next, and gives a :class:`~arena.bots.sandbox.cgroup.CgroupParent`, or
the reason why neither can be used.

Bot cgroups go in ``poker-arena`` beside the arena's own cgroup (in its parent), or at the
top when the arena is in the root cgroup. In cgroup v2 a cgroup that holds processes
cannot also give controllers to children ("no internal processes"), so the bots cannot go
*inside* the arena's cgroup; beside it they are still charged to the same parent, and a
limit set around the arena by whoever started it still covers its bots. cgroup v1 is
treated the same way so that both sweep the cgroups of dead arenas alike.

The probe creates nothing: it says why cgroups cannot be used (none mounted, no
``memory`` or ``pids`` controller, not delegated, no write access).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from arena.bots.sandbox.cgroup import ARENA_CGROUP_NAME, REQUIRED_CONTROLLERS, CgroupParent

__all__ = [
    "CgroupMount",
    "CgroupSupport",
    "cgroup_mounts",
    "own_cgroups",
    "probe_cgroups",
]

#: Controllers used when they are there (``cpuacct`` exists in v1 only).
OPTIONAL_CONTROLLERS = ("cpu", "cpuacct")


@dataclass(frozen=True, slots=True)
class CgroupSupport:
    """What :func:`probe_cgroups` found: where bot cgroups go, or why there are none.

    >>> CgroupSupport(None, "no cgroup v2 file system is mounted").is_available
    False
    """

    parent: CgroupParent | None
    reason: str

    @property
    def is_available(self) -> bool:
        """Whether bots can get a cgroup of their own here."""
        return self.parent is not None


@dataclass(frozen=True, slots=True)
class CgroupMount:
    """One mounted cgroup tree: where, which part of the tree (``root``), its controllers
    (v1 only: a v2 tree lists them in ``cgroup.controllers``)."""

    point: Path
    root: str
    version: int
    controllers: frozenset[str]

    def directory_of(self, cgroup: str) -> Path | None:
        """Where ``cgroup`` (a path in the tree) is in this mount; None if not visible.

        >>> mount = CgroupMount(Path("/sys/fs/cgroup/memory"), "/", 1, frozenset({"memory"}))
        >>> mount.directory_of("/a/b")
        PosixPath('/sys/fs/cgroup/memory/a/b')
        """
        root, path = Path(self.root), Path(cgroup)
        if not path.is_relative_to(root):
            return None
        return self.point / path.relative_to(root)


def cgroup_mounts(mountinfo: str) -> list[CgroupMount]:
    """The cgroup trees listed in ``/proc/self/mountinfo`` text.

    >>> [m.version for m in cgroup_mounts(
    ...     "22 1 0:20 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\\n"
    ...     "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw")]
    [1, 2]
    """
    found: list[CgroupMount] = []
    for line in mountinfo.splitlines():
        fields, separator, rest = line.partition(" - ")
        parts, tail = fields.split(), rest.split()
        if not separator or len(parts) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        # The kernel writes a space in a path as \040.
        point, root = (Path(parts[4].replace("\\040", " ")), parts[3].replace("\\040", " "))
        options = frozenset(tail[2].split(","))
        version = 2 if tail[0] == "cgroup2" else 1
        found.append(CgroupMount(point, root, version, options if version == 1 else frozenset()))
    return found


def own_cgroups(proc_cgroup: str) -> dict[str, str]:
    """The arena's cgroup per controller in ``/proc/self/cgroup`` text; ``""`` is v2's.

    >>> own_cgroups("4:memory:/a\\n2:cpu,cpuacct:/\\n1:name=systemd:/\\n0::/s.scope\\n")
    {'memory': '/a', 'cpu': '/', 'cpuacct': '/', '': '/s.scope'}
    """
    found: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        number, _, rest = line.partition(":")
        controllers, separator, path = rest.partition(":")
        if not separator or not number.isdigit():
            continue
        for name in controllers.split(",") if controllers else [""]:
            if not name.startswith("name="):
                found[name] = path or "/"
    return found


def probe_cgroups(
    *,
    mountinfo: Path = Path("/proc/self/mountinfo"),
    proc_cgroup: Path = Path("/proc/self/cgroup"),
) -> CgroupSupport:
    """Find where bot cgroups can go (cgroup v2 first, then v1), reading only; the reason
    says why not otherwise."""
    try:
        mounts = cgroup_mounts(mountinfo.read_text())
        own = own_cgroups(proc_cgroup.read_text())
    except OSError as exc:
        return CgroupSupport(None, f"cannot read {exc.filename}: {exc.strerror}")
    unified = next((mount for mount in mounts if mount.version == 2), None)
    has_v1 = any(set(REQUIRED_CONTROLLERS) & mount.controllers for mount in mounts)
    first = _probe_v2(unified, own) if unified is not None else None
    if first is not None and first.is_available:
        return first
    if has_v1:
        second = _probe_v1(mounts, own)
        if second.is_available or first is None:
            return second
        return CgroupSupport(None, f"{first.reason}; and cgroup v1: {second.reason}")
    return first or CgroupSupport(None, "no cgroup file system is mounted")


def _container(own: str) -> str:
    """The cgroup bot cgroups go beside ``own`` in: its parent (the top for the top)."""
    return own if own == "/" else str(Path(own).parent)


def _probe_v2(mount: CgroupMount, own: dict[str, str]) -> CgroupSupport:
    path = own.get("")
    if path is None:
        return CgroupSupport(
            None, f"the arena is in no cgroup of {mount.point} (see /proc/self/cgroup)"
        )
    container = mount.directory_of(_container(path))
    if container is None or not container.is_dir():
        shown = container or mount.point / _container(path).lstrip("/")
        return CgroupSupport(None, f"{shown} is not visible (another cgroup namespace)")
    available = _read_words(container / "cgroup.controllers")
    missing = [name for name in REQUIRED_CONTROLLERS if name not in available]
    if missing:
        offered = ", ".join(sorted(available)) or "none"
        return CgroupSupport(
            None,
            f"cgroup v2 at {container} offers no {' and '.join(missing)} controller "
            f"(offered: {offered}; on a hybrid system they belong to cgroup v1)",
        )
    # Below the top, the container must already hand the controllers to its children:
    # turning them on there fails while it holds processes of its own.
    handed_down = _read_words(container / "cgroup.subtree_control")
    is_top = container == mount.point
    if not is_top and not set(REQUIRED_CONTROLLERS) <= handed_down:
        return CgroupSupport(
            None,
            f"{container} does not delegate the memory and pids controllers "
            f"(cgroup.subtree_control: {' '.join(sorted(handed_down)) or 'empty'})",
        )
    target = container / ARENA_CGROUP_NAME
    writable = target if target.is_dir() else container
    if not os.access(writable, os.W_OK):
        return CgroupSupport(None, f"{writable} is not writable by uid {os.geteuid()}")
    cpu = "cpu" in available and (is_top or "cpu" in handed_down)
    parent = CgroupParent.unified(target, [*REQUIRED_CONTROLLERS, *(["cpu"] if cpu else [])])
    return CgroupSupport(parent, f"one cgroup v2 per bot under {target}")


def _probe_v1(mounts: list[CgroupMount], own: dict[str, str]) -> CgroupSupport:
    paths: list[tuple[str, Path]] = []
    for name in (*REQUIRED_CONTROLLERS, *OPTIONAL_CONTROLLERS):
        mount = next((m for m in mounts if m.version == 1 and name in m.controllers), None)
        found = _v1_place(name, mount, own.get(name))
        if isinstance(found, Path):
            paths.append((name, found))
        elif name in REQUIRED_CONTROLLERS:
            return CgroupSupport(None, found)
    parent = CgroupParent(1, tuple(paths))
    where = ", ".join(str(path) for path in parent.directories)
    return CgroupSupport(parent, f"one cgroup v1 per bot under {where}")


def _v1_place(name: str, mount: CgroupMount | None, own: str | None) -> Path | str:
    """Where ``name``'s bot cgroups go, or why they cannot."""
    if mount is None:
        return f"no {name} controller is mounted"
    if own is None:
        return f"the arena is in no {name} cgroup (see /proc/self/cgroup)"
    container = mount.directory_of(_container(own))
    if container is None or not container.is_dir():
        return f"the arena's {name} cgroup is not visible in {mount.point}"
    target = container / ARENA_CGROUP_NAME
    writable = target if target.is_dir() else container
    if not os.access(writable, os.W_OK):
        return f"{writable} is not writable by uid {os.geteuid()}"
    return target


def _read_words(path: Path) -> set[str]:
    try:
        return set(path.read_text().split())
    except OSError:
        return set()
