"""The frozen value function: what each seat can expect if the hands went to showdown now.

``v_i(state)`` = the sum over the pots (main and side pots, as the engine builds them from
what everyone put in) of the pot times seat ``i``'s showdown equity in it among the live
hands that may win it, minus what seat ``i`` has put in. A folded seat's value is minus
what it put in. The pots hold every chip put in, so the values sum to zero over the seats.

Chips above what any other live seat matched form a pot only their owner may win, so an
uncalled bet counts as the bettor's own (it comes back to them).

The equity is exact with one card to come (and for five-card draw, whose showdown is the
current hands), and before the flop when only two hands were dealt (read from the table
of every heads-up class, :mod:`arena.luck.preflop`, since version 5); before the flop
with more hands dealt and on the flop it is a sample of boards (or every
completion, when that is no more) whose size grows with the pot the hand reached on that
street (:data:`PARAMETERS`, ``street_pots``): sampling effort goes where the chips are. The
size is the street's, not the state's: every state valued on a street - the actions a bot
might have taken included - reads the same boards, so a reported all-in costs no boards
of its own, and the values of one street share their sampling noise.

**The betting to come** (hold'em). On top of the chips already in, each live seat's value
gets a prediction of what the betting still to come will add::

    (equity_i - 1/live) * sum over the features f of w[street][f] * f(state)

``equity_i`` is its chance of winning against every live hand and ``street`` the board's
size; the features (:func:`betting_features`) are public chip counts that never depend on
the cards: what was raised so far, what a seat still has to call, what is behind, what the
last betting round raised. The weights were fitted (``bench/fit_luck_value.py``) on
self-play hands of the starter bots that no benchmark adjusts, to minimise the variance of
their duplicate results, then frozen in :data:`PARAMETERS` (so in the estimator's name).
The term sums to zero over the seats, and it is linear in the equity with a coefficient
the cards do not change, so its average over a street's cards is the same term on the
state before them with the new street's weights
(:meth:`ValueFunction.street_expectation`): the equity is a fair game over the cards, the
whole value no longer is (the weights change with the street). Over a deal it averages to
zero (every seat's equity averages ``1/live``, and the features are the same whoever holds
which hand). Five-card draw has no such term.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import mul
from typing import Any, Literal

from arena.luck import fast_boards, fast_ranks, preflop
from arena.luck.equity import (
    BoardSampler,
    completions,
    exact_count,
    hand_ranks,
    pot_shares,
    sample_subsets,
    unseen_cards,
)
from arena.luck.fast_ranks import BoardSums, fast_hand_ranks
from arena.luck.made_hands import MadeHandTerm
from arena.luck.parameters import (
    BETTING_FEATURES,
    BETTING_WEIGHTS,
    PARAMETERS,
    LuckValue,
    weight_vector,
)
from arena.luck.timeline import TableState
from engine.cards import Card
from engine.evaluator import rank_class
from engine.pots import Pot, build_pots
from engine.seeds import StreamRandom

__all__ = [
    "BETTING_WEIGHTS",  # the weights this module reads (bench_luck swaps them here)
    "ValueFunction",
    "betting_features",
    "betting_scale",
    "sample_count",
]

_PER_UNIT: int = PARAMETERS["samples_per_unit"]
_MIN_SAMPLES: int = PARAMETERS["samples_min"]
_MAX_SAMPLES: int = PARAMETERS["samples_max"]
_DRAW_EXACT_LIMIT: int = PARAMETERS["draw_exact_limit"]


@lru_cache(maxsize=1024)  # asked for every value; a match sees few pots
def sample_count(pot_total: int, unit: int) -> int:
    """Completions sampled for a state whose pot holds ``pot_total`` chips (``unit``: the
    big blind): 8 per big blind rounded up to a power of two (so that states with close
    pots share their equities), at least 32, at most 1,024.

    >>> sample_count(3, 2), sample_count(40, 2), sample_count(400, 2)
    (32, 256, 1024)
    """
    wanted = math.ceil(_PER_UNIT * pot_total / max(unit, 1))
    return max(_MIN_SAMPLES, min(_MAX_SAMPLES, 1 << max(wanted - 1, 0).bit_length()))


def betting_features(state: TableState, unit: int) -> dict[str, float]:
    """The public quantities (chips; never the cards) the betting term scales an equity
    edge by, each a guess at how many chips the betting to come will still move
    (``unit``: the big blind, or the antes' unit):

    * ``raised``: the chips in the pots beyond two big blinds, capped by ``behind``;
    * ``to_call``: what a live seat still has to put in to match the bet (a bet not yet
      called is counted by the chips already in as its bettor's own, but a call often
      follows);
    * ``last_raised``: what the last completed betting round raised
      (:attr:`~arena.luck.timeline.TableState.last_raised`), capped by ``behind``.

    ``behind`` is the most two live seats can still both bet (the second-largest live
    stack; 0 when fewer than two live seats have chips left). None of them counts chips
    that checks and calls put in, so players who only check and call keep the chips-only
    value (but for the blind a call completes).

    >>> state = TableState(committed=(10, 10), street=(0, 6), stacks=(90, 190),
    ...     live=(True, True), hands=((), ()), board=(), dead=(0, 0), out=frozenset(),
    ...     last_raised=4)
    >>> betting_features(state, 2)  # raised 20 - 4 = 16, seat 0 is 6 short
    {'raised': 16, 'to_call': 6, 'last_raised': 4}
    """
    return dict(zip(BETTING_FEATURES, _feature_values(state, unit), strict=True))


def _feature_values(state: TableState, unit: int) -> tuple[int, int, int]:
    """:func:`betting_features` in :data:`BETTING_FEATURES` order, in plain loops (it runs
    for every value of a hand)."""
    largest = behind = bet = 0
    seats = list(zip(state.live, state.stacks, state.street, strict=True))
    for alive, stack, put in seats:
        if alive:
            if stack > largest:
                largest, behind = stack, largest
            elif stack > behind:
                behind = stack
            if put > bet:
                bet = put
    to_call = 0
    for alive, stack, put in seats:
        if alive and put < bet:
            owed = bet - put if bet - put < stack else stack
            if owed > to_call:
                to_call = owed
    raised = sum(state.committed) - 2 * unit
    return (
        min(behind, raised) if raised > 0 else 0,
        to_call,
        min(behind, state.last_raised),
    )


def betting_scale(state: TableState, weights: Mapping[str, float], unit: int) -> float:
    """How many chips the betting to come moves per unit of equity above an equal share:
    the sum of ``weights[name] * feature`` over :func:`betting_features` (a name not in
    ``weights`` weighs 0).

    >>> state = TableState(committed=(10, 10), street=(0, 0), stacks=(90, 190),
    ...     live=(True, True), hands=((), ()), board=(), dead=(0, 0), out=frozenset())
    >>> betting_scale(state, {"raised": 1.5, "to_call": 0.1}, 2)  # 1.5 * 16 + 0.1 * 0
    24.0
    """
    return _scale(state, weight_vector(weights), unit)


#: :data:`BETTING_WEIGHTS` and its vectors by board size, made once rather than per hand
#: (remade when :data:`BETTING_WEIGHTS` is another object: a test swaps it).
_frozen_vectors: tuple[object, dict[int, tuple[float, ...]] | None] = (None, None)


def _vectors(
    weights: Mapping[int, Mapping[str, float]] | None,
) -> dict[int, tuple[float, ...]] | None:
    """Per board size, ``weights`` in :data:`BETTING_FEATURES` order (None: no weights)."""
    if not weights:
        return None
    return {size: weight_vector(street) for size, street in weights.items()}


def _frozen() -> dict[int, tuple[float, ...]] | None:
    global _frozen_vectors
    if _frozen_vectors[0] is not BETTING_WEIGHTS:
        _frozen_vectors = (BETTING_WEIGHTS, _vectors(BETTING_WEIGHTS))
    return _frozen_vectors[1]


def _made_weights(
    betting: LuckValue | Mapping[int, Mapping[str, float]] | str | None,
) -> dict[int, float] | None:
    """The made-hand term's weights by board size of a ``betting`` argument (None: none
    is set)."""
    if isinstance(betting, LuckValue):
        weights = betting.made
    elif betting is None:
        return None
    else:
        source = BETTING_WEIGHTS if betting == "frozen" else betting
        assert not isinstance(source, str)
        weights = {size: float(street.get("made_hand", 0.0)) for size, street in source.items()}
    return weights if any(weights.values()) else None


def _scale(state: TableState, vector: tuple[float, ...], unit: int) -> float:
    if not any(vector):
        return 0.0
    # map(mul) adds the same products in the same order as a loop would, at C speed.
    scale: float = sum(map(mul, vector, _feature_values(state, unit)))
    return scale


#: The pots of the chips in, the seats live and the dead money, kept from hand to hand
#: (the same few recur: blinds called, a bet called), at most this many.
_SHOWDOWN_POTS_KEPT = 4096
_SHOWDOWN_POTS: dict[tuple[tuple[int, ...], tuple[bool, ...], tuple[int, ...]], list[Pot]] = {}


class ValueFunction:
    """The value function over one hand's states (its caches live as long as the hand).

    ``fast`` ranks hands with :mod:`arena.luck.fast_ranks` (the same numbers, faster;
    default: its ``USE_FAST_RANKS`` switch);
    ``exact`` enumerates every flop completion whatever the pot (the tests' exact
    equities; the estimator samples them in small pots);
    ``betting`` is the betting term's weights: a :class:`LuckValue`, or by board size,
    then by feature (default ``"frozen"``: :data:`BETTING_WEIGHTS`; None: no betting term,
    the chips already in only);
    ``street_pots``: per board size, the pot the hand's betting on that street ended with
    (:attr:`~arena.luck.timeline.HandTimeline.street_pots`), which sets the street's
    sample size for every state on it; a board size not in it is sampled by the state's
    own pot;
    ``leans``: each position's lean (:mod:`arena.luck.leans`), the made-hand term's
    weight per seat (:mod:`arena.luck.made_hands`, weighted by ``betting``'s
    ``made_hand`` weights); None or no lean above 0: no such term.
    """

    def __init__(
        self,
        *,
        variant: str,
        unit: int,
        key: bytes,
        fast: bool | None = None,
        exact: bool = False,
        betting: LuckValue
        | Mapping[int, Mapping[str, float]]
        | Literal["frozen"]
        | None = "frozen",
        street_pots: Mapping[int, int] | None = None,
        leans: Sequence[float] | None = None,
    ) -> None:
        self.is_draw = variant == "five_card_draw"
        # Per board size, the weights in BETTING_FEATURES order.
        self.betting: dict[int, tuple[float, ...]] | None = (
            None
            if self.is_draw
            else betting.vectors
            if isinstance(betting, LuckValue)
            else _frozen()
            if betting == "frozen"
            else _vectors(betting)
        )
        made_weights = _made_weights(betting)
        made = (
            None
            if self.is_draw or not leans or not made_weights
            else MadeHandTerm(leans, made_weights, key, exact=exact)
        )
        self.made = made if made is not None and made.active else None
        self.unit = unit
        self.key = key
        self.fast = fast_ranks.USE_FAST_RANKS if fast is None else fast
        self.fast_boards = fast_boards.USE_FAST_BOARDS
        # Both fast: the ranker needs a sampled completion's cards only for a flush.
        self.lazy_boards = self.fast and self.fast_boards
        self.exact = exact
        # Hold'em before the flop with two hands dealt: exact equities from a table.
        self.heads_up_table = not self.is_draw
        self.street_pots: Mapping[int, int] = street_pots or {}
        # Per board so far: its completions (all of them, or a sampler's growing list) and
        # their key sums; per hole and board: the hole's classes on those completions.
        self._samplers: dict[tuple[Card, ...], BoardSampler] = {}
        self._sums: dict[tuple[Card, ...], BoardSums] = {}
        self._ranks: dict[tuple[tuple[Card, ...], tuple[Card, ...]], list[int]] = {}
        self._share_memo: dict[tuple[Any, ...], list[float]] = {}

    # -- pots ---------------------------------------------------------------------------

    def pots(self, state: TableState) -> list[Pot]:
        """The pots the engine would build from ``state`` at a showdown now (kept, from
        hand to hand: the states of an action term, of consecutive terms and of other
        hands often share them)."""
        key = (state.committed, state.live, state.dead)
        pots = _SHOWDOWN_POTS.get(key)
        if pots is None:
            if len(_SHOWDOWN_POTS) >= _SHOWDOWN_POTS_KEPT:
                _SHOWDOWN_POTS.clear()
            dead = state.dead if any(state.dead) else None
            pots = build_pots(state.committed, state.live, dead_money=dead)
            if not pots and any(state.committed):  # pragma: no cover - nobody live put in
                everyone = tuple(p for p, alive in enumerate(state.live) if alive)
                pots = [Pot(sum(state.committed), everyone)]
            _SHOWDOWN_POTS[key] = pots
        return pots

    # -- values -------------------------------------------------------------------------

    def value(self, state: TableState) -> list[float]:
        """``v`` of every position in ``state``: the chips already in, plus the betting to
        come."""
        values = self.chips_value(state)
        if self.betting is not None:
            self._add_betting(values, state, self.betting[len(state.board)])
        if self.made is not None:
            self.made.add(values, state)
        return values

    def street_expectation(self, before: TableState, board_size: int) -> list[float]:
        """The average of ``v`` over every way the dealer could deal the board of
        ``before`` up to ``board_size`` cards: the chips already in are a fair game over
        the cards (their average is their value now), and the betting term is linear in
        the equity, whose average is the equity now, with the new street's weight."""
        values = self.chips_value(before)
        if self.betting is not None:
            self._add_betting(values, before, self.betting[board_size])
        if self.made is not None:
            self.made.add_expected(values, before, board_size)
        return values

    def made_value(self, state: TableState) -> list[float]:
        """The made-hand term alone of ``value(state)`` (zeros when there is none)."""
        values = [0.0] * len(state.committed)
        if self.made is not None:
            self.made.add(values, state)
        return values

    def made_expectation(self, before: TableState, board_size: int) -> list[float]:
        """The made-hand term alone of ``street_expectation(before, board_size)``."""
        values = [0.0] * len(before.committed)
        if self.made is not None:
            self.made.add_expected(values, before, board_size)
        return values

    def carries_over(self, after: TableState, before: TableState, board_size: int) -> bool:
        """Whether ``value(after)`` is exactly ``street_expectation(before, board_size)``
        but for their made-hand terms (:meth:`made_value`, which a street's cards move):
        the same pots, hands, live seats, board and cards out (nobody put a chip in or
        folded between them), and a betting part that is zero or weighted the same. Then the two
        cancel in the estimate and neither needs computing (a check-down's streets)."""
        same_table = (
            after.committed == before.committed
            and after.live == before.live
            and after.dead == before.dead
            and after.board == before.board
            and after.out == before.out
            and after.hands == before.hands
            and after.stacks == before.stacks
        )
        if not same_table:
            return False
        betting = self.betting
        return betting is None or _scale(after, betting[len(after.board)], self.unit) == _scale(
            before, betting[board_size], self.unit
        )

    def _add_betting(
        self, values: list[float], state: TableState, weights: tuple[float, ...]
    ) -> None:
        scale = _scale(state, weights, self.unit)
        if scale == 0.0:
            return
        for member, edge in self.equity_edges(state).items():
            values[member] += edge * scale

    def equity_edges(self, state: TableState) -> dict[int, float]:
        """Each live position's equity against every live hand minus an equal share
        (they sum to zero); empty when fewer than two seats are live."""
        members = [p for p, alive in enumerate(state.live) if alive]
        if len(members) < 2:
            return {}
        shares = self._shares(state, members, sum(state.committed))
        equal = 1.0 / len(members)
        return {m: share - equal for m, share in zip(members, shares, strict=True)}

    def chips_value(self, state: TableState) -> list[float]:
        """The chips already in: each pot times each live seat's equity in it, minus what
        the seat put in."""
        values = [float(-c) for c in state.committed]
        pot_total = sum(state.committed)
        for pot in self.pots(state):
            members = pot.eligible
            if len(members) == 1:
                values[members[0]] += pot.amount
                continue
            for member, share in zip(members, self._shares(state, members, pot_total), strict=True):
                values[member] += pot.amount * share
        return values

    def _shares(self, state: TableState, members: Sequence[int], pot_total: int) -> list[float]:
        """The members' shares of a pot (kept: hypothetical actions revisit them, so the
        memo is asked before any rank is read)."""
        if self.heads_up_table and len(members) == 2 and not state.board and len(state.out) == 4:
            # Two hands dealt, no card shown: the exact equity, from the table.
            share = preflop.first_share(state.hands[members[0]], state.hands[members[1]])
            return [share, 1.0 - share]
        holes = tuple([state.hands[m] for m in members])
        count = self._known_count(state.board, pot_total)
        if count is not None:
            shares = self._share_memo.get((state.board, holes, count))
            if shares is not None:
                return shares
        ranks = self._member_ranks(state, members, pot_total)
        key = (state.board, holes, len(ranks[0]))
        shares = self._share_memo.get(key)
        if shares is None:
            shares = self._share_memo[key] = pot_shares(ranks, range(len(members)))
        return shares

    def _known_count(self, board: tuple[Card, ...], pot_total: int) -> int | None:
        """How many completions a pot of ``pot_total`` is valued over on ``board``; None
        while the board's completions are not made yet."""
        if self.is_draw or len(board) == 5:
            return 1  # the current hands, or a complete board: one showdown
        if board in self._samplers:
            return self._sample_count(board, pot_total)
        sums = self._sums.get(board)
        return None if sums is None else len(sums.sums)

    def dealt_expectation(self, state: TableState) -> list[float]:
        """The average of ``v`` over every deal of the hands: every hand is dealt from the
        same deck, so each live seat has an equal share of each pot it may win."""
        values = [float(-c) for c in state.committed]
        for pot in self.pots(state):
            part = pot.amount / len(pot.eligible)
            for member in pot.eligible:
                values[member] += part
        return values

    def draw_expectation(self, before: TableState, after: TableState, position: int) -> list[float]:
        """The average of ``v`` over every set of replacement cards ``position`` could have
        drawn (enumerated, or sampled when there are more than the exact limit)."""
        drawn = [card for card in after.hands[position] if card not in before.hands[position]]
        kept = tuple(card for card in after.hands[position] if card not in drawn)
        pool = unseen_cards(before.out)
        missing = len(drawn)
        if exact_count(len(pool), missing) <= _DRAW_EXACT_LIMIT:
            draws = completions(pool, missing)
        else:
            stream = StreamRandom(b"poker-arena luck v1|draw|%d|" % position + self.key)
            count = sample_count(sum(after.committed), self.unit)
            draws = sample_subsets(stream, list(pool), missing, count)
        own = [rank_class((*kept, *extra)) for extra in draws]
        values = [float(-c) for c in after.committed]
        for pot in self.pots(after):
            members = pot.eligible
            if len(members) == 1:
                values[members[0]] += pot.amount
                continue
            ranks = [
                own if member == position else [rank_class(after.hands[member])] * len(draws)
                for member in members
            ]
            for member, share in zip(members, pot_shares(ranks, range(len(members))), strict=True):
                values[member] += pot.amount * share
        return values

    # -- ranks --------------------------------------------------------------------------

    def _sample_count(self, board: tuple[Card, ...], pot_total: int) -> int:
        """Completions valued on ``board``: set by the pot its street ended with when the
        hand reached it, else by ``pot_total`` (the state's own pot)."""
        return sample_count(self.street_pots.get(len(board), pot_total), self.unit)

    def _member_ranks(
        self, state: TableState, members: Sequence[int], pot_total: int
    ) -> list[list[int]]:
        hands = state.hands
        if self.is_draw:
            return [[rank_class(hands[member])] for member in members]
        board = state.board
        if len(board) == 5:  # one showdown: each hand ranked once, no completions to share
            return [[rank_class((*hands[member], *board))] for member in members]
        sums = self._sums.get(board)
        if sums is None:
            missing = 5 - len(board)
            pool = unseen_cards(state.out)
            enough = self._sample_count(board, pot_total)
            # Enumerated when the pot would sample as many completions (or the tests ask).
            is_exact = missing < 2 or exact_count(len(pool), missing) <= enough
            if is_exact or (self.exact and missing < 5):
                sums = BoardSums(completions(pool, missing))
            else:
                new = BoardSampler(
                    self.key + b"|" + bytes(board), pool, missing, fast=self.fast_boards
                )
                self._samplers[board] = new
                # Fast, the sampled completions are not kept: their sums are read
                # straight from the shuffle, a flush makes its completion alone.
                sums = BoardSums([], new.board) if self.lazy_boards else BoardSums([])
            self._sums[board] = sums
        count = len(sums.sums)
        sampler = self._samplers.get(board)
        if sampler is not None:
            count = self._sample_count(board, pot_total)
            drawn = len(sums.sums)
            if drawn < count:
                if self.lazy_boards:
                    sums.extend([], sampler.key_sums(drawn, count))
                else:
                    sums.extend(sampler.first(count)[drawn:])
        ranks = []
        for member in members:
            hole = hands[member]
            cached = self._ranks.setdefault((hole, board), [])
            if len(cached) < count:
                cached.extend(self._rank(hole, board, sums, len(cached)))
            ranks.append(cached if len(cached) == count else cached[:count])
        return ranks

    def _rank(
        self, hole: tuple[Card, ...], board: tuple[Card, ...], sums: BoardSums, start: int
    ) -> list[int]:
        if self.fast:
            return fast_hand_ranks(hole, board, sums, start)
        return hand_ranks(hole, board, sums.boards[start:])
