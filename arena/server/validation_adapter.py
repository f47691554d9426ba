"""The default pipeline: the uploads' validation (:mod:`arena.server.validation`), adapted
to the worker's :class:`~arena.server.pipeline.Pipeline` signature.

The site's rules become the validation's: the competition file's game, time limits,
sandbox layer, resource limits and exposed paths (read again at each validation, so an
edited file counts from the next upload), the site's archive limits, hands, allowed faults
and house bot (default: the starter calling station). The validation match's seed comes
from the archive's digest, so a validation played again deals the same cards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import MatchConfig, StackPolicy
from arena.server import validation
from arena.server.competition import Competition, read_competition
from arena.server.jobs import StepReport
from arena.server.models import StepStatus
from arena.server.pipeline import SiteFailure, ValidationRules, Verdict
from arena.uploads import ArchiveLimits

__all__ = ["DEFAULT_HOUSE_BOT", "uploads_rules", "validate"]

#: The house bot when the competition names none.
DEFAULT_HOUSE_BOT = (
    Path(__file__).resolve().parents[2] / "sample_bots" / "python_calling_station" / "bot.toml"
)


def uploads_rules(rules: ValidationRules, seed: int) -> validation.ValidationRules:
    """The validation's rules for the site's ``rules``."""
    competition = (
        read_competition(rules.competition_file) if rules.competition_file is not None else None
    )
    config = competition.config if competition is not None else None
    return validation.ValidationRules(
        house_bot=rules.house_bot or DEFAULT_HOUSE_BOT,
        match=_match_config(competition, rules.hands, seed),
        hand_count=rules.hands,
        allowed_faults=rules.allowed_faults,
        sandbox=(config.sandbox if config and config.sandbox else SandboxLevel.STRICT),
        resource_limits={
            **validation.rules.default_resource_limits(),
            **(config.resource_limits if config else {}),
        },
        expose=config.expose if config else (),
        archive=ArchiveLimits(
            max_archive_bytes=rules.archive_bytes,
            max_unpacked_bytes=rules.unpacked_bytes,
            max_entry_count=rules.file_count,
        ),
    )


def _match_config(competition: Competition | None, hands: int, seed: int) -> MatchConfig:
    if competition is None:
        return MatchConfig(hand_count=hands, seed=seed, match_id="validation")
    game, limits = competition.game, competition.limits
    return MatchConfig(
        game=game.game_config(),
        hand_count=hands,
        seed=seed,
        match_id="validation",
        starting_stack=game.starting_stack,
        stack_policy=StackPolicy.RESET,
        decision_timeout_s=limits.decision_timeout_s,
        startup_timeout_s=limits.startup_timeout_s,
        time_bank_s=limits.time_bank_s,
        check_on_timeout=limits.check_on_timeout,
        time_basis=limits.time_basis,
    )


def _report(report: validation.StepReport) -> StepReport:
    return StepReport(report.step, StepStatus(str(report.status)), report.message, report.hint)


def validate(
    archive: Path, work_dir: Path, rules: ValidationRules, on_step: Callable[[StepReport], None]
) -> Verdict:
    """Validate with :mod:`arena.server.validation`; its :class:`InfrastructureError` is a
    :class:`SiteFailure` (the upload is validated again later, never rejected for it)."""
    seed = int.from_bytes(hashlib.sha256(archive.read_bytes()).digest()[:8], "big") >> 1
    try:
        verdict = validation.validate(
            archive, work_dir, uploads_rules(rules, seed), lambda report: on_step(_report(report))
        )
    except validation.InfrastructureError as error:
        raise SiteFailure(str(error)) from error
    return Verdict(
        accepted=verdict.is_accepted,
        steps=tuple(_report(report) for report in verdict.steps),
        reason=verdict.reason,
        hint=verdict.hint,
        stderr=verdict.team_log,
    )
