"""What ``arena check-bot`` reports: each step's result, and the quick hands if played.

Everything the bot controls (its name, its ``ready`` version, its build output, its
stderr) is shown inert (:func:`protocol.inert.inert_text`): an escape sequence in it would
otherwise act on the author's terminal. A passing bot that wrote to stderr is told so,
with the count and where a match keeps those lines: stderr is easy to forget, and a bot
that logs a warning per decision fills a match's stderr files unnoticed.

>>> report = CheckReport("bot.toml", "x", (CheckStep("manifest", True, "'x': ./bot"),))
>>> print(report.format())
check-bot x (bot.toml)
  PASS  manifest: 'x': ./bot
result: PASSED
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from arena.checkbot.hands import HandsReport
from protocol.inert import inert_text

__all__ = ["CheckReport", "CheckStep"]

#: Lines of the bot's stderr shown under a failed check.
STDERR_LINES_SHOWN = 15
#: Lines of the bot's stderr shown under a passed check (a reminder, not a diagnosis).
STDERR_LINES_SHOWN_ON_PASS = 3
#: Longest line of the bot's stderr shown.
_STDERR_LINE_CHARS = 200


@dataclass(frozen=True, slots=True)
class CheckStep:
    """One step of the check: its name, whether it passed, why, and what to fix.

    ``hint`` is set on a failed step when the failure is one of the common mistakes
    (:mod:`arena.checkbot.hints`).
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
    #: Bytes and lines the bot wrote to stderr during the conversation (lines counted in
    #: what was kept: its first and last bytes).
    stderr_bytes: int = 0
    stderr_line_count: int = 0
    #: The scripted conversation's decisions answered validly, and how many of them came
    #: as a distribution (a mixed strategy the check drew the action from).
    decision_count: int = 0
    distribution_count: int = 0

    @property
    def passed(self) -> bool:
        """True when every step passed and the hands, if played, had no fault."""
        steps_passed = bool(self.steps) and all(step.passed for step in self.steps)
        return steps_passed and (self.hands is None or self.hands.is_clean)

    def step(self, name: str) -> CheckStep:
        """The step called ``name`` (KeyError if there is none)."""
        return {step.name: step for step in self.steps}[name]

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
            "steps": [asdict(step) for step in self.steps],
            "stderr_tail": self.stderr_tail,
            "stderr_bytes": self.stderr_bytes,
            "stderr_line_count": self.stderr_line_count,
            "decision_count": self.decision_count,
            "distribution_count": self.distribution_count,
            "hands": None if self.hands is None else self.hands.to_dict(),
        }

    def format(self) -> str:
        """Readable text, one line per step (and its hint), for the command line; every
        line inert (nothing the bot wrote can act on the terminal)."""
        lines = [f"check-bot {self.bot_name or '?'} ({self.manifest_path})"]
        for step in self.steps:
            # A reason may quote the bot's multi-line output (a failed build's).
            first, *more = (line.rstrip("\r") for line in step.reason.split("\n"))
            lines.append(f"  {'PASS' if step.passed else 'FAIL'}  {step.name}: {first}")
            lines.extend(f"        {line}" for line in more)
            if step.hint and not step.passed:
                lines.append(f"        hint: {step.hint}")
        if self.distribution_count:
            lines.append(
                f"  note: {self.distribution_count} of {self.decision_count} decision(s) came as "
                "a distribution (a mixed strategy), each valid: a match draws the action from "
                "it and your results get the luck adjustment's action term"
            )
        if self.hands is not None:
            lines.extend(self.hands.format_lines())
        # The scripted steps' stderr and the quick hands' together: the hands are where a
        # bot that logs every decision writes most. The tail is the latest of the two.
        hands = self.hands
        stderr_tail = hands.stderr_tail if hands is not None and hands.stderr_tail else ""
        # Split on "\n" only: a U+2028 in the bot's text is escaped, not a line break.
        tail = [
            line.rstrip("\r")
            for line in (stderr_tail or self.stderr_tail).strip().split("\n")
            if line
        ]
        if tail and self.passed:
            count = self.stderr_line_count + (hands.stderr_line_count if hands else 0)
            size = self.stderr_bytes + (hands.stderr_bytes if hands else 0)
            played = f" and the {hands.hands_played} quick hands" if hands else ""
            lines.append(
                f"note: the bot wrote {count or len(tail)} line(s) ({size} bytes) to stderr "
                f"during the check (the scripted steps{played}); a match keeps a bot's stderr "
                "in stderr/<seat>-<name>.log of its run folder (results.json names it as "
                "stderr_log); the last lines:"
            )
            lines.extend("  | " + line for line in tail[-STDERR_LINES_SHOWN_ON_PASS:])
        lines.append("result: " + ("PASSED" if self.passed else "FAILED"))
        if tail and not self.passed:
            lines.append("the bot's stderr ends with:")
            lines.extend("  | " + line for line in tail[-STDERR_LINES_SHOWN:])
        return "\n".join(inert_text(line, max_length=_line_limit(line)) for line in lines)


def _line_limit(line: str) -> int | None:
    """Quoted stderr lines are cut; the check's own lines never are."""
    return _STDERR_LINE_CHARS if line.startswith("  | ") else None
