"""Shared pieces of the tournament tests: the bots of known strength and a command runner."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from arena.cli import main

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "tests" / "bots" / "folder" / "bot.toml"
STATION = ROOT / "sample_bots" / "python_calling_station" / "bot.toml"
HAND_STRENGTH = ROOT / "sample_bots" / "python_hand_strength" / "bot.toml"


def run_tournament(*args: str | Path) -> tuple[int, str]:
    """Run ``arena tournament ARGS`` in this process; returns the exit code and output."""
    out = io.StringIO()
    try:
        code = main(["tournament", *(str(arg) for arg in args)], stdout=out)
    except SystemExit as exc:  # argparse and fail() exit
        code = int(exc.code or 0)
    return code, out.getvalue()


def standings(out_dir: Path) -> dict[str, Any]:
    """The run's ``standings.json``."""
    document: dict[str, Any] = json.loads((out_dir / "standings.json").read_text("utf-8"))
    return document
