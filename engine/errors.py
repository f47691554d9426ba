"""The engine's errors: a small hierarchy rooted in built-ins, each with a stable ``code``.

``IllegalActionError`` is the fault of whoever sent the action (a bot): the hand is left
exactly as it was, and the message names the bad value and its context, e.g.
``raise to 30 below minimum 40 (seat 2, FLOP)``. ``InvariantError`` is our own bug.

>>> error = IllegalActionError("not_your_turn", "seat 3 acted but seat 1 is to act")
>>> error.code, str(error)
('not_your_turn', 'seat 3 acted but seat 1 is to act')
>>> isinstance(error, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "ILLEGAL_ACTION_CODES",
    "EngineError",
    "IllegalActionError",
    "InvariantError",
]

#: Every code an ``IllegalActionError`` may carry (stable: bots and logs depend on them).
ILLEGAL_ACTION_CODES = frozenset(
    {
        "not_your_turn",
        "hand_is_over",
        "cannot_check",
        "raise_below_minimum",
        "raise_above_maximum",
        "amount_above_stack",
        "raising_not_allowed",
        "bad_amount",
        "bad_discard",
        "too_many_discards",
        "card_not_in_hand",
        "duplicate_discard",
        "not_a_draw",
        "not_a_bet",
        "unknown_action",
    },
)


class EngineError(Exception):
    """Root of the engine's own errors; ``code`` is a stable machine-readable name."""

    code = "engine_error"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class IllegalActionError(EngineError, ValueError):
    """An action that the rules do not allow now; nothing changed in the hand."""


class InvariantError(EngineError, AssertionError):
    """A state invariant failed: a dealer bug. The hand is voided when this happens."""
