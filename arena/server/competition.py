"""A competition file: the settings of ``arena tournament`` (the game, the time limits, the
sandbox) plus the site's own keys, read by the same mechanism and with the same errors.

::

    [game]                      # as in a tournament file
    big_blind = 2
    [limits]
    decision_timeout = "1s"
    [site]
    signup = "invite"           # open | invite | admin (the administrator makes accounts)
    invite_code = "blue-42"     # needed when signup = "invite"
    visibility = "showdowns"    # what other teams see of a match: nothing | showdowns | everything
    [upload]
    archive_bytes = "10MiB"     # the archive as uploaded
    unpacked_bytes = "100MiB"   # its files once unpacked
    file_count = 2000
    [validation]
    hands = 200                 # hands of the validation match against the house bot
    allowed_faults = 0
    house_bot = "../sample_bots/python_calling_station/bot.toml"

A bad value is one line naming the file, the key and the value
(:class:`arena.settings.SettingsError`, exit code 2)::

    comp.toml: site.signup = "everyone": must be one of open, invite, admin

The tournament's keys that say who plays (``bots``, ``challenger``) are the ladder's
business here: uploads are the bots.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.settings import Setting, SettingsError, file_keys
from arena.settings.catalog import Format
from arena.settings.files import read_toml
from arena.settings.grammar import choice, path, size, whole
from arena.tournament.config import GameSettings, TimeSettings, TournamentConfig, config_from_values
from arena.tournament.config_rules import problems
from arena.uploads import DEFAULT_LIMITS

__all__ = [
    "COMPETITION_KEYS",
    "SITE_KEYS",
    "Competition",
    "SignUp",
    "SiteRules",
    "Visibility",
    "read_competition",
]


class SignUp(StrEnum):
    """Who may make an account."""

    OPEN = "open"
    INVITE = "invite"
    ADMIN = "admin"


class Visibility(StrEnum):
    """What a team sees of a match it did not play: nothing (not even that it was played),
    the cards shown at showdowns, or every card once the hand is over. A team always sees
    its own cards."""

    NOTHING = "nothing"
    SHOWDOWNS = "showdowns"
    EVERYTHING = "everything"


def _invite_code(value: object) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9._-]{6,64}", value):
        raise ValueError("must be 6 to 64 letters, digits, '.', '_' or '-'")
    return value


def _site(key: str, parse: Any, default: object, help: str, **options: Any) -> Setting:
    return Setting(key, parse, default, None, help, group="site", **options)


def _deadline(value: object) -> datetime:
    """A date and time (TOML's own, or ISO 8601 text); without a zone, UTC."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError("must be a date and time, like 2026-12-01T18:00:00Z") from None
    if not isinstance(value, datetime):
        raise ValueError("must be a date and time, like 2026-12-01T18:00:00Z")
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


#: The site's own keys (not flags of any command), by dotted key.
SITE_KEYS: dict[str, Setting] = {
    setting.key: setting
    for setting in (
        _site("site.signup", choice(SignUp), SignUp.ADMIN, "who may make an account",
              choices=tuple(SignUp)),
        _site("site.invite_code", _invite_code, None, "the code to sign up with (signup = invite)"),
        _site("site.visibility", choice(Visibility), Visibility.SHOWDOWNS,
              "what other teams see of a match", choices=tuple(Visibility)),
        _site("upload.archive_bytes", size, DEFAULT_LIMITS.max_archive_bytes,
              "largest archive uploaded", shown="10MiB"),
        _site("upload.unpacked_bytes", size, DEFAULT_LIMITS.max_unpacked_bytes,
              "largest total once unpacked", shown="100MiB"),
        _site("upload.file_count", whole(1, 1_000_000), DEFAULT_LIMITS.max_entry_count,
              "most files in an archive"),
        _site("validation.hands", whole(1, 100_000), 200,
              "hands of the validation match against the house bot"),
        _site("validation.allowed_faults", whole(0, 100_000), 0,
              "faults a bot may make in its validation match and still be accepted"),
        _site("validation.house_bot", path, None, "the house bot's manifest",
              shown="sample_bots/python_calling_station/bot.toml"),
        _site("ladder.deadline", _deadline, None, "when uploads freeze and the finals start"),
    )
}  # fmt: skip

#: Every key a competition file may hold: the tournament file's (but who plays) and the site's.
COMPETITION_KEYS: dict[str, Setting] = {
    **{key: setting for key, setting in file_keys().items() if key not in ("bots", "challenger")},
    **SITE_KEYS,
}


@dataclass(frozen=True, slots=True)
class SiteRules:
    """The site's own settings (``[site]``, ``[upload]``, ``[validation]``).

    >>> SiteRules().signup, SiteRules().visibility, SiteRules().upload_file_count
    (<SignUp.ADMIN: 'admin'>, <Visibility.SHOWDOWNS: 'showdowns'>, 2000)
    """

    signup: SignUp = SignUp.ADMIN
    invite_code: str | None = None
    visibility: Visibility = Visibility.SHOWDOWNS
    upload_archive_bytes: int = DEFAULT_LIMITS.max_archive_bytes
    upload_unpacked_bytes: int = DEFAULT_LIMITS.max_unpacked_bytes
    upload_file_count: int = DEFAULT_LIMITS.max_entry_count
    validation_hands: int = 200
    validation_allowed_faults: int = 0
    validation_house_bot: Path | None = None
    ladder_deadline: datetime | None = None

    def to_values(self) -> dict[str, Any]:
        """The rules as JSON-ready values by attribute name."""
        values: dict[str, Any] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            values[item.name] = str(value) if isinstance(value, Path | datetime) else value
        return values


@dataclass(frozen=True, slots=True)
class Competition:
    """A competition file read and checked: the game and limits every match plays (a
    :class:`TournamentConfig` without bots) and the site's rules."""

    config: TournamentConfig
    rules: SiteRules = field(default_factory=SiteRules)

    @property
    def game(self) -> GameSettings:
        """The game every match plays."""
        return self.config.game

    @property
    def time(self) -> TimeSettings:
        """Every match's time limits (the time keys of ``[limits]``)."""
        return self.config.time


def read_competition(file: Path) -> Competition:
    """The competition file at ``file``, checked; :class:`SettingsError` names the file,
    the key and the value of the first problem."""
    label = str(file)
    given = read_toml(file, COMPETITION_KEYS)
    values: dict[str, Any] = {}
    for key, (value, source) in given.items():
        parsed = COMPETITION_KEYS[key].read(value, source=label)
        values[key] = source.base_dir / parsed if isinstance(parsed, Path) else parsed
    rules = SiteRules(
        **{
            key.replace(".", "_").removeprefix("site_"): value
            for key, value in values.items()
            if key in SITE_KEYS
        }
    )
    if rules.signup is SignUp.INVITE and rules.invite_code is None:
        raise SettingsError(label, "site.invite_code", None, "is needed when site.signup = invite")
    tournament_values = {key: value for key, value in values.items() if key not in SITE_KEYS}
    config = config_from_values(tournament_values, bots=(), source=label)
    for key, value, why in problems(config, with_bots=False):  # the uploads are the bots
        raise SettingsError(label, key, value, why)
    if config.format not in (Format.ROUND_ROBIN, Format.RING):
        # A gauntlet needs a challenger and a freezeout stacks that carry over: neither is
        # a ladder game; silently playing heads-up instead would not be what was asked.
        why = "the ladder plays round_robin (heads-up games) or ring (tables of ring.seats)"
        raise SettingsError(label, "format", str(config.format), why)
    return Competition(config, rules)
