"""What a person types at their seat, turned into a protocol reply or a clear refusal.

The person answers the same ``act`` and ``draw`` requests a bot gets. An entry is read
against the request's own legal actions (decoded from the request by the protocol,
:func:`protocol.request_decoder.legal_from_request`) and checked by the protocol's reply
parser, the one every bot reply goes through, so a person can enter nothing a bot could
not send. What a person may type (``f``, ``c``, ``r 40``, ``9h 6h 2c``, ``pat``...) is the
table of docs/human-seat.md ("What you type"); ``?`` or ``help``, ``t`` or ``table`` and
``q`` or ``quit`` are commands of the seat, not replies (:class:`Command`).

>>> request = {"type": "act", "seq": 4, "seat_index": 0, "player_stack": 199,
...     "current_bet": 2, "to_call": 1, "min_raise_to": 4, "max_raise_to": 200,
...     "legal_actions": ["FOLD", "CALL", "RAISE", "ALL_IN"],
...     "table_state": [{"seat_index": 0, "current_bet": 1}]}
>>> parse_entry("r 40", request)
{'type': 'action', 'seq': 4, 'action': 'RAISE', 'amount': 40}
>>> describe_legal(request)
['fold', 'call 1', 'raise 4..200', 'all-in 200']
>>> try:
...     parse_entry("raise 3", request)
... except EntryError as exc:
...     print(exc)
raise to 3 below minimum 4. You may: fold, call 1, raise 4..200, all-in 200
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Any

from engine.actions import LegalActions
from engine.cards import Card, CardParseError
from engine.config import DrawLimit
from protocol.cards import card_from_wire, cards_to_wire
from protocol.errors import BotReplyError
from protocol.replies import parse_action, parse_discard
from protocol.request_decoder import legal_from_request

__all__ = [
    "Command",
    "EntryError",
    "describe_legal",
    "parse_entry",
    "request_hole_cards",
]


class EntryError(ValueError):
    """An entry that is no legal reply; the message says why and what is legal."""

    code = "bad_entry"


class Command(StrEnum):
    """An entry that asks the seat for something instead of answering the request."""

    HELP = "help"
    TABLE = "table"
    QUIT = "quit"


_COMMANDS = {
    "?": Command.HELP,
    "h": Command.HELP,
    "help": Command.HELP,
    "t": Command.TABLE,
    "table": Command.TABLE,
    "q": Command.QUIT,
    "quit": Command.QUIT,
    "exit": Command.QUIT,
}
_FOLD = frozenset({"f", "fold"})
_CALL = frozenset({"c", "call"})
_CHECK = frozenset({"k", "x", "check"})
_RAISE = frozenset({"r", "raise", "b", "bet"})
_ALL_IN = frozenset({"a", "allin", "all-in", "all_in", "all in", "shove"})
_PAT = frozenset({"p", "pat", "none", "stand", "stand pat", "-"})
_DISCARD_WORDS = frozenset({"d", "discard"})
# "r40" as well as "r 40"; "raise to 40" as well as "raise 40".
_RAISE_ENTRY = re.compile(r"^(r|raise|b|bet)\s*(?:to\s+)?(\S+)$")
_SEAT_SUFFIX = re.compile(r"\s*\(seat \d+\)$")  # the protocol's messages name the seat


def request_hole_cards(request: Mapping[str, Any]) -> list[Card]:
    """The seat's own cards, as the request sends them."""
    cards = [card_from_wire(wire) for wire in request.get("hole_cards", [])]
    return [card for card in cards if card is not None]


def describe_legal(request: Mapping[str, Any]) -> list[str]:
    """What the person may do, with the amounts: ``fold``, ``call 4``, ``raise 8..200``.

    A raise's amounts are round totals ("raise to"); ``all-in`` shows the total it reaches.
    In a draw: how many cards may go.
    """
    if request["type"] == "draw":
        most = int(request["max_discards"])
        return [f"discard up to {most} card{'' if most == 1 else 's'}", "pat"]
    names = set(request["legal_actions"])
    legal = legal_from_request(request)
    described = []
    if "FOLD" in names:
        described.append("fold")
    if "CHECK" in names:
        described.append("check")
    if "CALL" in names:
        described.append(f"call {legal.call_amount}")
    if "RAISE" in names:
        low, high = legal.min_raise_to, legal.max_raise_to
        # Nothing bet yet this round: the first chips in are a bet, not a raise.
        word = "bet" if legal.current_bet == 0 else "raise"
        # Fixed-limit (and a stack that only reaches one amount) has a single raise size.
        described.append(f"{word} {low}" if low == high else f"{word} {low}..{high}")
    if "ALL_IN" in names:
        described.append(f"all-in {legal.all_in_to}")
    return described


