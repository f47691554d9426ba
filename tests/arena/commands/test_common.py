"""``arena match`` and the sandbox flags: which layer is active and why, a layer that does
not work here, the limit flags against a manifest's ``[limits]`` and their help."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena import cli
from arena.bots.manifest import load_manifest
from arena.bots.sandbox import select
from arena.bots.sandbox.limited import LimitsLauncher
from arena.bots.sandbox.resources import DEFAULT_RESOURCES
from arena.bots.sandbox.select import Probe, choose, describe
from arena.cli import main
from arena.commands import common
from tests.arena.scripted import SAMPLE_BOTS

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
STRENGTH = str(SAMPLE_BOTS / "python_hand_strength" / "bot.toml")


def _exit_code(argv: list[str]) -> int:
    with pytest.raises(SystemExit) as info:
        main(argv)
    code = info.value.code
    assert isinstance(code, int)
    return code


def test_a_match_says_which_sandbox_layer_is_active_and_why_no_stronger_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    level, reasons = choose(None)
    argv = ["match", STATION, STRENGTH, "--hands", "2", "--no-progress"]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[: 1 + len(reasons)] == describe(level, reasons)
    assert main([*argv, "--out", str(tmp_path / "b"), "--sandbox", "none"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("sandbox: none") and "switched off" in lines[1]


def test_asking_for_a_layer_that_does_not_work_here_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = Probe("'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)", None, "x")
    monkeypatch.setattr(select, "probe", lambda: missing)
    assert _exit_code(["match", STATION, STRENGTH, "--sandbox", "strict"]) == 2
    err = capsys.readouterr().err
    assert "sandbox strict is not available here: 'bwrap' (bubblewrap) is not installed" in err
    # Without --sandbox the same machine plays under the limits layer, and says why.
    out = io.StringIO()
    args = cli.build_parser().parse_args(["check-bot", STATION])
    launcher = common.open_launcher(args, out)
    launcher.close()
    assert out.getvalue().splitlines() == [
        "sandbox: limits (resource limits, private copy, scrubbed environment)",
        "  strict is off: 'bwrap' (bubblewrap) is not installed (apt-get install bubblewrap)",
    ]


def test_limit_flags_override_the_manifest_which_overrides_the_defaults(tmp_path: Path) -> None:
    bot_dir = tmp_path / "bot"
    bot_dir.mkdir()
    (bot_dir / "bot.toml").write_text(
        'name = "limited"\ncommand = ["{python}", "bot.py"]\n'
        '[limits]\nmemory_bytes = "512MiB"\nopen_files = 100\n'
    )
    manifest = load_manifest(bot_dir / "bot.toml")
    parser = cli.build_parser()
    argv = ["match", STATION, STATION, "--sandbox", "limits", "--open-files", "50"]
    args = parser.parse_args([*argv, "--tmp-size", "64MiB"])
    assert common.limit_overrides(args) == {"open_files": 50, "tmp_bytes": 64 * 1024**2}
    launcher = common.open_launcher(args, io.StringIO())
    try:
        assert isinstance(launcher, LimitsLauncher)
        resources = launcher.resources_for(manifest)
    finally:
        launcher.close()
    assert resources.open_files == 50  # the flag beats the manifest
    assert resources.memory_bytes == 512 * 1024**2  # the manifest beats the default
    assert resources.tmp_bytes == 64 * 1024**2
    assert resources.processes == DEFAULT_RESOURCES.processes


def test_the_limit_flags_show_their_defaults_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert _exit_code(["match", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for flag, default in [
        ("--memory SIZE", "(default 1GiB)"),
        ("--cpu-seconds N", f"(default {DEFAULT_RESOURCES.cpu_seconds})"),
        ("--processes N", f"(default {DEFAULT_RESOURCES.processes})"),
        ("--file-size SIZE", "(default 256MiB)"),
        ("--open-files N", f"(default {DEFAULT_RESOURCES.open_files})"),
        ("--tmp-size SIZE", "(default 256MiB)"),
        ("--sandbox {none,limits,strict}", "strongest layer that works here"),
    ]:
        # The last mention is the option's own line (the first is in the usage).
        assert flag in text and default in text.rsplit(flag, 1)[1][:120], flag
