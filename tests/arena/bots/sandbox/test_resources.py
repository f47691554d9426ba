"""Resource limits: defaults that honest bots never reach, overrides by name, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.manifest import ManifestError, parse_manifest
from arena.bots.sandbox.resources import (
    DEFAULT_RESOURCES,
    RESOURCE_KEYS,
    ResourceLimits,
    ResourceLimitsError,
    format_size,
    parse_size,
)

GIB = 1024**3


def test_the_defaults_stop_the_zoo_well_before_its_bounds() -> None:
    assert DEFAULT_RESOURCES.memory_bytes < 2 * GIB  # a memory hog is stopped before 2 GiB
    assert DEFAULT_RESOURCES.processes < 200  # a fork bomb before 200 processes
    assert DEFAULT_RESOURCES.file_size_bytes < GIB  # a file before 1 GiB
    # ... and leave room for honest bots: node alone uses about 50 MiB and 7 threads.
    assert DEFAULT_RESOURCES.memory_bytes >= 512 * 1024**2
    assert DEFAULT_RESOURCES.processes >= 16
    assert DEFAULT_RESOURCES.open_files >= 256


def test_overrides_replace_only_the_named_limits() -> None:
    resources = DEFAULT_RESOURCES.with_overrides(
        {"memory_bytes": "512MiB", "cpu_seconds": "30", "processes": 8}, source="cli"
    )
    assert resources.memory_bytes == 512 * 1024**2
    assert resources.cpu_seconds == 30
    assert resources.processes == 8
    assert resources.open_files == DEFAULT_RESOURCES.open_files
    assert DEFAULT_RESOURCES.with_overrides({}, source="cli") == DEFAULT_RESOURCES


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("100", 100),
        ("100B", 100),
        ("4k", 4096),
        ("2 KiB", 2048),
        ("3MiB", 3 * 1024**2),
        ("1.5GiB", 3 * GIB // 2),
        ("2gib", 2 * GIB),
        ("1TiB", 1024 * GIB),
        ("64kB", 64_000),
        ("5MB", 5_000_000),
        ("1GB", 10**9),
        (4096, 4096),
        (8.0, 8),
    ],
)
def test_sizes_are_read_with_binary_and_decimal_units(text: str | int, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("memory", "1GiB", "unknown limit"),
        ("memory_bytes", "lots", "a size is a number"),
        ("memory_bytes", "12 parsecs", "a size is a number"),
        ("memory_bytes", True, "not a boolean"),
        ("memory_bytes", 1.5, "whole number of bytes"),
        ("memory_bytes", float("nan"), "whole number of bytes"),
        ("memory_bytes", [1], "a size is a number of bytes"),
        ("memory_bytes", 0, "at least 1"),
        ("file_size_bytes", -5, "at least 1"),
        ("processes", "ten", "whole number"),
        ("processes", "1e3", "whole number"),
        ("processes", "²", "whole number"),
        ("processes", 2.0, "whole number"),
        ("processes", False, "not a boolean"),
        ("cpu_seconds", 0, "at least 1"),
        ("open_files", 2**70, "at most"),
        ("cpu_percent", "fast", "percent of one core"),
        ("cpu_percent", "50 %%", "percent of one core"),
        ("cpu_percent", 0, "at least 1"),
        ("cpu_percent", "0%", "at least 1"),
        ("cpu_percent", 100_001, "at most 100000"),
    ],
)
def test_a_bad_override_names_its_source_key_and_value(key: str, value: object, words: str) -> None:
    with pytest.raises(ResourceLimitsError) as caught:
        DEFAULT_RESOURCES.with_overrides({key: value}, source="bot.toml")
    message = str(caught.value)
    assert message.startswith(f"bot.toml: limit {key!r} = {value!r}: ")
    assert words in message
    assert caught.value.code == "bad_limit"
    assert isinstance(caught.value, ValueError)
    assert (caught.value.key, caught.value.value) == (key, value)


def test_limits_read_as_a_dict_and_a_line() -> None:
    resources = ResourceLimits(GIB, 60, 10, 1536, 64, 256 * 1024**2)
    assert list(resources.to_dict()) == list(RESOURCE_KEYS)
    assert resources.describe() == (
        "memory 1 GiB, cpu 60 s, processes 10, file size 1536 B, open files 64, /tmp 256 MiB, "
        "cpu share 100%, disk 1 GiB"
    )
    assert DEFAULT_RESOURCES.disk_bytes == GIB  # a bot's folder and /tmp together
    assert DEFAULT_RESOURCES.with_overrides({"disk_bytes": "64MiB"}, source="x").disk_bytes == (
        64 * 1024**2
    )
    assert format_size(3 * 1024**4) == "3 TiB"


@pytest.mark.parametrize(
    ("value", "percent"), [(150, 150), ("50%", 50), (" 250 % ", 250), ("75", 75)]
)
def test_a_cpu_share_is_read_in_percent_of_one_core(value: object, percent: int) -> None:
    assert DEFAULT_RESOURCES.cpu_percent == 100  # one core per bot unless told otherwise
    assert (
        DEFAULT_RESOURCES.with_overrides({"cpu_percent": value}, source="x").cpu_percent == percent
    )


def test_a_manifest_limits_table_is_checked_and_kept_as_numbers(tmp_path: Path) -> None:
    path = tmp_path / "bot.toml"
    data = {"name": "x", "command": ["./bot"], "limits": {"memory_bytes": "2GiB", "processes": 4}}
    manifest = parse_manifest(data, path=path)
    assert manifest.resources == {"memory_bytes": 2 * GIB, "processes": 4}
    assert parse_manifest({"name": "x", "command": ["./bot"]}, path=path).resources == {}


@pytest.mark.parametrize(
    ("table", "key", "words"),
    [
        ({"memory_bytes": "much"}, "limits.memory_bytes", "got 'much'"),
        ({"threads": 4}, "limits.threads", "unknown limit"),
        ("2GiB", "limits", "must be a table"),
    ],
)
def test_a_bad_manifest_limits_table_is_a_manifest_error(
    tmp_path: Path, table: object, key: str, words: str
) -> None:
    path = tmp_path / "bot.toml"
    with pytest.raises(ManifestError) as caught:
        parse_manifest({"name": "x", "command": ["./bot"], "limits": table}, path=path)
    assert caught.value.key == key
    assert str(path) in str(caught.value) and words in str(caught.value)
