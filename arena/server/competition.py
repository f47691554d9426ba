"""A competition file: the settings of ``arena tournament`` (the game, the time limits, the
sandbox; ``bots`` and ``challenger`` aside: uploads are the bots) plus the site's own keys
(:data:`SITE_KEYS`), read by the same mechanism and with the same errors
(:class:`arena.settings.SettingsError`, exit code 2). docs/server.md ("The competition
file") shows one and explains every key.

One rule says where each key lives once the site runs: the tables of :data:`COPIED_TABLES`
(``[site]``, ``[upload]``, ``[validation]``: :class:`SiteRules`) are the site's settings,
copied into the database by ``init`` (and by the admin's "reload from the competition
file") and changed in the admin pages from then on; every other key (the game, the time
limits, the sandbox, the executor, ``ladder.deadline``) is live: read from the file at each
use, through :func:`read_when_changed`, which parses it again only once it has changed."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Mapping
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
from arena.tournament.config.rules import problems
from arena.uploads import DEFAULT_ARCHIVE_LIMITS, ArchiveLimits

__all__ = [
    "COMPETITION_KEYS",
    "COPIED_TABLES",
    "DEFAULT_VALIDATION_HANDS",
    "SITE_KEYS",
    "Competition",
    "SignUp",
    "SiteRules",
    "Visibility",
    "is_copied",
    "read_competition",
    "read_when_changed",
    "rules_attribute",
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


#: Hands of the validation match when the competition sets none (its ``validation.hands``).
DEFAULT_VALIDATION_HANDS = 200


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


def _text(longest: int) -> Any:
    """A parser of text of 1 to ``longest`` characters (spaces around it left out)."""

    def parse(value: object) -> str:
        if not isinstance(value, str) or not value.strip() or len(value.strip()) > longest:
            raise ValueError(f"must be text of 1 to {longest:,} characters")
        return value.strip()

    return parse


#: The site's own keys (not flags of any command), by dotted key.
SITE_KEYS: dict[str, Setting] = {
    setting.key: setting
    for setting in (
        _site("site.signup", choice(SignUp), SignUp.ADMIN, "who may make an account",
              choices=tuple(SignUp)),
        _site("site.invite_code", _invite_code, None, "the code to sign up with (signup = invite)"),
        _site("site.visibility", choice(Visibility), Visibility.SHOWDOWNS,
              "what other teams see of a match", choices=tuple(Visibility)),
        _site("upload.archive_bytes", size, DEFAULT_ARCHIVE_LIMITS.max_archive_bytes,
              "largest archive uploaded", shown="10MiB"),
        _site("upload.unpacked_bytes", size, DEFAULT_ARCHIVE_LIMITS.max_unpacked_bytes,
              "largest total once unpacked", shown="100MiB"),
        _site("upload.file_count", whole(1, 1_000_000), DEFAULT_ARCHIVE_LIMITS.max_entry_count,
              "most files in an archive"),
        _site("upload.queued_per_team", whole(1, 1_000), 3,
              "versions a team may have waiting for validation (one team cannot fill the "
              "queue every team waits in); a further upload is refused"),
        _site("validation.hands", whole(1, 100_000), DEFAULT_VALIDATION_HANDS,
              "hands of the validation match against the house bot"),
        _site("validation.allowed_faults", whole(0, 100_000), 0,
              "faults a bot may make in its validation match and still be accepted"),
        _site("validation.house_bot", path, None, "the house bot's manifest",
              shown="sample_bots/python_calling_station/bot.toml"),
        _site("ladder.deadline", _deadline, None, "when uploads freeze and the finals start"),
        _site("ladder.games_per_hour", whole(0, 1_000_000), 0,
              "the most ladder games the whole site starts in an hour, all workers on all "
              "machines together (0: flat out)"),
        _site("title", _text(100), None, "the competition's title, on every page"),
        _site("description", _text(2000), None,
              "what the competition is about, on its overview page"),
    )
}  # fmt: skip

#: Every key a competition file may hold: the tournament file's (but who plays) and the site's.
COMPETITION_KEYS: dict[str, Setting] = {
    **{key: setting for key, setting in file_keys().items() if key not in ("bots", "challenger")},
    **SITE_KEYS,
}


#: The tables copied into the database (the site's settings, :class:`SiteRules`); the
#: file's other keys are live (module docstring).
COPIED_TABLES = ("site", "upload", "validation")


def is_copied(key: str) -> bool:
    """Whether the dotted ``key`` is one of the site's settings, copied into the database
    (else it is read from the file at each use).

    >>> is_copied("upload.archive_bytes"), is_copied("ladder.deadline"), is_copied("seed")
    (True, False, False)
    """
    table, dot, _name = key.partition(".")
    return bool(dot) and table in COPIED_TABLES


def rules_attribute(key: str) -> str:
    """The attribute of :class:`SiteRules` (and column of the site's settings) holding a
    copied key: the dotted key with ``_`` for ``.``, ``site.`` left out.

    >>> rules_attribute("site.signup"), rules_attribute("upload.file_count")
    ('signup', 'upload_file_count')
    """
    return key.replace(".", "_").removeprefix("site_")


#: Where the values of :meth:`SiteRules.from_stored` come from, in messages.
_STORED = "site settings"


def _default(key: str) -> Any:
    """The declared default of a copied key (the one place it is written)."""
    return SITE_KEYS[key].default


@dataclass(frozen=True, slots=True)
class SiteRules:
    """The site's own settings (``[site]``, ``[upload]``, ``[validation]``): one field per
    copied key of :data:`SITE_KEYS`, named by :func:`rules_attribute`, with its default.

    >>> SiteRules().signup, SiteRules().visibility, SiteRules().upload_file_count
    (<SignUp.ADMIN: 'admin'>, <Visibility.SHOWDOWNS: 'showdowns'>, 2000)
    """

    signup: SignUp = _default("site.signup")  # noqa: RUF009
    invite_code: str | None = _default("site.invite_code")
    visibility: Visibility = _default("site.visibility")  # noqa: RUF009
    upload_archive_bytes: int = _default("upload.archive_bytes")
    upload_unpacked_bytes: int = _default("upload.unpacked_bytes")
    upload_file_count: int = _default("upload.file_count")
    upload_queued_per_team: int = _default("upload.queued_per_team")
    validation_hands: int = _default("validation.hands")
    validation_allowed_faults: int = _default("validation.allowed_faults")
    validation_house_bot: Path | None = _default("validation.house_bot")  # noqa: RUF009

    @property
    def archive_limits(self) -> ArchiveLimits:
        """What an uploaded archive may hold (the ``[upload]`` table).

        >>> SiteRules(upload_file_count=3).archive_limits.max_entry_count
        3
        """
        return ArchiveLimits(
            max_archive_bytes=self.upload_archive_bytes,
            max_unpacked_bytes=self.upload_unpacked_bytes,
            max_entry_count=self.upload_file_count,
        )

    def to_stored(self) -> dict[str, str | int]:
        """The rules as a database row holds them, by attribute: text for a choice or a
        path, ``""`` for none (:meth:`from_stored` reads them back)."""
        stored: dict[str, str | int] = {}
        for item in fields(self):
            value = getattr(self, item.name)
            stored[item.name] = value if isinstance(value, int) else str(value or "")
        return stored

    @classmethod
    def from_stored(cls, stored: Mapping[str, object]) -> SiteRules:
        """The rules from a row's values by attribute (``""`` for none), each read by its
        key's parser; :class:`SettingsError` names the first bad one.

        >>> SiteRules.from_stored({"visibility": "nothing", "invite_code": ""}).visibility
        <Visibility.NOTHING: 'nothing'>
        >>> SiteRules.from_stored({"signup": "everyone"})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        arena.settings.model.SettingsError: site settings: site.signup = "everyone": must be ...
        """
        values: dict[str, Any] = {}
        for key, setting in SITE_KEYS.items():
            name = rules_attribute(key)
            if is_copied(key) and name in stored:
                given = stored[name]
                values[name] = None if given in ("", None) else setting.read(given, source=_STORED)
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Competition:
    """A competition file read and checked: the game and limits every match plays (a
    :class:`TournamentConfig` without bots), the site's rules (copied at ``init``), the
    deadline (``ladder.deadline``: uploads freeze and the finals start; None: never), the
    site's pace (``ladder.games_per_hour``, all workers together; 0: flat out), and
    what the site says of it: the file's ``title`` (every page's) and ``description`` (the
    overview page's; None: the file gives none)."""

    config: TournamentConfig
    rules: SiteRules = field(default_factory=SiteRules)
    deadline: datetime | None = None
    title: str | None = None
    description: str | None = None
    #: The site's pace (``ladder.games_per_hour``): 0 plays flat out.
    games_per_hour: int = 0

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
        **{rules_attribute(key): value for key, value in values.items() if is_copied(key)}
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
    return Competition(config, rules, values.get("ladder.deadline"),
                       values.get("title"), values.get("description"),
                       values.get("ladder.games_per_hour", 0))  # fmt: skip


#: The file last read by :func:`read_when_changed`: its stamp and what it held.
_last_read: tuple[tuple[object, ...], Competition] | None = None
_reading = threading.Lock()
#: Seconds after which a file's modification time is trusted to have moved with any
#: later write: two writes within one tick of the file system's clock (a few ms) can
#: leave the same time, so a file written this recently is parsed again at each read.
SETTLED_S = 1.0


def read_when_changed(file: Path) -> Competition:
    """The competition file at ``file`` as :func:`read_competition` reads it, parsed again
    only when it has changed since the last call: another path, modification time, size
    or inode (an editor that saves by renaming a new file over the old one changes the
    inode), or a file written less than :data:`SETTLED_S` ago. A file that cannot be read
    raises as :func:`read_competition` does, every time."""
    global _last_read
    status = os.stat(file)
    stamp = (str(file), status.st_mtime_ns, status.st_size, status.st_ino, status.st_dev)
    with _reading:
        if _last_read is not None and _last_read[0] == stamp:
            return _last_read[1]
        is_settled = time.time() - status.st_mtime > SETTLED_S
        competition = read_competition(file)
        _last_read = (stamp, competition) if is_settled else None
        return competition
