"""The match plan: every match of a tournament, its seats and its seed, in playing order.

Theory of operation. A plan is a pure function of the configuration and the tournament
seed (:func:`plan`): the same seed gives the same matches, ids, seats and seeds, whatever
runs them. Each format is one small function that lists its groups and seatings:

* **Duplicate matches** (``round_robin``, ``gauntlet``, ``ring``). The bots of a group (a
  heads-up pair, or a ring group of ``seats`` bots) play their deals in *blocks* of
  ``block_deals`` deals (the last block may be shorter). A block is one seed played under
  every seating of the group: heads-up, the pair one way and then swapped; a ring of ``k``,
  the ``k`` rotations of the group, so that every bot sits in every seat once, for the same
  deals. Luck of the cards then cancels out within a block (as in the duplicate matches
  of the computer poker competitions). Stacks are reset every hand, so the deals are
  independent.
* **Freezeouts** (``sit_and_go``). Each game seats ``seats`` bots with stacks carried
  until one holds every chip, the blinds doubling on a schedule. The seatings come in
  cycles of one game per bot: a cycle draws an order of all the bots from the seed and
  game ``j`` of the cycle seats the ``seats`` bots from position ``j`` on, around the
  circle; over a cycle every bot plays ``seats`` games, once in each seat.

The order interleaves the groups: block 0 of every group, then block 1 of every group,
and so on. The first results therefore cover every pair, and a sequential test can stop a
pair between blocks while the others play on.

Ids are stable, sortable and safe as file names: ``rr-001-b01-alice-vs-bob`` (round robin,
pair 1, block 1) and ``...-swap`` for its swapped seating, ``gt-...`` for a gauntlet,
``ring-004-b02-r3`` (ring group 4, block 2, rotation 3), ``sng-007`` (freezeout 7). The
numbers in ids count from 1; the fields of :class:`MatchSpec` from 0. A block's seed is
:func:`arena.tournament.seeds.derive_seed` of the tournament seed and the block's id.

>>> from pathlib import Path
>>> from arena.tournament.config import BotEntry, TournamentConfig
>>> bots = tuple(BotEntry(name, Path(f"{name}.toml")) for name in ("alice", "bob"))
>>> [spec.match_id for spec in plan(TournamentConfig(bots=bots, deals=150), 7)]
['rr-001-b01-alice-vs-bob', 'rr-001-b01-alice-vs-bob-swap', 'rr-001-b02-alice-vs-bob', \
'rr-001-b02-alice-vs-bob-swap']
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from arena.match.config import MatchConfig, StackPolicy
from arena.settings.catalog import Format
from arena.store.sqlite.schema import PlannedMatch
from arena.tournament.config import TournamentConfig
from arena.tournament.seeds import derive_seed, ordering_key
from engine.schedule import BlindSchedule

__all__ = ["MatchKind", "MatchSpec", "groups", "plan"]

#: What kind of match a spec is.
MatchKind = Literal["heads_up", "ring", "sit_and_go"]

#: The id prefix of each format.
_PREFIX = {
    Format.ROUND_ROBIN: "rr",
    Format.GAUNTLET: "gt",
    Format.RING: "ring",
    Format.SIT_AND_GO: "sng",
}
#: The longest bot name kept in an id. Names are kept whole up to this (a name of 20
#: characters or fewer gives the same id as it always did); past it, only to keep an id
#: with two names well under the 255-byte limit of a file name. The pair's index keeps
#: ids unique anyway.
_SLUG_LENGTH = 64


@dataclass(frozen=True, slots=True)
class MatchSpec:
    """One match of the plan.

    ``bots`` are the bots' names in seat order. ``group`` is the heads-up pair (names
    sorted) or the ring group (names in listed order), ``None`` for a freezeout.
    ``block_index`` is the block's place within its group (a freezeout: its game number),
    ``arrangement`` the seating within the block (0 the first; heads-up 1 is the swap; a
    ring's ``r`` the ``r``-th rotation). ``hand_count`` is the block's deals (a freezeout:
    its cap on hands). ``position`` is the match's index in the plan.
    """

    match_id: str
    block_id: str
    kind: MatchKind
    bots: tuple[str, ...]
    seed: int
    position: int
    group: tuple[str, ...] | None
    block_index: int
    arrangement: int
    hand_count: int

    @property
    def planned(self) -> PlannedMatch:
        """The match as the results database plans it."""
        return PlannedMatch(self.match_id, self.block_id, self.kind, self.position, self.bots,
                            self.seed)  # fmt: skip

    def match_config(self, settings: TournamentConfig) -> MatchConfig:
        """The arena's configuration of this match under the tournament's ``settings``:
        its game, deals, seed and id; stacks reset every hand for duplicate matches, a
        freezeout whose blinds double every ``double_every_hands`` hands for a sit-and-go."""
        game = settings.game
        common: dict[str, Any] = {
            "game": game.game_config(),
            "hand_count": self.hand_count,
            "seed": self.seed,
            "match_id": self.match_id,
            "starting_stack": game.starting_stack,
            "time_limits": settings.time.time_limits(),
            "check_on_timeout": settings.time.check_on_timeout,
            "luck": settings.luck.is_on,
            "score": settings.score_used,
            # Every seating of a duplicate block deals from its seed: none may reveal it.
            "seed_shared": self.kind != "sit_and_go",
        }
        if self.kind != "sit_and_go":
            return MatchConfig(stack_policy=StackPolicy.RESET, **common)
        schedule = BlindSchedule.doubling(
            game.small_blind,
            game.big_blind,
            ante=game.ante,
            every_hands=settings.sit_and_go.double_every_hands,
        )
        return MatchConfig(stack_policy=StackPolicy.FREEZEOUT, schedule=schedule, **common)


def groups(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The groups of a duplicate format, in plan order: heads-up pairs (names sorted) or
    ring groups (every combination of ``seats`` bots, names in listed order); a sit-and-go
    has none."""
    names = config.bot_names
    if config.format is Format.ROUND_ROBIN:
        return [tuple(sorted(pair)) for pair in itertools.combinations(names, 2)]
    if config.format is Format.GAUNTLET:
        challenger = config.challenger_name
        assert challenger is not None
        return [tuple(sorted((challenger, name))) for name in names if name != challenger]
    if config.format is Format.RING:
        return list(itertools.combinations(names, config.seats))
    return []


def plan(config: TournamentConfig, tournament_seed: int) -> list[MatchSpec]:
    """Every match of the tournament in playing order (see the module docstring)."""
    if config.format is Format.SIT_AND_GO:
        specs = _freezeouts(config, tournament_seed)
    else:
        specs = _duplicate_blocks(config, tournament_seed)
    return [dataclasses.replace(spec, position=position) for position, spec in enumerate(specs)]


def _duplicate_blocks(config: TournamentConfig, tournament_seed: int) -> Iterator[MatchSpec]:
    prefix = _PREFIX[config.format]
    all_groups = groups(config)
    sizes = config.block_sizes()
    group_width = max(3, len(str(len(all_groups))))
    block_width = max(2, len(str(len(sizes))))
    is_heads_up = config.format.is_heads_up
    for block_index, size in enumerate(sizes):
        for group_index, group in enumerate(all_groups):
            number, block = group_index + 1, block_index + 1
            block_id = f"{prefix}-{number:0{group_width}d}-b{block:0{block_width}d}"
            if is_heads_up:
                block_id += f"-{_slug(group[0])}-vs-{_slug(group[1])}"
            seed = derive_seed(tournament_seed, block_id)
            for arrangement in range(len(group)):
                # Heads-up the swap, a ring the rotations: every bot in every seat once.
                seats = group[arrangement:] + group[:arrangement]
                if is_heads_up:
                    match_id = block_id + ("-swap" if arrangement else "")
                else:
                    match_id = f"{block_id}-r{arrangement + 1}"
                yield MatchSpec(
                    match_id=match_id,
                    block_id=block_id,
                    kind="heads_up" if is_heads_up else "ring",
                    bots=seats,
                    seed=seed,
                    position=0,
                    group=group,
                    block_index=block_index,
                    arrangement=arrangement,
                    hand_count=size,
                )


def _freezeouts(config: TournamentConfig, tournament_seed: int) -> Iterator[MatchSpec]:
    names = config.bot_names
    width = max(3, len(str(config.games)))
    for game_index in range(config.games):
        cycle, start = divmod(game_index, len(names))
        order = _drawn_order(names, tournament_seed, f"sng-cycle-{cycle + 1}")
        seats = tuple(order[(start + seat) % len(order)] for seat in range(config.seats))
        match_id = f"sng-{game_index + 1:0{width}d}"
        yield MatchSpec(
            match_id=match_id,
            block_id=match_id,
            kind="sit_and_go",
            bots=seats,
            seed=derive_seed(tournament_seed, match_id),
            position=0,
            group=None,
            block_index=game_index,
            arrangement=0,
            hand_count=config.sit_and_go.max_hands,
        )


def _drawn_order(names: Sequence[str], tournament_seed: int, draw: str) -> tuple[str, ...]:
    """The bots in an order drawn from the seed (the same for the same seed and draw)."""
    return tuple(sorted(names, key=lambda name: ordering_key(tournament_seed, f"{draw}/{name}")))


def _slug(name: str) -> str:
    """A bot's name as a safe part of an id: lower case letters, digits and ``_``.

    >>> _slug("Python Random!"), _slug("???")
    ('python_random', 'bot')
    >>> _slug("Python calling station (tight)")
    'python_calling_station_tight'
    """
    slug = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")[:_SLUG_LENGTH].strip("_")
    return slug or "bot"
