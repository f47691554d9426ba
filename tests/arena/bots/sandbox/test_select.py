"""Choosing the sandbox layer: the strongest that works by default, the reasons a stronger
one is off, a clear error (never a quiet downgrade) for a layer that does not work here."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.launcher import DirectLauncher
from arena.bots.sandbox.bwrap import Box, StrictLauncher
from arena.bots.sandbox.cgroup import CgroupParent
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.select import (
    Probe,
    SandboxLevel,
    SandboxUnavailableError,
    choose,
    describe,
    launcher_for,
    needs_cgroup,
    probe,
)

BOX = Box("/usr/bin/bwrap", is_root=True, has_size_option=True, seccomp=b"filter")
EVERYTHING = Probe(None, CgroupParent.unified(Path("/sys/fs/cgroup/poker-arena")), None, box=BOX)
NO_CGROUPS = Probe(None, None, "no cgroup v2 file system is mounted", box=BOX)
NO_BWRAP = Probe(
    "'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)",
    None,
    "no cgroup v2 file system is mounted",
)


def test_the_default_is_the_strongest_layer_that_works() -> None:
    assert choose(None, probe=EVERYTHING) == (SandboxLevel.STRICT, ())
    # Cgroups are not a layer: why they are off is said by describe(), when it matters.
    assert choose(None, probe=NO_CGROUPS) == (SandboxLevel.STRICT, ())
    assert choose(None, probe=NO_BWRAP) == (
        SandboxLevel.LIMITS,
        ("strict is off: 'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)",),
    )


def test_a_weaker_layer_asked_for_says_so() -> None:
    assert choose(SandboxLevel.LIMITS, probe=EVERYTHING) == (
        SandboxLevel.LIMITS,
        ("strict was not asked for",),
    )
    level, reasons = choose(SandboxLevel.NONE, probe=NO_BWRAP)
    assert level is SandboxLevel.NONE and "switched off" in reasons[0]


def test_a_layer_that_does_not_work_here_is_an_error_not_a_downgrade() -> None:
    with pytest.raises(SandboxUnavailableError) as info:
        choose(SandboxLevel.STRICT, probe=NO_BWRAP)
    assert str(info.value) == (
        "sandbox strict is not available here: "
        "'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)"
    )
    assert info.value.code == "sandbox_unavailable"
    with pytest.raises(SandboxUnavailableError, match="bubblewrap"):
        launcher_for(SandboxLevel.STRICT, probe=NO_BWRAP)


def test_each_layer_has_its_launcher() -> None:
    assert isinstance(launcher_for(SandboxLevel.NONE), DirectLauncher)
    limits = launcher_for(SandboxLevel.LIMITS, overrides={"processes": 7})
    assert isinstance(limits, LimitsLauncher) and limits.overrides == {"processes": 7}
    limits.close()
    strict = launcher_for(SandboxLevel.STRICT, probe=EVERYTHING)
    try:
        assert isinstance(strict, StrictLauncher)
        assert strict.box == BOX and strict.inner.cgroups == EVERYTHING.cgroups
    finally:
        strict.close()
    # The limits layer gets cgroups too, where they can be made.
    limits = launcher_for(SandboxLevel.LIMITS, probe=EVERYTHING)
    assert isinstance(limits, LimitsLauncher) and limits.cgroups == EVERYTHING.cgroups
    limits.close()


def test_the_start_line_names_the_layer_and_the_kernel_s_part() -> None:
    lines = describe(SandboxLevel.STRICT, (), probe=EVERYTHING)
    assert lines == [
        "sandbox: strict (bubblewrap box: own PID and network namespaces, read-only system, "
        "private /tmp, own uid, system call filter; with resource limits; held by the kernel: "
        "cgroup v2 (memory, pids))"
    ]
    assert describe(SandboxLevel.NONE, ("x",), probe=EVERYTHING)[0] == (
        "sandbox: none (bots run as they are, with the arena's rights)"
    )


def test_why_cgroups_are_off_is_said_only_when_verbose_or_when_a_cpu_share_is_asked() -> None:
    quiet = describe(SandboxLevel.STRICT, (), probe=NO_CGROUPS)
    assert len(quiet) == 1 and "held by the kernel" not in quiet[0]
    note = (
        "  cgroup limits are off (memory and processes are watched, no CPU share is kept): "
        "no cgroup v2 file system is mounted"
    )
    assert describe(SandboxLevel.STRICT, (), probe=NO_CGROUPS, is_verbose=True)[1:] == [note]
    asked = needs_cgroup({"cpu_percent": "50%"})
    assert describe(SandboxLevel.LIMITS, ("r",), probe=NO_CGROUPS, needs_cgroup=asked)[1:] == [
        "  r",
        note,
    ]
    assert not needs_cgroup({"processes": 3})


def test_this_machine_picks_strict_or_says_why_not() -> None:
    found = probe()
    assert probe() is found  # bwrap runs once per process
    level, reasons = choose(None)
    if found.strict_problem is not None:
        assert level is SandboxLevel.LIMITS and found.strict_problem in reasons[0]
        pytest.skip(f"the strict layer cannot run here: {found.strict_problem}")
    assert level is SandboxLevel.STRICT
    assert found.box is not None
    assert (found.cgroup_problem is None) == (found.cgroups is not None)
