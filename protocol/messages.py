"""Builders of the arena's messages, from engine values only (views, results, legal actions).

Every builder returns a plain ``dict`` ready for :func:`protocol.codec.encode`; the
messages made from a seat's view (``hand_start``, ``act``, ``draw``) follow the one layout of
:mod:`protocol.layout`, which the arena's fast :class:`RequestEncoder` (from
:mod:`protocol.request_encoder`, re-exported here) writes as text. What a bot
learns about a hand comes from the :class:`~engine.view.SeatView` the engine built for its
seat (redaction happens there, and only there) or from the public
:class:`~engine.result.HandResult`; the builders add nothing hidden. A builder given
inconsistent input (an ``act`` for a seat that is not to act) raises
:class:`~protocol.errors.ArenaBugError`.

>>> error_message(
...     BotFaultError("raise_below_minimum", "raise to 3 below minimum 4", "/amount"),
...     in_reply_to=7,
...     attempts_left=2,
... )["code"]
'raise_below_minimum'
>>> match_end([Standing("p0", "calling station", 400, 200, 1)], hands_played=12)["standings"][0]
{'player_id': 'p0', 'name': 'calling station', 'chips': 400, 'net': 200, 'place': 1}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from engine.cards import Card
from engine.config import GameConfig
from engine.evaluator import InvalidHandError, rank_class
from engine.result import HandResult
from engine.showdown import describe
from engine.view import SeatView
from protocol.cards import cards_to_wire
from protocol.errors import ArenaBugError, BotFaultError
from protocol.framing import DEFAULT_MAX_LINE_BYTES
from protocol.layout import (
    ACT_REQUEST,
    DEFAULT_MAX_ATTEMPTS,
    DRAW_REQUEST,
    HAND_START,
    actor_legal,
    own_seat,
)
from protocol.request_encoder import RequestEncoder
from protocol.version import FEATURES, PROTOCOL_VERSION, SUPPORTED_VERSIONS

__all__ = [
    "DEFAULT_MAX_ATTEMPTS",
    "REPLY_TYPES",
    "RequestEncoder",
    "Standing",
    "TimeLimits",
    "act_request",
    "draw_request",
    "error_message",
    "hand_end",
    "hand_start",
    "hello",
    "match_end",
]

#: The reply type each request expects; other messages expect none.
REPLY_TYPES: Mapping[str, str] = {"hello": "ready", "act": "action", "draw": "discard"}


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """The clock a bot plays under, in milliseconds: only the wire form of ``hello``'s
    ``time_limits``, with no defaults of its own (the arena's time limits make it).

    >>> TimeLimits(startup_ms=10_000, decision_ms=500, time_bank_ms=0).to_wire()
    {'startup_ms': 10000, 'decision_ms': 500, 'time_bank_ms': 0}
    """

    startup_ms: int
    decision_ms: int
    time_bank_ms: int

    def to_wire(self) -> dict[str, int]:
        """The ``time_limits`` object of ``hello``."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the final standings in ``match_end``; ``place`` 1 is the winner.

    ``net`` is the chips won (or lost) over the match; ``chips`` is the final stack, which
    exists only when stacks carry over from hand to hand (None when they reset every hand:
    then it is left out of the message rather than sent as a number that reads like a
    stack).
    """

    player_id: str
    name: str
    chips: int | None
    net: int
    place: int

    def to_dict(self) -> dict[str, Any]:
        """The line as ``match_end`` sends it (``chips`` left out when None)."""
        entry: dict[str, Any] = {"player_id": self.player_id, "name": self.name}
        if self.chips is not None:
            entry["chips"] = self.chips
        entry.update(net=self.net, place=self.place)
        return entry


def hello(
    *,
    seq: int,
    player_id: str,
    seat_index: int,
    config: GameConfig,
    seat_count: int,
    starting_stack: int,
    hand_count: int | None,
    time_limits: TimeLimits,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    protocol_version: int = PROTOCOL_VERSION,
    supported_versions: Sequence[int] = SUPPORTED_VERSIONS,
    features: Sequence[str] = FEATURES,
    deck_commitment: str | None = None,
) -> dict[str, Any]:
    """The handshake; ``hand_count`` is ``None`` when the match plays until one is left.

    ``deck_commitment`` (64 lower-case hex digits, SHA-256 of the salt and the seed) is
    sent when the arena will reveal the seed at ``match_end``; a tool that plays no real
    match (``arena check-bot``) may leave it out.
    """
    game = config.to_dict()
    game.update(seat_count=seat_count, starting_stack=starting_stack, hand_count=hand_count)
    message: dict[str, Any] = {
        "type": "hello",
        "seq": seq,
        "protocol_version": protocol_version,
        "supported_versions": list(supported_versions),
        "features": list(features),
        "player_id": player_id,
        "seat_index": seat_index,
        "game": game,
        "time_limits": time_limits.to_wire(),
        "max_attempts": max_attempts,
        "max_line_bytes": max_line_bytes,
    }
    if deck_commitment is not None:
        if not _is_hex(deck_commitment, _HASH_HEX_DIGITS):
            raise ArenaBugError(f"deck_commitment {deck_commitment!r} is not a SHA-256 in hex")
        message["deck_commitment"] = deck_commitment
    return message


def act_request(
    view: SeatView,
    *,
    seq: int,
    hand_id: str,
    time_limit_ms: int,
    attempt: int = 1,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> dict[str, Any]:
    """Ask the seat of ``view`` (which must be the actor) for a betting action."""
    legal = actor_legal(view)
    if legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is to draw, not to bet: use draw_request")
    _check_attempt(attempt, max_attempts)
    own = own_seat(view)
    return ACT_REQUEST.build(view, legal, own, seq, hand_id, time_limit_ms, attempt, max_attempts)


def draw_request(
    view: SeatView,
    *,
    seq: int,
    hand_id: str,
    time_limit_ms: int,
    attempt: int = 1,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> dict[str, Any]:
    """Ask the seat of ``view`` (the actor, in a draw phase) which cards it discards."""
    legal = actor_legal(view)
    if not legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is to bet, not to draw: use act_request")
    _check_attempt(attempt, max_attempts)
    own = own_seat(view)
    return DRAW_REQUEST.build(view, legal, own, seq, hand_id, time_limit_ms, attempt, max_attempts)


def error_message(
    fault: BotFaultError,
    *,
    in_reply_to: int | None,
    attempts_left: int,
) -> dict[str, Any]:
    """Tell a bot why its reply to request ``in_reply_to`` was rejected (no reply expected)."""
    return {
        "type": "error",
        "in_reply_to": in_reply_to,
        "code": fault.code,
        "message": fault.message,
        "path": fault.path,
        "attempts_left": attempts_left,
    }


def hand_start(view: SeatView, *, hand_id: str) -> dict[str, Any]:
    """A new hand for the seat of ``view``: its own hole cards and the table."""
    return HAND_START.build(view, own_seat(view), hand_id)


def hand_end(
    result: HandResult,
    *,
    hand_id: str,
    player_ids: Mapping[int, str],
) -> dict[str, Any]:
    """The public end of a hand: board, hands shown at showdown, pots, new stacks.

    Only hands in ``result.shown_cards`` are shown; a mucked or uncontested hand stays
    hidden. ``player_ids`` maps every seat index of the hand to its player id.
    """
    ids = _PlayerIds(player_ids)
    shown_hands = [
        {
            "seat_index": seat_index,
            "player_id": ids[seat_index],
            "cards": cards_to_wire(cards),
            "description": _describe_hand(cards, result.board),
        }
        for seat_index, cards in sorted(result.shown_cards.items())
    ]
    pots = [
        {
            "pot_index": award.pot_index,
            "amount": award.amount,
            "eligible_seats": list(award.eligible_seat_indexes),
            "winners": [
                {"seat_index": seat_index, "player_id": ids[seat_index], "amount": amount}
                for seat_index, amount in award.shares
            ],
            "description": award.hand_description,
        }
        for award in result.awards
    ]
    net = result.net_chips
    stacks = [
        {
            "seat_index": seat_index,
            "player_id": ids[seat_index],
            "stack": stack,
            "net": net[seat_index],
        }
        for seat_index, stack in sorted(result.final_stacks.items())
    ]
    return {
        "type": "hand_end",
        "hand_id": hand_id,
        "hand_number": result.hand_number,
        "reason": result.ended_reason,
        "board": cards_to_wire(result.board),
        "shown_hands": shown_hands,
        "pots": pots,
        "stacks": stacks,
    }


def match_end(
    standings: Iterable[Standing],
    *,
    hands_played: int,
    deck_seed: int | None = None,
    deck_salt: bytes | None = None,
) -> dict[str, Any]:
    """The match is over: final standings, best first. The bot should exit.

    ``deck_seed`` and ``deck_salt`` (both or neither) reveal what ``hello``'s
    ``deck_commitment`` committed to: the seed as decimal text (a 256-bit number is not a
    JSON number every language reads exactly) and the salt in lower-case hex.
    """
    message: dict[str, Any] = {
        "type": "match_end",
        "hands_played": hands_played,
        "standings": [standing.to_dict() for standing in standings],
    }
    if (deck_seed is None) != (deck_salt is None):
        raise ArenaBugError(
            f"match_end reveals the deck seed and salt together, got seed {deck_seed!r} "
            f"and salt {deck_salt!r}"
        )
    if deck_seed is not None and deck_salt is not None:
        if len(deck_salt) != _SALT_BYTES:
            raise ArenaBugError(f"deck_salt {deck_salt!r} is not {_SALT_BYTES} bytes")
        message["deck_seed"] = str(deck_seed)
        message["deck_salt"] = deck_salt.hex()
    return message


#: A SHA-256 in hex: the commitment's length; the salt has as many bytes as the hash.
_HASH_HEX_DIGITS = 64
_SALT_BYTES = 32


def _is_hex(text: str, digits: int) -> bool:
    """Whether ``text`` is ``digits`` lower-case hexadecimal digits."""
    return len(text) == digits and all(c in "0123456789abcdef" for c in text)


class _PlayerIds:
    """``player_ids[seat]`` that reports a missing seat as our bug."""

    __slots__ = ("_ids",)

    def __init__(self, ids: Mapping[int, str]) -> None:
        self._ids = ids

    def __getitem__(self, seat_index: int) -> str:
        try:
            return self._ids[seat_index]
        except KeyError:
            raise ArenaBugError(f"no player id for seat {seat_index}") from None


def _describe_hand(cards: Sequence[Card], board: Sequence[Card]) -> str:
    hand = (*cards, *board)
    try:
        # The engine's cached description (it depends only on the class number).
        return describe(hand, rank_class(hand))
    except InvalidHandError as exc:
        raise ArenaBugError(
            f"shown hand {cards} with board {board} cannot be ranked: {exc}"
        ) from exc


def _check_attempt(attempt: int, max_attempts: int) -> None:
    if not 1 <= attempt <= max_attempts:
        raise ArenaBugError(f"attempt {attempt} is outside 1..{max_attempts}")
