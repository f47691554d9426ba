"""The competition's overview: its name, what it is about, the rules a bot plays under
and the deadline, every rule read from the settings that decide it (the competition file,
the site's settings, the ladder's knobs) and never written twice, and the starter bots a
participant downloads.

>>> from arena.server.competition import Competition
>>> from arena.tournament.config import TournamentConfig
>>> rules = competition_rules(Competition(TournamentConfig(bots=())), SiteRules(), deals=100)
>>> rules[0]
('Game', "no-limit hold'em, blinds 1/2, every hand starts with 200 chips (100 big blinds)")
>>> countdown(datetime(2026, 1, 3, 6, tzinfo=UTC), now=datetime(2026, 1, 1, tzinfo=UTC))
'in 2 days, 6 hours'
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from arena.bots.sandbox.resources import DEFAULT_RESOURCES, format_size
from arena.bots.sandbox.select import Probe, SandboxLevel, describe
from arena.server.competition import Competition, SiteRules, Visibility
from arena.settings.catalog import Format
from engine.config import BettingStructure, Variant

__all__ = [
    "DEFAULT_TITLE",
    "STARTERS_DIR",
    "competition_rules",
    "competition_title",
    "countdown",
    "starter_bots",
]

#: A site's title when its competition file names none.
DEFAULT_TITLE = "Poker arena"
#: The starter bots offered for download: the arena's sample bots.
STARTERS_DIR = Path(__file__).resolve().parents[2] / "sample_bots"

_VARIANTS = {Variant.HOLDEM: "hold'em", Variant.FIVE_CARD_DRAW: "five-card draw"}
_BETTING = {
    BettingStructure.NO_LIMIT: "no-limit",
    BettingStructure.POT_LIMIT: "pot-limit",
    BettingStructure.FIXED_LIMIT: "fixed-limit",
}
_VISIBILITY = {
    Visibility.NOTHING: "nothing of a match they did not play",
    Visibility.SHOWDOWNS: "the cards shown at showdowns of a match they did not play",
    Visibility.EVERYTHING: "every card of a match they did not play, once the hand is over",
}
#: What the strongest layer is when the file names none (the server takes the strongest
#: that works on it).
_STRONGEST = SandboxLevel.STRICT
_NO_PROBE = Probe(None, None, None)


def competition_title(competition: Competition | None) -> str:
    """The competition's title, as every page says it."""
    return DEFAULT_TITLE if competition is None or not competition.title else competition.title


def competition_rules(
    competition: Competition, rules: SiteRules, *, deals: int
) -> list[tuple[str, str]]:
    """``(label, text)`` for each rule a bot plays under: the game, the table, a ladder
    game of ``deals`` deals, the time limits, the sandbox and its limits, the upload
    limits, the validation match, what other teams see."""
    config = competition.config
    game, time = config.game, config.time
    ante = f", ante {game.ante}" if game.ante else ""
    blinds = game.starting_stack / game.big_blind
    seats = config.ring_seats or 2
    if config.format is Format.RING:
        table = f"ring tables of {seats} bots"
        played = f"{deals} deals, each played {seats} times, once in each rotation of the seats"
    else:
        table = "heads-up: two bots"
        played = f"{deals} deals, each played twice with the seats swapped (the same cards)"
    on_timeout = "checks when checking is free, else folds" if time.check_on_timeout else "folds"
    basis = "CPU time" if str(time.time_basis) == "cpu" else "wall-clock time"
    bank = f", plus a time bank of {time.time_bank_s:g} s a match" if time.time_bank_s else ""
    level = config.sandbox or _STRONGEST
    sandbox = describe(level, (), probe=_NO_PROBE)[0].removeprefix("sandbox: ")
    if config.sandbox is None:
        sandbox = f"the strongest the server has: {sandbox}"
    resources = DEFAULT_RESOURCES.with_overrides(config.resource_limits, source="the competition")
    return [
        ("Game", f"{_BETTING[game.betting]} {_VARIANTS[game.variant]}, blinds "
                 f"{game.small_blind}/{game.big_blind}{ante}, every hand starts with "
                 f"{game.starting_stack} chips ({blinds:g} big blinds)"),
        ("Table", table),
        ("A ladder game", played),
        ("Time per decision", f"{time.decision_timeout_s:g} s of {basis}{bank}; a bot out of "
                              f"time {on_timeout}"),
        ("Start-up", f"{time.startup_timeout_s:g} s to start and answer the hello"),
        ("Sandbox", sandbox),
        ("Resource limits", resources.describe()),
        ("Uploads", f"an archive of at most {format_size(rules.upload_archive_bytes)}, "
                    f"{format_size(rules.upload_unpacked_bytes)} unpacked, "
                    f"{rules.upload_file_count:,} files"),
        ("Validation", f"a match of {rules.validation_hands} hands against the house bot, "
                       + (f"with at most {rules.validation_allowed_faults} faults"
                          if rules.validation_allowed_faults else "without a fault")),
        ("Other teams see", _VISIBILITY[rules.visibility]),
    ]  # fmt: skip


def countdown(deadline: datetime, *, now: datetime | None = None) -> str:
    """How long until ``deadline``, in its two largest units ("in 2 days, 6 hours"), or
    that it has passed."""
    left = int((deadline - (now or datetime.now(UTC))).total_seconds())
    if left <= 0:
        return "it has passed"
    parts = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count, left = divmod(left, size)
        if count:
            parts.append(f"{count} {name}{'' if count == 1 else 's'}")
    return "in " + ", ".join(parts[:2]) if parts else "in less than a minute"


def starter_bots(folder: Path = STARTERS_DIR) -> list[str]:
    """The names of the starter bots (the folders of ``folder`` holding a ``bot.toml``)."""
    if not folder.is_dir():
        return []
    return sorted(entry.name for entry in folder.iterdir() if (entry / "bot.toml").is_file())
