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
    probe,
)

BOX = Box("/usr/bin/bwrap", is_root=True, has_size_option=True)
EVERYTHING = Probe(None, CgroupParent(Path("/sys/fs/cgroup/poker-arena")), None, box=BOX)
NO_CGROUPS = Probe(None, None, "no cgroup v2 file system is mounted", box=BOX)
NO_BWRAP = Probe(
    "'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)",
    None,
    "no cgroup v2 file system is mounted",
)


def test_the_default_is_the_strongest_layer_that_works() -> None:
    assert choose(None, probe=EVERYTHING) == (SandboxLevel.STRICT, ())
    assert choose(None, probe=NO_CGROUPS) == (
        SandboxLevel.STRICT,
        ("cgroup limits are off: no cgroup v2 file system is mounted",),
    )
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
    strict = launcher_for(SandboxLevel.STRICT, probe=EVERYTHING)
    try:
        assert isinstance(strict, StrictLauncher)
        assert strict.box == BOX and strict.cgroups == EVERYTHING.cgroups
    finally:
        strict.close()


def test_the_start_lines_name_the_layer_and_the_reasons() -> None:
    lines = describe(SandboxLevel.STRICT, ("cgroup limits are off: x",))
    assert lines[0].startswith("sandbox: strict (bubblewrap box")
    assert lines[1:] == ["  cgroup limits are off: x"]


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
