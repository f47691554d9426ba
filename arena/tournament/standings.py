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

Each win rate is shown twice, over the same units: raw (the chips won) and luck-adjusted
(:mod:`arena.stats.scores`, when the matches ran the luck estimator), with the luck (raw
minus adjusted) per bot, per pair and per match. The ``score`` asked for (adjusted unless
told) ranks the bots and sets the marks and the lead sentence; when the counted matches do
not all carry adjusted results, the raw score does, and a note says why.

Which matches count: finished without error, and (with the sequential test) not in a block
after the one that decided its pair. The standings therefore depend only on the results of
the matches, not on the order they finished in or on whether the run was resumed.

:func:`compute_standings` is the one computation, a pure function over what the results
database holds (the plan, the counted outcomes); the tournament's printed summary and
``standings.json`` (:func:`build_standings`, from a finished run) and the report (from the
database) all use it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.stats.lead import lead_sentence
from arena.stats.match_luck import MatchLuck, match_luck
from arena.stats.ratings import average_places, rate
from arena.stats.scores import Score, check_score, counts_adjusted
from arena.stats.sprt import SprtResult
from arena.stats.tables import Crosstable, Leaderboard, crosstable, leaderboard
from arena.stats.units import duplicate_units
from arena.store.outcome import MatchOutcome
from arena.store.sqlite.schema import PlannedMatch
from arena.tournament.config import TournamentConfig
from arena.tournament.runner import TournamentRun

__all__ = [
    "DuplicateBlock",
    "Standings",
    "build_standings",
    "complete_blocks",
    "compute_standings",
]

#: A complete block's matches (plan order) and its duplicate units, one per deal.
DuplicateBlock = tuple[tuple[MatchOutcome, ...], tuple[dict[str, float], ...]]


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
    #: The complete blocks the units came from, each with its units (one per deal), in
    #: plan order: what a chart of the duplicate-adjusted results draws. Not saved.
    blocks: tuple[DuplicateBlock, ...] = field(default=(), compare=False, repr=False)
    #: The score that ranks (``raw`` when the adjusted one is not known) and the one asked.
    score: Score = "raw"
    score_asked: Score = "raw"
    #: The luck estimator's name and version, as the counted matches carry it (None: none).
    estimator: str | None = None
    #: Each counted match's luck per seat (the matches that carry adjusted results).
    match_luck: tuple[MatchLuck, ...] = ()
    #: Whether #1 is significantly ahead of #2, in the score that ranks.
    lead: str = ""
    #: What the reader should know about the numbers (the score used and why).
    notes: tuple[str, ...] = ()

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
            "score": self.score,
            "score_asked": self.score_asked,
            "estimator": self.estimator,
            "lead": self.lead,
            "notes": list(self.notes),
            "matches": [luck.to_dict() for luck in self.match_luck],
        }


def complete_blocks(
    plan: Iterable[PlannedMatch], counted: Iterable[MatchOutcome]
) -> list[list[MatchOutcome]]:
    """The complete blocks of the counted matches, in plan order, each block's matches in
    plan order (its first seating first). A block whose seatings are not all counted does
    not duplicate its deals and is left out.

    >>> plan = [PlannedMatch("b1", "b1", "heads_up", 0, ("a", "b"), 1),
    ...         PlannedMatch("b1-swap", "b1", "heads_up", 1, ("b", "a"), 1),
    ...         PlannedMatch("b2", "b2", "heads_up", 2, ("a", "b"), 2),
    ...         PlannedMatch("b2-swap", "b2", "heads_up", 3, ("b", "a"), 2)]
    >>> counted = [MatchOutcome(m, (), (), "hands", None, 0.0) for m in ("b1-swap", "b1", "b2")]
    >>> [[outcome.match_id for outcome in block] for block in complete_blocks(plan, counted)]
    [['b1', 'b1-swap']]
    """
    by_id = {entry.match_id: entry for entry in plan}
    sizes: dict[str, int] = defaultdict(int)
    for entry in by_id.values():
        sizes[entry.block_id] += 1
    members: dict[str, list[MatchOutcome]] = defaultdict(list)
    for outcome in counted:
        members[by_id[outcome.match_id].block_id].append(outcome)
    blocks = [
        sorted(group, key=lambda outcome: by_id[outcome.match_id].position)
        for block_id, group in members.items()
        if len(group) == sizes[block_id]
    ]
    return sorted(blocks, key=lambda block: by_id[block[0].match_id].position)


