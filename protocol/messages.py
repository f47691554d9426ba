"""Builders of the arena's messages, from engine values only (views, results, legal actions).

Every builder returns a plain ``dict`` ready for :func:`protocol.codec.encode`. What a bot
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

import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.actions import LegalActions
from engine.cards import FULL_DECK, Card
from engine.config import GameConfig
from engine.evaluator import InvalidHandError, rank_class
from engine.result import HandResult
from engine.showdown import describe
from engine.view import PotView, SeatPublicView, SeatView
from protocol.cards import cards_to_wire, text_cards_to_wire
from protocol.codec import RawJSON, json_text, scalar_text
from protocol.errors import ArenaBugError, BotFaultError
from protocol.framing import DEFAULT_MAX_LINE_BYTES
from protocol.legal import legal_action_names
from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS

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

#: Invalid replies allowed per decision before the arena applies the default (fold).
DEFAULT_MAX_ATTEMPTS = 3

#: The reply type each request expects; other messages expect none.
REPLY_TYPES: Mapping[str, str] = {"hello": "ready", "act": "action", "draw": "discard"}

# Each card's wire JSON text, for RequestEncoder, by card and by the engine's text ("As").
_CARD_TEXTS: dict[Card, str] = {card: json_text(card.to_wire()) for card in FULL_DECK}
_TEXT_CARD_TEXTS: dict[str, str] = {str(card): text for card, text in _CARD_TEXTS.items()}

# The wire JSON text of each list of legal action names met so far (at most 2**5).
_ACTION_NAME_TEXTS: dict[tuple[str, ...], RawJSON] = {}

# Fields of engine events that hold cards as text ("As"); on the wire they are objects.
_EVENT_CARD_FIELDS = ("cards", "board", "discarded", "drawn")
_EVENT_CARD_FIELD_SET = frozenset(_EVENT_CARD_FIELDS)

# Each event dict's wire JSON text, shared by every seat's RequestEncoder: id(dict) ->
# (dict, text). The dict is kept alive, so its id cannot be reused while it is here; the
# memo is emptied when full (a text is then merely encoded again).
_EVENT_TEXTS: dict[int, tuple[Mapping[str, Any], str]] = {}
_MAX_EVENT_TEXTS = 4096

# For _event_text: each event key's JSON text with its colon ('"amount":') and each string
# value's JSON text (both bounded: emptied when full).
_EVENT_KEY_TEXTS: dict[str, str] = {}
_EVENT_STRING_TEXTS: dict[str, str] = {}
_MAX_EVENT_MEMO_COUNT = 1024


@dataclass(frozen=True, slots=True)
class TimeLimits:
    """The clock a bot plays under, in milliseconds (sent in ``hello``).

    >>> TimeLimits().to_wire()
    {'startup_ms': 10000, 'decision_ms': 5000, 'time_bank_ms': 0}
    """

    startup_ms: int = 10_000
    decision_ms: int = 5_000
    time_bank_ms: int = 0

    def to_wire(self) -> dict[str, int]:
        """The ``time_limits`` object of ``hello``."""
        return {
            "startup_ms": self.startup_ms,
            "decision_ms": self.decision_ms,
            "time_bank_ms": self.time_bank_ms,
        }


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the final standings in ``match_end``; ``place`` 1 is the winner."""

    player_id: str
    name: str
    chips: int
    net: int
    place: int


def hello(
    *,
    seq: int,
    player_id: str,
    seat_index: int,
    config: GameConfig,
    seat_count: int,
    starting_stack: int,
    hand_count: int | None,
    time_limits: TimeLimits = TimeLimits(),
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    protocol_version: int = PROTOCOL_VERSION,
    supported_versions: Sequence[int] = SUPPORTED_VERSIONS,
) -> dict[str, Any]:
    """The handshake; ``hand_count`` is ``None`` when the match plays until one is left."""
    game = config.to_dict()
    game.update(seat_count=seat_count, starting_stack=starting_stack, hand_count=hand_count)
    return {
        "type": "hello",
        "seq": seq,
        "protocol_version": protocol_version,
        "supported_versions": list(supported_versions),
        "player_id": player_id,
        "seat_index": seat_index,
        "game": game,
        "time_limits": time_limits.to_wire(),
        "max_attempts": max_attempts,
        "max_line_bytes": max_line_bytes,
    }


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
    legal = _actor_legal(view)
    if legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is to draw, not to bet: use draw_request")
    return _request(view, "act", seq, hand_id, legal, time_limit_ms, attempt, max_attempts)


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
    legal = _actor_legal(view)
    if not legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is to bet, not to draw: use act_request")
    return _request(view, "draw", seq, hand_id, legal, time_limit_ms, attempt, max_attempts)


