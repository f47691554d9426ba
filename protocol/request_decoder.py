"""The legal actions an ``act`` or ``draw`` request states: the inverse of the request
encoder (:mod:`protocol.request_encoder`) for the engine's ``LegalActions``.

A request carries everything a seat needs to know what it may do: the legal action names,
the amount to call, the raise bounds (null when it may not raise), its stack, the bet to
match and, in the table state, what it has put in this round already. Decoding them gives
back the engine's ``LegalActions`` exactly, so a front end that only sees the wire (a
person's seat, a test) checks an answer against the same rules as the engine.

>>> request = {"type": "act", "seat_index": 0, "player_stack": 199, "current_bet": 2,
...     "to_call": 1, "min_raise_to": 4, "max_raise_to": 200,
...     "legal_actions": ["FOLD", "CALL", "RAISE", "ALL_IN"],
...     "table_state": [{"seat_index": 0, "current_bet": 1}]}
>>> legal = legal_from_request(request)
>>> legal.call_amount, legal.committed, legal.min_raise_to, legal.can_all_in
(1, 1, 4, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.actions import LegalActions

__all__ = ["legal_from_request"]


def legal_from_request(request: Mapping[str, Any]) -> LegalActions:
    """The engine's legal actions as the ``act`` or ``draw`` request states them.

    The request must be one the arena sends (:mod:`protocol.request_encoder`); a seat
    missing from its own table state has committed nothing this round.
    """
    seat_index = int(request["seat_index"])
    stack = int(request["player_stack"])
    current_bet = int(request["current_bet"])
    if request["type"] == "draw":
        max_discards = int(request["max_discards"])
        return LegalActions.draw(seat_index, stack, max_discards, current_bet=current_bet)
    names = set(request["legal_actions"])
    own = [seat for seat in request["table_state"] if seat["seat_index"] == seat_index]
    return LegalActions(
        seat_index=seat_index,
        stack=stack,
        current_bet=current_bet,
        committed=int(own[0]["current_bet"]) if own else 0,
        can_fold="FOLD" in names,
        can_check="CHECK" in names,
        can_call="CALL" in names,
        call_amount=int(request["to_call"]),
        can_raise="RAISE" in names,
        # Null bounds: the seat may not raise (the encoder writes None then).
        min_raise_to=int(request["min_raise_to"] or 0),
        max_raise_to=int(request["max_raise_to"] or 0),
    )
