"""The validation's rules on a site: :func:`rules_for_site` makes the
:class:`ValidationRules` from the site's settings and its competition file (no Django
here: the worker passes the site's rules whole).

The competition file gives the game, the time limits, the sandbox layer (strict when it
names none: an upload is a stranger's code), the resource limits and the exposed paths;
the site's settings give the validation's hands, the faults allowed, the house bot (the
python calling station of ``sample_bots`` when none is named) and the upload limits.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from arena.bots.sandbox.select import SandboxLevel
from arena.match.config import MatchConfig
from arena.server.competition import Competition, SiteRules, read_when_changed
from arena.server.validation.report import InfrastructureError
from arena.server.validation.rules import ValidationRules, default_resource_limits
from arena.settings import SettingsError

__all__ = ["DEFAULT_HOUSE_BOT", "competition_match", "rules_for_site"]

#: The house bot when the site names none (in a checkout or an editable install).
DEFAULT_HOUSE_BOT = (
    Path(__file__).resolve().parents[3] / "sample_bots" / "python_calling_station" / "bot.toml"
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
        resource_limits={**default_resource_limits(), **competition.config.resource_limits},
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
