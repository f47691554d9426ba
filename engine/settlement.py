"""The end of a hand: everyone else folded, or a showdown; and voiding a broken hand.

A mixin of :class:`engine.hand.Hand`, kept apart so that each module stays small. It pays
out the pots (``engine.showdown`` decides who shows and who wins), checks the end-of-hand
invariants (the pots hold exactly what was committed, every chip is paid out) and builds
the :class:`~engine.result.HandResult`. ``_void`` aborts a hand whose invariants failed and
gives every player back what they brought (seed 002: "hand void, pots returned").
"""

from __future__ import annotations

from engine import showdown as _showdown
from engine.actions import LegalActions
from engine.betting import RoundState
from engine.cards import Card
from engine.config import AnteMode, GameConfig
from engine.errors import InvariantError
from engine.events import (
    Event,
    HandEnded,
    HandMucked,
    HandShown,
    HandVoided,
    PotAwarded,
    ShowdownResolved,
)
from engine.invariants import pot_violations, violations
from engine.phases import Phase, PlayerStatus
from engine.result import HandResult, PotAward
from engine.transitions import check_transition

__all__ = ["Settlement"]

_ACTIVE = PlayerStatus.ACTIVE
_ALL_IN = PlayerStatus.ALL_IN


class Settlement:
    """Ending a hand, over the state that :class:`engine.hand.Hand` keeps."""

    # The state this class assigns; Hand declares the rest of its slots.
    __slots__ = ("_actor", "_legal", "_phase", "_pot_total", "_result", "_round")

    # The hand's state, shared with Hand.
    config: GameConfig
    hand_number: int
    _actor: int | None
    _bb_pos: int
    _board: list[Card]
    _button_pos: int
    _committed: list[int]
    _events: list[Event]
    _final_aggressor: int | None
    _holes: list[list[Card]]
    _legal: LegalActions | None
    _phase: Phase
    _pot_total: int
    _result: HandResult | None
    _round: RoundState | None
    _seat_indexes: list[int]
    _shown: dict[int, tuple[Card, ...]]
    _stacks: list[int]
    _starting: list[int]
    _statuses: list[PlayerStatus]
    _street: list[int]
    _total_chips: int

    def _end_round(self, *, played: bool) -> None:
        raise NotImplementedError  # Hand's

    def _dead_money(self) -> list[int] | None:
        """The big blind ante by position, if any: dead money for the main pot (TDA's big
        blind ante; pokerkit agrees). It is posted before the blind, so it is the whole
        ante or, for a shorter stack, the whole stack."""
        config = self.config
        if not config.ante or config.ante_mode is not AnteMode.BIG_BLIND:
            return None
        dead = [0] * len(self._starting)
        dead[self._bb_pos] = min(config.ante, self._starting[self._bb_pos])
        return dead

    def _set_phase(self, phase: Phase) -> None:
        if phase is not self._phase:
            check_transition(self._phase, phase)
            self._phase = phase

    def _finish_uncontested(self) -> None:
        """Everyone else folded: the last player wins every pot and shows nothing."""
        self._end_round(played=False)  # a fold ends the hand during a betting round
        self._set_phase(Phase.POT_DISTRIBUTION)
        winner = next(p for p, s in enumerate(self._statuses) if s is _ACTIVE or s is _ALL_IN)
        seat = self._seat_indexes[winner]
        amount = self._pot_total
        self._stacks[winner] += amount
        eligible = (seat,)
        award = PotAward(0, amount, eligible, ((seat, amount),))
        self._events.append(PotAwarded(0, amount, eligible, ((seat, amount),), ""))
        self._events.append(ShowdownResolved((seat,), False))
        self._complete("FOLD", (award,), [amount])

    def _finish_showdown(self) -> None:
        self._set_phase(Phase.SHOWDOWN)
        statuses = self._statuses
        live = [s is _ACTIVE or s is _ALL_IN for s in statuses]
        outcome = _showdown.resolve_showdown(
            holes=self._holes,
            board=self._board,
            contributions=self._committed,
            live=live,
            all_in=[s is _ALL_IN for s in statuses],
            button=self._button_pos,
            first_to_show=self._final_aggressor,
            dead_money=self._dead_money(),
        )
        seat_of = self._seat_indexes
        for position, cards, description in outcome.reveals:
            if cards is None:
                self._events.append(HandMucked(seat_of[position]))
            else:
                self._shown[seat_of[position]] = cards
                self._events.append(HandShown(seat_of[position], cards, description))
        self._set_phase(Phase.POT_DISTRIBUTION)
        awards = []
        winners: list[int] = []
        for number, pot_outcome in enumerate(outcome.pots):
            shares = tuple((seat_of[p], chips) for p, chips in pot_outcome.shares)
            eligible = tuple(seat_of[p] for p in pot_outcome.pot.eligible)
            amount = pot_outcome.pot.amount
            for position, chips in pot_outcome.shares:
                self._stacks[position] += chips
                if seat_of[position] not in winners:
                    winners.append(seat_of[position])
            awards.append(PotAward(number, amount, eligible, shares, pot_outcome.description))
            self._events.append(
                PotAwarded(number, amount, eligible, shares, pot_outcome.description),
            )
        self._events.append(ShowdownResolved(tuple(winners), True))
        self._complete("SHOWDOWN", tuple(awards), [p.pot.amount for p in outcome.pots])

    def _complete(self, reason: str, awards: tuple[PotAward, ...], pots: list[int]) -> None:
        """Check the end-of-hand invariants, then end the hand."""
        problems = pot_violations(pots, self._committed)
        stacks = self._stacks
        # The common case is checked with fast built-ins; the full check names the problem.
        if problems or sum(stacks) != self._total_chips or min(stacks) < 0:
            problems += violations(
                stacks=stacks,
                committed=[0] * len(stacks),
                statuses=[_ALL_IN] * len(stacks),
                total_chips=self._total_chips,
            )
            raise InvariantError("invariant_failed", "; ".join(problems))
        self._pot_total = 0
        self._end(reason, awards)

    def _end(self, reason: str, awards: tuple[PotAward, ...]) -> None:
        seat_of = self._seat_indexes
        final = tuple(zip(seat_of, self._stacks, strict=True))
        self._events.append(HandEnded(reason, final))
        self._phase = Phase.HAND_COMPLETE
        self._actor = None
        self._round = None
        self._legal = None
        self._result = HandResult(
            hand_number=self.hand_number,
            ended_reason=reason,
            board=tuple(self._board),
            shown_cards=dict(self._shown),
            awards=awards,
            starting_stacks=dict(zip(seat_of, self._starting, strict=True)),
            final_stacks=dict(final),
        )

    def _verify(self) -> None:
        """Check the invariants after a transition (seed 001)."""
        if self._result is not None:
            return  # checked by _complete before the hand ended
        stacks = self._stacks
        committed = self._committed
        if (
            sum(stacks) + sum(committed) == self._total_chips
            and min(stacks) >= 0
            and min(committed) >= 0
            and (0 not in stacks or self._no_idle_zero_stack())
        ):
            return  # the common case, checked with fast built-ins
        problems = violations(
            stacks=self._stacks,
            committed=self._committed,
            statuses=self._statuses,
            total_chips=self._total_chips,
        )
        # The fast check failed, so the full one names what is wrong.
        raise InvariantError("invariant_failed", "; ".join(problems) or "invariants failed")

    def _no_idle_zero_stack(self) -> bool:
        statuses = self._statuses
        return all(statuses[p] is not _ACTIVE for p, s in enumerate(self._stacks) if s == 0)

    def _void(self, reason: str) -> None:
        """Abort the hand and give everyone back what they put in (seed 002)."""
        seat_of = self._seat_indexes
        refunds = tuple((seat_of[p], c) for p, c in enumerate(self._committed) if c > 0)
        self._stacks[:] = self._starting
        self._committed[:] = [0] * len(self._committed)
        self._street[:] = [0] * len(self._street)
        self._pot_total = 0
        self._shown.clear()
        self._events.append(HandVoided(reason, refunds))
        self._end("VOID", ())
