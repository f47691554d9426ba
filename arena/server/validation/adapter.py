"""The worker's default pipeline: the uploads' validation as the site calls it
(:func:`arena.server.validation.for_site.validate_for_site`, which turns the site's rules
into the validation's), with one thing added: a validation that cannot run here (the
validation's :class:`InfrastructureError`: the sandbox does not work, the competition file
or the house bot cannot be read) is a :class:`~arena.server.validation.seam.SiteFailure`, so the
upload goes back to the queue instead of being rejected for the site's fault."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.server.site.models import StepStatus
from arena.server.validation.for_site import SiteStep, validate_for_site
from arena.server.validation.queue import StepReport
from arena.server.validation.report import InfrastructureError
from arena.server.validation.seam import SiteFailure, ValidationRules, Verdict

__all__ = ["validate"]


def _report(step: SiteStep) -> StepReport:
    return StepReport(step.step, StepStatus(step.status), step.message, step.hint, step.log)


def validate(
    archive: Path, work_dir: Path, rules: ValidationRules, on_step: Callable[[StepReport], None]
) -> Verdict:
    """Validate ``archive`` (see the module docstring)."""
    try:
        verdict = validate_for_site(archive, work_dir, rules, lambda step: on_step(_report(step)))
    except InfrastructureError as error:
        raise SiteFailure(str(error)) from error
    return Verdict(
        accepted=verdict.accepted,
        steps=tuple(_report(step) for step in verdict.steps),
        reason=verdict.reason,
        hint=verdict.hint,
        stderr=verdict.stderr,
    )
