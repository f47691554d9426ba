"""The validation of an uploaded bot, as plain functions the server's worker calls:
:func:`validate` takes the archive, a work folder and the competition's
:class:`ValidationRules`, reports each step as it starts and ends, and returns a
:class:`Verdict` (accepted or rejected, the reason, the hint, and the bot's own output for
its team only). No Django here: the server stores what it is told.
"""

from __future__ import annotations

from arena.server.validation.pipeline import validate
from arena.server.validation.report import (
    SERVER_STATUS,
    STEP_NAMES,
    InfrastructureError,
    StepFailed,
    StepReport,
    StepStatus,
    Verdict,
)
from arena.server.validation.rules import DEFAULT_VALIDATION_HANDS, ValidationRules

__all__ = [
    "DEFAULT_VALIDATION_HANDS",
    "SERVER_STATUS",
    "STEP_NAMES",
    "InfrastructureError",
    "StepFailed",
    "StepReport",
    "StepStatus",
    "ValidationRules",
    "Verdict",
    "validate",
]
