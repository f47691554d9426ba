"""``arena check-bot``: a scripted conversation that tells a bot author what works.

The bot is built (if its manifest says so), started, and taken through a short heads-up
match against a scripted opponent, using the real dealer (:class:`engine.hand.Hand`) and
the real messages. The opponent has the button: it raises to three big blinds before the
bot's first decision, then only checks and calls (and moves all-in in the second hand):

==================  ============================================================
step                passes when
==================  ============================================================
manifest            the manifest loads
build               the build step (if any) succeeds in its time limit
start               the program can be executed
handshake           a valid ``ready`` with the ``hello``'s seq, within the limit
hand_start          the bot takes ``hand_start`` without answering it (nothing
                    comes within ``notification_wait_s``) or dying
first_decision      facing the raise, a legal ``action`` with the right seq, in
                    time (a ``CALL``'s amount is ``current_bet``, not ``to_call``)
error_reprompt      after an ``error`` for that reply (sent on purpose), the bot
                    answers the new request, with the new seq, and not the old one
play_hand           every further decision of the hand is answered legally in time
hand_end            the bot takes ``hand_end``
facing_all_in       in a second hand the opponent moves all-in: the bot answers
                    with one of the few legal actions left (no raise)
quiet               the bot wrote nothing while nothing was asked
match_end_exit      after ``match_end`` the bot exits by itself, with exit code 0
==================  ============================================================

Why this order. The steps follow a match, and the script is arranged so that the
mistakes bot authors make most are met in the first steps, each with a hint saying what
to fix (:mod:`arena.checkbot.hints`):

* an unflushed reply, or one without its newline, never arrives: the ``handshake`` (the
  bot's first reply) shows it;
* a missing or wrong ``seq``: the ``handshake`` and the ``first_decision``;
* an answer to a notification: ``hand_start``, the first notification, is checked on the
  spot (a late answer is still caught by ``quiet``);
* a wrong amount for ``CALL`` or ``RAISE``, and action names in the wrong case: the
  ``first_decision`` faces a raise, so ``CALL``'s amount (``current_bet``) differs from
  ``to_call`` and a raise's amount must be a round total; a first decision where checking
  was free let these mistakes through until ``facing_all_in``, the tenth step;
* not reading ``error``: ``error_reprompt``, right after.

The rarer problems come after: a later street, a spot where raising is closed, lines
written while nothing was asked, a bot that does not exit. Once the bot dies or a step
cannot go on, the remaining steps are reported as not run; an answer to ``hand_start``
fails that step but the conversation goes on. A distribution (a mixed strategy) is checked
like any reply, and the report counts them. The script is :mod:`arena.checkbot.script`.

With ``hand_count`` (``--hands N``) the bot then plays ``N`` quick hands against a
built-in calling station through the real watchdog (:mod:`arena.checkbot.hands`); a
fault there fails the check. They are played even after a failed step, once the bot got
through the handshake: they show how often the mistake strikes in play.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from arena.bots.build import build_bots
from arena.bots.launcher import DirectLauncher, Launcher
from arena.bots.manifest import BotManifest, ManifestError, load_manifest
from arena.bots.process import ProcessTransport
from arena.bots.transport import BotStartError, Clock, Transport
from arena.checkbot.hands import HandsReport, play_quick_hands
from arena.checkbot.report import CheckReport, CheckStep
from arena.checkbot.script import DEFAULT_NOTIFICATION_WAIT_S, Checker, match_end_step
from arena.checkbot.wire import BotGoneError, StepFailedError
from arena.session.policy import TimeLimits
from engine.config import GameConfig, Variant

__all__ = [
    "DEFAULT_NOTIFICATION_WAIT_S",
    "STEP_NAMES",
    "CheckReport",  # from arena.checkbot.report, like CheckStep
    "CheckStep",
    "HandsReport",  # from arena.checkbot.hands
    "check_bot",
]

#: Every step, in order.
STEP_NAMES = (
    "manifest",
    "build",
    "start",
    "handshake",
    "hand_start",
    "first_decision",
    "error_reprompt",
    "play_hand",
    "hand_end",
    "facing_all_in",
    "quiet",
    "match_end_exit",
)


def check_bot(
    manifest_path: str | Path | BotManifest,
    *,
    limits: TimeLimits | None = None,
    launcher: Launcher | None = None,
    variant: Variant | str = Variant.HOLDEM,
    clock: Clock = time.monotonic,
    hand_count: int = 0,
    seed: int | None = None,
    notification_wait_s: float = DEFAULT_NOTIFICATION_WAIT_S,
) -> CheckReport:
    """Run the scripted conversation against the bot of ``manifest_path`` (or the
    manifest already loaded, and built: it is not built twice), then ``hand_count`` quick
    hands (decks from ``seed``, default a secret one; see the module docstring).

    ``limits`` are a match's time limits; ``variant`` ``"five_card_draw"`` also checks
    ``draw`` requests. Never raises for the bot's faults: every problem is a failed step in
    the report (or a fault of its hands).
    """
    if hand_count < 0:
        raise ValueError(f"hand_count must not be negative, got {hand_count}")
    limits = limits or TimeLimits()
    steps: list[CheckStep] = []
    if isinstance(manifest_path, BotManifest):
        manifest = manifest_path
        path_text = str(manifest.path or manifest.name)
    else:
        path_text = str(manifest_path)
        try:
            manifest = load_manifest(manifest_path)
        except ManifestError as exc:
            steps.append(CheckStep("manifest", False, str(exc)))
            return _report(path_text, "", steps, "")
    steps.append(CheckStep("manifest", True, f"{manifest.name!r}: {' '.join(manifest.command)}"))
    # The one build path every command uses: a build tool the sandbox cannot run is a
    # failed build step that says why, not an exception.
    (built,) = build_bots([(manifest.name, manifest)], launcher=launcher or DirectLauncher())
    build = built.result
    if not build.is_ok:
        steps.append(CheckStep("build", False, build.explain()))
        return _report(path_text, manifest.name, steps, "")
    steps.append(CheckStep("build", True, build.reason))
    config = GameConfig(small_blind=1, big_blind=2, variant=Variant(variant))

    def checker_for(transport: Transport) -> Checker:
        return Checker(transport, limits, clock, config, notification_wait_s, manifest.name)

    report = _converse(manifest, path_text, steps, checker_for, launcher, clock)
    if hand_count == 0 or not report.step("handshake").passed:
        return report
    hands = play_quick_hands(
        manifest,
        hand_count,
        limits=limits,
        launcher=launcher,
        variant=variant,
        seed=seed,
        clock=clock,
    )
    return replace(report, hands=hands)


def _converse(
    manifest: BotManifest,
    path_text: str,
    steps: list[CheckStep],
    checker_for: Callable[[Transport], Checker],
    launcher: Launcher | None,
    clock: Clock,
) -> CheckReport:
    try:
        transport = ProcessTransport.start(manifest, launcher=launcher, clock=clock)
    except BotStartError as exc:
        steps.append(CheckStep("start", False, str(exc)))
        return _report(path_text, manifest.name, steps, "")
    steps.append(CheckStep("start", True, f"started as pid {transport.pid}"))
    checker = checker_for(transport)
    try:
        try:
            checker.run()
        except StepFailedError:
            pass
        except BotGoneError as exc:
            checker.failed(_next_step(steps, checker.steps), f"the bot is gone: {exc}")
        else:
            match_end_step(checker)
    finally:
        info = transport.close(0.0)
    steps.extend(checker.steps)
    report = _report(path_text, manifest.name, steps, info.stderr_tail)
    stderr = transport.stderr_log
    line_count = len(stderr.data().splitlines())  # of bytes: at \n, \r\n and \r only
    return replace(
        report,
        stderr_bytes=stderr.total_bytes,
        stderr_line_count=line_count,
        decision_count=len(checker.latencies_ms),
        distribution_count=len(checker.strategies),
    )


def _next_step(done_before: list[CheckStep], done: list[CheckStep]) -> str:
    names = {step.name for step in (*done_before, *done)}
    return next((name for name in STEP_NAMES if name not in names), STEP_NAMES[-1])


def _report(
    path_text: str,
    bot_name: str,
    steps: list[CheckStep],
    stderr_tail: str,
) -> CheckReport:
    names = {step.name for step in steps}
    # The last failure stopped the conversation (an answer to hand_start does not).
    failed = next((step.name for step in reversed(steps) if not step.passed), None)
    for name in STEP_NAMES:
        if name not in names:
            steps.append(CheckStep(name, False, f"not run: step {failed!r} failed"))
    return CheckReport(path_text, bot_name, tuple(steps), stderr_tail)
