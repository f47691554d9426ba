"""A program the bot's own user cannot reach (a toolchain in a closed home directory): the
error names the way out, and the host's ``expose`` shows it read-only in the strict box."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.manifest import BotManifest
from arena.bots.process import ProcessTransport
from arena.bots.sandbox.bwrap import StrictLauncher
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.reach import (
    closed_directory,
    installation_of,
    is_runnable_by_anyone,
    parse_expose,
    unreachable_message,
)
from arena.bots.sandbox.select import SandboxLevel, launcher_for, probe
from arena.bots.transport import BotStartError

DEADLINE_S = 20.0
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="bots get a user of their own as root")


@pytest.fixture
def toolchain(tmp_path: Path) -> Iterator[Path]:
    """``home/.tool/bin/tool`` (a script that says hello in JSON), in a home closed to
    other users, as rustup installs cargo in /root/.cargo."""
    home = tmp_path / "home"
    tool = home / ".tool" / "bin" / "tool"
    tool.parent.mkdir(parents=True)
    tool.write_text('#!/bin/sh\necho \'{"type": "tool", "says": "hello"}\'\nexec cat\n')
    for path in (tool, tool.parent, tool.parent.parent):
        path.chmod(0o755)
    home.chmod(0o700)
    yield tool
    home.chmod(0o755)


def _manifest(tmp_path: Path, tool: Path) -> BotManifest:
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    return BotManifest(name="tooled", command=(str(tool),), working_dir=folder)


def test_a_closed_directory_is_found_and_exposed_roots_are_passed(toolchain: Path) -> None:
    home = toolchain.parent.parent.parent
    assert closed_directory(toolchain) in (home, *home.parents)
    assert not is_runnable_by_anyone(toolchain)
    assert is_runnable_by_anyone(toolchain, below=[toolchain.parent.parent])
    assert installation_of(toolchain) == toolchain.parent.parent
    assert closed_directory(Path("/no/such/tool")) == Path("/no")  # the missing part


def test_the_error_names_the_ways_out(toolchain: Path) -> None:
    strict = unreachable_message("b", str(toolchain), is_strict=True)
    assert "cannot be run by the bot's own user" in strict
    assert "closed to other users" in strict and "rustup and pyenv" in strict
    assert f"--expose {toolchain.parent.parent}" in strict and "expose = [" in strict
    assert "Install it where every user can run it" in strict
    limits = unreachable_message("b", str(toolchain), is_strict=False)
    assert f"--sandbox strict with --expose {toolchain.parent.parent}" in limits


@needs_root
def test_the_limits_layer_refuses_the_program_with_the_way_out(
    tmp_path: Path, toolchain: Path
) -> None:
    launcher = LimitsLauncher(temp_dir=tmp_path)
    with pytest.raises(BotStartError, match="--sandbox strict with --expose"):
        launcher.prepare(_manifest(tmp_path, toolchain))
    launcher.close()
    with pytest.raises(ValueError, match="the limits layer cannot show it to bots"):
        LimitsLauncher(temp_dir=tmp_path, expose=(toolchain.parent.parent,))


@needs_root
def test_an_exposed_toolchain_runs_in_the_strict_box(toolchain: Path, tmp_path: Path) -> None:
    found = probe()
    if found.box is None:
        pytest.skip(f"the strict layer cannot run here: {found.strict_problem}")
    manifest = _manifest(tmp_path, toolchain)
    closed = launcher_for(SandboxLevel.STRICT)
    assert isinstance(closed, StrictLauncher)
    try:
        with pytest.raises(BotStartError, match=f"--expose {toolchain.parent.parent}"):
            closed.prepare(manifest)
    finally:
        closed.close()
    launcher = launcher_for(SandboxLevel.STRICT, expose=(toolchain.parent.parent,))
    try:
        transport = ProcessTransport.start(manifest, launcher=launcher)
        try:
            assert transport.read_line(time.monotonic() + DEADLINE_S) == (
                b'{"type": "tool", "says": "hello"}'
            )
        finally:
            transport.close(0.0)
    finally:
        launcher.close()


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("relative/dir", "must be an absolute path"),
        ("/no/such/place", "no such file or directory"),
        ("/", "the whole file system cannot be exposed"),
        (3, "must be a path"),
    ],
)
def test_a_bad_exposed_path_is_named(value: object, words: str) -> None:
    with pytest.raises(ValueError, match=words) as caught:
        parse_expose([value])
    assert repr(str(value) if isinstance(value, str) else value) in str(caught.value)
    assert parse_expose([sys.prefix, sys.prefix]) == (Path(sys.prefix),)
