"""A bot's reported mixed strategy: an ``action`` reply with a ``distribution`` in place of
one ``action``, checked and turned into engine actions with their probabilities.

Why a bot reports one: the arena then draws the action itself and knows the probability of
every action the bot could have taken, which lets the luck estimate remove the variance of
the bot's own randomisation (AIVAT's action term) without knowing anything else about the
bot. The distribution never leaves the arena's records (no other seat is told it).

The wire form, in place of ``action`` and ``amount``::

    {"type": "action", "seq": 9, "distribution": [
        {"action": "CALL", "probability": 0.6},
        {"action": "RAISE", "amount": 300, "probability": 0.3},
        {"action": "FOLD", "probability": 0.1}]}

The rules (each breach is the bot's fault, a :class:`~protocol.errors.BotReplyError`):

* the shape (the ``action`` schema): 1 to :data:`MAX_ENTRIES` entries, each an action name,
  an ``amount`` as in a one-action reply, and a ``probability``, a number of at least 0;
  ``action`` and ``distribution`` together are refused (which one would count?);
* an entry of probability 0 is ignored whatever it names (a bot may list its whole menu);
  every other entry must be a legal action now, with the one-action reply's codes
  (``raise_below_minimum`` ... at ``/distribution/<i>/amount``);
* no two entries of probability above 0 may be the same move (``duplicate_action``): the
  same round total after it (``CALL`` and ``ALL_IN`` for a short stack, ``RAISE`` to the
  stack and ``ALL_IN``, ``CALL`` with nothing to call and ``CHECK``), or both ``FOLD``;
* the probabilities must sum to 1 within :data:`SUM_TOLERANCE` (``probability_sum``);
  the arena then divides each by the sum, so the distribution it draws from and records
  sums to 1 up to rounding.

>>> from engine.actions import LegalActions
>>> legal = LegalActions(
...     seat_index=1, stack=98, current_bet=2, committed=2, can_fold=True, can_check=True,
...     can_call=False, call_amount=0, can_raise=True, min_raise_to=4, max_raise_to=100,
... )
>>> strategy = strategy_from_reply(
...     [{"action": "CHECK", "probability": 0.75}, {"action": "RAISE", "amount": 6,
...      "probability": 0.25}, {"action": "CALL", "amount": 50, "probability": 0}], legal)
>>> strategy
MixedStrategy(entries=((Check(), 0.75), (RaiseTo(amount=6), 0.25)))
>>> strategy.draw(0.5), strategy.draw(0.8)
(Check(), RaiseTo(amount=6))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, AllIn, Call, Check, Fold, LegalActions, RaiseTo
from protocol.betting import action_from_reply, json_integer
from protocol.errors import BotReplyError, ErrorCode

__all__ = [
    "MAX_ENTRIES",
    "SUM_TOLERANCE",
    "MixedStrategy",
    "distribution_shape_is_valid",
    "strategy_from_reply",
]

#: Most entries a distribution may have (a bot mixing over more bet sizes than this
#: should round them: a longer list buys no accuracy worth its line).
MAX_ENTRIES = 32
#: How far from 1 the probabilities may sum (the arena normalises what it accepts).
SUM_TOLERANCE = 1e-6

_ACTION_NAMES = frozenset({"CHECK", "CALL", "FOLD", "RAISE", "ALL_IN"})


@dataclass(frozen=True, slots=True)
class MixedStrategy:
    """A checked distribution: legal engine actions, each with its probability (above 0,
    the sum 1 up to rounding), in the bot's order."""

    entries: tuple[tuple[Action, float], ...]

    def draw(self, uniform: float) -> Action:
        """The action that ``uniform`` (a number in [0, 1)) falls on, the entries laid
        end to end in order; rounding past the end falls on the last one.

        >>> MixedStrategy(((Fold(), 0.5), (Check(), 0.5))).draw(0.999999)
        Check()
        """
        total = 0.0
        for action, probability in self.entries:
            total += probability
            if uniform < total:
                return action
        return self.entries[-1][0]


def distribution_shape_is_valid(distribution: object) -> bool:
    """Fast structural check of a reply's ``distribution``; agrees with its JSON Schema."""
    if type(distribution) is not list or not 1 <= len(distribution) <= MAX_ENTRIES:
        return False
    for entry in distribution:
        if type(entry) is not dict:
            return False
        name = entry.get("action")
        if type(name) is not str or name not in _ACTION_NAMES:
            return False
        if not _is_probability(entry.get("probability")):
            return False
        amount = entry.get("amount")
        if amount is None:
            if name == "RAISE":  # a RAISE needs an integer amount; null is fine elsewhere
                return False
        elif json_integer(amount) is None or amount < 0:
            return False
    return True


def strategy_from_reply(distribution: list[dict[str, Any]], legal: LegalActions) -> MixedStrategy:
    """The checked strategy of a ``distribution`` whose shape is valid (see the module
    docstring for the rules); raises :class:`~protocol.errors.BotReplyError`."""
    seat = f"(seat {legal.seat_index})"
    entries: list[tuple[Action, float]] = []
    seen: dict[int | None, int] = {}  # a move's round total (None: fold) -> its entry
    for index, entry in enumerate(distribution):
        probability = float(entry["probability"])
        if probability == 0:
            continue  # ignored, legal or not
        try:
            action = action_from_reply(entry["action"], json_integer(entry.get("amount")), legal)
        except BotReplyError as exc:
            raise BotReplyError(exc.code, exc.message, f"/distribution/{index}{exc.path}") from None
        move = _round_total(action, legal)
        if move in seen:
            raise BotReplyError(
                ErrorCode.DUPLICATE_ACTION,
                f"entries {seen[move]} and {index} are the same move, "
                f"{_describe(action, move)}: name each move once {seat}",
                f"/distribution/{index}",
            )
        seen[move] = index
        entries.append((action, probability))
    total = math.fsum(probability for _, probability in entries)
    if not abs(total - 1.0) <= SUM_TOLERANCE:
        raise BotReplyError(
            ErrorCode.PROBABILITY_SUM,
            f"probabilities sum to {total!r}, not 1 (within {SUM_TOLERANCE:g}) {seat}",
            "/distribution",
        )
    return MixedStrategy(tuple((action, probability / total) for action, probability in entries))


def _is_probability(value: object) -> bool:
    """A JSON number of at least 0 (not a boolean; NaN, which JSON has not, is not one)."""
    if type(value) is int or type(value) is float:
        return value >= 0
    return False


def _round_total(action: Action, legal: LegalActions) -> int | None:
    """What the move amounts to: the seat's round total after it (None for a fold)."""
    if isinstance(action, Fold):
        return None
    if isinstance(action, Check):
        return legal.committed
    if isinstance(action, Call):
        return min(legal.current_bet, legal.all_in_to)
    if isinstance(action, RaiseTo):
        return action.amount
    assert isinstance(action, AllIn)  # action_from_reply makes nothing else here
    return legal.all_in_to


def _describe(action: Action, total: int | None) -> str:
    return "FOLD" if total is None else f"{action} (a round total of {total})"
