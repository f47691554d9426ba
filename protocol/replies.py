"""Parse a bot's replies into engine values, or say precisely why they are rejected.

Each ``parse_*`` takes the decoded object, the ``seq`` of the request outstanding and the
engine's :class:`~engine.actions.LegalActions`, and returns an engine action or raises
:class:`~protocol.errors.BotReplyError` (stable ``code``, a message naming the bad value,
the JSON ``path``). The checks, in order:

1. ``seq`` must be a positive integer (requests are numbered from 1): a reply without one,
   or with 0, -5, null, 1.5, ``"3"`` or true, is rejected as ``bad_seq``. It is a bad
   reply, not a late one: nothing the arena sent could have carried that number.
2. ``seq``: a positive integer older than the outstanding request is a late answer to a
   request that already timed out: :class:`~protocol.errors.StaleReplyError`, which the
   arena drops and logs without using up an attempt, whatever else is wrong with the reply.
3. shape: a fast hand-written check of the reply's schema; only when it fails does the
   precise (slow) jsonschema validator run, to name the field. The two agree (tested).
4. ``seq`` newer than any request sent: ``unknown_seq``.
5. legality against ``LegalActions``, with the engine's codes, so that the action handed
   to the engine is one it accepts.

>>> from engine.actions import LegalActions
>>> legal = LegalActions(
...     seat_index=1, stack=98, current_bet=2, committed=2, can_fold=True, can_check=True,
...     can_call=False, call_amount=0, can_raise=True, min_raise_to=4, max_raise_to=100,
... )
>>> parse_action({"type": "action", "seq": 9, "action": "RAISE", "amount": 6}, 9, legal)
RaiseTo(amount=6)
>>> parse_action({"type": "action", "seq": 9, "action": "CALL"}, 9, legal)
Check()
>>> parse_action({"type": "action", "seq": 9, "action": "RAISE", "amount": 3}, 9, legal)
Traceback (most recent call last):
...
protocol.errors.BotReplyError: raise_below_minimum at /amount: raise to 3 below minimum 4 (seat 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import Action, Discard, LegalActions
from engine.cards import Card
from engine.config import DrawLimit
from protocol.betting import action_from_reply, json_integer, shown_value
from protocol.cards import card_from_wire
from protocol.errors import ArenaBugError, BotReplyError, ErrorCode, StaleReplyError
from protocol.schema import find_issue
from protocol.strategy import (
    MAX_ENTRIES,
    MixedStrategy,
    distribution_shape_is_valid,
    strategy_from_reply,
)
from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS, negotiate

__all__ = [
    "Ready",
    "action_from_reply",
    "action_shape_is_valid",
    "discard_shape_is_valid",
    "known_fields",
    "parse_action",
    "parse_action_reply",
    "parse_discard",
    "parse_ready",
    "reply_seq",
]

_ACTION_NAMES = frozenset({"CHECK", "CALL", "FOLD", "RAISE", "ALL_IN"})
_RANKS = frozenset({"2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"})
_SUITS = frozenset({"clubs", "diamonds", "hearts", "spades"})
# The fields the arena reads in each type of reply (the others are the bot's own).
_KNOWN_FIELDS = {
    "ready": frozenset({"type", "seq", "name", "version", "protocol_version"}),
    "action": frozenset({"type", "seq", "action", "amount", "distribution"}),
    "discard": frozenset({"type", "seq", "cards"}),
}
_DISCARDS_WITH_ACE = 4  # three_or_four_with_ace: four cards only when keeping an ace


@dataclass(frozen=True, slots=True)
class Ready:
    """A bot's accepted ``ready``: its name, its own version text, the negotiated version."""

    name: str
    version: str | None
    protocol_version: int


def reply_seq(obj: object) -> int | None:
    """The ``seq`` of a decoded reply when it is a positive integer, else None.

    A JSON number with no fraction counts (``3.0`` is 3, as JSON Schema says); a boolean,
    a string or a number below 1 does not.

    >>> reply_seq({"seq": 3}), reply_seq({"seq": 3.0}), reply_seq({"seq": 0})
    (3, 3, None)
    >>> reply_seq({"seq": True}), reply_seq({"seq": "3"}), reply_seq({})
    (None, None, None)
    """
    if type(obj) is not dict:
        return None
    seq = json_integer(obj.get("seq"))
    return seq if seq is not None and seq >= 1 else None


def known_fields(obj: dict[str, Any], reply_type: str) -> dict[str, Any]:
    """``obj`` with only the fields the arena reads in a ``reply_type`` reply (``ready``,
    ``action`` or ``discard``), in the bot's order.

    The arena ignores the fields a bot invents, so the hand history does not keep them
    either: what a bot may write there is the arena's business only as far as the reply
    is concerned (a bot's notes belong on its stderr).

    >>> known_fields({"type": "action", "seq": 2, "note": "hi", "action": "FOLD"}, "action")
    {'type': 'action', 'seq': 2, 'action': 'FOLD'}
    """
    known = _KNOWN_FIELDS[reply_type]
    if obj.keys() <= known:
        return obj  # the usual reply: nothing to leave out
    return {key: value for key, value in obj.items() if key in known}