def compute_standings(
    *,
    name: str,
    fmt: str,
    bots: Sequence[str],
    plan: Sequence[PlannedMatch],
    counted: Sequence[MatchOutcome],
    matches_planned: int | None = None,
    sprt: Sequence[tuple[tuple[str, str], SprtResult]] = (),
    is_finished: bool = False,
    seed: int | None = None,
    score: str = "adjusted",
) -> Standings:
    """The standings of a tournament named ``name`` of format ``fmt`` (a
    :class:`~arena.settings.catalog.Format` value) between ``bots``, from its
    ``plan`` and the outcomes of its ``counted`` matches (see the module docstring).

    ``matches_planned`` is how many matches the plan needs (all of it unless told);
    ``sprt`` the sequential tests' results by pair; a finished tournament shows its seed;
    ``score`` (``adjusted`` or ``raw``) is what ranks when it is known.
    """
    asked = check_score(score)
    positions = {entry.match_id: entry.position for entry in plan}
    counted = sorted(counted, key=lambda outcome: positions[outcome.match_id])
    chips: dict[str, int] = defaultdict(int)
    hands: dict[str, int] = defaultdict(int)
    faults: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for outcome in counted:
        for seat in outcome.seats:
            chips[seat.bot] += seat.chips_won
            hands[seat.bot] += seat.hands_played
            for kind, count in seat.fault_counts.items():
                faults[seat.bot][kind] += count
    for bot in bots:
        chips.setdefault(bot, 0)
        hands.setdefault(bot, 0)
    table: Crosstable | None = None
    blocks: list[DuplicateBlock] = []
    complete = [] if fmt == "sit_and_go" else complete_blocks(plan, counted)
    has_adjusted = counts_adjusted(outcome for block in complete for outcome in block)
    used: Score = asked if has_adjusted else "raw"
    if fmt == "sit_and_go":
        games = [_places(outcome) for outcome in counted]
        board = leaderboard([], chips, hands, rate(games), average_places(games), order_by="rating")
    else:
        units_by_group: dict[tuple[str, ...], list[dict[str, float]]] = defaultdict(list)
        adjusted_by_group: dict[tuple[str, ...], list[dict[str, float]]] = defaultdict(list)
        for block in complete:
            # The block's first seating is its group: a heads-up pair or a ring group.
            group = tuple(seat.bot for seat in block[0].seats)
            block_units = duplicate_units(block)
            units_by_group[group].extend(block_units)
            if has_adjusted:
                adjusted_by_group[group].extend(duplicate_units(block, score="adjusted"))
            blocks.append((tuple(block), tuple(block_units)))
        units = _flat(units_by_group)
        adjusted = _flat(adjusted_by_group) if has_adjusted else None
        ratings, places = None, None
        if fmt == "ring":
            games = [_places(outcome) for outcome in counted]
            ratings, places = rate(games), average_places(games)
        board = leaderboard(
            units, chips, hands, ratings, places, adjusted_units=adjusted, score=used
        )
        if fmt != "ring":
            table = crosstable(
                _pair_units(units_by_group),
                bots=list(bots),
                adjusted_pair_units=_pair_units(adjusted_by_group) if has_adjusted else None,
                score=used,
            )
    estimators = sorted({o.estimator for o in counted if o.estimator is not None})
    return Standings(
        name=name,
        format=fmt,
        leaderboard=board,
        crosstable=table,
        sprt=tuple(sprt),
        matches_counted=len(counted),
        matches_planned=len(plan) if matches_planned is None else matches_planned,
        hands=sum(len(outcome.hands) for outcome in counted),
        fault_counts={bot: dict(kinds) for bot, kinds in sorted(faults.items())},
        is_finished=is_finished,
        seed=seed,
        blocks=tuple(blocks),
        score=used,
        score_asked=asked,
        estimator=", ".join(estimators) or None,
        match_luck=tuple(luck for luck in map(match_luck, counted) if luck is not None),
        lead=lead_sentence(board, table, "deals"),
        notes=tuple(_notes(fmt, asked, used, complete, estimators)),
    )


def _flat(by_group: dict[tuple[str, ...], list[dict[str, float]]]) -> list[dict[str, float]]:
    return [unit for group_units in by_group.values() for unit in group_units]


def _pair_units(
    by_group: dict[tuple[str, ...], list[dict[str, float]]],
) -> dict[tuple[str, str], list[float]]:
    """Each heads-up pair's units as its first bot's results."""
    return {
        (group[0], group[1]): [unit[group[0]] for unit in group_units]
        for group, group_units in by_group.items()
    }


def _notes(
    fmt: str,
    asked: Score,
    used: Score,
    complete: Sequence[Sequence[MatchOutcome]],
    estimators: Sequence[str],
) -> list[str]:
    """What the reader should know: which score ranks, and why not the one asked for."""
    if fmt == "sit_and_go":
        return ["Freezeouts are ranked by rating; each match's luck is shown when it is known."]
    notes = []
    if used == "adjusted":
        notes.append(
            f"Ranked by the luck-adjusted result ({', '.join(estimators)}); the raw result "
            "is shown beside it."
        )
    elif asked == "adjusted":
        matches = [outcome for block in complete for outcome in block]
        bare = sum(1 for outcome in matches if not counts_adjusted([outcome]))
        why = (
            "no counted match yet"
            if not matches
            else f"{bare} of {len(matches)} counted matches carry no luck-adjusted result "
            "(played with luck off, or before the estimator existed)"
        )
        notes.append(f"Ranked by the raw result: {why}.")
    else:
        notes.append("Ranked by the raw result (score = raw).")
    if len(estimators) > 1:
        notes.append(f"The matches ran different luck estimators: {', '.join(estimators)}.")
    return notes


def build_standings(config: TournamentConfig, run: TournamentRun) -> Standings:
    """The standings of a finished (or interrupted) ``run`` of ``config``: the counted
    matches are those that finished and that the sequential tests still need."""
    needed = [spec for spec in run.specs if run.tests.is_needed(spec)]
    needed_ids = {spec.match_id for spec in needed}
    counted = [
        outcome for outcome in run.outcomes if outcome.is_counted and outcome.match_id in needed_ids
    ]
    is_complete = needed_ids <= {outcome.match_id for outcome in counted}
    return compute_standings(
        name=config.name,
        fmt=config.format.value,
        bots=config.bot_names,
        plan=[spec.planned for spec in run.specs],
        counted=counted,
        matches_planned=len(needed),
        sprt=[
            ((pair.pair[0], pair.pair[1]), pair.result)
            for pair in run.tests.pairs
            if pair.result is not None
        ],
        is_finished=run.tournament.is_finished or is_complete,
        seed=run.tournament.seed if is_complete else None,
        score=config.score_used,
    )


def _places(outcome: MatchOutcome) -> list[tuple[str, float]]:
    """A match as a rated game: each bot with its place (a ring match: by chips won)."""
    return [(seat.bot, float(seat.place)) for seat in outcome.seats]
