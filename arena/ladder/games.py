"""What the ladder learns from a game: the value types its decisions read.

A ladder game is one duplicate unit between two bot versions: a block of deals played
once each way round (the same cards, seats swapped), so the luck of the cards cancels to a
large part. Its score is the first bot's mean result in mbb/hand over the game's hands,
luck-adjusted (the luck estimator's, :mod:`arena.luck`), with the raw result beside it;
the second bot's score is the opposite (heads-up is zero-sum); :func:`game_from_block`
makes it from the block's matches. Games are the ladder's
statistical unit: independent of each other, and all of a ladder's games have the same
number of deals, so each weighs the same.

>>> game = GameResult("ann-v2", "bob-v1", adjusted_mbb=35.0, raw_mbb=-120.0, hand_count=200)
>>> game.score_for("bob-v1"), game.pair
(-35.0, ('ann-v2', 'bob-v1'))
>>> records = pair_records([game, GameResult("bob-v1", "ann-v2", 5.0, 40.0, 200)])
>>> records[("ann-v2", "bob-v1")].adjusted
(35.0, -5.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.stats.intervals import Estimate, estimate
from arena.stats.units import OutcomeLike, duplicate_units

__all__ = ["GameResult", "PairRecord", "game_from_block", "pair_records"]


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished duplicate game: ``first``'s luck-adjusted and raw mbb/hand against
    ``second`` over ``hand_count`` hands (both seatings). ``is_rated`` is False for games
    that must not move the ladder (unranked test games, a version's own test against its
    team's active one). A bad field raises ``ValueError`` naming it."""

    first: str
    second: str
    adjusted_mbb: float
    raw_mbb: float
    hand_count: int
    is_rated: bool = True

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
class PairRecord:
    """Every rated game of one pair, from the point of view of ``first`` (``first <
    second``): its luck-adjusted and raw mbb/hand per game and the hands played."""

    first: str
    second: str
    adjusted: tuple[float, ...]
    raw: tuple[float, ...]
    hand_count: int

    @property
    def game_count(self) -> int:
        """How many games the pair played."""
        return len(self.adjusted)

    def adjusted_estimate(self, confidence: float = 0.95) -> Estimate:
        """``first``'s luck-adjusted mbb/hand with its interval over the games."""
        return estimate(self.adjusted, confidence)

    def raw_estimate(self, confidence: float = 0.95) -> Estimate:
        """``first``'s raw mbb/hand with its interval over the games."""
        return estimate(self.raw, confidence)


def pair_records(games: Iterable[GameResult]) -> dict[tuple[str, str], PairRecord]:
    """The rated games grouped by pair (key: the sorted names), in the order given; the
    unrated ones are left out."""
    adjusted: dict[tuple[str, str], list[float]] = {}
    raw: dict[tuple[str, str], list[float]] = {}
    hands: dict[tuple[str, str], int] = {}
    for game in games:
        if not game.is_rated:
            continue
        key = game.pair
        adjusted.setdefault(key, []).append(game.score_for(key[0]))
        raw.setdefault(key, []).append(game.raw_for(key[0]))
        hands[key] = hands.get(key, 0) + game.hand_count
    return {
        key: PairRecord(key[0], key[1], tuple(values), tuple(raw[key]), hands[key])
        for key, values in adjusted.items()
    }


def game_from_block(
    block: Sequence[OutcomeLike], first: str, second: str, *, is_rated: bool = True
) -> GameResult:
    """The ladder game a played duplicate block makes (its matches: the same seed, the
    seats swapped; each hand carrying its luck-adjusted result): ``first``'s mean over the
    block's deals, luck-adjusted and raw (:func:`arena.stats.units.duplicate_units`; a
    deal not played by every match is left out). A block of other bots, or without a deal
    every match played, raises ``ValueError`` naming it."""
    adjusted = duplicate_units(block, score="adjusted")
    raw = duplicate_units(block, score="raw")
    seated = {seat.bot for seat in block[0].seats}
    if seated != {first, second}:
        raise ValueError(f"the block seats {sorted(seated)}, not {first!r} and {second!r}")
    if not adjusted:
        ids = [outcome.match_id for outcome in block]
        raise ValueError(f"no deal was played by every match of the block {ids!r}")
    return GameResult(
        first,
        second,
        adjusted_mbb=math.fsum(deal[first] for deal in adjusted) / len(adjusted),
        raw_mbb=math.fsum(deal[first] for deal in raw) / len(raw),
        hand_count=len(adjusted) * len(block),
        is_rated=is_rated,
    )
