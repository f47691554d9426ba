"""Bots for the process tests: a few lines of Python, or a hostile bot from tests/bots."""

from __future__ import annotations

import time
from pathlib import Path

from arena.bots.launcher import DirectLauncher
from arena.bots.manifest import BotManifest, load_manifest
from arena.bots.process import ProcessTransport
from tests import TEST_BOTS

#: The first message of a match, as far as these bots care.
HELLO = b'{"type":"hello","seq":1}\n'


def script_manifest(code: str, tmp_path: Path, name: str = "script") -> BotManifest:
    """A bot that is a few lines of Python run with ``-c``."""
    return BotManifest(name=name, command=("{python}", "-c", code), working_dir=tmp_path)


def hostile(name: str, *args: str) -> BotManifest:
    """The hostile test bot ``name``, with ``args`` instead of its own arguments if given."""
    manifest = load_manifest(TEST_BOTS / name / "bot.toml")
    if args:
        manifest = BotManifest(
            name=manifest.name,
            command=(*manifest.command[:2], *args),
            working_dir=manifest.working_dir,
        )
    return manifest


def start(
    started: list[ProcessTransport], manifest: BotManifest, **options: int
) -> ProcessTransport:
    """Start ``manifest`` with transport ``options``; the ``started`` fixture closes it."""
    spec = DirectLauncher().prepare(manifest)
    transport = ProcessTransport.from_spec(spec, name=manifest.name, **options)  # type: ignore[arg-type]
    started.append(transport)
    return transport


def soon(seconds: float = 5.0) -> float:
    """A deadline ``seconds`` from now on the monotonic clock."""
    return time.monotonic() + seconds
