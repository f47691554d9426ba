"""Scripted validation pipelines for the worker's tests (its ``pipeline`` parameter:
:func:`arena.server.validation.worker.validation_worker`)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from arena.server.validation.report import StepReport, StepStatus, Verdict
from arena.server.validation.rules import ValidationRules

#: The file the first attempt writes its worker's process id to (the test kills it).
MARKER_ENV = "ARENA_TEST_MARKER"


def accept(
    archive: Path, work_dir: Path, rules: ValidationRules, on_step: Callable[[StepReport], None]
) -> Verdict:
    """Every step passes at once."""
    steps = tuple(
        StepReport(step, StepStatus.PASSED, f"{step} passed", duration_s=0.5)
        for step in ("building", "protocol_check", "validation_match")
    )
    for report in steps:
        on_step(report)
    reason = "every step passed" if archive.is_file() else "no archive"
    return Verdict(archive.is_file(), reason, "", steps, team_log="hello from the bot")


def hang_first_time(
    archive: Path, work_dir: Path, rules: ValidationRules, on_step: Callable[[StepReport], None]
) -> Verdict:
    """The first attempt says where its worker is, then hangs (to be killed); the next
    accepts."""
    marker = Path(os.environ[MARKER_ENV])
    if not marker.exists():
        on_step(StepReport("building", StepStatus.RUNNING, "building"))
        marker.write_text(str(os.getpid()), encoding="utf-8")
        time.sleep(600)
    return accept(archive, work_dir, rules, on_step)
