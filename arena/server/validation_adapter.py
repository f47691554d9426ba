"""The default pipeline: the uploads' validation (:mod:`arena.server.validation`), adapted
to the worker's :class:`~arena.server.pipeline.Pipeline` signature."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.server.jobs import StepReport
from arena.server.pipeline import ValidationRules, Verdict

__all__ = ["validate"]


def validate(
    archive: Path, work_dir: Path, rules: ValidationRules, on_step: Callable[[StepReport], None]
) -> Verdict:
    """Validate with :mod:`arena.server.validation` (see the module docstring)."""
    from arena.server import validation  # type: ignore[attr-defined]

    verdict: Verdict = validation.validate(archive, work_dir, rules, on_step)
    return verdict
