"""Results per hand in milli-big-blinds, and the duplicate deal as the unit of independence.

A match's hand results are measured in milli-big-blinds (mbb): 1000 times the chips won
over that hand's own big blind, so hands of different blind levels weigh the same.

Duplicate poker: a block of matches plays the same deals (same seed, same hand numbers)
with the seats arranged differently. Heads-up the pair plays N deals as (A, B), then the
same deals as (B, A); a ring of k bots plays them in k rotations, so every bot holds every
seat's cards for every deal. Luck of the cards then cancels to a large part: what is left
of a deal is mostly the difference in play. When stacks are reset every hand, the hands
of different deals are independent, but the hands of one deal across the block are not
(they share the cards), so the statistical unit is the duplicate deal: each bot's mean
result over the block's arrangements of that deal.

Units are of either score (:mod:`arena.stats.scores`): the raw chips won (the default) or
the luck-adjusted result, read through the one selector :func:`~arena.stats.scores.hand_values`.

The functions read a match through the small structural types below (any object with these
attributes will do); :class:`arena.store.outcome.MatchOutcome` is one.

>>> mbb(3, 2)
1500.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from arena.stats.scores import AdjustedHandLike, Score, check_score, hand_values

__all__ = [
    "HandLike",
    "OutcomeLike",
    "SeatLike",
    "duplicate_units",
    "mbb",
    "plain_units",
]


class SeatLike(Protocol):
    """One seat of a match: its index (the position of its net in each hand) and its bot."""

    @property
    def seat_index(self) -> int: ...

    @property
    def bot(self) -> str: ...


class HandLike(AdjustedHandLike, Protocol):
    """One finished hand: its number, its big blind and each seat's net chips by seat index
    (and, when the luck estimator ran, each seat's adjusted result; else None)."""

    @property
    def big_blind(self) -> int: ...


class OutcomeLike(Protocol):
    """A finished match: its id, seats and hands, and whether its results count."""

    @property
    def match_id(self) -> str: ...

    @property
    def seats(self) -> Sequence[SeatLike]: ...

    @property
    def hands(self) -> Sequence[HandLike]: ...

    @property
    def is_counted(self) -> bool: ...


def mbb(chips: int, big_blind: int) -> float:
    """``chips`` in milli-big-blinds: ``1000 * chips / big_blind``.

    >>> mbb(-1, 2), mbb(0, 10)
    (-500.0, 0.0)
    """
    if not _is_int(chips):
        raise ValueError(f"chips must be an integer, got {chips!r}")
    if not _is_int(big_blind) or big_blind <= 0:
        # An ante-only game has no big blind to measure by.
        raise ValueError(f"big_blind must be a positive integer, got {big_blind!r}")
    return 1000.0 * chips / big_blind


def plain_units(outcome: OutcomeLike, *, score: Score = "raw") -> list[dict[str, float]]:
    """Each hand of one match on its own: one dict per hand (in hand-number order), bot ->
    mbb won in that hand (under ``score``). The baseline that duplicate deals are compared
    with."""
    return [units for _, units in sorted(_hand_results(outcome, check_score(score)).items())]


def duplicate_units(
    block: Sequence[OutcomeLike], *, score: Score = "raw"
) -> list[dict[str, float]]:
    """One dict per duplicate deal of ``block`` (in hand-number order): bot -> the mean,
    over the block's matches, of the bot's mbb result in that deal (under ``score``: the
    chips won, or the luck-adjusted result, which every hand must then carry).

    Heads-up, A's result in a deal is (A's mbb as seat 0 + A's mbb as seat 1) / 2. Every
    match of the block must seat the same bots (in any order) and be counted (a failed
    match's results do not count: leave it out of the block). A deal is kept only if every
    match of the block played it: hands that only some arrangements reached (a match cut
    short, a last hand missing) are dropped, since a deal seen from some seats only would
    bring back the luck of the cards that duplicate play cancels.

    A ``ValueError`` names the bad match, hand or value.
    """
    if isinstance(block, str) or not isinstance(block, Sequence) or not block:
        raise ValueError(f"a duplicate block needs at least one match, got {block!r}")
    score = check_score(score)
    bots: frozenset[str] | None = None
    per_match: list[dict[int, dict[str, float]]] = []
    for outcome in block:
        if not outcome.is_counted:
            raise ValueError(
                f"match {outcome.match_id!r} did not end normally and does not count: "
                "leave it out of the block"
            )
        results = _hand_results(outcome, score)
        names = frozenset(seat.bot for seat in outcome.seats)
        if bots is None:
            bots = names
        elif names != bots:
            raise ValueError(
                f"match {outcome.match_id!r} seats {sorted(names)}, but the block's first "
                f"match seats {sorted(bots)}: a duplicate block seats the same bots"
            )
        per_match.append(results)
    common = set(per_match[0]).intersection(*per_match[1:])
    count = len(per_match)
    units: list[dict[str, float]] = []
    for hand_number in sorted(common):
        deal = [results[hand_number] for results in per_match]
        # fsum is exactly rounded: the same mean whatever order the matches finished in.
        units.append({bot: math.fsum(hand[bot] for hand in deal) / count for bot in deal[0]})
    return units


def _hand_results(outcome: OutcomeLike, score: Score) -> dict[int, dict[str, float]]:
    """Hand number -> bot -> mbb (of ``score``) for one match, every hand and seat checked."""
    names: dict[int, str] = {}
    for seat in outcome.seats:
        if not _is_int(seat.seat_index) or seat.seat_index < 0:
            raise ValueError(
                f"match {outcome.match_id!r}: bad seat index {seat.seat_index!r} (bot {seat.bot!r})"
            )
        if seat.bot in names.values() or seat.seat_index in names:
            raise ValueError(
                f"match {outcome.match_id!r} seats bot {seat.bot!r} at seat "
                f"{seat.seat_index}, but that bot or seat is taken: give each seat its own "
                "bot name"
            )
        names[seat.seat_index] = seat.bot
    if len(names) < 2:
        raise ValueError(f"match {outcome.match_id!r} has {len(names)} seat(s), needs 2 or more")
    results: dict[int, dict[str, float]] = {}
    for hand in outcome.hands:
        where = f"match {outcome.match_id!r} hand {hand.hand_number!r}"
        if not _is_int(hand.hand_number) or hand.hand_number in results:
            raise ValueError(f"{where}: the hand number is not an integer or comes twice")
        if len(hand.nets) <= max(names):
            raise ValueError(f"{where}: {len(hand.nets)} nets for seat indexes up to {max(names)}")
        if not all(_is_int(net) for net in hand.nets):
            raise ValueError(f"{where}: nets {tuple(hand.nets)!r} are not all integers")
        if sum(hand.nets) != 0:
            # What one seat wins the others lose: a hand that is not zero-sum is corrupt.
            raise ValueError(f"{where}: nets {tuple(hand.nets)} do not add up to 0")
        if not _is_int(hand.big_blind) or hand.big_blind <= 0:
            raise ValueError(
                f"{where}: big_blind must be a positive integer, got {hand.big_blind!r}"
            )
        if score == "raw":
            results[hand.hand_number] = {
                bot: mbb(hand.nets[index], hand.big_blind) for index, bot in names.items()
            }
            continue
        try:
            values = hand_values(hand, score)
        except ValueError as error:
            raise ValueError(f"match {outcome.match_id!r} {error}") from None
        if len(values) != len(hand.nets):
            raise ValueError(f"{where}: {len(values)} adjusted results for {len(hand.nets)} seats")
        results[hand.hand_number] = {
            bot: 1000.0 * values[index] / hand.big_blind for index, bot in names.items()
        }
    return results


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
