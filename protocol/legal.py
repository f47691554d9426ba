"""The wire's list of legal actions, derived from the engine's ``LegalActions`` only.

``ALL_IN`` follows the engine's rule: going all-in is legal exactly when the amount it puts
in is a legal call (a call for the whole stack, possibly for less than the bet) or a legal
bet or raise. So when the betting was not reopened for a player (a short all-in raise in
front of it, WSOP Rule 96) or the raise cap is reached, ``ALL_IN`` is offered only if the
stack does not cover more than the call; in pot-limit it is offered only if the stack is
within the pot-size maximum.

>>> from engine.actions import LegalActions
>>> legal = LegalActions(
...     seat_index=0, stack=99, current_bet=2, committed=1, can_fold=True, can_check=False,
...     can_call=True, call_amount=1, can_raise=True, min_raise_to=4, max_raise_to=100,
... )
>>> legal_action_names(legal)
['FOLD', 'CALL', 'RAISE', 'ALL_IN']
"""

from __future__ import annotations

from engine.actions import LegalActions

__all__ = ["all_in_is_legal", "legal_action_names"]


def all_in_is_legal(legal: LegalActions) -> bool:
    """Whether pushing the whole stack is a legal call or a legal bet/raise now.

    This is the engine's own rule (``LegalActions.can_all_in``), so the list sent to the bot
    and the engine's validation cannot disagree.
    """
    return legal.can_all_in


def legal_action_names(legal: LegalActions) -> list[str]:
    """The wire names of the legal betting actions, in a fixed order."""
    names = []
    if legal.can_fold:
        names.append("FOLD")
    if legal.can_check:
        names.append("CHECK")
    if legal.can_call:
        names.append("CALL")
    if legal.can_raise:
        names.append("RAISE")
    if all_in_is_legal(legal):
        names.append("ALL_IN")
    return names
