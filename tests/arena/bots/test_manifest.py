"""Bot manifests: good ones load; a bad one names the file, the key and the bad value."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.manifest import (
    DEFAULT_BUILD_TIMEOUT_S,
    BotManifest,
    ManifestError,
    load_manifest,
    parse_manifest,
)
from tests import REPO_ROOT, TEST_BOTS


def write(tmp_path: Path, text: str, name: str = "bot.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_full_manifest_loads(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    path = write(
        tmp_path,
        'name = " my bot "\n'
        'command = ["build/bot", "--level", "3"]\n'
        'working_dir = "src"\n'
        'build = ["make", "-C", "{bot_dir}"]\n'
        "build_timeout_s = 30\n"
        "[env]\n"
        'BOT_LEVEL = "3"\n',
    )
    manifest = load_manifest(path)
    assert manifest == BotManifest(
        name="my bot",
        command=("build/bot", "--level", "3"),
        working_dir=(tmp_path / "src").resolve(),
        build=("make", "-C", "{bot_dir}"),
        build_timeout_s=30.0,
        env={"BOT_LEVEL": "3"},
        path=path.resolve(),
    )
    assert manifest.label == f"'my bot' ({path.resolve()})"


def test_defaults_for_the_optional_keys(tmp_path: Path) -> None:
    manifest = load_manifest(write(tmp_path, 'name = "x"\ncommand = ["./bot"]\n'))
    assert manifest.working_dir == tmp_path.resolve()
    assert (manifest.build, manifest.env) == (None, {})
    assert manifest.build_timeout_s == DEFAULT_BUILD_TIMEOUT_S


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(REPO_ROOT)) for p in REPO_ROOT.glob("sample_bots/*/bot.toml")),
)
def test_every_sample_manifest_loads(path: str) -> None:
    assert load_manifest(REPO_ROOT / path).command


def test_every_hostile_manifest_loads_and_uses_the_python_placeholder() -> None:
    paths = sorted(TEST_BOTS.glob("*/bot.toml"))
    assert len(paths) >= 8
    for path in paths:
        manifest = load_manifest(path)
        assert manifest.command[0] == "{python}"
        # A bot with a build step runs what its build writes; the build's script is here.
        script = manifest.command[1] if manifest.build is None else manifest.build[1]
        assert (manifest.working_dir / script).is_file()


@pytest.mark.parametrize(
    ("text", "key", "fragment"),
    [
        ('command = ["./bot"]\n', "name", "non-empty string, got None"),
        ('name = ""\ncommand = ["./bot"]\n', "name", "got ''"),
        ('name = 3\ncommand = ["./bot"]\n', "name", "got 3"),
        ('name = "x"\n', "command", "is missing"),
        ('name = "x"\ncommand = "python3 bot.py"\n', "command", "not the string 'python3 bot.py'"),
        ('name = "x"\ncommand = []\n', "command", "non-empty list"),
        ('name = "x"\ncommand = ["python3", 3]\n', "command[1]", "got 3"),
        ('name = "x"\ncommand = [""]\n', "command[0]", "got ''"),
        ('name = "x"\ncommand = ["a\\u0000b"]\n', "command[0]", "NUL"),
        ('name = "x"\ncommand = ["./bot"]\nbuild = "make"\n', "build", "argument list"),
        ('name = "x"\ncommand = ["./bot"]\nworking_dir = 5\n', "working_dir", "got 5"),
        ('name = "x"\ncommand = ["./bot"]\nbuild_timeout_s = 0\n', "build_timeout_s", "got 0"),
        ('name = "x"\ncommand = ["./bot"]\nbuild_timeout_s = "1"\n', "build_timeout_s", "'1'"),
        ('name = "x"\ncommand = ["./bot"]\nbuild_timeout_s = true\n', "build_timeout_s", "True"),
        ('name = "x"\ncommand = ["./bot"]\nbuild_timeout_s = inf\n', "build_timeout_s", "inf"),
        ('name = "x"\ncommand = ["./bot"]\nenv = "A=1"\n', "env", "table of strings"),
        ('name = "x"\ncommand = ["./bot"]\n[env]\nLEVEL = 3\n', "env.LEVEL", "got 3"),
        ('name = "x"\ncommand = ["./bot"]\n[env]\n"A=B" = "1"\n', "env.A=B", "not a valid"),
        ('name = "x"\ncommand = ["./bot"]\ncmd = ["./bot"]\n', "cmd", "unknown key"),
    ],
)
def test_a_bad_manifest_names_the_file_the_key_and_the_value(
    tmp_path: Path, text: str, key: str, fragment: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    message = str(caught.value)
    assert str(path) in message and f"key {key!r}" in message and fragment in message
    assert caught.value.key == key and caught.value.code == "bad_manifest"


def test_a_missing_working_dir_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, 'name = "x"\ncommand = ["./bot"]\nworking_dir = "nope"\n')
    with pytest.raises(ManifestError, match=r"'working_dir'.*nope.*is not a directory"):
        load_manifest(path)


def test_unreadable_or_malformed_files_are_reported(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="cannot read the manifest"):
        load_manifest(tmp_path / "missing.toml")
    with pytest.raises(ManifestError, match="not valid TOML"):
        load_manifest(write(tmp_path, "name = \n"))
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    with pytest.raises(ManifestError, match="not UTF-8"):
        load_manifest(path)


def test_parse_manifest_does_not_touch_the_file_system() -> None:
    manifest = parse_manifest(
        {"name": "x", "command": ["./bot"], "working_dir": "../elsewhere"},
        path=Path("/nowhere/bots/bot.toml"),
    )
    assert manifest.working_dir == Path("/nowhere/elsewhere")
