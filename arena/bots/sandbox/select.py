"""Which sandbox layer runs the bots: :class:`SandboxLevel`, :func:`choose`, :func:`launcher_for`.

Three layers, each containing the one before, as the README's "Security" section describes
them: ``none`` (:class:`~arena.bots.launcher.DirectLauncher`, but for a ``TMPDIR`` of its
own per start: for debugging a bot of one's own, never for code from strangers),
``limits`` (:class:`~arena.bots.sandbox.limited.LimitsLauncher`, which needs no privilege)
and ``strict`` (:class:`~arena.bots.sandbox.bwrap.StrictLauncher`, the limits layer in a
bubblewrap box).

In both ``limits`` and ``strict``, each bot gets a cgroup of its own where one can be made
here (cgroup v2 or v1; :mod:`arena.bots.sandbox.cgroup_probe`): the kernel then holds its
memory, its tasks and its CPU share. Elsewhere the arena's watch holds memory and
processes, and no CPU share is kept.

:func:`probe` finds out once what works here (it runs ``bwrap`` once, for real);
:func:`choose` takes the strongest layer that works unless one was asked for, and says why
a stronger one is not active. Asking for a layer that does not work here is an error
(:class:`SandboxUnavailableError`), never a silent downgrade. :func:`describe` says it in
a line, with the mechanism that holds the limits.

>>> here = Probe(strict_problem="bwrap is not installed", cgroups=None, cgroup_problem="x")
>>> choose(None, probe=here)
(<SandboxLevel.LIMITS: 'limits'>, ('strict is off: bwrap is not installed',))
>>> choose(SandboxLevel.NONE, probe=here)[0]
<SandboxLevel.NONE: 'none'>
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from arena.bots.launcher import DirectLauncher, Launcher, LaunchSpec
from arena.bots.manifest import BotManifest
from arena.bots.sandbox.bwrap import (
    Box,
    StrictLauncher,
    StrictUnavailableError,
    check_box,
    find_box,
)
from arena.bots.sandbox.cgroup import CgroupParent
from arena.bots.sandbox.cgroup_probe import probe_cgroups
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.private_dir import owner_prefix, sweep_private_dirs
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, ResourceLimits

__all__ = [
    "Probe",
    "SandboxLauncher",
    "SandboxLevel",
    "SandboxUnavailableError",
    "choose",
    "describe",
    "launcher_for",
    "needs_cgroup",
    "probe",
]

#: The limits only a cgroup can hold (the watch cannot keep a CPU share).
CGROUP_ONLY_LIMITS = ("cpu_percent",)


class SandboxLevel(StrEnum):
    """A sandbox layer, weakest first."""

    NONE = "none"
    LIMITS = "limits"
    STRICT = "strict"


class SandboxUnavailableError(RuntimeError):
    """The layer asked for does not work here; the message says why.

    >>> str(SandboxUnavailableError(SandboxLevel.STRICT, "bwrap is not installed"))
    'sandbox strict is not available here: bwrap is not installed'
    """

    code = "sandbox_unavailable"

    def __init__(self, level: SandboxLevel, reason: str) -> None:
        self.level = level
        self.reason = reason
        super().__init__(f"sandbox {level} is not available here: {reason}")


class SandboxLauncher(Launcher, Protocol):
    """A launcher to close after the match (it may keep built copies and cgroups)."""

    def close(self) -> None:
        """Remove what the launcher kept."""
        ...

    def built_copy(self, manifest: BotManifest) -> Path | None:
        """The folder this launcher built the bot in, when it built it in a private copy
        (None: not built here, or built in place)."""
        ...


class _PlainLauncher(DirectLauncher):
    """The ``none`` layer: a :class:`DirectLauncher`, each start of a bot with a
    ``TMPDIR`` of its own, removed when the bot is closed (builds run in place, as they
    always did here). That is all this layer can offer: a bot that writes elsewhere (the
    machine's ``/tmp`` itself, its home) is not stopped."""

    def __init__(self) -> None:
        super().__init__()
        self.temp_dir = Path(tempfile.gettempdir())
        sweep_private_dirs(self.temp_dir)  # those of arenas killed before they could

    def prepare(self, manifest: BotManifest) -> LaunchSpec:
        """The bot as it is, with a fresh ``TMPDIR`` (its spec's ``private_dir``)."""
        spec = super().prepare(manifest)
        private = Path(tempfile.mkdtemp(prefix=owner_prefix(), dir=self.temp_dir))
        return replace(spec, env={**spec.env, "TMPDIR": str(private)}, private_dir=private)

    def close(self) -> None:
        """Nothing to remove."""

    def built_copy(self, manifest: BotManifest) -> Path | None:
        """None: this layer builds in the bot's own folder."""
        return None


@dataclass(frozen=True, slots=True)
class Probe:
    """What works on this machine: a bwrap box (or why not), cgroups (or why not)."""

    strict_problem: str | None
    cgroups: CgroupParent | None
    cgroup_problem: str | None
    box: Box | None = None

    def is_available(self, level: SandboxLevel) -> bool:
        """Whether ``level`` works here (``none`` and ``limits`` always do)."""
        return level is not SandboxLevel.STRICT or self.strict_problem is None


@functools.cache
def probe() -> Probe:
    """Find out what works here (once per process: it runs bwrap once)."""
    cgroups = probe_cgroups()
    try:
        box = find_box()
        check_box(box)
    except StrictUnavailableError as exc:
        return Probe(str(exc), cgroups.parent, None if cgroups.parent else cgroups.reason)
    return Probe(None, cgroups.parent, None if cgroups.parent else cgroups.reason, box=box)


def choose(
    requested: SandboxLevel | None, *, probe: Probe | None = None
) -> tuple[SandboxLevel, tuple[str, ...]]:
    """The layer to use and why no stronger one is active.

    ``requested`` None means the strongest layer that works here. Raises
    :class:`SandboxUnavailableError` when ``requested`` does not work here.
    """
    found = probe if probe is not None else _probe()
    strict_reasons = (f"strict is off: {found.strict_problem}",) if found.strict_problem else ()
    if requested is None:
        requested = SandboxLevel.STRICT if found.strict_problem is None else SandboxLevel.LIMITS
    elif not found.is_available(requested):
        raise SandboxUnavailableError(requested, found.strict_problem or "unknown")
    if requested is SandboxLevel.STRICT:
        return requested, ()
    if requested is SandboxLevel.LIMITS:
        return requested, strict_reasons or ("strict was not asked for",)
    return requested, ("the sandbox was switched off (--sandbox none)",)


def launcher_for(
    level: SandboxLevel,
    resources: ResourceLimits = DEFAULT_RESOURCES,
    *,
    overrides: Mapping[str, object] | None = None,
    probe: Probe | None = None,
    expose: tuple[Path, ...] = (),
) -> SandboxLauncher:
    """The launcher of ``level``: ``resources`` for every bot, then each manifest's
    ``[limits]``, then ``overrides`` (the command line's, which have the last word).
    ``expose`` are the host's paths the strict layer shows every bot read-only
    (:func:`arena.bots.sandbox.reach.parse_expose` checks them).

    Raises :class:`SandboxUnavailableError` for ``strict`` where it does not work.
    """
    if level is SandboxLevel.NONE:
        return _PlainLauncher()
    found = probe if probe is not None else _probe()
    # The interpreter's own path: a virtualenv's python is a link into the checkout,
    # which the strict layer does not show to bots.
    inner = LimitsLauncher(
        resources,
        python=os.path.realpath(sys.executable),
        overrides=overrides,
        cgroups=found.cgroups,
        expose=expose,
        is_boxed=level is SandboxLevel.STRICT,
        # Only root may mount the tmpfs that holds each bot's disk.
        hold_disks=os.geteuid() == 0,
    )
    if level is SandboxLevel.LIMITS:
        return inner
    if found.box is None:
        raise SandboxUnavailableError(level, found.strict_problem or "no bwrap box was probed")
    return StrictLauncher(inner, found.box)


def needs_cgroup(overrides: Mapping[str, object]) -> bool:
    """Whether ``overrides`` ask for a limit only a cgroup holds (a CPU share).

    >>> needs_cgroup({"cpu_percent": 50}), needs_cgroup({"memory_bytes": 1})
    (True, False)
    """
    return any(key in overrides for key in CGROUP_ONLY_LIMITS)


def describe(
    level: SandboxLevel,
    reasons: tuple[str, ...],
    *,
    probe: Probe | None = None,
    is_verbose: bool = False,
    needs_cgroup: bool = False,
) -> list[str]:
    """The lines the arena prints at start: the layer (with the cgroups that hold the
    limits, where bots get them), then why no stronger one.

    Why bots get no cgroup is said only when ``is_verbose``, or when a limit only a cgroup
    holds was asked for (``needs_cgroup``, see :func:`needs_cgroup`).

    >>> here = Probe(None, None, "no cgroup file system is mounted")
    >>> describe(SandboxLevel.LIMITS, ("strict is off: bwrap is not installed",), probe=here)
    ['sandbox: limits (resource limits, private copy, scrubbed environment)', \
'  strict is off: bwrap is not installed']
    >>> describe(SandboxLevel.LIMITS, (), probe=here, is_verbose=True)[1]
    '  cgroup limits are off (memory and processes are watched, no CPU share is kept): \
no cgroup file system is mounted'
    """
    what = {
        SandboxLevel.NONE: "none (bots run as they are, with the arena's rights)",
        SandboxLevel.LIMITS: "limits (resource limits, private copy, scrubbed environment)",
        SandboxLevel.STRICT: "strict (bubblewrap box: own PID and network namespaces, "
        "read-only system, private /tmp, own uid; with resource limits)",
    }[level]
    notes: tuple[str, ...] = ()
    if level is not SandboxLevel.NONE:
        found = probe if probe is not None else _probe()
        if level is SandboxLevel.STRICT and found.box is not None and found.box.seccomp:
            what = what.replace("own uid;", "own uid, system call filter;")
        if found.cgroups is not None:
            what = f"{what[:-1]}; held by the kernel: {found.cgroups.describe()})"
        elif found.cgroup_problem and (is_verbose or needs_cgroup):
            notes = (
                "cgroup limits are off (memory and processes are watched, no CPU share is "
                f"kept): {found.cgroup_problem}",
            )
    return [f"sandbox: {what}", *(f"  {reason}" for reason in (*reasons, *notes))]


def _probe() -> Probe:
    return probe()