def parse_ready(
    obj: object,
    expected_seq: int,
    *,
    supported_versions: Sequence[int] = SUPPORTED_VERSIONS,
    preferred_version: int = PROTOCOL_VERSION,
) -> Ready:
    """The bot's reply to ``hello``, with the protocol version negotiated."""
    _reject_bad_or_stale_seq(obj, expected_seq)
    _reject_bad_shape(obj, "ready")
    assert type(obj) is dict  # the schema guarantees it; tells the type checker
    _reject_unknown_seq(obj, expected_seq)
    version = negotiate(
        json_integer(obj.get("protocol_version")),
        supported_versions,
        preferred=preferred_version,
    )
    return Ready(obj["name"], obj.get("version"), version)


def parse_action(obj: object, expected_seq: int, legal: LegalActions) -> Action:
    """The engine action for a one-action reply to ``act`` (checked against ``legal``),
    for a caller that takes exactly one action (a person's entry, a benchmark): a
    ``distribution`` is refused there. A bot's reply is read by :func:`parse_action_reply`.
    """
    parsed = parse_action_reply(obj, expected_seq, legal)
    if isinstance(parsed, MixedStrategy):
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            "this decision takes one action, not a distribution",
            "/distribution",
        )
    return parsed


def parse_action_reply(
    obj: object, expected_seq: int, legal: LegalActions
) -> Action | MixedStrategy:
    """The engine action for the bot's reply to ``act`` (checked against ``legal``), or
    the checked mixed strategy when the reply carries a ``distribution``
    (:mod:`protocol.strategy`), which the arena draws the action from."""
    _reject_bad_or_stale_seq(obj, expected_seq)
    if not action_shape_is_valid(obj):
        _reject_bad_shape(obj, "action")
    assert type(obj) is dict
    _reject_unknown_seq(obj, expected_seq)
    if obj.get("distribution") is not None:
        return strategy_from_reply(obj["distribution"], legal)
    return action_from_reply(obj["action"], json_integer(obj.get("amount")), legal)


def parse_discard(
    obj: object,
    expected_seq: int,
    legal: LegalActions,
    hole_cards: Sequence[Card],
    *,
    draw_limit: DrawLimit = DrawLimit.ANY,
) -> Discard:
    """The engine ``Discard`` for the bot's reply to ``draw``.

    ``hole_cards`` is the seat's hand; ``draw_limit`` the game's rule (with the house rule
    ``three_or_four_with_ace`` a fourth card may go only when the card kept is an ace).
    """
    _reject_bad_or_stale_seq(obj, expected_seq)
    if not discard_shape_is_valid(obj):
        _reject_bad_shape(obj, "discard")
    assert type(obj) is dict
    _reject_unknown_seq(obj, expected_seq)
    if not legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is not to draw; parse_discard misused")
    seat = f"(seat {legal.seat_index})"
    cards: list[Card] = []
    for index, wire in enumerate(obj["cards"]):
        card = card_from_wire(wire)
        assert card is not None  # the shape check guarantees a card
        path = f"/cards/{index}"
        if card in cards:
            raise BotReplyError(
                ErrorCode.DUPLICATE_DISCARD,
                f"card {card} is discarded twice {seat}",
                path,
            )
        if card not in hole_cards:
            held = " ".join(str(c) for c in hole_cards)
            raise BotReplyError(
                ErrorCode.CARD_NOT_IN_HAND,
                f"card {card} is not in the hand {held} {seat}",
                path,
            )
        cards.append(card)
    if len(cards) > legal.max_discard_count:
        raise BotReplyError(
            ErrorCode.TOO_MANY_DISCARDS,
            f"{len(cards)} cards discarded, at most {legal.max_discard_count} allowed {seat}",
            "/cards",
        )
    kept = [card for card in hole_cards if card not in cards]
    if (
        draw_limit is DrawLimit.THREE_OR_FOUR_WITH_ACE
        and len(cards) == _DISCARDS_WITH_ACE
        and not all(card.rank == "A" for card in kept)
    ):
        # House rule: a fourth card may be drawn only when the card kept is an ace.
        raise BotReplyError(
            ErrorCode.TOO_MANY_DISCARDS,
            f"4 cards discarded but the card kept, {' '.join(str(c) for c in kept)}, is not "
            f"an ace: at most 3 without an ace {seat}",
            "/cards",
        )
    return Discard(tuple(cards))


