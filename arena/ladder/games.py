"""What the ladder learns from a game: the value types its decisions read.

A heads-up ladder game is one duplicate unit between two bot versions: a block of deals
played once each way round (the same cards, seats swapped), so the luck of the cards
cancels to a large part. Its score is the first bot's mean result in mbb/hand over the
game's hands, luck-adjusted (the luck estimator's, :mod:`arena.luck`), with the raw result
beside it; the second bot's score is the opposite (heads-up is zero-sum);
:func:`game_from_block` makes it from the block's matches. Games are the ladder's
statistical unit: independent of each other, and all of a ladder's games have the same
number of deals.

A ring table of ``n`` bots (3 to 10) is one duplicate unit too: the same deals played in
the ``n`` rotations of the seats (:func:`table_from_block`). Its :class:`TableResult` holds
each bot's mean mbb/hand, and :meth:`TableResult.pairwise` turns it into the ``n(n-1)/2``
pair comparisons the ratings read. With the additive model, a bot's expected score at a
table is its strength less the mean strength of the others, ``E[x_a] = s_a - mean_{b != a}
s_b``, so ``E[x_a - x_b] = s_a - s_b + (s_a - s_b) / (n - 1) = n / (n - 1) * (s_a - s_b)``
and ``(n - 1) / n * (x_a - x_b)`` estimates ``s_a - s_b`` without bias. The comparisons of
one table share its noise: with independent noise of variance ``v`` on each bot's score,
the comparisons' summed information (each its own inverse variance, as if independent) is
``n^3 / (2 (n-1)^2 v) (I - J/n)`` against the table's true ``n^2 / ((n-1)^2 v) (I - J/n)``
(``A^T A / v`` for the centring model ``x = A s + noise``): ``n / 2`` times too much. So
each comparison carries the weight ``2 / n`` (one for heads-up, where the one comparison is
the game), the share of one game's information that :class:`GameResult.weight` holds.

>>> game = GameResult("ann-v2", "bob-v1", adjusted_mbb=35.0, raw_mbb=-120.0, hand_count=200)
>>> game.score_for("bob-v1"), game.pair
(-35.0, ('ann-v2', 'bob-v1'))
>>> table = TableResult(("ann", "bob", "cat"), (30.0, 0.0, -30.0), (30.0, 0.0, -30.0), 300)
>>> [(g.first, g.second, g.adjusted_mbb, round(g.weight, 3)) for g in table.pairwise()]
[('ann', 'bob', 20.0, 0.667), ('ann', 'cat', 40.0, 0.667), ('bob', 'cat', 20.0, 0.667)]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.stats.units import OutcomeLike, duplicate_units

__all__ = [
    "GameResult",
    "TableResult",
    "game_from_block",
    "table_from_block",
]

#: The most seats a table has.
MAX_SEATS = 10


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished duplicate game: ``first``'s luck-adjusted and raw mbb/hand against
    ``second`` over ``hand_count`` hands (both seatings). ``is_rated`` is False for games
    that must not move the ladder (unranked test games, a version's own test against its
    team's active one). ``weight`` is the share of one heads-up game's information the
    comparison carries: 1 for a heads-up game, ``2 / n`` for one pair of an ``n``-seat table
    (see the module docstring). A bad field raises ``ValueError`` naming it."""

    first: str
    second: str
    adjusted_mbb: float
    raw_mbb: float
    hand_count: int
    is_rated: bool = True
    weight: float = 1.0

    def __post_init__(self) -> None:
        for name in ("first", "second"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a bot version's name, got {value!r}")
        if self.first == self.second:
            raise ValueError(f"a game needs two bot versions, got {self.first!r} twice")
        for name in ("adjusted_mbb", "raw_mbb"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise ValueError(f"{name} must be a number of mbb/hand, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name} must be finite, got {value!r}")
        count = self.hand_count
        if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
            raise ValueError(f"hand_count must be a positive integer, got {count!r}")
        weight = self.weight
        if (
            not isinstance(weight, int | float)
            or isinstance(weight, bool)
            or not 0.0 < weight <= 1.0  # NaN fails this too
        ):
            raise ValueError(f"weight must be a number above 0 and at most 1, got {weight!r}")

    @property
    def pair(self) -> tuple[str, str]:
        """The two names, sorted: the key of the pair's record."""
        return (self.first, self.second) if self.first < self.second else (self.second, self.first)

    def score_for(self, bot: str) -> float:
        """The luck-adjusted mbb/hand of ``bot``, one of the two players."""
        return self._signed(bot, self.adjusted_mbb)

    def raw_for(self, bot: str) -> float:
        """The raw mbb/hand of ``bot``, one of the two players."""
        return self._signed(bot, self.raw_mbb)

    def _signed(self, bot: str, value: float) -> float:
        if bot == self.first:
            return value
        if bot == self.second:
            return -value
        raise ValueError(f"bot {bot!r} did not play this game ({self.first} vs {self.second})")


@dataclass(frozen=True, slots=True)
class TableResult:
    """One finished ring table (a duplicate unit: the same deals in every rotation of the
    seats): each bot's luck-adjusted and raw mean mbb/hand over the game's deals, bots in
    the seat order of the first match, over ``hand_count`` hands (every match's).
    ``is_rated`` as in :class:`GameResult`. A bad field raises ``ValueError`` naming it.

    >>> TableResult(("ann", "bob"), (5.0, -5.0), (9.0, -9.0), 200).pairwise()[0].adjusted_mbb
    5.0
    """

    bots: tuple[str, ...]
    adjusted: tuple[float, ...]
    raw: tuple[float, ...]
    hand_count: int
    is_rated: bool = True

    def __post_init__(self) -> None:
        bots = self.bots
        if not isinstance(bots, tuple) or not 2 <= len(bots) <= MAX_SEATS:
            raise ValueError(f"bots must be a tuple of 2 to {MAX_SEATS} names, got {bots!r}")
        for bot in bots:
            if not isinstance(bot, str) or not bot:
                raise ValueError(f"bots must be bot versions' names, got {bot!r} in {bots!r}")
        if len(set(bots)) != len(bots):
            raise ValueError(f"a table seats each bot version once, got {bots!r}")
        for name in ("adjusted", "raw"):
            values = getattr(self, name)
            if not isinstance(values, tuple) or len(values) != len(bots):
                raise ValueError(f"{name} must be a tuple of {len(bots)} numbers, got {values!r}")
            for value in values:
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise ValueError(f"{name} must hold numbers of mbb/hand, got {value!r}")
                if not math.isfinite(value):
                    raise ValueError(f"{name} must hold finite numbers, got {value!r}")
        count = self.hand_count
        if not isinstance(count, int) or isinstance(count, bool) or count <= 0:
            raise ValueError(f"hand_count must be a positive integer, got {count!r}")

    def score_for(self, bot: str) -> float:
        """The luck-adjusted mbb/hand of ``bot``, one of the table's bots."""
        return self.adjusted[self._seat(bot)]

    def raw_for(self, bot: str) -> float:
        """The raw mbb/hand of ``bot``, one of the table's bots."""
        return self.raw[self._seat(bot)]

    def pairwise(self) -> tuple[GameResult, ...]:
        """The table as the ratings read it: for each pair ``i < j`` in ``bots`` order, a
        game of ``bots[i]`` against ``bots[j]`` scored ``(n-1)/n`` of their difference
        (luck-adjusted and raw), weight ``2/n`` (see the module docstring for both). For two
        bots it is the heads-up game."""
        n = len(self.bots)
        weight = 2.0 / n
        games = []
        for i, j in itertools.combinations(range(n), 2):
            games.append(
                GameResult(
                    self.bots[i],
                    self.bots[j],
                    adjusted_mbb=(n - 1) * (self.adjusted[i] - self.adjusted[j]) / n,
                    raw_mbb=(n - 1) * (self.raw[i] - self.raw[j]) / n,
                    hand_count=self.hand_count,
                    is_rated=self.is_rated,
                    weight=weight,
                )
            )
        return tuple(games)

    def _seat(self, bot: str) -> int:
        try:
            return self.bots.index(bot)
        except ValueError:
            raise ValueError(f"bot {bot!r} did not play at this table {self.bots!r}") from None


def game_from_block(
    block: Sequence[OutcomeLike], first: str, second: str, *, is_rated: bool = True
) -> GameResult:
    """The ladder game a played duplicate block makes (its matches: the same seed, the
    seats swapped; each hand carrying its luck-adjusted result): ``first``'s mean over the
    block's deals, luck-adjusted and raw (:func:`arena.stats.units.duplicate_units`; a
    deal not played by every match is left out). A block of other bots, or without a deal
    every match played, raises ``ValueError`` naming it."""
    adjusted, raw = _block_units(block, (first, second))
    return GameResult(
        first,
        second,
        adjusted_mbb=math.fsum(deal[first] for deal in adjusted) / len(adjusted),
        raw_mbb=math.fsum(deal[first] for deal in raw) / len(raw),
        hand_count=len(adjusted) * len(block),
        is_rated=is_rated,
    )


def table_from_block(
    block: Sequence[OutcomeLike], bots: Sequence[str], *, is_rated: bool = True
) -> TableResult:
    """The table a played duplicate block of ``n`` matches makes (the ``n`` rotations of
    the seats, the same seed): each of ``bots``' mean over the deals every match played,
    luck-adjusted and raw, in the order of ``bots`` (the first match's seat order);
    ``hand_count`` is the deals times the matches. A block of other bots, or without a deal
    every match played, raises ``ValueError`` naming it."""
    names = tuple(bots)
    adjusted, raw = _block_units(block, names)
    return TableResult(
        names,
        adjusted=tuple(math.fsum(deal[bot] for deal in adjusted) / len(adjusted) for bot in names),
        raw=tuple(math.fsum(deal[bot] for deal in raw) / len(raw) for bot in names),
        hand_count=len(adjusted) * len(block),
        is_rated=is_rated,
    )


def _block_units(
    block: Sequence[OutcomeLike], bots: Sequence[str]
) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """The block's duplicate deals, luck-adjusted and raw, checked to seat ``bots`` and to
    have a deal every match played."""
    adjusted = duplicate_units(block, score="adjusted")
    raw = duplicate_units(block, score="raw")
    seated = {seat.bot for seat in block[0].seats}
    if seated != set(bots) or len(set(bots)) != len(bots):
        named = " and ".join(repr(bot) for bot in bots)
        raise ValueError(f"the block seats {sorted(seated)}, not {named}")
    if not adjusted:
        ids = [outcome.match_id for outcome in block]
        raise ValueError(f"no deal was played by every match of the block {ids!r}")
    return adjusted, raw
