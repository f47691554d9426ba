"""The tables a tournament prints and stores: the leaderboard and the crosstable (data only;
rendering is the caller's business).

The leaderboard has one row per bot: its win rate in mbb/hand with a 95% interval over the
units (duplicate deals) it played, chips won, hands, and for freezeouts its rating and
average place. The crosstable has one cell per ordered pair of bots: the row bot's win rate
against the column bot over their head-to-head units, marked ``+`` or ``-`` when the 95%
interval excludes 0 and ``++`` or ``--`` when the 99% one does.

Given the luck-adjusted units too (:mod:`arena.stats.scores`), a row and a cell carry both
estimates, raw and adjusted, over the same units, and the luck (raw minus adjusted mean);
``score`` says which of the two ranks the rows and sets the marks. The raw estimate is
always there.

>>> board = leaderboard([{"ann": 10.0, "bob": -10.0}, {"ann": 30.0, "bob": -30.0}],
...                     chips={"ann": 8, "bob": -8}, hands={"ann": 4, "bob": 4})
>>> [(row.rank, row.bot, row.estimate.mean) for row in board.rows]
[(1, 'ann', 20.0), (2, 'bob', -20.0)]
>>> table = crosstable({("ann", "bob"): [50.0, 60.0, 55.0, 58.0]})
>>> table.cell("ann", "bob").mark, table.cell("bob", "ann").mark
('++', '--')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from arena.stats._values import checked_values, is_real
from arena.stats.intervals import Estimate, estimate
from arena.stats.ratings import Rating
from arena.stats.scores import Score, check_score

__all__ = [
    "Crosstable",
    "CrosstableCell",
    "Leaderboard",
    "LeaderboardRow",
    "OrderBy",
    "crosstable",
    "leaderboard",
    "significance_mark",
]

#: What the leaderboard is sorted by: the win rate, or the rating's ordinal (freezeouts).
OrderBy = Literal["mean", "rating"]


class _RawAndAdjusted:
    """What a row and a cell share: the raw ``estimate``, the luck-adjusted one (None when
    not known) over the same units, and the ``score`` that ranks."""

    __slots__ = ()
    estimate: Estimate
    adjusted: Estimate | None
    score: Score

    @property
    def scored(self) -> Estimate:
        """The estimate ``score`` asks for: the adjusted one when there is one, else the raw."""
        adjusted = self.adjusted
        return adjusted if self.score == "adjusted" and adjusted is not None else self.estimate

    @property
    def luck(self) -> float | None:
        """Raw minus adjusted mbb/hand (None when the adjusted result is not known)."""
        if self.adjusted is None or self.adjusted.n == 0:
            return None
        return self.estimate.mean - self.adjusted.mean

    def _estimates(self) -> dict[str, Any]:
        """The estimates and the luck in their JSON-ready form."""
        return {
            "mbb_per_hand": self.estimate.to_dict(),
            "adjusted_mbb_per_hand": None if self.adjusted is None else self.adjusted.to_dict(),
            "luck_mbb_per_hand": self.luck,
        }


@dataclass(frozen=True, slots=True)
class LeaderboardRow(_RawAndAdjusted):
    """One bot's line: ``deals`` is the number of units its estimates are over.

    ``estimate`` is the raw win rate; ``adjusted`` the luck-adjusted one over the same units
    (None when not known); ``score`` says which ranks the row (:attr:`scored`).
    """

    bot: str
    rank: int
    deals: int
    hands: int
    chips_won: int
    estimate: Estimate
    rating: Rating | None = None
    average_place: float | None = None
    adjusted: Estimate | None = None
    score: Score = "raw"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (``mbb_per_hand`` is the raw estimate)."""
        return {
            "bot": self.bot,
            "rank": self.rank,
            "deals": self.deals,
            "hands": self.hands,
            "chips_won": self.chips_won,
            "rating": None if self.rating is None else self.rating.to_dict(),
            "average_place": self.average_place,
            **self._estimates(),
        }


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """The rows, best first, what they are sorted by, and the score of the win rates that
    rank them."""

    rows: tuple[LeaderboardRow, ...]
    order_by: OrderBy = "mean"
    score: Score = "raw"

    def row(self, bot: str) -> LeaderboardRow:
        """The row of ``bot``; an unknown bot raises ``KeyError``."""
        return {row.bot: row for row in self.rows}[bot]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "order_by": self.order_by,
            "score": self.score,
            "rows": [row.to_dict() for row in self.rows],
        }


