"""The frozen value function: what each seat can expect if the hands went to showdown now.

``v_i(state)`` = the sum over the pots (main and side pots, as the engine builds them from
what everyone put in) of the pot times seat ``i``'s showdown equity in it among the live
hands that may win it, minus what seat ``i`` has put in. A folded seat's value is minus
what it put in. The pots hold every chip put in, so the values sum to zero over the seats.

Chips above what any other live seat matched form a pot only their owner may win, so an
uncalled bet counts as the bettor's own (it comes back to them).

The equity is exact with one card to come (and for five-card draw, whose showdown is the
current hands); before the flop and on the flop it is a sample of boards (or every
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

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from operator import mul
from typing import Any, Literal

from arena.luck import fast_boards, fast_ranks
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
from arena.luck.timeline import TableState
from engine.cards import Card
from engine.evaluator import rank_class
from engine.pots import Pot, build_pots
from engine.seeds import StreamRandom

__all__ = [
    "BETTING_FEATURES",
    "BETTING_WEIGHTS",
    "PARAMETERS",
    "SHIPPED_VALUE",
    "STREETS",
    "LuckValue",
    "ValueFunction",
    "betting_features",
    "betting_scale",
    "sample_count",
]

#: Everything that fixes the value function's numbers (hashed into the estimator's name).
PARAMETERS: dict[str, Any] = {
    "value": "showdown-equity-times-pot-minus-committed",
    # Board completions sampled per big blind in the pot, with a floor and a ceiling; a
    # board is enumerated instead when it has no more completions than that (the turn's
    # 44-odd always, the flop's 990-odd from a pot above 64 big blinds).
    "samples_per_unit": 8,  # then rounded up to a power of two
    # The pot that sets a street's sample: the one its betting ended with as played, for
    # every state valued on that street (the actions a bot might have taken included).
    "sample_pot": "the street's pot when its betting ended, as played",
    "samples_min": 32,
    "samples_max": 1024,
    "draw_exact_limit": 2000,  # enumerate a draw's replacements up to this many
    "stream": "shake256 'poker-arena luck v1|' + purpose + hand seed or deck",
    "sampling": "one shuffle of the unseen cards per board, read through a fixed design",
    "betting": "(equity - 1/live) * sum of w[board size][feature] * betting_features",
    "betting_features": {
        "raised": "min(behind, pot - 2 big blinds)",
        "to_call": "the most a live seat still has to put in to call",
        "last_raised": "min(behind, what the last completed round raised beyond 2 big blinds)",
    },
    # Fitted by `bench/fit_luck_value.py --tournaments 4` (the starter bots' round robin,
    # 4 tournaments of 1,000 duplicate deals per pair from seeds no benchmark uses: 24,000
    # hands), then frozen.
    "betting_weights": {
        "0": {"raised": 1.9072, "to_call": 1.2483, "last_raised": 0.0},
        "3": {"raised": 1.892, "to_call": 1.0996, "last_raised": 0.2469},
        "4": {"raised": 1.282, "to_call": 1.6325, "last_raised": 4.9804},
        "5": {"raised": 0.4945, "to_call": 1.711, "last_raised": 2.1076},
    },
}
#: The betting term's weights by board size (0, 3, 4, 5 cards), then by feature name
#: (:func:`betting_features`).
BETTING_WEIGHTS: dict[int, dict[str, float]] = {
    int(size): {name: float(weight) for name, weight in weights.items()}
    for size, weights in PARAMETERS["betting_weights"].items()
}
#: The betting term's features (:func:`betting_features`), in the order
#: :func:`_feature_values` counts them.
BETTING_FEATURES: tuple[str, ...] = tuple(PARAMETERS["betting_features"])
#: The board sizes the betting term has a weight set for (before the flop, flop, turn,
#: river).
STREETS: tuple[int, ...] = (0, 3, 4, 5)
_PER_UNIT: int = PARAMETERS["samples_per_unit"]
_MIN_SAMPLES: int = PARAMETERS["samples_min"]
_MAX_SAMPLES: int = PARAMETERS["samples_max"]
_DRAW_EXACT_LIMIT: int = PARAMETERS["draw_exact_limit"]


class LuckValue:
    """The betting term's weights as one value, carried whole from where they are made (the
    shipped fit, or the ladder's fit on its own earlier games) to the estimator: a weight
    per street (:data:`STREETS`) and feature (:data:`BETTING_FEATURES`; a weight not given
    is 0), with ``digest``, a hash of the weights that tells two values apart (the
    estimator's name hashes them with everything else:
    :func:`arena.luck.estimator.estimator_name`). Immutable; equal when their weights are.
    A bad weight (a street or feature the term does not have, a value that is not a finite
    number) raises ``ValueError`` naming it.

    >>> value = LuckValue({0: {"raised": 1.5}})
    >>> value.weights[0], value.weights[5]["to_call"]
    ({'raised': 1.5, 'to_call': 0.0, 'last_raised': 0.0}, 0.0)
    >>> LuckValue.from_dict(value.to_dict()) == value
    True
    """

    __slots__ = ("digest", "vectors", "weights")

    weights: dict[int, dict[str, float]]
    vectors: dict[int, tuple[float, ...]]
    digest: str

    def __init__(self, weights: Mapping[int, Mapping[str, float]]) -> None:
        if not isinstance(weights, Mapping):
            raise ValueError(f"betting weights must be a mapping by street, got {weights!r}")
        unknown = [street for street in weights if street not in STREETS]
        if unknown:
            raise ValueError(f"not streets (board sizes): {unknown!r} (they are {STREETS})")
        vectors = {}
        for street in STREETS:
            given = weights.get(street, {})
            if not isinstance(given, Mapping):
                raise ValueError(f"street {street}'s weights must be a mapping, got {given!r}")
            for name, weight in given.items():
                if (
                    not isinstance(weight, int | float)
                    or isinstance(weight, bool)
                    or not math.isfinite(weight)
                ):
                    raise ValueError(
                        f"street {street}'s {name!r} weight is not a number: {weight!r}"
                    )
            vectors[street] = _weight_vector(given)
        object.__setattr__(self, "vectors", vectors)
        object.__setattr__(
            self,
            "weights",
            {
                street: dict(zip(BETTING_FEATURES, vector, strict=True))
                for street, vector in vectors.items()
            },
        )
        text = json.dumps(self.to_dict(), sort_keys=True)
        object.__setattr__(self, "digest", hashlib.sha256(text.encode()).hexdigest()[:8])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a LuckValue is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LuckValue) and other.weights == self.weights

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"LuckValue(#{self.digest})"

    def __reduce__(self) -> tuple[type[LuckValue], tuple[dict[int, dict[str, float]]]]:
        return LuckValue, (self.weights,)  # (pickled to a match's process)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The weights as JSON keeps them (streets as strings), the form of
        :data:`PARAMETERS`' ``betting_weights``."""
        return {str(street): dict(weights) for street, weights in self.weights.items()}

    @classmethod
    def from_dict(cls, data: object) -> LuckValue:
        """Inverse of :meth:`to_dict`; a street that is not a board size is an error
        naming it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"betting weights must be an object by street, got {data!r}")
        weights = {}
        for street, given in data.items():
            if not isinstance(street, str) or not street.isdigit():
                raise ValueError(f"not a street (a board size): {street!r}")
            weights[int(street)] = given
        return cls(weights)


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
    return _scale(state, _weight_vector(weights), unit)


def _weight_vector(weights: Mapping[str, float]) -> tuple[float, ...]:
    """``weights`` in :data:`BETTING_FEATURES` order; a name that is not a feature is an
    error naming it."""
    unknown = set(weights) - set(BETTING_FEATURES)
    if unknown:
        raise ValueError(f"not betting features: {sorted(unknown)} (they are {BETTING_FEATURES})")
    return tuple(float(weights.get(name, 0.0)) for name in BETTING_FEATURES)


#: The shipped weights (:data:`BETTING_WEIGHTS`, frozen in :data:`PARAMETERS`).
SHIPPED_VALUE = LuckValue(BETTING_WEIGHTS)


#: :data:`BETTING_WEIGHTS` and its vectors by board size, made once rather than per hand
#: (remade when :data:`BETTING_WEIGHTS` is another object: a test swaps it).
_frozen_vectors: tuple[object, dict[int, tuple[float, ...]] | None] = (None, None)


def _vectors(
    weights: Mapping[int, Mapping[str, float]] | None,
) -> dict[int, tuple[float, ...]] | None:
    """Per board size, ``weights`` in :data:`BETTING_FEATURES` order (None: no weights)."""
    if not weights:
        return None
    return {size: _weight_vector(street) for size, street in weights.items()}


def _frozen() -> dict[int, tuple[float, ...]] | None:
    global _frozen_vectors
    if _frozen_vectors[0] is not BETTING_WEIGHTS:
        _frozen_vectors = (BETTING_WEIGHTS, _vectors(BETTING_WEIGHTS))
    return _frozen_vectors[1]


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
    own pot.
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
        self.unit = unit
        self.key = key
        self.fast = fast_ranks.USE_FAST_RANKS if fast is None else fast
        self.fast_boards = fast_boards.USE_FAST_BOARDS
        # Both fast: the ranker needs a sampled completion's cards only for a flush.
        self.lazy_boards = self.fast and self.fast_boards
        self.exact = exact
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
        return values

    def street_expectation(self, before: TableState, board_size: int) -> list[float]:
        """The average of ``v`` over every way the dealer could deal the board of
        ``before`` up to ``board_size`` cards: the chips already in are a fair game over
        the cards (their average is their value now), and the betting term is linear in
        the equity, whose average is the equity now, with the new street's weight."""
        values = self.chips_value(before)
        if self.betting is not None:
            self._add_betting(values, before, self.betting[board_size])
        return values

    def carries_over(self, after: TableState, before: TableState, board_size: int) -> bool:
        """Whether ``value(after)`` is exactly ``street_expectation(before, board_size)``:
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
