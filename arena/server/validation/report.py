"""What the validation of an upload reports: each step (:class:`StepReport`) as it starts
and ends, and the :class:`Verdict`.

A step's ``message`` and ``hint`` are for the team's version page; the bot's own output
(its build log, its stderr) is never in them but in :attr:`Verdict.team_log`, which the
server shows to the bot's team only.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.bots.transport import STDERR_MARKER

__all__ = [
    "STEP_NAMES",
    "InfrastructureError",
    "StepFailed",
    "StepReport",
    "StepStatus",
    "Verdict",
    "public_text",
]

#: The steps, in order.
STEP_NAMES = ("unpack", "build", "protocol_check", "validation_match")


class StepStatus(StrEnum):
    """Where a step is."""

    RUNNING = "running"
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"  # an earlier step failed


def public_text(text: str) -> str:
    """``text`` without the bot's stderr the arena quoted in it.

    >>> public_text("bot 'x' exited (exit code 3); its stderr ends with: 'key=abc'")
    "bot 'x' exited (exit code 3) (its stderr is in the team log)"
    """
    said, marker, _stderr = text.partition(STDERR_MARKER)
    return said + " (its stderr is in the team log)" if marker else text


class StepFailed(Exception):
    """A step rejected the bot: why (``message``, with no stderr of the bot: see
    :func:`public_text`) and what to fix (``hint``)."""

    def __init__(self, message: str, hint: str = "") -> None:
        message = public_text(message)
        super().__init__(message)
        self.message = message
        self.hint = hint


class InfrastructureError(RuntimeError):
    """The validation could not be run, and it is not the bot's fault (the sandbox does
    not work here, the house bot cannot be loaded): the server keeps the upload and runs
    the validation again later rather than reject it."""


@dataclass(frozen=True, slots=True)
class StepReport:
    """One step at one moment: its name, status, what happened and (failed) what to fix."""

    step: str
    status: StepStatus
    message: str = ""
    hint: str = ""
    duration_s: float = 0.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """The end of a validation: accepted or not, why (``reason``, ``hint``: the first
    failed step's), every step's last report, and ``team_log``: the bot's build output
    and stderr, for its team only."""

    is_accepted: bool
    reason: str
    hint: str
    steps: tuple[StepReport, ...]
    team_log: str = ""

    def step(self, name: str) -> StepReport:
        """The report of the step ``name`` (KeyError if there is none)."""
        return {report.step: report for report in self.steps}[name]