@dataclass(frozen=True, slots=True)
class CrosstableCell(_RawAndAdjusted):
    """The row bot's win rate against the column bot (raw, and adjusted when known) and the
    significance mark of the ``score`` that ranks."""

    row: str
    column: str
    estimate: Estimate
    mark: str
    adjusted: Estimate | None = None
    score: Score = "raw"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (``mbb_per_hand`` is the raw estimate, ``mark`` the
        score's)."""
        return {"row": self.row, "column": self.column, "mark": self.mark, **self._estimates()}


@dataclass(frozen=True, slots=True)
class Crosstable:
    """The bots (row and column order) and a cell for every ordered pair that played."""

    bots: tuple[str, ...]
    cells: tuple[CrosstableCell, ...]
    score: Score = "raw"

    def cell(self, row: str, column: str) -> CrosstableCell | None:
        """The cell of ``row`` against ``column`` (None if they did not play each other)."""
        return next((c for c in self.cells if (c.row, c.column) == (row, column)), None)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "bots": list(self.bots),
            "score": self.score,
            "cells": [cell.to_dict() for cell in self.cells],
        }


def leaderboard(
    units: Sequence[Mapping[str, float]],
    chips: Mapping[str, int],
    hands: Mapping[str, int],
    ratings: Mapping[str, Rating] | None = None,
    places: Mapping[str, float] | None = None,
    *,
    order_by: OrderBy = "mean",
    adjusted_units: Sequence[Mapping[str, float]] | None = None,
    score: Score = "raw",
) -> Leaderboard:
    """The leaderboard of every bot named in ``units``, ``chips``, ``hands``, ``ratings``
    or ``places``.

    ``units`` are mbb/hand results per unit (bot -> mbb); a bot's estimate is over the units
    it appears in (none: mean 0 and an infinite interval, and the row goes below the bots
    with units). ``adjusted_units``, when given, are the luck-adjusted results of the same
    units (one for one, the same bots), and each row carries that estimate too. Rows are
    sorted by the mean of ``score`` (``adjusted`` needs ``adjusted_units``), best first, or
    with ``order_by="rating"`` by the rating's ordinal (bots without a rating last); ties
    by name. Bots whose sort keys are equal share a rank (1, 2, 2, 4). Bad input raises
    ``ValueError`` naming it.
    """
    if order_by not in ("mean", "rating"):
        raise ValueError(f"order_by must be 'mean' or 'rating', got {order_by!r}")
    if order_by == "rating" and ratings is None:
        raise ValueError("order_by='rating' needs ratings")
    score = _checked_score(score, adjusted_units is not None)
    values = _values_per_bot(units)
    adjusted = None if adjusted_units is None else _values_per_bot(adjusted_units)
    if adjusted is not None and {bot: len(v) for bot, v in adjusted.items()} != {
        bot: len(v) for bot, v in values.items()
    }:
        raise ValueError("adjusted_units must hold the same units of the same bots as units")
    bots = dict.fromkeys(values)
    for name, mapping in (
        ("chips", chips),
        ("hands", hands),
        ("ratings", ratings or {}),
        ("places", places or {}),
    ):
        if not isinstance(mapping, Mapping):
            raise ValueError(f"{name} must be a mapping of bot names, got {mapping!r}")
        for bot in mapping:
            _check_bot(bot, name)
            bots.setdefault(bot)
    _check_mapping_values(chips, "chips", is_int=True)
    _check_mapping_values(hands, "hands", is_int=True)
    _check_mapping_values(places or {}, "places", is_int=False)
    rows = []
    for bot in bots:
        found = values.get(bot, [])
        rating = None if ratings is None else ratings.get(bot)
        if rating is not None and not isinstance(rating, Rating):
            raise ValueError(f"ratings: {bot!r} has {rating!r}, not a Rating")
        rows.append(
            LeaderboardRow(
                bot=bot,
                rank=0,
                deals=len(found),
                hands=hands.get(bot, 0),
                chips_won=chips.get(bot, 0),
                estimate=estimate(found),
                rating=rating,
                average_place=None if places is None else places.get(bot),
                adjusted=None if adjusted is None else estimate(adjusted.get(bot, [])),
                score=score,
            )
        )
    key = _rating_key if order_by == "rating" else _mean_key
    rows.sort(key=lambda row: (key(row), row.bot))
    ranked: list[LeaderboardRow] = []
    for position, row in enumerate(rows, start=1):
        tied = ranked and key(ranked[-1]) == key(row)
        rank = ranked[-1].rank if tied else position
        ranked.append(replace(row, rank=rank))
    return Leaderboard(tuple(ranked), order_by, score)


