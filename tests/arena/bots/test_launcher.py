"""The direct launcher turns a manifest into the exact argv, directory and environment."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.bots.launcher import DirectLauncher, expand_placeholders
from arena.bots.manifest import BotManifest


def test_placeholders_are_expanded_inside_arguments() -> None:
    argv = expand_placeholders(
        ["{python}", "-u", "--dir={bot_dir}", "plain"], python="/py", bot_dir=Path("/b")
    )
    assert argv == ("/py", "-u", "--dir=/b", "plain")


def test_the_direct_launcher_runs_python_bots_with_the_arenas_interpreter(tmp_path: Path) -> None:
    manifest = BotManifest(
        name="x",
        command=("{python}", "bot.py"),
        working_dir=tmp_path,
        env={"LEVEL": "2", "HOME": "/bot-home"},
    )
    spec = DirectLauncher(base_env={"HOME": "/home/arena", "PATH": "/bin"}).prepare(manifest)
    assert spec.argv == (sys.executable, "bot.py")
    assert spec.cwd == tmp_path
    # The manifest wins over the arena's environment; Python bots are unbuffered.
    assert spec.env == {"HOME": "/bot-home", "PATH": "/bin", "LEVEL": "2", "PYTHONUNBUFFERED": "1"}


def test_a_relative_program_path_is_made_absolute_in_the_bot_dir(tmp_path: Path) -> None:
    manifest = BotManifest(name="x", command=("build/bot", "x/y"), working_dir=tmp_path)
    spec = DirectLauncher(python="/py").prepare(manifest)
    assert spec.argv == (str(tmp_path / "build/bot"), "x/y")
    # A bare program name is looked up on the PATH, as usual.
    bare = BotManifest(name="x", command=("node", "bot.js"), working_dir=tmp_path)
    assert DirectLauncher().prepare(bare).argv == ("node", "bot.js")


def test_the_build_spec_uses_the_same_rules(tmp_path: Path) -> None:
    launcher = DirectLauncher(python="/py", base_env={})
    without = BotManifest(name="x", command=("./bot",), working_dir=tmp_path)
    assert launcher.prepare_build(without) is None
    manifest = BotManifest(
        name="x", command=("./bot",), working_dir=tmp_path, build=("{python}", "setup.py")
    )
    spec = launcher.prepare_build(manifest)
    assert spec is not None and spec.argv == ("/py", "setup.py") and spec.cwd == tmp_path
