"""A program the bot's own user cannot reach (a toolchain in a closed home directory): the
error names the way out, and the host's ``expose`` shows it read-only in the strict box."""

from __future__ import annotations

import os
import re
import shutil
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
    rustup_home_of,
    unreachable_message,
)
from arena.bots.sandbox.select import SandboxLevel, launcher_for, probe
from arena.bots.transport import BotStartError
from arena.cli import main
from tests import REPO_ROOT

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


def test_a_rustup_toolchain_is_told_the_env_its_manifest_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Exposing ~/.cargo alone is not enough for rustup: its proxies look for toolchains in
    # the bot's home, which in the box is the bot's own. The refusal says what to add.
    monkeypatch.delenv("RUSTUP_HOME", raising=False)
    cargo_bin = tmp_path / "home" / ".cargo" / "bin"
    cargo_bin.mkdir(parents=True)
    for name in ("rustup", "cargo"):
        (cargo_bin / name).write_text("#!/bin/sh\n")
    rustup_home = tmp_path / "home" / ".rustup"
    assert rustup_home_of(cargo_bin.parent) == rustup_home
    message = unreachable_message("b", str(cargo_bin / "cargo"), is_strict=True)
    assert f"--expose {cargo_bin.parent} --expose {rustup_home}" in message
    assert f"RUSTUP_HOME = '{rustup_home}', CARGO_HOME = '{cargo_bin.parent}'" in message
    assert "RUSTUP_TOOLCHAIN" in message and "docs/sandbox.md" in message
    monkeypatch.setenv("RUSTUP_HOME", "/opt/rustup")
    assert rustup_home_of(cargo_bin.parent) == Path("/opt/rustup")
    limits = unreachable_message("b", str(cargo_bin / "cargo"), is_strict=False)
    assert "--sandbox strict with --expose" in limits and "--expose /opt/rustup" in limits


def test_a_toolchain_that_is_not_rustup_gets_no_rustup_advice(toolchain: Path) -> None:
    assert rustup_home_of(toolchain.parent.parent) is None
    assert "RUSTUP_HOME" not in unreachable_message("b", str(toolchain), is_strict=True)


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


#: Where the worked example in docs/sandbox.md has rustup (the arena run as root).
RUSTUP = (Path("/root/.cargo"), Path("/root/.rustup"))


def _worked_example(folder: Path) -> Path:
    """The Rust bot of docs/sandbox.md's worked example, its files written as the document
    shows them; returns its manifest."""
    text = (REPO_ROOT / "docs" / "sandbox.md").read_text(encoding="utf-8")
    section = text[text.index("### A Rust bot under the default sandbox") :]
    blocks = dict(re.findall(r"^```(\w+)\n(.*?)^```$", section, re.MULTILINE | re.DOTALL))
    (folder / "src").mkdir(parents=True)
    (folder / "bot.toml").write_text(blocks["toml"], encoding="utf-8")
    (folder / "Cargo.toml").write_text(blocks["ini"], encoding="utf-8")
    (folder / "src" / "main.rs").write_text(blocks["rust"], encoding="utf-8")
    command = blocks["sh"].split()
    assert command[:3] == ["arena", "check-bot", "path/to/bot.toml"]
    assert command[3:] == [part for path in RUSTUP for part in ("--expose", str(path))]
    return folder / "bot.toml"


@needs_root
@pytest.mark.skipif(
    not (RUSTUP[0] / "bin" / "cargo").exists() or not RUSTUP[1].is_dir(),
    reason="rustup is not installed in /root (the worked example's place)",
)
def test_the_documented_rust_bot_passes_check_bot_in_the_strict_box(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found = probe()
    if found.box is None:
        pytest.skip(f"the strict layer cannot run here: {found.strict_problem}")
    manifest = _worked_example(tmp_path / "bot")
    exposed = [part for path in RUSTUP for part in ("--expose", str(path))]
    argv = ["check-bot", str(manifest), "--sandbox", "strict"]
    assert main([*argv, *exposed]) == 0, capsys.readouterr().out
    assert "result: PASSED" in capsys.readouterr().out
    # Without the [env], the build fails and says why (rustup's own words, not only the
    # exit code); without --expose, the refusal names the directories and the variables.
    bare = tmp_path / "bare"
    bare.mkdir()
    toml = manifest.read_text(encoding="utf-8")
    (bare / "bot.toml").write_text(toml[: toml.index("[env]")], encoding="utf-8")
    shutil.copytree(manifest.parent / "src", bare / "src")
    shutil.copy(manifest.parent / "Cargo.toml", bare / "Cargo.toml")
    assert main(["check-bot", str(bare / "bot.toml"), "--sandbox", "strict", *exposed]) == 1
    assert "its output ends with:" in capsys.readouterr().out
    assert main(["check-bot", str(manifest), "--sandbox", "strict"]) == 1
    refused = capsys.readouterr().out
    assert "--expose /root/.cargo --expose /root/.rustup" in refused
    assert "RUSTUP_HOME = '/root/.rustup'" in refused
