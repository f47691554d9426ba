"""A team's own hands in the formats ``arena export`` writes (PHH, ACPC log lines) or as
the engine's own hand histories (JSON lines), with the other seats' hole cards hidden as
the site's visibility says: PHH writes an unknown card ``??``, an ACPC line leaves a hidden
hand empty (``|Ah2c``), as those formats do for cards a player did not see; a JSON line is
the history :func:`arena.server.site.visibility.redact_history` leaves (``??`` cards, no
deck and no seed).

Each hand is replayed and written by :mod:`arena.export` exactly as ``arena export``
writes it; only the hidden cards are then blanked, by the one rule of
:func:`arena.server.site.visibility.seats_seen`. :func:`iter_exported` yields the text hand
by hand, so that a download of many matches streams (:func:`export_hands` joins it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.export.acpc import acpc_state_line
from arena.export.phh import hand_phh_fields
from arena.export.refusals import HandRefused, replay
from arena.export.sources import SourceError, SourceHand, open_source
from arena.server.competition import Visibility
from arena.server.site.visibility import redact_history, seats_seen
from engine.phh import dumps_phh

__all__ = ["FORMATS", "OwnMatch", "export_hands", "iter_exported", "iter_matches_exported"]

#: Each download's format: its file suffix.
FORMATS = {"phh": ".phhs", "acpc": ".log", "jsonl": ".jsonl"}
_DEALT = re.compile(r"^d dh p(\d+) (\S+)$")


def export_hands(
    hands: Iterable[SourceHand], fmt: str, *, own_seats: Set[int], visibility: Visibility
) -> str:
    """The hands as one PHH collection, one ACPC log or JSON lines; a hand the format
    cannot express is left out with a comment saying why."""
    return "".join(iter_exported(hands, fmt, own_seats=own_seats, visibility=visibility))


def iter_exported(
    hands: Iterable[SourceHand],
    fmt: str,
    *,
    own_seats: Set[int],
    visibility: Visibility,
    first_index: int = 1,
) -> Iterator[str]:
    """Each hand's text (ending with a newline), in order; a PHH section is numbered from
    ``first_index`` (a download of many matches goes on counting). ``fmt`` is one of
    :data:`FORMATS` (anything else raises ``ValueError`` naming it)."""
    if fmt not in FORMATS:
        raise ValueError(f"no download format {fmt!r}: one of {', '.join(FORMATS)}")
    for index, source in enumerate(hands, start=first_index):
        if fmt == "jsonl":
            yield _json_line(source, own_seats=own_seats, visibility=visibility)
            continue
        seen = seats_seen(source.history, own_seats=own_seats, visibility=visibility)
        try:
            hand = replay(source)
            if fmt == "phh":
                fields = hand_phh_fields(source, hand)
                _hide_phh(fields, seen)
                # Sections apart by a blank line, as ``arena export`` writes a collection.
                separator = "" if index == first_index else "\n"
                yield f"{separator}[{index}]\n{dumps_phh(fields)}\n"
            else:
                yield _hide_acpc(acpc_state_line(hand, source.names), hand, seen) + "\n"
        except HandRefused as refused:
            yield f"# {source.label} left out: {refused.message}\n"


@dataclass(frozen=True, slots=True)
class OwnMatch:
    """A match of a bulk download: its number on the site, its hand file (empty: none)
    and the seats the downloading team sat in."""

    number: int
    hands_file: str
    own_seats: frozenset[int]


def iter_matches_exported(
    matches: Iterable[OwnMatch], fmt: str, *, visibility: Visibility
) -> Iterator[str]:
    """Every hand of ``matches``, one after the other, as :func:`iter_exported` writes
    them (a PHH collection numbered on across the matches), each match introduced by a
    comment line naming it; a match whose hands cannot be read says so in a comment (not
    why: the reason names the server's files) and the download goes on."""
    written = 0
    for match in matches:
        is_records = fmt == "jsonl"  # a JSON lines file holds only records: no comment
        if not is_records:
            yield f"# match {match.number}\n"
        try:
            if not match.hands_file:
                raise SourceError("no hand history")
            hands = open_source(Path(match.hands_file)).hands()
            for text in iter_exported(hands, fmt, own_seats=match.own_seats,
                                      visibility=visibility, first_index=written + 1):  # fmt: skip
                written += 1
                yield text
        except SourceError:
            if not is_records:
                yield f"# match {match.number}: its hands cannot be read\n"


def _json_line(source: SourceHand, *, own_seats: Set[int], visibility: Visibility) -> str:
    history = redact_history(source.history, own_seats=own_seats, visibility=visibility)
    record = {"match": source.match_id, "hand_number": source.hand_number, "history": history}
    return json.dumps(record, sort_keys=True, separators=(",", ":")) + "\n"


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
