"""A team's own hands in the formats ``arena export`` writes (PHH, ACPC log lines), with
the other seats' hole cards hidden as the site's visibility says: PHH writes an unknown
card ``??``, an ACPC line leaves a hidden hand empty (``|Ah2c``), as those formats do for
cards a player did not see.

Each hand is replayed and written by :mod:`arena.export` exactly as ``arena export``
writes it; only the hidden cards are then blanked, by the one rule of
:func:`arena.server.site.visibility.seats_seen`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Set
from typing import Any

from arena.export.acpc import acpc_state_line
from arena.export.phh import hand_phh_fields
from arena.export.refusals import HandRefused, replay
from arena.export.sources import SourceHand
from arena.server.competition import Visibility
from arena.server.site.visibility import seats_seen
from engine.phh import dumps_phh

__all__ = ["FORMATS", "export_hands"]

#: Each download's format: its file suffix.
FORMATS = {"phh": ".phhs", "acpc": ".log"}
_DEALT = re.compile(r"^d dh p(\d+) (\S+)$")


def export_hands(
    hands: Iterable[SourceHand], fmt: str, *, own_seats: Set[int], visibility: Visibility
) -> str:
    """The hands as one PHH collection or one ACPC log; a hand the format cannot express is
    left out with a comment saying why."""
    parts: list[str] = []
    for index, source in enumerate(hands, start=1):
        seen = seats_seen(source.history, own_seats=own_seats, visibility=visibility)
        try:
            hand = replay(source)
            if fmt == "phh":
                fields = hand_phh_fields(source, hand)
                _hide_phh(fields, seen)
                parts.append(f"[{index}]\n{dumps_phh(fields)}")
            else:
                parts.append(_hide_acpc(acpc_state_line(hand, source.names), hand, seen))
        except HandRefused as refused:
            parts.append(f"# {source.label} left out: {refused.message}")
    return "\n".join(parts) + "\n"


def _hide_phh(fields: dict[str, Any], seen: set[int] | None) -> None:
    if seen is None:
        return
    seat_numbers: list[int] = fields["seats"]  # 1-based, in the order of p1, p2, ...
    actions = []
    for action in fields["actions"]:
        dealt = _DEALT.match(action)
        if dealt and seat_numbers[int(dealt.group(1)) - 1] - 1 not in seen:
            action = f"d dh p{dealt.group(1)} " + "??" * (len(dealt.group(2)) // 2)
        actions.append(action)
    fields["actions"] = actions


def _hide_acpc(line: str, hand: Any, seen: set[int] | None) -> str:
    if seen is None:
        return line
    state, number, betting, cards, tail = line.split(":", 4)
    holes, _, board = cards.partition("/")
    order = [seat_index for seat_index, _, _ in hand.events[0].seats]
    shown = [
        cards if seat in seen else "" for seat, cards in zip(order, holes.split("|"), strict=True)
    ]
    cards = "|".join(shown) + ("/" + board if board else "")
    return f"{state}:{number}:{betting}:{cards}:{tail}"
