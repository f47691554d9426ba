"""The made-hand term of the value (hold'em, from the flop on): the bets a made hand draws.

Many bots bet when their own cards make a strong hand and check when they do not; their
opponents call. Who holds such a hand then predicts where the chips still to be bet will
go, far better than the chips' counts alone. But which bots do this is not a property of
the cards: a calling station holding the same hand bets nothing. So the term is weighted,
per seat, by the seat's *lean*: how much more often that player bet or raised on the
streets where its own cards made two pair or better than on its other streets, over its
earlier hands of the match (:class:`BettingLeans`). A lean is fixed before the hand's cards
are dealt (the hands it is counted on are other deals), so it is part of a value function
fixed in advance, and every correction made with it still averages to zero.

For each live seat ``j`` holding a made hand on a board of 3 to 5 cards::

    amount_j = lean_j * w[board size] * min(pot, behind)

goes to seat ``j`` and is taken in equal parts from every live seat (``j`` included), so
the term sums to zero over the seats. ``behind`` is what two live players can both still
bet (0 once at most one has chips: nothing is left to bet, the term is 0).

A *made hand* is two pair or better whose category is above the board's own (the hand
uses the seat's cards: a pair on the board and a pair in the hand, not two pair on the
board). Unlike the equity, whether a hand is made is not a fair game over the cards, so a
street's average of the term is computed over the new cards: every turn or river card
(exact), and for the flop :data:`FLOPS` flops sampled from a stream of the hand's own,
as the equities' boards are (:class:`~arena.luck.equity.BoardSampler`, under a name of
its own): every one a uniformly random flop of the dealer's remaining deck, so the
sample's average is an unbiased estimate of the chance whatever the size; ``exact``
enumerates every flop, for the tests.

Pure: no I/O, no clock, no global random.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache

from arena.luck import fast_boards
from arena.luck.equity import BoardSampler, completions, unseen_cards
from arena.luck.parameters import PARAMETERS
from arena.luck.timeline import TableState
from engine._eval_tables import CATEGORY_WORST_CLASSES
from engine.cards import Card
from engine.evaluator import HandCategory, rank_class

__all__ = ["FLOPS", "MadeHandTerm", "is_made"]

#: Flops sampled for the chance of a made hand on the flop.
FLOPS: int = PARAMETERS["made_hand_flops"]

# What a board of 3 or 4 cards can be by itself: its largest groups of one rank.
_GROUPS = {
    (1, 1, 1): HandCategory.HIGH_CARD,
    (2, 1): HandCategory.ONE_PAIR,
    (3,): HandCategory.THREE_OF_A_KIND,
    (1, 1, 1, 1): HandCategory.HIGH_CARD,
    (2, 1, 1): HandCategory.ONE_PAIR,
    (2, 2): HandCategory.TWO_PAIR,
    (3, 1): HandCategory.THREE_OF_A_KIND,
    (4,): HandCategory.FOUR_OF_A_KIND,
}


#: The worst class of two pair: a class at most this is two pair or better.
_TWO_PAIR_WORST = CATEGORY_WORST_CLASSES[HandCategory.STRAIGHT_FLUSH - HandCategory.TWO_PAIR]


def _category(class_number: int) -> int:
    """:func:`engine.evaluator.category_of` as a plain number (no enum: it runs for
    every card a street could bring)."""
    return 9 - bisect_left(CATEGORY_WORST_CLASSES, class_number)


@lru_cache(maxsize=65536)  # the same boards recur across seats and a street's states
def board_category(board: tuple[Card, ...]) -> HandCategory:
    """The category of the board's own cards (3 to 5; fewer than five make no straight
    or flush).

    >>> from engine.cards import parse_cards
    >>> board_category(tuple(parse_cards("Ah Ad 7c 7s"))).name
    'TWO_PAIR'
    """
    if len(board) == 5:
        return HandCategory(_category(rank_class(board)))
    groups = tuple(sorted(Counter(card // 4 for card in board).values(), reverse=True))
    return _GROUPS[groups]


def _made(hole: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
    """:func:`is_made` uncached."""
    class_number = rank_class((*hole, *board))
    return class_number <= _TWO_PAIR_WORST and _category(class_number) > board_category(board)


@lru_cache(maxsize=65536)
def is_made(hole: tuple[Card, ...], board: tuple[Card, ...]) -> bool:
    """Whether ``hole`` with ``board`` (3 to 5 cards) makes two pair or better, above the
    board's own category.

    >>> from engine.cards import parse_cards
    >>> is_made(tuple(parse_cards("Ks 7d")), tuple(parse_cards("Kh 7c 2s")))
    True
    >>> is_made(tuple(parse_cards("Ks Qd")), tuple(parse_cards("Ah Ad 7c 7s")))
    False
    """
    return _made(hole, board)


def _behind(state: TableState) -> int:
    """The most two live seats can both still bet: the second-largest live stack."""
    stacks = sorted((s for s, alive in zip(state.stacks, state.live, strict=True) if alive))
    return stacks[-2] if len(stacks) >= 2 else 0


class MadeHandTerm:
    """The made-hand term over one hand's states: ``leans`` by position (0 for a seat
    without one), ``weights`` by board size (3, 4, 5), ``key`` the hand's own stream key
    (the flop's sample). ``active`` is False when no seat leans or no weight is set: then
    the term is 0 everywhere and adds nothing."""

    def __init__(
        self,
        leans: Sequence[float],
        weights: Mapping[int, float],
        key: bytes,
        *,
        exact: bool = False,
    ) -> None:
        self.leans = tuple(leans)
        self.weights = {size: float(weights.get(size, 0.0)) for size in (3, 4, 5)}
        self.key = key
        self.exact = exact
        self.active = any(lean > 0 for lean in self.leans) and any(self.weights.values())
        self._flops: dict[frozenset[Card], list[tuple[Card, ...]]] = {}

    def _amounts(self, state: TableState, board_size: int) -> tuple[list[int], float] | None:
        """The live positions and the chips one unit of lean moves on a street of
        ``board_size`` cards (None: the term is 0 there)."""
        weight = self.weights.get(board_size, 0.0)
        if not weight or board_size < 3:
            return None
        live = [p for p, alive in enumerate(state.live) if alive]
        chips = min(sum(state.committed), _behind(state))
        if len(live) < 2 or chips <= 0:
            return None
        return live, weight * chips

    def add(self, values: list[float], state: TableState) -> None:
        """Add the term of ``state`` to ``values`` (by position)."""
        found = self._amounts(state, len(state.board))
        if found is None:
            return
        live, unit = found
        for position in live:
            lean = self.leans[position]
            if lean > 0 and is_made(state.hands[position], state.board):
                _share(values, live, position, lean * unit)

    def add_expected(self, values: list[float], before: TableState, board_size: int) -> None:
        """Add the term's average over every way the board of ``before`` could be dealt up
        to ``board_size`` cards (the chips and the live seats do not change with the
        cards; whether a hand is made does)."""
        found = self._amounts(before, board_size)
        if found is None:
            return
        live, unit = found
        for position in live:
            lean = self.leans[position]
            if lean > 0:
                chance = self.made_chance(before, before.hands[position], board_size)
                _share(values, live, position, lean * unit * chance)

    def made_chance(self, before: TableState, hole: tuple[Card, ...], board_size: int) -> float:
        """The chance that ``hole`` makes a made hand once the board of ``before`` has
        ``board_size`` cards: over every card still to come from the dealer's remaining
        deck (the cards nobody was shown), or a sample of flops."""
        missing = board_size - len(before.board)
        board = before.board
        if missing == 1:
            return _one_card_chance(hole, board, unseen_cards(before.out))
        if missing == 3 and not self.exact:
            extras = self._flops.get(before.out)
            if extras is None:
                # A sampler of its own (not the equities' boards): the pool's one shuffle
                # read through the sampler's fixed design, each flop a uniform one.
                key = self.key + b"|made|" + bytes(board)
                sampler = BoardSampler(
                    key, unseen_cards(before.out), 3, fast=fast_boards.USE_FAST_BOARDS
                )
                extras = self._flops[before.out] = sampler.first(FLOPS)
        else:
            extras = completions(unseen_cards(before.out), missing)
        made = sum(_made(hole, (*board, *extra)) for extra in extras)
        return made / len(extras)


def _one_card_chance(
    hole: tuple[Card, ...], board: tuple[Card, ...], cards: Sequence[Card]
) -> float:
    """The share of ``cards`` that make ``hole`` a made hand when added to ``board``. A
    card whose suit cannot make a flush (fewer than four of it in the hand and on the
    board) gives what any card of its rank gives: each such rank is tested once, with one
    of its cards, and counts for all of them."""
    suits = [0, 0, 0, 0]
    for card in (*hole, *board):
        suits[card & 3] += 1
    by_rank: dict[int, list[Card]] = {}
    made = 0
    for card in cards:
        if suits[card & 3] >= 4:  # this card's suit may make a flush: tested alone
            made += _made(hole, (*board, card))
        else:
            by_rank.setdefault(card >> 2, []).append(card)
    for same in by_rank.values():
        if _made(hole, (*board, same[0])):
            made += len(same)
    return made / len(cards)


def _share(values: list[float], live: Sequence[int], position: int, amount: float) -> None:
    """``amount`` to ``position``, taken in equal parts from every live seat."""
    values[position] += amount
    part = amount / len(live)
    for member in live:
        values[member] -= part
