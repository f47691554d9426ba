"""Bot builds: no shell, the bot's directory and environment, a time limit, clear failures."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from arena.bots.build import run_build
from arena.bots.launcher import DirectLauncher
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.sandbox.limited import SUPERVISOR_PATH, LimitsLauncher
from tests import REPO_ROOT


def build_manifest(tmp_path: Path, code: str, timeout_s: float = 30.0) -> BotManifest:
    return BotManifest(
        name="built",
        command=("./bot",),
        working_dir=tmp_path,
        build=("{python}", "-c", code),
        build_timeout_s=timeout_s,
        env={"GREETING": "hi"},
    )


def test_a_build_runs_in_the_bot_dir_with_its_environment(tmp_path: Path) -> None:
    code = "import os; open('out.txt', 'w').write(os.environ['GREETING']); print('built!')"
    result = run_build(build_manifest(tmp_path, code))
    assert result.is_ok and result.has_run and result.exit_code == 0
    assert "succeeded" in result.reason and "built!" in result.output
    assert (tmp_path / "out.txt").read_text() == "hi"


def test_a_failing_build_says_how_it_failed(tmp_path: Path) -> None:
    code = "import sys; print('error: bot.c:3: missing ;'); sys.exit(2)"
    result = run_build(build_manifest(tmp_path, code))
    assert not result.is_ok and result.exit_code == 2
    assert "failed (exit code 2)" in result.reason and "missing ;" in result.output


def test_a_build_past_its_time_limit_is_killed(tmp_path: Path) -> None:
    code = "import time; time.sleep(60)"
    began = time.monotonic()
    result = run_build(build_manifest(tmp_path, code, timeout_s=30.0), timeout_s=0.3)
    assert time.monotonic() - began < 5.0
    assert not result.is_ok and result.is_timed_out and result.signal == signal.SIGKILL
    assert "longer than 0.3 s" in result.reason


def test_a_build_program_that_is_missing_fails_clearly(tmp_path: Path) -> None:
    manifest = BotManifest(
        name="b", command=("./bot",), working_dir=tmp_path, build=("no-such-compiler",)
    )
    result = run_build(manifest)
    assert not result.is_ok and "cannot run the build command 'no-such-compiler'" in result.reason


def test_a_bot_without_build_step_needs_no_build(tmp_path: Path) -> None:
    result = run_build(BotManifest(name="b", command=("./bot",), working_dir=tmp_path))
    assert result.is_ok and not result.has_run


def test_the_c_sample_bot_builds_with_make() -> None:
    result = run_build(
        load_manifest(REPO_ROOT / "sample_bots/c/bot.toml"), launcher=DirectLauncher()
    )
    assert result.is_ok, result.output
    assert (REPO_ROOT / "sample_bots/c/build/bot").exists()


def test_a_failing_build_under_a_sandbox_names_the_manifest_s_command(tmp_path: Path) -> None:
    code = "import sys; sys.exit(4)"
    manifest = build_manifest(tmp_path / "bot", code)
    manifest.working_dir.mkdir()
    launcher = LimitsLauncher(temp_dir=tmp_path, drop_privileges=False)
    try:
        result = run_build(manifest, launcher=launcher)
    finally:
        launcher.close()
    assert not result.is_ok and result.exit_code == 4
    assert result.reason == f"build '{{python}} -c {code}' failed (exit code 4)"
    assert str(SUPERVISOR_PATH) not in result.reason
