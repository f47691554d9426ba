"""Legal actions the protocol's reply tests put bots in front of."""

from __future__ import annotations

from engine.actions import LegalActions

#: Pre-flop, seat 3 faces a big blind of 2 with 100 behind: fold, call 2, raise to 4..100.
FACING_BET = LegalActions(
    seat_index=3,
    stack=100,
    current_bet=2,
    committed=0,
    can_fold=True,
    can_check=False,
    can_call=True,
    call_amount=2,
    can_raise=True,
    min_raise_to=4,
    max_raise_to=100,
)
