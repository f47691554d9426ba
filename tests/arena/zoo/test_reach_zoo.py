"""Zoo: a bot whose program lives where its own user cannot go (a toolchain installed in a
home directory, as rustup and pyenv do). ``arena match`` refuses it with one line naming
the way out, and the host (never the manifest) can expose the directory read-only."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena import cli
from arena.bots.sandbox.select import SandboxLevel, choose
from tests import REPO_ROOT

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="only root gives a bot a user of its own, who cannot enter ~"
)

STATION = REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.toml"


@pytest.fixture
def closed_toolchain(tmp_path: Path) -> Iterator[Path]:
    """``home/.tool/bin/python3``: the arena's Python behind a home closed to others."""
    home = tmp_path / "home"
    tool = home / ".tool" / "bin" / "python3"
    tool.parent.mkdir(parents=True)
    tool.write_text(f'#!/bin/sh\nexec {os.path.realpath(sys.executable)} "$@"\n')
    for path in (tool, tool.parent, tool.parent.parent):
        path.chmod(0o755)
    home.chmod(0o700)
    for folder in (tmp_path, *tmp_path.parents):
        if folder == Path("/tmp") or folder == Path("/"):
            break
        folder.chmod(folder.stat().st_mode | 0o055)
    yield tool
    home.chmod(0o755)


def _bot(tmp_path: Path, tool: Path) -> Path:
    folder = tmp_path / "bot"
    folder.mkdir()
    source = (REPO_ROOT / "sample_bots" / "python_calling_station" / "bot.py").read_text()
    (folder / "bot.py").write_text(source)
    (folder / "bot.toml").write_text(f'name = "tooled"\ncommand = ["{tool}", "bot.py"]\n')
    return folder / "bot.toml"


def _match(*args: object) -> tuple[int, str]:
    out = io.StringIO()
    try:
        code = cli.main(["match", *map(str, args), "--hands", "2", "--no-progress"], stdout=out)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    return code, out.getvalue()


def test_a_toolchain_in_a_closed_home_is_refused_naming_the_way_out(
    tmp_path: Path, closed_toolchain: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = _bot(tmp_path, closed_toolchain)
    code, text = _match(manifest, STATION, "--out", tmp_path / "run", "--sandbox", "limits")
    said = text + capsys.readouterr().err
    assert code == 2, said
    assert "cannot be run by the bot's own user" in said, said
    assert f"--sandbox strict with --expose {closed_toolchain.parent.parent}" in said, said


def test_the_host_exposes_the_toolchain_read_only_and_the_match_is_played(
    tmp_path: Path, closed_toolchain: Path
) -> None:
    try:
        choose(SandboxLevel.STRICT)
    except RuntimeError as exc:
        pytest.skip(f"the strict layer does not work here: {exc}")
    manifest = _bot(tmp_path, closed_toolchain)
    exposed = closed_toolchain.parent.parent
    code, text = _match(
        manifest, STATION, "--out", tmp_path / "run", "--sandbox", "strict", "--expose", exposed
    )
    assert code == 0, text
    assert (tmp_path / "run" / "results.json").is_file()
