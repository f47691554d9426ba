"""Which sandbox layer runs the bots: :class:`SandboxLevel`, :func:`choose`, :func:`launcher_for`.

Three layers, each containing the one before:

=========  ==============================================================================
``none``   the bot runs as it is (:class:`~arena.bots.launcher.DirectLauncher`): for
           debugging a bot of one's own, never for code from strangers
``limits`` resource limits, a private copy of its directory, a scrubbed environment,
           nothing left behind (:class:`~arena.bots.sandbox.limited.LimitsLauncher`);
           needs no privilege and works everywhere
``strict`` the limits layer inside a bubblewrap box: own PID and network namespaces, a
           read-only system, a private ``/tmp``, an unprivileged uid, and cgroup limits
           where a cgroup v2 is usable (:class:`~arena.bots.sandbox.bwrap.StrictLauncher`)
=========  ==============================================================================

:func:`probe` finds out once what works here (it runs ``bwrap`` once, for real);
:func:`choose` takes the strongest layer that works unless one was asked for, and says why
a stronger one is not active. Asking for a layer that does not work here is an error
(:class:`SandboxUnavailableError`), never a silent downgrade.

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
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Protocol

from arena.bots.launcher import DirectLauncher, Launcher
from arena.bots.manifest import BotManifest
from arena.bots.sandbox.bwrap import (
    Box,
    StrictLauncher,
    StrictUnavailableError,
    check_box,
    find_box,
)
from arena.bots.sandbox.cgroup import CgroupParent, probe_cgroups
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.limits import DEFAULT_LIMITS, ResourceLimits

__all__ = [
    "Probe",
    "SandboxLauncher",
    "SandboxLevel",
    "SandboxUnavailableError",
    "choose",
    "describe",
    "launcher_for",
    "probe",
]


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
    """The ``none`` layer: a :class:`DirectLauncher` with nothing to close."""

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
    cgroup_reasons = (
        (f"cgroup limits are off: {found.cgroup_problem}",) if found.cgroup_problem else ()
    )
    if requested is None:
        requested = SandboxLevel.STRICT if found.strict_problem is None else SandboxLevel.LIMITS
    elif not found.is_available(requested):
        raise SandboxUnavailableError(requested, found.strict_problem or "unknown")
    if requested is SandboxLevel.STRICT:
        return requested, cgroup_reasons
    if requested is SandboxLevel.LIMITS:
        return requested, strict_reasons or ("strict was not asked for",)
    return requested, ("the sandbox was switched off (--sandbox none)",)


def launcher_for(
    level: SandboxLevel,
    limits: ResourceLimits = DEFAULT_LIMITS,
    *,
    overrides: Mapping[str, object] | None = None,
    probe: Probe | None = None,
) -> SandboxLauncher:
    """The launcher of ``level``: ``limits`` for every bot, then each manifest's
    ``[limits]``, then ``overrides`` (the command line's, which have the last word).

    Raises :class:`SandboxUnavailableError` for ``strict`` where it does not work.
    """
    if level is SandboxLevel.NONE:
        return _PlainLauncher()
    # The interpreter's own path: a virtualenv's python is a link into the checkout,
    # which the strict layer does not show to bots.
    inner = LimitsLauncher(limits, python=os.path.realpath(sys.executable), overrides=overrides)
    if level is SandboxLevel.LIMITS:
        return inner
    found = probe if probe is not None else _probe()
    if found.box is None:
        raise SandboxUnavailableError(level, found.strict_problem or "no bwrap box was probed")
    return StrictLauncher(inner, found.box, cgroups=found.cgroups)


def describe(level: SandboxLevel, reasons: tuple[str, ...]) -> list[str]:
    """The lines the arena prints at start: the layer, then why no stronger one.

    >>> describe(SandboxLevel.LIMITS, ("strict is off: bwrap is not installed",))
    ['sandbox: limits (resource limits, private copy, scrubbed environment)', \
'  strict is off: bwrap is not installed']
    """
    what = {
        SandboxLevel.NONE: "none (bots run as they are, with the arena's rights)",
        SandboxLevel.LIMITS: "limits (resource limits, private copy, scrubbed environment)",
        SandboxLevel.STRICT: "strict (bubblewrap box: own PID and network namespaces, "
        "read-only system, private /tmp, own uid; with resource limits)",
    }[level]
    return [f"sandbox: {what}", *(f"  {reason}" for reason in reasons)]


def _probe() -> Probe:
    return probe()
