"""Phases of a hand and statuses of a player, with the names used on the wire.

The allowed phase transitions are a table in ``engine.transitions`` (added with the hand
state machine).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Phase", "PlayerStatus"]


class Phase(StrEnum):
    """Where a hand is (Hold'em's streets or five-card draw's betting and draw rounds)."""

    WAITING_FOR_PLAYERS = "WAITING_FOR_PLAYERS"
    GAME_STARTED = "GAME_STARTED"
    BLINDS_POSTED = "BLINDS_POSTED"
    PRE_FLOP = "PRE_FLOP"
    FLOP = "FLOP"
    TURN = "TURN"
    RIVER = "RIVER"
    PRE_DRAW_BET = "PRE_DRAW_BET"
    DRAW = "DRAW"
    POST_DRAW_BET = "POST_DRAW_BET"
    SHOWDOWN = "SHOWDOWN"
    POT_DISTRIBUTION = "POT_DISTRIBUTION"
    HAND_COMPLETE = "HAND_COMPLETE"


class PlayerStatus(StrEnum):
    """A player's status in the current hand."""

    ACTIVE = "ACTIVE"
    FOLDED = "FOLDED"
    ALL_IN = "ALL_IN"
    OUT = "OUT"  # not dealt in: sitting out, busted, or an empty seat