class RequestEncoder:
    """One seat's ``act`` and ``draw`` requests (and its ``hand_start``) as lines, made for
    speed.

    The line is byte for byte ``encode(act_request(...))`` (or ``draw_request``, or
    ``hand_start``): the same keys in the same order, written straight as JSON text from
    fragments that are reused. What does not change within a hand (the hand, the seat,
    the button and the blinds) is written once per hand; a decision's history is the
    previous decision's plus a few events, and the engine hands out the same event dicts
    every time (shared, never mutated), so only the new events are encoded, by a writer
    for flat dicts that gives the JSON encoder's bytes; a seat whose
    :class:`SeatPublicView` is the same object as last time keeps its ``table_state``
    text; cards are looked up. The memos are keyed by object identity and keep the
    objects alive, so an identity cannot be reused by another object. A history that does
    not begin with the dicts seen before (a new hand) starts afresh. Use one encoder per
    seat: what a seat sees of private events differs from seat to seat.

    The fragments are keyed by the values they were made from, compared with ``==``: the
    view's fields are the engine's ``int`` and ``str`` values (never a ``bool``, which
    would equal an ``int`` and share its text).
    """

    __slots__ = (
        "_blinds",
        "_board",
        "_events",
        "_head",
        "_history",
        "_hole",
        "_pots",
        "_seats",
        "_table",
    )

    def __init__(self) -> None:
        self._events: list[Mapping[str, Any]] = []  # the history encoded so far
        self._history = ""  # its wire JSON, comma-separated, without the brackets
        self._seats: dict[int, tuple[SeatPublicView, str]] = {}  # seat index: view, text
        self._table: tuple[tuple[SeatPublicView, ...], str] = ((), "[]")  # the last
        self._pots: tuple[tuple[PotView, ...], str] = ((), "[]")  # the last
        self._hole: tuple[tuple[Card, ...], str] = ((), "[]")  # the last hole cards
        self._board: tuple[tuple[Card, ...], str] = ((), "[]")  # the last board
        # Fragments the same all hand long: around "seq" (_head), and the button and
        # blinds (_blinds_text, in requests and hand_start alike).
        self._head: tuple[tuple[object, ...], str, str] = ((), "", "")
        self._blinds: tuple[tuple[object, ...], str] = ((), "")

    def request(
        self,
        view: SeatView,
        *,
        seq: int,
        hand_id: str,
        time_limit_ms: int,
        attempt: int = 1,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
    ) -> bytes:
        """The line asking the seat of ``view`` to act (or, when it is to draw, to draw)."""
        legal = _actor_legal(view)
        if not 1 <= attempt <= max_attempts:
            raise ArenaBugError(f"attempt {attempt} is outside 1..{max_attempts}")
        is_draw = legal.can_draw
        own = _own_seat(view)
        # The layout of _request, written as text.
        key = (is_draw, hand_id, view.hand_number, own.player_id, own.seat_index)
        head = self._head
        if key != head[0]:
            head = self._head = (
                key,
                '{"type":"draw","seq":' if is_draw else '{"type":"act","seq":',
                f',"hand_id":{scalar_text(hand_id)}'
                f',"hand_number":{scalar_text(view.hand_number)}'
                f',"player_id":{scalar_text(own.player_id)}'
                f',"seat_index":{scalar_text(own.seat_index)}'
                ',"game_state":',
            )
        if is_draw:
            decision = f',"max_discards":{scalar_text(legal.max_discard_count)}'
        elif legal.can_raise:
            decision = (
                f',"to_call":{scalar_text(legal.call_amount)}'
                f',"min_raise_to":{scalar_text(legal.min_raise_to)}'
                f',"max_raise_to":{scalar_text(legal.max_raise_to)}'
                f',"legal_actions":{self.action_names(legal)}'
            )
        else:
            decision = (
                f',"to_call":{scalar_text(legal.call_amount)}'
                ',"min_raise_to":null,"max_raise_to":null'
                f',"legal_actions":{self.action_names(legal)}'
            )
        text = (
            f"{head[1]}{scalar_text(seq)}{head[2]}{scalar_text(view.phase)}"
            f',"hole_cards":{self._hole_text(view.hole_cards)}'
            f',"community_cards":{self._board_text(view.board)}'
            f',"current_bet":{scalar_text(legal.current_bet)}{decision}'
            f',"player_stack":{scalar_text(legal.stack)}'
            f',"pot_total":{scalar_text(view.pot_total)}'
            f',"pots":{self._pots_text(view.pots)}'
            f',"table_state":{self._table_text(view.seats)}'
            f'{self._blinds_text(view)},"history":[{self._history_text(view.history)}]'
            f',"time_limit_ms":{scalar_text(time_limit_ms)}'
            f',"attempt":{scalar_text(attempt)}'
            f',"attempts_left":{scalar_text(max_attempts - attempt + 1)}}}\n'
        )
        return _line(text, "draw" if is_draw else "act")

    def hand_start(self, view: SeatView, *, hand_id: str) -> bytes:
        """The line of :func:`hand_start` for the seat of ``view`` (byte for byte
        ``encode(hand_start(...))``); the seats' text is kept for the requests after it."""
        own = _own_seat(view)
        # The layout of _hand_start, written as text.
        text = (
            f'{{"type":"hand_start","hand_id":{scalar_text(hand_id)}'
            f',"hand_number":{scalar_text(view.hand_number)}'
            f',"player_id":{scalar_text(own.player_id)}'
            f',"seat_index":{scalar_text(own.seat_index)}'
            f',"hole_cards":{self._hole_text(view.hole_cards)}'
            f"{self._blinds_text(view)}"
            f',"table_state":{self._table_text(view.seats)}}}\n'
        )
        return _line(text, "hand_start")

    def prepare(self, view: SeatView) -> None:
        """Encode ahead of time what of ``view`` this seat's next request will reuse.

        The arena calls this while another bot thinks: the history so far, the seats and
        the pots are then already text when this seat is asked, and only what changed
        since is encoded. The next request's bytes are the same either way.
        """
        self._history_text(view.history)
        self._table_text(view.seats)
        self._pots_text(view.pots)
        self._board_text(view.board)

    # The bulky parts of a request as RawJSON (the plain builders' values, as JSON).

    def cards(self, cards: Sequence[Card]) -> RawJSON:
        """A list of wire cards."""
        return RawJSON(_cards_text(cards))

    def action_names(self, legal: LegalActions) -> RawJSON:
        """The legal betting actions (a few combinations, each encoded once)."""
        names = tuple(legal_action_names(legal))
        text = _ACTION_NAME_TEXTS.get(names)
        if text is None:
            text = _ACTION_NAME_TEXTS[names] = RawJSON(json_text(names))
        return text

    def pots(self, view: SeatView) -> RawJSON:
        """The gathered pots (they change only when a betting round ends)."""
        return RawJSON(self._pots_text(view.pots))

    def table_state(self, view: SeatView) -> RawJSON:
        """Every seat's public state."""
        return RawJSON(self._table_text(view.seats))

    def history(self, history: Sequence[Mapping[str, Any]]) -> RawJSON:
        """The public events so far, in wire form; only new events are encoded."""
        return RawJSON(f"[{self._history_text(history)}]")

    # The same as text (a RawJSON is a copy of its text).

    def _hole_text(self, cards: tuple[Card, ...]) -> str:
        last = self._hole
        if cards != last[0]:
            last = self._hole = (cards, _cards_text(cards))
        return last[1]

    def _board_text(self, cards: tuple[Card, ...]) -> str:
        last = self._board
        if cards != last[0]:
            last = self._board = (cards, _cards_text(cards))
        return last[1]

    def _pots_text(self, pots: tuple[PotView, ...]) -> str:
        last = self._pots
        if pots is not last[0] and pots != last[0]:
            last = self._pots = (pots, _pots_text(pots))
        return last[1]

    def _table_text(self, seats: tuple[SeatPublicView, ...]) -> str:
        last = self._table
        if len(seats) == len(last[0]) and all(map(operator.is_, seats, last[0])):
            return last[1]
        known = self._seats
        texts = []
        for seat in seats:
            cached = known.get(seat.seat_index)
            if cached is not None and cached[0] is seat:
                texts.append(cached[1])
            else:
                text = _seat_text(seat)
                known[seat.seat_index] = (seat, text)
                texts.append(text)
        self._table = (seats, "[" + ",".join(texts) + "]")
        return self._table[1]

    def _blinds_text(self, view: SeatView) -> str:
        """The fields from ``button_seat`` to ``ante`` (the same all hand long)."""
        key = (
            view.button_index,
            view.small_blind_index,
            view.big_blind_index,
            view.small_blind,
            view.big_blind,
            view.ante,
        )
        blinds = self._blinds
        if key != blinds[0]:
            blinds = self._blinds = (
                key,
                f',"button_seat":{scalar_text(view.button_index)}'
                f',"small_blind_seat":{scalar_text(view.small_blind_index)}'
                f',"big_blind_seat":{scalar_text(view.big_blind_index)}'
                f',"small_blind":{scalar_text(view.small_blind)}'
                f',"big_blind":{scalar_text(view.big_blind)}'
                f',"ante":{scalar_text(view.ante)}',
            )
        return blinds[1]

    def _history_text(self, history: Sequence[Mapping[str, Any]]) -> str:
        events = self._events
        known = len(events)
        if known > len(history) or not all(map(operator.is_, events, history)):
            events.clear()
            self._history = ""
            known = 0
        if len(history) > known:
            added = history[known:]
            texts = _EVENT_TEXTS
            if len(texts) + len(added) > _MAX_EVENT_TEXTS:
                texts.clear()
            parts = []
            for event in added:
                # Another seat's encoder may have encoded this very dict already: a public
                # event is one dict shared by every viewer (a private event's owner and the
                # others get different dicts, so a text never crosses that line).
                hit = texts.get(id(event))
                if hit is not None and hit[0] is event:
                    parts.append(hit[1])
                else:
                    text = _event_text(event)
                    texts[id(event)] = (event, text)
                    parts.append(text)
            text = ",".join(parts)
            self._history = f"{self._history},{text}" if known else text
            events.extend(added)
        return self._history


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
    # RequestEncoder.hand_start writes the same layout as text.
    own = _own_seat(view)
    return {
        "type": "hand_start",
        "hand_id": hand_id,
        "hand_number": view.hand_number,
        "player_id": own.player_id,
        "seat_index": own.seat_index,
        "hole_cards": cards_to_wire(view.hole_cards),
        "button_seat": view.button_index,
        "small_blind_seat": view.small_blind_index,
        "big_blind_seat": view.big_blind_index,
        "small_blind": view.small_blind,
        "big_blind": view.big_blind,
        "ante": view.ante,
        "table_state": _table_state(view),
    }


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


