"""The project's tests: one subpackage per product package (``tests/engine``,
``tests/protocol``, ``tests/arena``), files named after the module they test."""

from __future__ import annotations

from pathlib import Path

#: The repository's root folder (sample bots, bench scripts and docs are found from it).
REPO_ROOT = Path(__file__).resolve().parent.parent

#: The hostile and misbehaving test bots.
TEST_BOTS = REPO_ROOT / "tests" / "bots"