def action_shape_is_valid(obj: object) -> bool:
    """Fast structural check of an ``action`` reply; agrees with its JSON Schema."""
    if type(obj) is not dict or obj.get("type") != "action":
        return False
    if not _is_count(obj.get("seq"), 1):
        return False
    # A mixed strategy, in place of the one action (null, as some serialisers write an
    # absent field, is no distribution: a bot that never sends one sees nothing change).
    if obj.get("distribution") is not None:
        if "action" in obj:
            return False
        amount = obj.get("amount")
        if amount is not None and not _is_count(amount, 0):
            return False
        return distribution_shape_is_valid(obj["distribution"])
    action = obj.get("action")
    if type(action) is not str or action not in _ACTION_NAMES:
        return False
    amount = obj.get("amount")
    if amount is None:
        # A RAISE needs an integer amount; null is allowed for the others.
        return action != "RAISE"
    return _is_count(amount, 0)


def discard_shape_is_valid(obj: object) -> bool:
    """Fast structural check of a ``discard`` reply; agrees with its JSON Schema."""
    if type(obj) is not dict or obj.get("type") != "discard":
        return False
    if not _is_count(obj.get("seq"), 1):
        return False
    cards = obj.get("cards")
    if type(cards) is not list or len(cards) > 5:
        return False
    for card in cards:
        if type(card) is not dict:
            return False
        rank, suit = card.get("rank"), card.get("suit")
        if type(rank) is not str or rank not in _RANKS:
            return False
        if type(suit) is not str or suit not in _SUITS:
            return False
    return True


def _is_count(value: object, minimum: int) -> bool:
    """Whether the value is a JSON Schema ``integer`` of at least ``minimum``."""
    number = json_integer(value)
    return number is not None and number >= minimum


def _reject_bad_or_stale_seq(obj: object, expected_seq: int) -> None:
    if type(obj) is not dict:
        return  # not an object at all: the shape check says so
    seq = reply_seq(obj)
    if seq is None:
        # No request ever carries such a number, so this cannot be a late answer: it is a
        # bad reply (a strike), not a stale one left to wait for the timeout.
        shown = shown_value(obj.get("seq"))
        what = f"{shown} is not a positive integer" if "seq" in obj else "is missing"
        raise BotReplyError(
            ErrorCode.BAD_SEQ,
            f"seq {what}; echo the seq of the request, {expected_seq}",
            "/seq",
        )
    if seq < expected_seq:
        raise StaleReplyError(seq, expected_seq)


def _reject_unknown_seq(obj: dict[str, Any], expected_seq: int) -> None:
    seq = int(obj["seq"])
    if seq != expected_seq:
        raise BotReplyError(
            ErrorCode.UNKNOWN_SEQ,
            f"seq {seq} was never sent; the outstanding request is {expected_seq}",
            "/seq",
        )


def _reject_bad_shape(obj: object, message_type: str) -> None:
    if type(obj) is dict and obj.get("type") != message_type:
        # The wrong kind of message altogether: say so rather than list missing fields.
        got = shown_value(obj.get("type"))
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            f"expected a {message_type!r} reply, got type {got}",
            "/type",
        )
    if message_type == "action" and type(obj) is dict:
        _reject_action_and_distribution(obj)
    issue = find_issue(obj, message_type)
    if issue is None:
        return
    if issue.keyword == "enum" and (issue.path == "/action" or _is_entry_action(issue.path)):
        raise BotReplyError(
            ErrorCode.UNKNOWN_ACTION,
            f"unknown action {shown_value(_at(obj, issue.path))}; expected one of "
            "CHECK, CALL, FOLD, RAISE, ALL_IN (upper case)",
            issue.path,
        )
    raise BotReplyError(ErrorCode.SCHEMA_VIOLATION, issue.message, issue.path)


def _reject_action_and_distribution(obj: dict[str, Any]) -> None:
    """An action reply names one action or a distribution: exactly one of the two."""
    distribution = obj.get("distribution")
    if distribution is not None and "action" in obj:
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            "'action' and 'distribution' together: send one action or one distribution",
            "/distribution",
        )
    if distribution is not None and type(distribution) is not list:
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            f"distribution must be a list of entries, got {shown_value(distribution)}",
            "/distribution",
        )
    if type(distribution) is list and len(distribution) > MAX_ENTRIES:
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            f"distribution has {len(distribution)} entries, at most {MAX_ENTRIES} are allowed",
            "/distribution",
        )
    if distribution is None and "action" not in obj:
        raise BotReplyError(
            ErrorCode.SCHEMA_VIOLATION,
            "'action' is a required property (or 'distribution', for a mixed strategy)",
            "/action",
        )


def _is_entry_action(path: str) -> bool:
    """Whether ``path`` is a distribution entry's ``action`` (``/distribution/3/action``)."""
    parts = path.split("/")
    return len(parts) == 4 and parts[1] == "distribution" and parts[3] == "action"


def _at(obj: object, path: str) -> object:
    """The value at a JSON pointer the schema reported (its keys and indexes exist)."""
    for part in path.split("/")[1:]:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]  # type: ignore[index]
    return obj
