"""What a validation holds an upload to: :class:`ValidationRules`, and
:func:`rules_for_site`, which makes them from the site's settings and competition file.

The defaults are the strict ones: the strict sandbox (an upload is a stranger's code),
zero faults allowed in the validation match, the archive limits of :mod:`arena.uploads`.
The resource limits given here are applied over the bot's own ``[limits]``, so a team
cannot raise them in its ``bot.toml``; a ``build_timeout_s`` above the competition's is
refused. The competition file gives the game, the time limits, the sandbox layer, the
resource limits and the exposed paths; the site's settings give the validation's hands,
the faults allowed, the house bot (the python calling station of ``sample_bots`` when
none is named) and the upload limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.bots.manifest import DEFAULT_BUILD_TIMEOUT_S
from arena.bots.sandbox.resources import DEFAULT_RESOURCES, RESOURCE_KEYS
from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import MatchConfig
from arena.server.competition import (
    DEFAULT_VALIDATION_HANDS,
    Competition,
    SiteRules,
    read_when_changed,
)
from arena.server.validation.report import InfrastructureError
from arena.settings import SettingsError
from arena.uploads import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits

__all__ = [
    "DEFAULT_HOUSE_BOT",
    "ValidationRules",
    "competition_match",
    "rules_for_site",
]

#: The house bot when the site names none (in a checkout or an editable install).
DEFAULT_HOUSE_BOT = (
    Path(__file__).resolve().parents[3] / "sample_bots" / "python_calling_station" / "bot.toml"
)


@dataclass(frozen=True, slots=True)
class ValidationRules:
    """The rules of one competition's validation.

    ``house_bot``: the manifest of the bot the upload plays (a sample bot's ``bot.toml``).
    ``match``: the competition's match settings (game, time limits, seed); the validation
    plays ``hand_count`` hands of it, heads-up, the upload in seat 0. ``allowed_faults``:
    how many faults the upload may have in that match. ``resource_limits``: by key of
    :class:`arena.bots.sandbox.resources.ResourceLimits`, over the bot's own.
    """

    house_bot: Path
    match: MatchConfig = field(default_factory=MatchConfig)
    hand_count: int = DEFAULT_VALIDATION_HANDS
    allowed_faults: int = 0
    sandbox: SandboxLevel = SandboxLevel.STRICT
    resource_limits: Mapping[str, int] = field(default_factory=DEFAULT_RESOURCES.to_dict)
    expose: tuple[Path, ...] = ()
    archive: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS
    max_build_timeout_s: float = DEFAULT_BUILD_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.hand_count < 1:
            raise ValueError(f"hand_count must be at least 1, got {self.hand_count!r}")
        if self.allowed_faults < 0:
            raise ValueError(f"allowed_faults must not be negative, got {self.allowed_faults!r}")
        unknown = sorted(set(self.resource_limits) - set(RESOURCE_KEYS))
        if unknown:
            raise ValueError(f"unknown resource limit {unknown[0]!r} (known: {RESOURCE_KEYS})")
        if not self.max_build_timeout_s > 0:
            raise ValueError(
                f"max_build_timeout_s must be positive, got {self.max_build_timeout_s!r}"
            )


def rules_for_site(competition_file: Path | None, site: SiteRules) -> ValidationRules:
    """The rules of a validation on the site: its competition file (None: the defaults)
    and the site's rules, carried whole (the validation's hands, faults allowed and house
    bot; the upload's archive limits).

    Raises :class:`InfrastructureError` when the competition file cannot be read."""
    rules = ValidationRules(
        house_bot=site.validation_house_bot or DEFAULT_HOUSE_BOT,
        hand_count=site.validation_hands,
        allowed_faults=site.validation_allowed_faults,
        archive=site.archive_limits,
    )
    if competition_file is None:
        return rules
    try:
        competition = read_when_changed(competition_file)
    except (SettingsError, OSError) as exc:
        raise InfrastructureError(f"the competition file cannot be read: {exc}") from exc
    return replace(
        rules,
        match=competition_match(competition),
        sandbox=competition.config.sandbox or SandboxLevel.STRICT,
        resource_limits={**DEFAULT_RESOURCES.to_dict(), **competition.config.resource_limits},
        expose=competition.config.expose,
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
