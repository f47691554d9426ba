"""Faster seven-card ranks for the equity loops: one addition and one lookup per board.

The plain way (:func:`arena.luck.equity.hand_ranks`) calls ``engine.evaluator.rank_class``
on every hand and board: seven key lookups each time. Here the evaluator's own card keys
(``engine._eval_tables``, whose sums name a hand's rank multiset and count its suits) are
summed once per hole (with the board so far) and once per board completion, so ranking a
hand on a completion is adding two sums and one lookup, in :func:`dense_classes`, the
evaluator's seven-card table laid out as an array indexed by the rank-key sum (15.6 MB,
built once per process, in about 25 ms: a dict's lookup of a sum it has never seen
reads its hash slot, its entry, its key and its value, four places in a few megabytes,
where the array reads one). Flushes - a suit counter
past its threshold, about 3% of boards - fall back to ``rank_class``. The answers are the
evaluator's, bit for bit (``tests/arena/luck/test_fast_ranks.py`` checks it); the value
function uses this module when :data:`USE_FAST_RANKS` is true.
"""

from __future__ import annotations

from array import array
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

__all__ = ["USE_FAST_RANKS", "BoardSums", "dense_classes", "fast_hand_ranks"]

#: The switch: false makes the value function rank every hand with ``rank_class`` (read
#: when a value function is made, so a test can turn it off).
USE_FAST_RANKS = True

_SEVEN = NONFLUSH_CLASSES[7]
#: The suit counters' bits, below the rank-key sum.
_SUIT_BITS = (1 << RANK_SHIFT) - 1
#: :data:`_SEVEN` as an array by rank-key sum (:func:`dense_classes`), once made.
_dense: array[int] | None = None


def dense_classes() -> array[int]:
    """The class of every seven-card non-flush rank multiset, by its rank-key sum
    (``NONFLUSH_CLASSES[7]`` as an array of 16-bit numbers: a class is at most 7,462;
    a sum that names no multiset holds 0, and none is ever looked up). Made at the first
    call in a process (the evaluator's tables filled first if they are not), then kept:
    a process forked after it shares it."""
    global _dense
    if _dense is None:
        fill_tables()  # at once when they are filled
        table = array("H", [0]) * (max(_SEVEN) + 1)
        for total, rank in _SEVEN.items():
            table[total] = rank
        _dense = table
    return _dense


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

    __slots__ = ("_rank_parts", "_suit_parts", "board_of", "boards", "sums")

    def __init__(
        self,
        boards: Sequence[tuple[Card, ...]],
        board_of: Callable[[int], tuple[Card, ...]] | None = None,
    ) -> None:
        self.boards = list(boards)
        self.sums = _sums(boards)
        self.board_of = self.boards.__getitem__ if board_of is None else board_of
        self._rank_parts: list[int] = []
        self._suit_parts: list[int] = []

    def parts(self) -> tuple[list[int], list[int]]:
        """Each sum's rank-key part (``sum >> RANK_SHIFT``) and suit counters (its low
        bits), as far as the sums go: small integers, cheaper to add than the whole sums
        (which pass 2**30). The suit counters of seven cards stay below 16 each (see
        ``engine._eval_tables``), so adding a hole's parts never carries from one part
        into the other: the parts of a seven-card total are the sums of the parts."""
        rank_parts, suit_parts = self._rank_parts, self._suit_parts
        have = len(rank_parts)
        if have < len(self.sums):
            new = self.sums[have:]
            rank_parts.extend([total >> RANK_SHIFT for total in new])
            suit_parts.extend([total & _SUIT_BITS for total in new])
        return rank_parts, suit_parts

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
    seven = dense_classes()
    base = FIRST_CARD_KEYS[hole[0]] + CARD_KEYS[hole[1]]
    if board:
        base += sum([CARD_KEYS[c] for c in board])
    rank_parts, suit_parts = completions.parts()
    if start:
        rank_parts, suit_parts = rank_parts[start:], suit_parts[start:]
    # Every total's rank sum names a real seven-card rank multiset, flush or not: look all
    # up, then put the flushes right with the evaluator. The parts are added apart
    # (BoardSums.parts), and inline: comprehensions beat map() pipelines at these sizes.
    flush_bits = FLUSH_BITS
    base_rank, base_suits = base >> RANK_SHIFT, base & _SUIT_BITS
    ranks = [seven[base_rank + part] for part in rank_parts]
    flushes = [index for index, part in enumerate(suit_parts) if (base_suits + part) & flush_bits]
    if flushes:
        board_of = completions.board_of
        for index in flushes:
            ranks[index] = rank_class((*hole, *board, *board_of(start + index)))
    return ranks
