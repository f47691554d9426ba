"""Showdown equities: each live hand's share of each pot if the hands went to showdown now.

Theory of operation: a hold'em board is completed from ``unseen``, the cards the dealer has
shown nobody (every hand ever dealt, folded ones included, and the board are out). The
value function (``arena.luck.value``) decides per board whether every completion is
enumerated (:func:`completions`: the river's one, the turn's 40-odd, a flop's 990-odd in a
big pot) or sampled (:class:`BoardSampler`: the unseen cards shuffled by a stream keyed by
the hand and the board - :class:`engine.seeds.StreamRandom`, so the same hand always gets
the same sample and nothing in the deal predicts it - and read through a fixed design of
position subsets). Samples are prefixes of one list per board: in an estimate every state
of a street reads the same completions (as many as the street's pot as played sets), so
they share their sampling noise, which then mostly cancels between the terms before and
after a street; a state valued alone with a bigger pot reads more of the same list. A five-card-draw
hand has no board: its showdown is the current hands.

Shares are fractions of a pot (ties split evenly, no odd chip): for a pot open to the hands
``members``, ``shares[k]`` is the expected fraction of that pot member ``k`` wins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import combinations
from math import comb
from operator import add, eq, itemgetter, lt, truediv

from arena.luck import fast_boards, fast_ranks, preflop
from engine._eval_tables import fill_tables
from engine.cards import FULL_DECK, Card
from engine.evaluator import rank_class
from engine.seeds import StreamRandom

__all__ = [
    "BoardSampler",
    "completions",
    "pot_shares",
    "prepare",
    "sample_subsets",
    "unseen_cards",
]


def unseen_cards(out: frozenset[Card]) -> tuple[Card, ...]:
    """The cards nobody has been shown, in deck order (2c, 2d, ... As: a card's number is
    its place in the deck)."""
    return tuple(sorted(_DECK - out))


_DECK = frozenset(FULL_DECK)


def sample_subsets(
    stream: StreamRandom, cards: list[Card], size: int, count: int
) -> list[tuple[Card, ...]]:
    """``count`` uniform ``size``-card subsets of ``cards``, each the first ``size`` cards
    after a partial Fisher-Yates shuffle of the list in place. The list is the state of the
    draw: carry on with the same list (and stream) and the next subsets follow, so that
    drawing 10 then 20 gives the same 30 subsets as drawing 30."""
    length = len(cards)
    next_byte = stream.next_byte
    # Each index below ``n`` is one byte of the stream, bytes at or above the largest
    # multiple of ``n`` rejected (so every index is equally likely); pools hold at most 52.
    limits = [256 - 256 % (length - k) for k in range(size)]
    subsets: list[tuple[Card, ...]] = []
    for _ in range(count):
        for k in range(size):
            n = length - k
            byte = next_byte()
            while byte >= limits[k]:
                byte = next_byte()
            j = k + byte % n
            cards[k], cards[j] = cards[j], cards[k]
        subsets.append(tuple(cards[:size]))
    return subsets


@lru_cache(maxsize=64)
def _design(pool_size: int, size: int) -> tuple[Callable[[Sequence[Card]], tuple[Card, ...]], ...]:
    """A fixed list of ``size``-subsets of the positions ``0..pool_size-1`` (as getters),
    the same in every process: drawn once from a stream of its own."""
    stream = StreamRandom(b"poker-arena luck v1|design|%d|%d" % (pool_size, size))
    positions: list[Card] = [Card(index) for index in range(pool_size)]
    subsets = sample_subsets(stream, positions, size, DESIGN_SIZE)
    return tuple(itemgetter(*map(int, subset)) for subset in subsets)


#: How many completions a sampler can give (the sample rule's ceiling).
DESIGN_SIZE = 1024


def prepare(players: int) -> None:
    """Make in this process, once, what the first estimate of a hold'em hand dealt to
    ``players`` reads: the evaluator's tables, the fast ranker's array
    (:func:`~arena.luck.fast_ranks.dense_classes`), the heads-up pre-flop table
    (:func:`~arena.luck.preflop.load_table`) and the designs of the flop's samples and,
    with more than two players, the pre-flop's (2 ms each). A process forked afterwards -
    a match's estimator's - starts with them instead of making them again for every
    match."""
    fill_tables()
    fast_ranks.dense_classes()
    preflop.load_table()
    unseen = len(FULL_DECK) - 2 * players  # before the flop; the burn cards stay unseen
    if players >= 2 and unseen - 3 >= 2:
        if players > 2:  # two hands' pre-flop equities are the table's, not sampled
            _design(unseen, 5)
        _design(unseen - 3, 2)


class BoardSampler:
    """Sampled completions of one board: ``size``-card completions from ``unseen``, drawn
    from the stream of ``key``; :meth:`first` gives the first ones.

    The unseen cards are shuffled once (the stream's only use), then read through a fixed
    design of position subsets: each completion is a uniformly random one (any fixed set
    of positions of a uniformly shuffled deck is), which is all an unbiased average needs,
    and a completion costs one lookup instead of a partial shuffle.

    ``fast`` shuffles by :func:`arena.luck.fast_boards.shuffled` (the same cards, faster).
    """

    def __init__(
        self, key: bytes, unseen: Sequence[Card], size: int = 5, *, fast: bool = False
    ) -> None:
        if size < 2:  # one card is always enumerated (and a 1-getter gives no tuple)
            raise ValueError(f"a sampler deals 2 or more cards, not {size}")
        stream_key = b"poker-arena luck v1|boards|" + key
        if fast:
            self._shuffled: Sequence[Card] = fast_boards.shuffled(stream_key, unseen)
        else:
            # A whole Fisher-Yates shuffle: the first len(cards) cards of a partial one.
            cards = list(unseen)
            self._shuffled = sample_subsets(StreamRandom(stream_key), cards, len(cards), 1)[0]
        self._design = _design(len(unseen), size)
        self._boards: list[tuple[Card, ...]] = []

    @property
    def boards(self) -> list[tuple[Card, ...]]:
        """Every completion given so far, in order (the list grows; do not change it)."""
        return self._boards

    def first(self, count: int) -> list[tuple[Card, ...]]:
        """The first ``count`` completions (at most :data:`DESIGN_SIZE`)."""
        have = len(self._boards)
        if count > have:
            shuffled = self._shuffled
            getters = self._design[have:count]
            self._boards.extend([getter(shuffled) for getter in getters])
        return self._boards[:count]

    def board(self, index: int) -> tuple[Card, ...]:
        """Completion ``index`` (as :meth:`first` gives it), made alone."""
        return self._design[index](self._shuffled)

    def key_sums(self, start: int, stop: int) -> list[int]:
        """The card-key sums of completions ``start`` to ``stop`` (those of
        :class:`~arena.luck.fast_ranks.BoardSums`, read through the design)."""
        return fast_boards.design_sums(self._shuffled, self._design[start:stop])


def completions(unseen: Sequence[Card], missing: int) -> list[tuple[Card, ...]]:
    """Every way to complete a board missing ``missing`` cards (in a fixed order; one
    empty completion when none is missing).

    >>> completions(FULL_DECK[:3], 2), completions(FULL_DECK[:3], 0)
    ([(Card('2c'), Card('2d')), (Card('2c'), Card('2h')), (Card('2d'), Card('2h'))], [()])
    """
    return list(combinations(unseen, missing))


def pot_shares(ranks: Sequence[Sequence[int]], members: Sequence[int]) -> list[float]:
    """Each member's expected fraction of a pot: ``ranks[h][k]`` is hand ``h``'s class on
    completion ``k`` (lower is better); ``members`` index ``ranks``. Ties split evenly.

    >>> pot_shares([[1, 5, 3], [2, 5, 1]], [0, 1])
    [0.5, 0.5]
    >>> pot_shares([[1, 5], [2, 5], [1, 6]], [0, 1, 2]), pot_shares([[4]], [0])
    ([0.5, 0.25, 0.25], [1.0])
    """
    if len(members) == 1:
        return [1.0]
    rows = [ranks[m] for m in members]
    count = len(rows[0])
    # Whole columns at a time with C-level map(): this runs for every state of every hand.
    if len(rows) == 2:
        first, second = rows
        wins = sum(map(lt, first, second))
        ties = sum(map(eq, first, second))
        share = (wins + 0.5 * ties) / count
        return [share, 1.0 - share]
    best = list(map(min, *rows))
    is_best = [list(map(eq, row, best)) for row in rows]
    winners = is_best[0]
    for flags in is_best[1:]:
        winners = list(map(add, winners, flags))
    if max(winners) == 1:  # no tie on any board (the usual case): count the wins
        return [sum(flags) / count for flags in is_best]
    return [sum(map(truediv, flags, winners)) / count for flags in is_best]


def hand_ranks(
    hole: tuple[Card, ...], board: tuple[Card, ...], boards: Sequence[tuple[Card, ...]]
) -> list[int]:
    """The class of ``hole`` with ``board`` completed by each of ``boards``."""
    return [rank_class((*hole, *board, *extra)) for extra in boards]


def exact_count(pool_size: int, missing: int) -> int:
    """How many completions an exact enumeration visits."""
    return comb(pool_size, missing)
