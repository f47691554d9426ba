"""The validation match: the upload against the house bot, heads-up, a few hands of the
competition's game, through the match use case (:func:`arena.match.host.host_match`).

The upload sits in seat 0 under its own name, the house bot in seat 1. Faults are
counted from the upload's ledger: more than ``allowed_faults`` rejects it, naming the
count by kind and the first fault (its hand, code and detail), with a hint for the kind.
A bot that cannot start, or whose build fails this time, is rejected with that reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from arena.bots.manifest import BotManifest
from arena.bots.sandbox.select import SandboxLauncher
from arena.match.host import BuildFailedError, host_match
from arena.match.readiness import BotsNotReadyError
from arena.match.results import PlayerResult
from arena.server.validation.report import StepFailed
from arena.server.validation.rules import ValidationRules

__all__ = ["FAULT_HINTS", "play_validation_match"]

#: What to fix, by fault kind.
FAULT_HINTS = {
    "timeout": "answer every request within the decision time limit, and flush each line",
    "hung": "answer every request within the decision time limit, and flush each line",
    "invalid_reply": (
        "answer with one of legal_actions, the request's seq and a legal amount "
        "(PROTOCOL.md); 'arena check-bot --hands 100' shows the faults on your machine"
    ),
    "crash": "the bot exited during the match: its stderr is in the team log",
    "restart": "the bot exited during the match: its stderr is in the team log",
    "startup_failure": "the bot must answer hello with ready within the start-up time limit",
    "stale_reply": "answer each request once, with its seq",
    "unsolicited_line": "write only replies to requests (hello, act, draw), nothing else",
    "dropped_output": "write less: only one line per request on stdout, little on stderr",
    "ignored_match_end": "exit by yourself after match_end",
}

_LOG_TAIL_BYTES = 64 * 1024


def play_validation_match(
    manifest: BotManifest,
    house: BotManifest,
    rules: ValidationRules,
    out_dir: Path,
    launcher: SandboxLauncher,
    log: Callable[[str, str], None],
) -> str:
    """Play the match in ``out_dir``; the step's message, or :class:`StepFailed`."""
    config = replace(rules.match, hand_count=rules.hand_count, match_id="validation")
    try:
        result = host_match(config, [manifest, house], out_dir, launcher=launcher)
    except (BuildFailedError, BotsNotReadyError) as exc:
        raise StepFailed(
            f"the match could not start: {exc}", FAULT_HINTS["startup_failure"]
        ) from None
    (player,) = (p for p in result.players if p.seat_index == 0)
    log("stderr during the validation match", _stderr(out_dir, player))
    counts: dict[str, int] = dict(player.faults.get("counts") or {})
    fault_count = sum(counts.values())
    played = f"{result.hands_played} hands against {house.name!r}"
    if fault_count > rules.allowed_faults:
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
        first = _first_fault(player)
        allowed = rules.allowed_faults
        raise StepFailed(
            f"{fault_count} faults in {played} ({kinds}; {allowed} allowed){first}",
            FAULT_HINTS.get(_first_kind(player, counts), ""),
        )
    faults = (
        "no fault" if fault_count == 0 else f"{fault_count} faults (allowed {rules.allowed_faults})"
    )
    return f"{played}: {faults}, {player.big_blinds_won:+.1f} big blinds"


def _first_kind(player: PlayerResult, counts: dict[str, int]) -> str:
    listed = player.faults.get("faults") or []
    if listed:
        return str(listed[0].get("kind", ""))
    return next(iter(sorted(counts)), "")


def _first_fault(player: PlayerResult) -> str:
    listed = player.faults.get("faults") or []
    if not listed:
        return ""
    fault = listed[0]
    where = f" in hand {fault['hand_number']}" if fault.get("hand_number") is not None else ""
    code = fault.get("code") or fault.get("kind")
    detail = f": {fault['detail']}" if fault.get("detail") else ""
    return f"; the first{where}: {code}{detail}"


def _stderr(out_dir: Path, player: PlayerResult) -> str:
    """The end of the upload's stderr file from the match (the bot's own words)."""
    if player.stderr_log is None:
        return ""
    path = out_dir / player.stderr_log
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - _LOG_TAIL_BYTES))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
