"""The rules between a tournament's keys (a small blind above the big blind, too few bots
for the format, a plan of too many matches...): each broken one names the key to change."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from arena.settings.catalog import MAX_MATCHES, ExecutorKind, Format
from arena.settings.grammar import suggestion

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig

__all__ = ["problems"]


def problems(
    config: TournamentConfig, *, with_bots: bool = True
) -> Iterator[tuple[str, object, str]]:
    """The rules between keys: each broken one as (the key to change, its value, why).
    ``with_bots=False`` leaves out the rules about who plays (how many bots, the
    challenger, the seats against the bots, the plan's size), for a config whose bots are
    not known yet (a site's competition file: the uploads are its bots)."""
    sprt = config.sprt
    yield from _game_rules(config)
    if with_bots:
        yield from _bot_rules(config)
    if config.scheduler is not None and config.executor is not ExecutorKind.DASK:
        yield "scheduler", config.scheduler, "is used only by executor = dask (--executor dask)"
    if sprt.enabled and not config.format.is_heads_up:
        only = "only round_robin and gauntlet allow it"
        why = f"the sequential test stops heads-up pairs: {only}, the format is {config.format}"
        yield "sprt.enabled", True, why
    if config.score == "adjusted" and not config.luck.is_on:
        yield "score", "adjusted", "needs the luck estimator, and luck is off: use raw, or luck on"
    if sprt.enabled and sprt.mbb1 <= sprt.mbb0:
        yield "sprt.mbb1", sprt.mbb1, f"must be above sprt.mbb0 ({sprt.mbb0:g})"
    if with_bots:
        yield from _size_rules(config)


def _game_rules(config: TournamentConfig) -> Iterator[tuple[str, object, str]]:
    game = config.game
    if game.small_blind > game.big_blind:
        limit = f"must not be larger than game.big_blind ({game.big_blind})"
        yield "game.small_blind", game.small_blind, limit
    if game.big_blind == 0 and game.ante == 0:
        yield "game.big_blind", 0, "a game needs a big blind or an ante; both are 0"


def _bot_rules(config: TournamentConfig) -> Iterator[tuple[str, object, str]]:
    names = config.bot_names
    least = 3 if config.format is Format.RING else 2
    if len(names) < least:
        why = "a ring table has 3 to 10 seats" if least == 3 else "a match needs two"
        yield "bots", list(names), f"{config.format} needs at least {least} bots ({why})"
    if config.format is Format.GAUNTLET and config.challenger not in (None, *names):
        hint = suggestion(str(config.challenger), names)
        yield "challenger", config.challenger, f"is not one of the bots{hint}: {list(names)}"
    if not config.format.is_heads_up and config.seats > len(names):
        key = "ring.seats" if config.format is Format.RING else "sit_and_go.seats"
        yield key, config.seats, f"more seats than the {len(names)} bots: at most {len(names)}"


def _size_rules(config: TournamentConfig) -> Iterator[tuple[str, object, str]]:
    names = config.bot_names
    count = config.match_count()
    if count > MAX_MATCHES:
        groups, blocks, seats = config.group_count(), len(config.block_sizes()), config.seats
        if config.format is Format.RING:
            what = f"{len(names)} bots at {seats} seats make {groups:,} groups"
            advice = "use fewer bots or a bigger table (ring.seats), or fewer, longer blocks"
        else:
            what = f"{groups:,} pairs"
            advice = "use fewer bots, or fewer, longer blocks (block_deals)"
        total = f"{groups:,} x {blocks} blocks x {seats} seatings = {count:,} matches"
        why = f"{what}: {total}, more than the limit of {MAX_MATCHES:,}: {advice}"
        yield "bots", list(names), why
