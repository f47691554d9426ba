"""What ``arena check-bot`` reports: each step's result, and the quick hands if played.

>>> report = CheckReport("bot.toml", "x", (CheckStep("manifest", True, "'x': ./bot"),))
>>> print(report.format())
check-bot x (bot.toml)
  PASS  manifest: 'x': ./bot
result: PASSED
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.tools.checkbot_hands import HandsReport

__all__ = ["CheckReport", "CheckStep"]

#: Lines of the bot's stderr shown under a failed check.
STDERR_LINES_SHOWN = 15


@dataclass(frozen=True, slots=True)
class CheckStep:
    """One step of the check: its name, whether it passed, why, and what to fix.

    ``hint`` is set on a failed step when the failure is one of the common mistakes
    (:mod:`arena.tools.checkbot_hints`).
    """

    name: str
    passed: bool
    reason: str
    hint: str = ""


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every step's result and the quick hands (``hands``, None when none were asked for
    or the bot could not get as far); ``passed`` only when every step passed and the
    hands were played without a fault."""

    manifest_path: str
    bot_name: str
    steps: tuple[CheckStep, ...]
    stderr_tail: str = ""
    hands: HandsReport | None = None

    @property
    def passed(self) -> bool:
        """True when every step passed and the hands, if played, had no fault."""
        steps_passed = bool(self.steps) and all(step.passed for step in self.steps)
        return steps_passed and (self.hands is None or self.hands.is_clean)

    def step(self, name: str) -> CheckStep:
        """The step called ``name`` (KeyError if there is none)."""
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    @property
    def first_failure(self) -> CheckStep | None:
        """The first step that failed, if any: the mistake to fix first."""
        return next((step for step in self.steps if not step.passed), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "manifest": self.manifest_path,
            "bot": self.bot_name,
            "passed": self.passed,
            "steps": [
                {"name": s.name, "passed": s.passed, "reason": s.reason, "hint": s.hint}
                for s in self.steps
            ],
            "stderr_tail": self.stderr_tail,
            "hands": None if self.hands is None else self.hands.to_dict(),
        }

    def format(self) -> str:
        """Readable text, one line per step (and its hint), for the command line."""
        lines = [f"check-bot {self.bot_name or '?'} ({self.manifest_path})"]
        for step in self.steps:
            lines.append(f"  {'PASS' if step.passed else 'FAIL'}  {step.name}: {step.reason}")
            if step.hint and not step.passed:
                lines.append(f"        hint: {step.hint}")
        if self.hands is not None:
            lines.extend(self.hands.format_lines())
        lines.append("result: " + ("PASSED" if self.passed else "FAILED"))
        tail = self.stderr_tail.strip()
        if tail and not self.passed:
            lines.append("the bot's stderr ends with:")
            lines.extend("  | " + line for line in tail.splitlines()[-STDERR_LINES_SHOWN:])
        return "\n".join(lines)