def crosstable(
    pair_units: Mapping[tuple[str, str], Sequence[float]],
    bots: Sequence[str] | None = None,
    *,
    adjusted_pair_units: Mapping[tuple[str, str], Sequence[float]] | None = None,
    score: Score = "raw",
) -> Crosstable:
    """The crosstable of head-to-head results.

    ``pair_units[(a, b)]`` holds ``a``'s mbb/hand in each head-to-head unit against ``b``;
    ``b``'s cell against ``a`` is the negatives (heads-up, what one wins the other loses)
    unless ``(b, a)`` is given too. ``adjusted_pair_units``, when given, holds the
    luck-adjusted results of the same units (the same pairs, one for one); the marks are
    of ``score`` (``adjusted`` needs them). ``bots`` orders the rows and columns (default:
    as the bots first appear in the keys) and must name every bot of the keys. Bad input
    raises ``ValueError`` naming it.
    """
    score = _checked_score(score, adjusted_pair_units is not None)
    results = _pair_results(pair_units, "pair_units")
    adjusted = None
    if adjusted_pair_units is not None:
        adjusted = _pair_results(adjusted_pair_units, "adjusted_pair_units")
        if {pair: len(v) for pair, v in adjusted.items()} != {
            pair: len(v) for pair, v in results.items()
        }:
            raise ValueError("adjusted_pair_units must hold the same units of the same pairs")
    named = dict.fromkeys(bot for pair in pair_units for bot in pair)
    if bots is None:
        order = tuple(named)
    else:
        order = tuple(bots)
        missing = [bot for bot in named if bot not in order]
        if missing:
            raise ValueError(f"bots {list(order)!r} leave out {missing!r}")
        if len(set(order)) != len(order):
            raise ValueError(f"bots {list(order)!r} name a bot twice")
    cells = []
    for row in order:
        for column in order:
            if (row, column) not in results:
                continue
            raw = results[(row, column)]
            luck_free = None if adjusted is None else adjusted[(row, column)]
            scored = luck_free if score == "adjusted" and luck_free is not None else raw
            cells.append(
                CrosstableCell(
                    row,
                    column,
                    estimate(raw),
                    significance_mark(scored),
                    adjusted=None if luck_free is None else estimate(luck_free),
                    score=score,
                )
            )
    return Crosstable(order, tuple(cells), score)


def _checked_score(score: object, has_adjusted: bool) -> Score:
    checked = check_score(score)
    if checked == "adjusted" and not has_adjusted:
        raise ValueError("score 'adjusted' needs the adjusted units")
    return checked


def _pair_results(
    pair_units: Mapping[tuple[str, str], Sequence[float]], name: str
) -> dict[tuple[str, str], list[float]]:
    """Each pair's checked values, and each reverse pair's negatives unless given."""
    if not isinstance(pair_units, Mapping):
        raise ValueError(f"{name} must map (bot, bot) pairs to values, got {pair_units!r}")
    results: dict[tuple[str, str], list[float]] = {}
    for key, values in pair_units.items():
        if not isinstance(key, tuple) or len(key) != 2:
            raise ValueError(f"{name} key {key!r} is not a (bot, bot) pair")
        row, column = key
        _check_bot(row, name)
        _check_bot(column, name)
        if row == column:
            raise ValueError(f"{name} key {key!r} pairs a bot with itself")
        try:
            results[(row, column)] = checked_values(values)
        except ValueError as error:
            raise ValueError(f"{name} {key!r}: {error}") from None
    for (row, column), values in list(results.items()):
        # 0.0 - value rather than -value: a zero stays 0.0, not -0.0, in the results file.
        results.setdefault((column, row), [0.0 - value for value in values])
    return results


def significance_mark(values: Sequence[float]) -> str:
    """``'++'``/``'--'`` when the mean's 99% interval excludes 0, ``'+'``/``'-'`` when
    only the 95% one does, ``''`` otherwise.

    >>> significance_mark([1.0, 2.0, 3.0, 4.0, 5.0]), significance_mark([-1.0, 1.0])
    ('+', '')
    """
    strict = estimate(values, 0.99).sign
    return 2 * strict if strict else estimate(values, 0.95).sign


def _values_per_bot(units: Sequence[Mapping[str, float]]) -> dict[str, list[float]]:
    if isinstance(units, str) or not isinstance(units, Sequence):
        raise ValueError(f"units must be a sequence of bot -> mbb mappings, got {units!r}")
    values: dict[str, list[float]] = {}
    for index, unit in enumerate(units):
        if not isinstance(unit, Mapping):
            raise ValueError(f"unit {index} is not a bot -> mbb mapping: {unit!r}")
        for bot, value in unit.items():
            _check_bot(bot, f"unit {index}")
            if not is_real(value) or not math.isfinite(value):
                raise ValueError(f"unit {index}: {bot!r} has {value!r}, not a finite number")
            values.setdefault(bot, []).append(float(value))
    return values


def _check_bot(bot: object, where: str) -> None:
    if not isinstance(bot, str) or not bot:
        raise ValueError(f"{where}: bot {bot!r} is not a name")


def _check_mapping_values(mapping: Mapping[str, Any], name: str, *, is_int: bool) -> None:
    for bot, value in mapping.items():
        if is_int and not (isinstance(value, int) and not isinstance(value, bool)):
            raise ValueError(f"{name}: {bot!r} has {value!r}, not an integer")
        if not is_int and not (is_real(value) and math.isfinite(value)):
            raise ValueError(f"{name}: {bot!r} has {value!r}, not a finite number")


def _mean_key(row: LeaderboardRow) -> tuple[bool, float]:
    # Bots without units know nothing of their win rate: below every bot that has one.
    return (row.deals == 0, -row.scored.mean)


def _rating_key(row: LeaderboardRow) -> tuple[bool, float]:
    return (row.rating is None, 0.0 if row.rating is None else -row.rating.ordinal)
