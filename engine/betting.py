"""One betting round: who must act, what is legal, and what an action does.

The rules (each cited where it is applied):

* Minimum opening bet is the big blind; the minimum raise is the size of the last full bet
  or raise of the round (TDA Rules 40 and 41).
* An all-in for less than a full raise does not reopen the betting for players who already
  acted (WSOP 2024 Rule 96); several consecutive short all-ins that add up to a full raise
  do (Rule 96a). We implement both at once: a player who already acted may raise again only
  if the bet grew by at least a full raise since they last acted.
* Pot-limit: the largest raise is to ``current bet + pot after calling`` (the pot counts
  every chip committed in the hand, including this round's bets and the caller's call).
* Fixed-limit: every bet and raise is exactly one bet (small bet on the first two rounds of
  hold'em, big bet later); at most ``raise_cap`` bets per round (one bet and three raises,
  the big blind counting as the pre-flop bet), lifted when only two players are left in the
  hand, unless the game keeps the cap heads-up (``GameConfig.cap_heads_up``). An all-in
  raise of at least half a bet counts as a full raise for reopening the betting (the common
  limit rule); smaller ones do not, and only full raises count towards the cap.
* Raising is not allowed when no opponent could call more (all others are all-in or folded).
* A call when nothing is to be called is a check (lenient: the player meant to stay in);
  ``RaiseTo`` the whole stack is all-in and always allowed when a bet or call is (an all-in
  may be for less).

The round works on the hand's per-position lists (stacks, round commitments, statuses),
which it shares by reference: no copies per action.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import Action, ActionKind, LegalActions
from engine.config import BettingStructure, GameConfig
from engine.errors import IllegalActionError
from engine.phases import PlayerStatus

__all__ = ["Move", "RoundState", "uncalled_bet"]

_ACTIVE = PlayerStatus.ACTIVE
_FOLDED = PlayerStatus.FOLDED
_ALL_IN = PlayerStatus.ALL_IN
_FIXED = BettingStructure.FIXED_LIMIT
_POT = BettingStructure.POT_LIMIT


class _Where:
    """Formats the "(seat 2, FLOP)" context of a message only when an error needs it."""

    __slots__ = ("phase", "seat_index")

    def __init__(self, seat_index: int, phase: str) -> None:
        self.seat_index = seat_index
        self.phase = phase

    def __format__(self, spec: str) -> str:
        return f"seat {self.seat_index}, {self.phase}"


class Move:
    """A validated action, ready to apply: what it amounts to and the chips it adds."""

    __slots__ = ("add", "is_all_in", "kind", "total")

    def __init__(self, kind: ActionKind, add: int, total: int, is_all_in: bool) -> None:
        self.kind = kind
        self.add = add
        self.total = total
        self.is_all_in = is_all_in


class RoundState:
    """The state of one betting round over the hand's shared per-position lists."""

    __slots__ = (
        "acted",
        "acted_level",
        "bet_size",
        "cap_heads_up",
        "committed",
        "current_bet",
        "increment",
        "last_aggressor",
        "raise_cap",
        "raise_count",
        "stacks",
        "statuses",
        "structure",
    )

    def __init__(
        self,
        *,
        structure: BettingStructure,
        bet_size: int,
        raise_cap: int,
        stacks: list[int],
        committed: list[int],
        statuses: list[PlayerStatus],
        is_first: bool,
        cap_heads_up: bool = False,
    ) -> None:
        self.structure = structure
        self.bet_size = bet_size
        self.raise_cap = raise_cap
        self.cap_heads_up = cap_heads_up
        self.stacks = stacks
        self.committed = committed
        self.statuses = statuses
        # The blinds already in front of the players are this round's bet (pre-flop).
        self.current_bet = max(committed)
        # Minimum bet is the big blind (fixed-limit: the bet size) even after short blinds.
        self.increment = bet_size
        # Fixed-limit cap: the big blind is the first of the capped bets pre-flop.
        self.raise_count = 1 if is_first and self.current_bet > 0 else 0
        self.last_aggressor: int | None = None
        count = len(stacks)
        self.acted = [False] * count
        # The round's bet when a player last acted (for re-opening, Rule 96/96a).
        self.acted_level = [0] * count

    @classmethod
    def opening(
        cls,
        config: GameConfig,
        *,
        is_first: bool,
        uses_big_bet: bool,
        stacks: list[int],
        committed: list[int],
        statuses: list[PlayerStatus],
    ) -> RoundState:
        """The round a hand of ``config`` opens: fixed-limit bets the small or the big bet
        (``uses_big_bet``), the other structures have the big blind as the minimum bet."""
        if config.structure is _FIXED:
            bet_size = config.big_bet if uses_big_bet else config.small_bet
        else:
            bet_size = config.minimum_bet
        return cls(
            structure=config.structure,
            bet_size=bet_size,
            raise_cap=config.raise_cap,
            cap_heads_up=config.cap_heads_up,
            stacks=stacks,
            committed=committed,
            statuses=statuses,
            is_first=is_first,
        )

    # -- who acts -------------------------------------------------------------------------

    def next_actor(self, start: int) -> int | None:
        """The first position from ``start`` (inclusive, clockwise) that must act, if any."""
        statuses = self.statuses
        committed = self.committed
        acted = self.acted
        current = self.current_bet
        several = statuses.count(_ACTIVE) > 1
        count = len(statuses)
        position = start % count
        for _ in range(count):
            if statuses[position] is _ACTIVE and (
                committed[position] < current or (several and not acted[position])
            ):
                return position
            position += 1
            if position == count:
                position = 0
        return None

    # -- what is legal --------------------------------------------------------------------

    def raise_blocker(self, position: int) -> str | None:
        """Why the player at ``position`` may not bet or raise now, or None if they may."""
        stacks = self.stacks
        committed = self.committed
        current = self.current_bet
        if committed[position] + stacks[position] <= current:
            return "the stack only covers a call"
        if self.acted[position]:
            grown = current - self.acted_level[position]
            if self.structure is _FIXED:
                reopened = 2 * grown >= self.bet_size  # half a bet counts as a raise in limit
            else:
                reopened = grown >= self.increment
            if not reopened:
                # WSOP Rule 96: a short all-in does not reopen the betting.
                return "the betting was not reopened (an all-in for less than a full raise)"
        statuses = self.statuses
        for other in range(len(statuses)):
            if (
                statuses[other] is _ACTIVE
                and other != position
                and stacks[other] + committed[other] > current
            ):
                break
        else:
            return "no opponent could call a raise"
        if (
            self.structure is _FIXED
            and self.raise_count >= self.raise_cap
            # The cap is lifted when two players are left, unless the game keeps it.
            and (self.cap_heads_up or statuses.count(_ACTIVE) + statuses.count(_ALL_IN) > 2)
        ):
            return f"the cap of {self.raise_cap} bets is reached"
        return None

    def legal(self, position: int, seat_index: int, pot_total: int) -> LegalActions:
        """The legal actions of the player at ``position`` (``pot_total``: every chip in)."""
        stack = self.stacks[position]
        committed = self.committed[position]
        current = self.current_bet
        to_call = current - committed
        can_check = to_call <= 0
        call_amount = 0 if can_check else min(stack, to_call)
        can_raise = self.raise_blocker(position) is None
        min_to = max_to = 0
        if can_raise:
            all_in_to = committed + stack
            if self.structure is _FIXED:
                min_to = max_to = current + self.bet_size
            else:
                min_to = current + self.increment
                if self.structure is _POT:
                    # Pot-limit: raise by the pot after calling (pot includes the call).
                    max_to = max(min_to, current + pot_total + to_call)
                else:
                    max_to = all_in_to
            # A stack short of a full raise can still go all-in for less.
            min_to = min(min_to, all_in_to)
            max_to = min(max_to, all_in_to)
        # Positional for speed, in field order: seat_index, stack, current_bet, committed,
        # can_fold, can_check, can_call, call_amount, can_raise, min/max_raise_to.
        return LegalActions(
            seat_index,
            stack,
            current,
            committed,
            True,
            can_check,
            not can_check,
            call_amount,
            can_raise,
            min_to,
            max_to,
        )

    def resolve(self, position: int, action: Action, legal: LegalActions, phase: str) -> Move:
        """Validate ``action`` against ``legal`` and say what it amounts to; change nothing.

        ``phase`` goes into error messages, e.g. ``"raise to 30 below minimum 40 (seat 2,
        FLOP)"``.
        """
        kind = action.kind
        # The "(seat 2, FLOP)" context, formatted only when a message needs it.
        where = _Where(legal.seat_index, phase)
        stack = legal.stack
        committed = legal.committed
        if kind is ActionKind.FOLD:
            return Move(ActionKind.FOLD, 0, committed, False)
        if kind is ActionKind.CHECK or (kind is ActionKind.CALL and legal.can_check):
            # A call when nothing is to be called is a check: the player meant to stay in.
            if not legal.can_check:
                raise IllegalActionError(
                    "cannot_check",
                    f"cannot check: {legal.call_amount} to call ({where})",
                )
            return Move(ActionKind.CHECK, 0, committed, False)
        if kind is ActionKind.CALL:
            add = legal.call_amount
            return Move(ActionKind.CALL, add, committed + add, add == stack)
        all_in_to = committed + stack
        if kind is ActionKind.ALL_IN:
            total = all_in_to
        elif kind is ActionKind.RAISE:
            total = action.amount  # type: ignore[union-attr]
            if not isinstance(total, int) or isinstance(total, bool):
                raise IllegalActionError(
                    "bad_amount",
                    f"raise amount {total!r} is not a whole number of chips ({where})",
                )
            if total > all_in_to:
                raise IllegalActionError(
                    "amount_above_stack",
                    f"raise to {total} above stack: all-in is {all_in_to} ({where})",
                )
        else:
            raise IllegalActionError(
                "not_a_draw" if kind is ActionKind.DISCARD else "unknown_action",
                f"{action} is not a betting action ({where})",
            )
        if total == all_in_to and total <= legal.current_bet:
            # All-in that does not exceed the bet: a call for the whole stack.
            return Move(ActionKind.CALL, stack, total, True)
        if not legal.can_raise:
            reason = self.raise_blocker(position)
            raise IllegalActionError(
                "raising_not_allowed",
                f"cannot raise to {total}: {reason} ({where})",
            )
        if total < legal.min_raise_to and total != all_in_to:
            raise IllegalActionError(
                "raise_below_minimum",
                f"raise to {total} below minimum {legal.min_raise_to} ({where})",
            )
        if total > legal.max_raise_to:
            raise IllegalActionError(
                "raise_above_maximum",
                f"raise to {total} above maximum {legal.max_raise_to} ({where})",
            )
        return Move(ActionKind.RAISE, total - committed, total, total == all_in_to)

    # -- applying -------------------------------------------------------------------------

    def apply(self, position: int, move: Move) -> tuple[bool, bool]:
        """Apply a validated move to the round; return ``(is_bet, is_full_raise)``.

        The caller moves the chips (stack and commitments) and sets the status; this
        records the betting consequences.
        """
        is_bet = False
        is_full = False
        if move.kind is ActionKind.RAISE:
            size = move.total - self.current_bet
            is_bet = self.current_bet == 0
            if self.structure is _FIXED:
                is_full = 2 * size >= self.bet_size
            else:
                is_full = size >= self.increment
                if is_full:
                    self.increment = size
            if is_full:
                self.raise_count += 1
            self.current_bet = move.total
            self.last_aggressor = position
        self.acted[position] = True
        self.acted_level[position] = self.current_bet
        return is_bet, is_full


def uncalled_bet(street: Sequence[int]) -> tuple[int, int] | None:
    """The uncalled part of a round's top bet, which goes back to the bettor: ``(position,
    chips)``, the top bet's excess over the second highest, or None when it was matched.

    >>> uncalled_bet([2, 10, 6])
    (1, 4)
    >>> uncalled_bet([6, 0, 6]) is None
    True
    """
    top = second = 0
    top_position = 0
    for position, amount in enumerate(street):
        if amount > top:
            second = top
            top = amount
            top_position = position
        elif amount > second:
            second = amount
    return (top_position, top - second) if top > second else None
