"""Faster seven-card ranks for the equity loops: one addition and one lookup per board.

The plain way (:func:`arena.luck.equity.hand_ranks`) calls ``engine.evaluator.rank_class``
on every hand and board: seven key lookups each time. Here the evaluator's own card keys
(``engine._eval_tables``, whose sums name a hand's rank multiset and count its suits) are
summed once per hole (with the board so far) and once per board completion, so ranking a
hand on a completion is adding two sums and one dict lookup. Flushes - a suit counter
past its threshold, about 3% of boards - fall back to ``rank_class``. The answers are the
evaluator's, bit for bit (``tests/arena/luck/test_fast_ranks.py`` checks it); the value
function uses this module when :data:`USE_FAST_RANKS` is true.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine._eval_tables import (
    CARD_KEYS,
    FIRST_CARD_KEYS,
    FLUSH_BITS,
    NONFLUSH_CLASSES,
    RANK_SHIFT,
    fill_tables,
)
from engine.cards import Card
from engine.evaluator import rank_class

__all__ = ["USE_FAST_RANKS", "BoardSums", "fast_hand_ranks"]

#: The switch: false makes the value function rank every hand with ``rank_class`` (read
#: when a value function is made, so a test can turn it off).
USE_FAST_RANKS = True

_SEVEN = NONFLUSH_CLASSES[7]


def _sums(boards: Sequence[tuple[Card, ...]]) -> list[int]:
    keys = CARD_KEYS
    size = len(boards[0]) if boards else 0
    if size == 2:  # the flop's completions: the commonest case
        return [keys[a] + keys[b] for a, b in boards]
    if size == 1:  # the turn's
        return [keys[a] for (a,) in boards]
    return [sum([keys[card] for card in board]) for board in boards]


class BoardSums:
    """The card-key sums of a list of board completions, made once and shared by every
    hand ranked on them. ``board_of`` (index to completion) stands in for the list of
    completions when they are not kept (a sampler's: only a flush needs its cards)."""

    __slots__ = ("board_of", "boards", "sums")

    def __init__(
        self,
        boards: Sequence[tuple[Card, ...]],
        board_of: Callable[[int], tuple[Card, ...]] | None = None,
    ) -> None:
        self.boards = list(boards)
        self.sums = _sums(boards)
        self.board_of = self.boards.__getitem__ if board_of is None else board_of

    def extend(self, boards: Sequence[tuple[Card, ...]], sums: Sequence[int] | None = None) -> None:
        """Add more completions and their sums (sampled boards grow as states need);
        ``sums``: their sums when already known (:meth:`BoardSampler.key_sums`; then
        ``boards`` may be empty, the completions being had from ``board_of``)."""
        self.boards.extend(boards)
        self.sums.extend(_sums(boards) if sums is None else sums)


def fast_hand_ranks(
    hole: tuple[Card, ...], board: tuple[Card, ...], completions: BoardSums, start: int = 0
) -> list[int]:
    """The class of the two-card ``hole`` with ``board`` and each completion from
    ``start`` on: ``rank_class((*hole, *board, *completion))``, faster."""
    if not _SEVEN:  # the first hand this process ranks (the evaluator fills them too)
        fill_tables()
    base = FIRST_CARD_KEYS[hole[0]] + CARD_KEYS[hole[1]]
    if board:
        base += sum([CARD_KEYS[c] for c in board])
    sums = completions.sums
    if start:
        sums = sums[start:]
    # Every total's rank sum names a real seven-card rank multiset, flush or not: look all
    # up, then put the flushes right with the evaluator. (Comprehensions that add inline
    # beat map() pipelines here: each map() pass makes an iterator and a list of its own.)
    seven, shift, flush_bits = _SEVEN, RANK_SHIFT, FLUSH_BITS
    ranks = [seven[(base + total) >> shift] for total in sums]
    flushes = [index for index, total in enumerate(sums) if (base + total) & flush_bits]
    if flushes:
        board_of = completions.board_of
        for index in flushes:
            ranks[index] = rank_class((*hole, *board, *board_of(start + index)))
    return ranks
