"""The validation as the server's worker calls it: :func:`validate_for_site` takes the
site's rules (the fields of ``arena.server.validation.seam.ValidationRules``) and returns what
the worker stores (``accepted``, ``steps``, ``reason``, ``hint``, ``stderr``; each step
with ``step``, ``status``, ``message``, ``hint`` and ``log``), with plain values only: no
Django here. :func:`rules_for_site` turns the site's rules into :class:`ValidationRules`.

The steps keep their names (``unpack``, ``build``, ``protocol_check``,
``validation_match``); the last two are also the version's status while they run, and the
version is ``building`` from its claim until then.

The competition file gives the game, the time limits, the sandbox layer (strict when it
names none: an upload is a stranger's code), the resource limits and the exposed paths;
the site's settings give the validation's hands, the faults allowed, the house bot (the
python calling station of ``sample_bots`` when none is named) and the upload limits.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import MatchConfig
from arena.server.competition import Competition, read_when_changed
from arena.server.validation.pipeline import validate
from arena.server.validation.report import InfrastructureError, StepReport
from arena.server.validation.rules import ValidationRules, default_resource_limits
from arena.settings import SettingsError
from arena.uploads import ArchiveLimits

__all__ = ["DEFAULT_HOUSE_BOT", "SiteStep", "SiteVerdict", "rules_for_site", "validate_for_site"]

#: The house bot when the site names none (in a checkout or an editable install).
DEFAULT_HOUSE_BOT = (
    Path(__file__).resolve().parents[3] / "sample_bots" / "python_calling_station" / "bot.toml"
)


def rules_for_site(
    *,
    competition_file: Path | None,
    hands: int,
    allowed_faults: int,
    house_bot: Path | None,
    archive_bytes: int,
    unpacked_bytes: int,
    file_count: int,
) -> ValidationRules:
    """The rules of a validation on the site (the arguments are the fields of the server's
    ``arena.server.validation.seam.ValidationRules``: pass ``**dataclasses.asdict(rules)``).

    Raises :class:`InfrastructureError` when the competition file cannot be read."""
    archive = ArchiveLimits(
        max_archive_bytes=archive_bytes,
        max_unpacked_bytes=unpacked_bytes,
        max_entry_count=file_count,
    )
    common = {
        "house_bot": house_bot or DEFAULT_HOUSE_BOT,
        "hand_count": hands,
        "allowed_faults": allowed_faults,
        "archive": archive,
    }
    if competition_file is None:
        return ValidationRules(**common)  # type: ignore[arg-type]
    try:
        competition = read_when_changed(competition_file)
    except (SettingsError, OSError) as exc:
        raise InfrastructureError(f"the competition file cannot be read: {exc}") from exc
    return ValidationRules(
        match=competition_match(competition),
        sandbox=competition.config.sandbox or SandboxLevel.STRICT,
        resource_limits={**default_resource_limits(), **competition.config.resource_limits},
        expose=competition.config.expose,
        **common,  # type: ignore[arg-type]
    )


def competition_match(competition: Competition) -> MatchConfig:
    """The competition's match settings (game, stacks, time limits) as a match config;
    the validation sets its own hands."""
    game = competition.game
    return MatchConfig(
        game=game.game_config(),
        starting_stack=game.starting_stack,
        time_limits=competition.time.time_limits(),
        check_on_timeout=competition.time.check_on_timeout,
    )


@dataclass(frozen=True, slots=True)
class SiteStep:
    """A step as the worker records it (the fields of the queue's ``StepReport``)."""

    step: str
    status: str
    message: str = ""
    hint: str = ""
    log: str = ""


@dataclass(frozen=True, slots=True)
class SiteVerdict:
    """A verdict as the worker stores it (the fields of ``arena.server.validation.seam.Verdict``);
    ``stderr`` is the team log: the bot's build output and stderr, for its team only."""

    accepted: bool
    steps: tuple[SiteStep, ...] = ()
    reason: str = ""
    hint: str = ""
    stderr: str = ""


def _site_step(report: StepReport) -> SiteStep:
    return SiteStep(report.step, str(report.status), report.message, report.hint)


def validate_for_site(
    archive: Path, work_dir: Path, rules: Any, on_step: Callable[[Any], None]
) -> SiteVerdict:
    """Validate ``archive`` under the site's ``rules`` (a dataclass with the fields of
    :func:`rules_for_site`), reporting each step to ``on_step`` as a :class:`SiteStep`."""
    ours = rules_for_site(**dataclasses.asdict(rules))
    verdict = validate(archive, work_dir, ours, lambda report: on_step(_site_step(report)))
    return SiteVerdict(
        accepted=verdict.is_accepted,
        steps=tuple(_site_step(report) for report in verdict.steps),
        reason="" if verdict.is_accepted else verdict.reason,
        hint=verdict.hint,
        stderr=verdict.team_log,
    )