def match_end(standings: Iterable[Standing], *, hands_played: int) -> dict[str, Any]:
    """The match is over: final standings, best first. The bot should exit."""
    return {
        "type": "match_end",
        "hands_played": hands_played,
        "standings": [
            {
                "player_id": s.player_id,
                "name": s.name,
                "chips": s.chips,
                "net": s.net,
                "place": s.place,
            }
            for s in standings
        ],
    }


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


def _own_seat(view: SeatView) -> SeatPublicView:
    for seat in view.seats:
        if seat.seat_index == view.seat_index:
            return seat
    raise ArenaBugError(f"the view's seat {view.seat_index!r} is not at the table")


def _actor_legal(view: SeatView) -> LegalActions:
    legal = view.legal_actions
    if legal is None or view.seat_index is None or legal.seat_index != view.seat_index:
        raise ArenaBugError(
            f"seat {view.seat_index!r} is not to act (actor {view.actor_index!r})",
        )
    return legal


def _request(
    view: SeatView,
    message_type: str,
    seq: int,
    hand_id: str,
    legal: LegalActions,
    time_limit_ms: int,
    attempt: int,
    max_attempts: int,
) -> dict[str, Any]:
    """An ``act`` or ``draw`` request: seed 000's fields, the decision, the context.

    The one layout of both requests (:meth:`RequestEncoder.request` writes the same
    layout as text; the tests hold the two to the same bytes).
    """
    if not 1 <= attempt <= max_attempts:
        raise ArenaBugError(f"attempt {attempt} is outside 1..{max_attempts}")
    own = _own_seat(view)
    message: dict[str, Any] = {
        "type": message_type,
        "seq": seq,
        "hand_id": hand_id,
        "hand_number": view.hand_number,
        "player_id": own.player_id,
        "seat_index": own.seat_index,
        "game_state": view.phase,
        "hole_cards": cards_to_wire(view.hole_cards),
        "community_cards": cards_to_wire(view.board),
        "current_bet": legal.current_bet,
    }
    if message_type == "draw":
        message["max_discards"] = legal.max_discard_count
    else:
        message["to_call"] = legal.call_amount
        message["min_raise_to"] = legal.min_raise_to if legal.can_raise else None
        message["max_raise_to"] = legal.max_raise_to if legal.can_raise else None
        message["legal_actions"] = legal_action_names(legal)
    message.update(
        player_stack=legal.stack,
        pot_total=view.pot_total,
        pots=_pots(view),
        table_state=_table_state(view),
        button_seat=view.button_index,
        small_blind_seat=view.small_blind_index,
        big_blind_seat=view.big_blind_index,
        small_blind=view.small_blind,
        big_blind=view.big_blind,
        ante=view.ante,
        history=_wire_history(view.history),
        time_limit_ms=time_limit_ms,
        attempt=attempt,
        attempts_left=max_attempts - attempt + 1,
    )
    return message