def parse_entry(
    text: str,
    request: Mapping[str, Any],
    *,
    draw_limit: DrawLimit = DrawLimit.ANY,
) -> dict[str, Any] | Command:
    """The reply ``text`` gives to ``request``, or the seat :class:`Command` it names.

    Raises :class:`EntryError` for anything else, with what is legal now.
    """
    entry = " ".join(text.strip().lower().split())
    command = _COMMANDS.get(entry)
    if command is not None:
        return command
    seq = int(request["seq"])
    legal = legal_from_request(request)
    try:
        if request["type"] == "draw":
            cards = _discards(entry, request_hole_cards(request))
            reply: dict[str, Any] = {"type": "discard", "seq": seq, "cards": cards_to_wire(cards)}
            parse_discard(reply, seq, legal, request_hole_cards(request), draw_limit=draw_limit)
        else:
            reply = _betting_reply(entry, seq, legal)
            parse_action(reply, seq, legal)
    except BotReplyError as exc:
        raise _refused(_SEAT_SUFFIX.sub("", exc.message), request) from None
    except EntryError as exc:
        raise _refused(str(exc), request) from None
    return reply


def _refused(reason: str, request: Mapping[str, Any]) -> EntryError:
    return EntryError(f"{reason}. You may: {', '.join(describe_legal(request))}")


def _betting_reply(entry: str, seq: int, legal: LegalActions) -> dict[str, Any]:
    if not entry:
        raise EntryError("nothing entered")
    if entry in _FOLD:
        return {"type": "action", "seq": seq, "action": "FOLD"}
    if entry in _CHECK:
        return {"type": "action", "seq": seq, "action": "CHECK"}
    if entry in _CALL:
        # "c" is the one key for "stay in": a check when nothing is to call.
        action = "CALL" if legal.call_amount > 0 else "CHECK"
        return {"type": "action", "seq": seq, "action": action}
    if entry in _ALL_IN:
        return {"type": "action", "seq": seq, "action": "ALL_IN"}
    if entry in _RAISE:
        raise EntryError(f"{entry!r} needs an amount, the round total to raise to (e.g. r 40)")
    match = _RAISE_ENTRY.match(entry)
    if match is None:
        if entry.isdigit():
            raise EntryError(f"{entry!r} alone is not an action; to raise to it: r {entry}")
        raise EntryError(f"{entry!r} is not an action (? for help)")
    amount_text = match.group(2)
    if amount_text.startswith("-") and amount_text[1:].isdigit():
        least = f": the least is {legal.min_raise_to}" if legal.can_raise else ""
        raise EntryError(f"raise amount {amount_text} is negative{least}")
    if not amount_text.isdigit():
        raise EntryError(f"raise amount {amount_text!r} is not a whole number of chips")
    return {"type": "action", "seq": seq, "action": "RAISE", "amount": int(amount_text)}


def _discards(entry: str, hole_cards: Sequence[Card]) -> list[Card]:
    """The cards a draw entry names, by name or by place (1 = the first card shown)."""
    if entry in _PAT:
        return []
    words = entry.replace(",", " ").split()
    if words and words[0] in _DISCARD_WORDS:
        words = words[1:]
    if not words:
        raise EntryError("name the cards to discard (e.g. 9h 2c, or their places 3 5), or pat")
    cards = []
    for word in words:
        if word.isdigit():
            place = int(word)
            if not 1 <= place <= len(hole_cards):
                raise EntryError(f"card place {word} is not in 1..{len(hole_cards)}")
            cards.append(hole_cards[place - 1])
            continue
        text = "t" + word[2:] if word.startswith("10") else word
        try:
            cards.append(Card.parse(text))
        except CardParseError:
            raise EntryError(f"{word!r} is not a card (e.g. As, Th or 10h) nor a place") from None
    return cards
