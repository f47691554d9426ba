"""What the channel reads: the public table, drawn from the messages a seat gets.

Every seat's ``act`` or ``draw`` request holds the public table (stacks, bets, pots, the
board, whose turn it is and the legal actions with their amounts) next to what only that
seat may see (its hole cards, and in a draw game its own discards and new cards). Before a
request is drawn for the channel, :func:`public_request` keeps the public part only, so the
channel never sees a card that any seat may not see; the texts themselves are
:mod:`arena.human.render`'s, told from no seat's point of view. No rule of the game is
computed here: the amounts are the ones the request states.

>>> request = {"type": "act", "hole_cards": [{"rank": "A", "suit": "spades"}],
...     "history": [{"type": "cards_drawn", "seat_index": 0,
...                  "discarded": [{"rank": "2", "suit": "clubs"}], "drawn": []}]}
>>> public = public_request(request)
>>> "hole_cards" in public, public["history"]
(False, [{'type': 'cards_drawn', 'seat_index': 0, 'discarded': None, 'discard_count': 1}])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.human.entry import describe_legal
from arena.human.render import (
    SeatNames,
    cards_text,
    event_lines,
    hand_end_text,
    match_end_text,
    phase_and_pots,
    seat_notes,
)

__all__ = [
    "public_event",
    "public_hand_end_text",
    "public_match_end_text",
    "public_request",
    "public_table_text",
]

# Events whose fields are all public (cards in hand_shown were shown at showdown).
_PUBLIC_EVENTS = frozenset(
    {
        "blind_posted",
        "ante_posted",
        "street_dealt",
        "action_taken",
        "uncalled_bet_returned",
        "hand_shown",
        "hand_mucked",
        "stub_reshuffled",
    }
)
# A request's own fields that only its seat may see.
_PRIVATE_REQUEST_FIELDS = frozenset({"hole_cards"})


def public_event(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """``event`` as anyone may see it, or None for an event that is nobody else's business
    (the deal of one seat's cards). A draw keeps how many cards, not which."""
    kind = event.get("type")
    if kind in _PUBLIC_EVENTS:
        return dict(event)
    if kind == "cards_drawn":
        discarded = event.get("discarded")
        count = len(discarded) if discarded is not None else event.get("discard_count", 0)
        return {
            "type": "cards_drawn",
            "seat_index": event.get("seat_index"),
            "discarded": None,
            "discard_count": count,
        }
    return None


def public_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """``request`` without what only its seat may see: its hole cards, and its own cards in
    the history's events."""
    public = {key: value for key, value in request.items() if key not in _PRIVATE_REQUEST_FIELDS}
    history = [public_event(event) for event in request.get("history", [])]
    public["history"] = [event for event in history if event is not None]
    return public


def public_table_text(
    request: Mapping[str, Any],
    names: SeatNames,
    *,
    events_told: int = 0,
    turn_s: float | None = None,
) -> str:
    """The channel's table when a seat is asked: what happened since ``events_told`` of
    the (public) history, the pot and board, each seat's stack and bet, whose turn it is
    and the legal actions with their amounts."""
    public = public_request(request)
    seat_players = {seat["seat_index"]: seat["player_id"] for seat in public["table_state"]}
    lines = event_lines(public["history"][events_told:], seat_players, names)
    lines.append(f"**Hand {public['hand_number']}** · {phase_and_pots(public)}")
    if public.get("community_cards"):
        lines.append(f"Board: {cards_text(public['community_cards'])}")
    actor = seat_players.get(public["seat_index"], "")
    for seat in public["table_state"]:
        label = names.label(seat["player_id"])
        extra = seat_notes(seat, public)
        lines.append(
            f"`seat {seat['seat_index']}` {label}: stack {seat['stack']}, bet "
            f"{seat['current_bet']}{'  ' + extra if extra else ''}"
        )
    limit = "" if turn_s is None else f" ({turn_s:g} s)"
    lines.append(
        f"To act: {names.label(actor)}{limit}, who may: {', '.join(describe_legal(public))}"
    )
    return "\n".join(lines)


def public_hand_end_text(message: Mapping[str, Any], names: SeatNames) -> str:
    """How a hand ended, for everyone: the board, the hands shown with their names, who
    won what with which hand, and the stacks."""
    public = {
        key: message[key]
        for key in ("hand_number", "reason", "board", "shown_hands", "pots")
        if key in message
    }
    lines = [hand_end_text(public, names)]
    stacks = message.get("stacks", [])
    if stacks:
        lines.append(
            "Stacks: " + ", ".join(f"{names.label(s['player_id'])} {s['stack']}" for s in stacks)
        )
    return "\n".join(lines)


def public_match_end_text(message: Mapping[str, Any], names: SeatNames) -> str:
    """The final standings (the winner first)."""
    public = {key: message[key] for key in ("hands_played", "standings") if key in message}
    return match_end_text(public, names).strip()