def _pots(view: SeatView) -> list[dict[str, Any]]:
    return [
        {"amount": pot.amount, "eligible_seats": list(pot.eligible_seat_indexes)}
        for pot in view.pots
    ]


def _table_state(view: SeatView) -> list[dict[str, Any]]:
    return [_seat_state(seat) for seat in view.seats]


def _seat_state(seat: SeatPublicView) -> dict[str, Any]:
    return {
        "player_id": seat.player_id,
        "seat_index": seat.seat_index,
        "position": seat.position,
        "stack": seat.stack,
        "status": seat.status,
        "current_bet": seat.street_committed,
        "hand_committed": seat.hand_committed,
        "discard_count": seat.discard_count,
    }


def _wire_history(history: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [_wire_event(event) for event in history]


def _wire_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """An engine event dict with its text cards (``"As"``) turned into wire cards."""
    data = dict(event)
    for name in _EVENT_CARD_FIELDS:
        value = data.get(name)
        if isinstance(value, list):
            data[name] = text_cards_to_wire(value)
    return data


# -- the text writers of RequestEncoder ------------------------------------------------------


def _line(text: str, message_type: str) -> bytes:
    """``text`` as a line, as :func:`~protocol.codec.encode` fails on it."""
    try:
        # A lone surrogate in a string cannot be UTF-8: UnicodeEncodeError.
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ArenaBugError(f"cannot encode {message_type!r} message as JSON: {exc}") from exc


def _cards_text(cards: Iterable[Card]) -> str:
    return "[" + ",".join([_CARD_TEXTS[card] for card in cards]) + "]"


def _pots_text(pots: Iterable[PotView]) -> str:
    """``json_text(_pots(view))``."""
    texts = [
        f'{{"amount":{scalar_text(pot.amount)},"eligible_seats":'
        f"[{','.join([scalar_text(seat) for seat in pot.eligible_seat_indexes])}]}}"
        for pot in pots
    ]
    return "[" + ",".join(texts) + "]"


def _seat_text(seat: SeatPublicView) -> str:
    """``json_text(_seat_state(seat))``."""
    return (
        f'{{"player_id":{scalar_text(seat.player_id)}'
        f',"seat_index":{scalar_text(seat.seat_index)}'
        f',"position":{scalar_text(seat.position)}'
        f',"stack":{scalar_text(seat.stack)}'
        f',"status":{scalar_text(seat.status)}'
        f',"current_bet":{scalar_text(seat.street_committed)}'
        f',"hand_committed":{scalar_text(seat.hand_committed)}'
        f',"discard_count":{scalar_text(seat.discard_count)}}}'
    )


def _event_text(event: Mapping[str, Any]) -> str:
    """``json_text(_wire_event(event))``, written here for the flat events of a history.

    Integers, strings, booleans, ``None`` and card lists are written directly (as
    :func:`~protocol.codec.scalar_text` does, but inline: this runs for every value of
    every event); any other value (a list of objects) goes through the JSON encoder, and so
    does the whole event when a key is not a string (the encoder's rules apply then).
    """
    keys = _EVENT_KEY_TEXTS
    strings = _EVENT_STRING_TEXTS
    parts = []
    for key, value in event.items():
        key_text = keys.get(key)
        if key_text is None:
            if type(key) is not str:
                return json_text(_wire_event(event))
            if len(keys) >= _MAX_EVENT_MEMO_COUNT:
                keys.clear()
            key_text = keys[key] = json_text(key) + ":"
        kind = type(value)
        if kind is int:
            parts.append(key_text + int.__repr__(value))
        elif kind is str:
            text = strings.get(value)
            if text is None:
                if len(strings) >= _MAX_EVENT_MEMO_COUNT:
                    strings.clear()
                text = strings[value] = json_text(value)
            parts.append(key_text + text)
        elif kind is bool:
            parts.append(key_text + ("true" if value else "false"))
        elif value is None:
            parts.append(key_text + "null")
        elif key in _EVENT_CARD_FIELD_SET and isinstance(value, list):
            # What text_cards_to_wire makes of it; a non-card is an engine bug (KeyError).
            parts.append(
                key_text + "[" + ",".join([_TEXT_CARD_TEXTS[card] for card in value]) + "]"
            )
        else:
            parts.append(key_text + json_text(value))
    return "{" + ",".join(parts) + "}"
