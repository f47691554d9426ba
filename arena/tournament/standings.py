"""A tournament's standings, computed from the stored outcomes of its counted matches.

* Heads-up (round robin, gauntlet) and ring games are duplicate formats: each block's
  matches play the same deals with the seats rearranged, and one deal across all of its
  arrangements is the unit of independence (:func:`arena.stats.units.duplicate_units`). A
  bot's mbb/hand and its 95% interval are over its units; the crosstable (heads-up) over the
  units of each pair. A block is used only when every one of its matches finished.
* Ring games and sit-and-go freezeouts also give each bot a multiplayer rating (openskill's
  Plackett-Luce, matches taken in plan order so the rating does not depend on which
  worker finished first) and its average finishing place; a ring match places bots by the
  chips they won in it. Freezeouts are ranked by the rating's ordinal (mu - 3 sigma).

Which matches count: finished without error, and (with the sequential test) not in a block
after the one that decided its pair. The standings therefore depend only on the results of
the matches, not on the order they finished in or on whether the run was resumed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.stats.ratings import average_places, rate
from arena.stats.sprt import SprtResult
from arena.stats.tables import Crosstable, Leaderboard, crosstable, leaderboard
from arena.stats.units import duplicate_units
from arena.store.outcome import MatchOutcome
from arena.tournament.config import TournamentConfig
from arena.tournament.config_keys import Format
from arena.tournament.plan import MatchSpec
from arena.tournament.runner import TournamentRun

__all__ = ["Standings", "build_standings"]


@dataclass(frozen=True, slots=True)
class Standings:
    """The tables a tournament prints and saves (``standings.json``)."""

    name: str
    format: str
    leaderboard: Leaderboard
    crosstable: Crosstable | None
    sprt: tuple[tuple[tuple[str, str], SprtResult], ...]
    matches_counted: int
    matches_planned: int
    hands: int
    fault_counts: dict[str, dict[str, int]]
    is_finished: bool
    seed: int | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; the seed only once the tournament is finished."""
        return {
            "name": self.name,
            "format": self.format,
            "is_finished": self.is_finished,
            "seed": self.seed,
            "matches_counted": self.matches_counted,
            "matches_planned": self.matches_planned,
            "hands": self.hands,
            "leaderboard": self.leaderboard.to_dict(),
            "crosstable": None if self.crosstable is None else self.crosstable.to_dict(),
            "sprt": [{"pair": list(pair), **result.to_dict()} for pair, result in self.sprt],
            "faults": self.fault_counts,
            "units": "mbb/hand (1000 x chips / big blind); 10 mbb/hand = 1 bb/100",
        }


def build_standings(config: TournamentConfig, run: TournamentRun) -> Standings:
    """The standings of ``run`` (see the module docstring)."""
    specs = {spec.match_id: spec for spec in run.specs}
    counted = [
        (specs[outcome.match_id], outcome)
        for outcome in run.outcomes
        if outcome.is_counted
        and outcome.match_id in specs
        and run.tests.is_needed(specs[outcome.match_id])
    ]
    counted.sort(key=lambda item: item[0].position)
    chips: dict[str, int] = defaultdict(int)
    hands: dict[str, int] = defaultdict(int)
    faults: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for _spec, outcome in counted:
        for seat in outcome.seats:
            chips[seat.bot] += seat.chips_won
            hands[seat.bot] += seat.hands_played
            for kind, count in seat.fault_counts.items():
                faults[seat.bot][kind] += count
    for bot in config.bot_names:
        chips.setdefault(bot, 0)
        hands.setdefault(bot, 0)
    table: Crosstable | None = None
    if config.format is Format.SIT_AND_GO:
        games = [_places(outcome) for _spec, outcome in counted]
        board = leaderboard([], chips, hands, rate(games), average_places(games), order_by="rating")
    else:
        units_by_group = _units_by_group(counted, specs.values())
        units = [unit for group_units in units_by_group.values() for unit in group_units]
        if config.format is Format.RING:
            games = [_places(outcome) for _spec, outcome in counted]
            board = leaderboard(units, chips, hands, rate(games), average_places(games))
        else:
            board = leaderboard(units, chips, hands)
            pair_units = {
                (group[0], group[1]): [unit[group[0]] for unit in group_units]
                for group, group_units in units_by_group.items()
            }
            table = crosstable(pair_units, bots=config.bot_names)
    sprt = tuple(
        ((pair.pair[0], pair.pair[1]), pair.result)
        for pair in run.tests.pairs
        if pair.result is not None
    )
    return Standings(
        name=config.name,
        format=config.format.value,
        leaderboard=board,
        crosstable=table,
        sprt=sprt,
        matches_counted=len(counted),
        matches_planned=sum(1 for spec in run.specs if run.tests.is_needed(spec)),
        hands=sum(len(outcome.hands) for _spec, outcome in counted),
        fault_counts={bot: dict(kinds) for bot, kinds in sorted(faults.items())},
        is_finished=run.tournament.is_finished or _is_complete(run, counted),
        seed=run.tournament.seed if _is_complete(run, counted) else None,
    )


def _is_complete(run: TournamentRun, counted: Sequence[tuple[MatchSpec, MatchOutcome]]) -> bool:
    done = {spec.match_id for spec, _outcome in counted}
    return all(spec.match_id in done for spec in run.specs if run.tests.is_needed(spec))


def _units_by_group(
    counted: Sequence[tuple[MatchSpec, MatchOutcome]], specs: Sequence[MatchSpec] | Any
) -> dict[tuple[str, ...], list[dict[str, float]]]:
    """Each group's duplicate units, from its complete blocks in block order."""
    block_sizes: dict[str, int] = defaultdict(int)
    for spec in specs:
        block_sizes[spec.block_id] += 1
    blocks: dict[str, list[tuple[MatchSpec, MatchOutcome]]] = defaultdict(list)
    for spec, outcome in counted:
        blocks[spec.block_id].append((spec, outcome))
    by_group: dict[tuple[str, ...], list[dict[str, float]]] = defaultdict(list)
    for block_id, members in sorted(
        blocks.items(), key=lambda item: min(spec.position for spec, _o in item[1])
    ):
        if len(members) != block_sizes[block_id]:
            continue  # an arrangement is missing: the block's deals are not duplicated
        group = members[0][0].group
        assert group is not None  # duplicate formats always have a group
        ordered = [outcome for _spec, outcome in sorted(members, key=lambda m: m[0].arrangement)]
        by_group[group].extend(duplicate_units(ordered))
    return dict(by_group)


def _places(outcome: MatchOutcome) -> list[tuple[str, float]]:
    """A match as a rated game: each bot with its place (a ring match: by chips won)."""
    return [(seat.bot, float(seat.place)) for seat in outcome.seats]
