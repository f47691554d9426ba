"""What a team sees of a hand: its own cards always; another team's cards as the site's
:class:`~arena.server.competition.Visibility` says. A pure function over a hand history
(``engine.history``'s document), applied before the report's hand viewer draws it.

Hidden cards become ``"??"`` (the viewer draws a card with a question mark); the deck
and the seed go, since either would give every card away.

>>> history = {"deck": ["As"], "seed": "7:1", "events": [
...     {"type": "hole_cards_dealt", "seat_index": 0, "cards": ["As", "Kd"]},
...     {"type": "hole_cards_dealt", "seat_index": 1, "cards": ["7c", "2h"]},
...     {"type": "hand_shown", "seat_index": 1, "cards": ["7c", "2h"]}]}
>>> seen = redact_history(history, own_seats={0}, visibility=Visibility.SHOWDOWNS)
>>> [event.get("cards") for event in seen["events"]], "deck" in seen, "seed" in seen
([['As', 'Kd'], ['7c', '2h'], ['7c', '2h']], False, False)
>>> seen = redact_history(history, own_seats=set(), visibility=Visibility.SHOWDOWNS)
>>> seen["events"][0]["cards"], seen["events"][1]["cards"]
(['??', '??'], ['7c', '2h'])
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Set
from typing import Any

from arena.server.competition import Visibility

__all__ = ["HIDDEN_CARD", "redact_history", "seats_seen"]

#: A card the viewer may not see.
HIDDEN_CARD = "??"
#: Each private event type and its private fields (``engine.events``' ``private_fields``).
_PRIVATE = {"hole_cards_dealt": ("cards",), "cards_drawn": ("discarded", "drawn")}


def seats_seen(
    history: Mapping[str, Any], *, own_seats: Set[int], visibility: Visibility
) -> set[int] | None:
    """The seats whose hole cards the viewer sees (None: every seat): its own, and those
    the site's visibility shows (a hand shown at showdown, or all)."""
    if visibility is Visibility.EVERYTHING:
        return None
    # A draw's showdown shows the hand after the draw, not the one dealt: hidden then.
    is_draw = history.get("config", {}).get("variant") == "five_card_draw"
    shown = set()
    if visibility is Visibility.SHOWDOWNS and not is_draw:
        shown = {e["seat_index"] for e in history.get("events", ()) if e["type"] == "hand_shown"}
    return set(own_seats) | shown


def redact_history(
    history: Mapping[str, Any], *, own_seats: Set[int], visibility: Visibility
) -> dict[str, Any]:
    """A copy of ``history`` with the cards the viewer may not see hidden."""
    seen = copy.deepcopy(dict(history))
    seen.pop("deck", None)
    seen.pop("seed", None)
    visible = seats_seen(history, own_seats=own_seats, visibility=visibility)
    if visible is None:
        return seen
    for event in seen.get("events", ()):
        names = _PRIVATE.get(event["type"], ())
        if not names or event.get("seat_index") in visible:
            continue
        for name in names:
            event[name] = [HIDDEN_CARD] * len(event.get(name) or ())
    return seen
