"""Hand histories: one JSON document per hand, from which the hand replays exactly.

A history holds everything a hand depends on - the game config, the seats with their
starting stacks, the button, the hand number, the whole deck order and every decision -
plus everything it produced (every event, private ones included, and the result). Replaying
deals from a deck stacked in the recorded order and applies the recorded decisions, so the
replayed hand must produce exactly the recorded events and result; :func:`replay_history`
checks that by default. The seed (if the hand was shuffled from one) is kept for reference:
the deck order alone is enough to replay.

Decisions are taken from the hand's ``ActionTaken`` and ``CardsDrawn`` events as what they
amounted to (a call for less than the bet is a ``CALL``, an all-in raise is a ``RAISE`` to
the all-in total), which applies identically. Documents contain private cards (hole cards,
the deck): they are for the arena's records, not for bots.

:func:`history_to_json` is canonical (sorted keys, no spaces), so the same seed and the same
decisions give byte-identical text.

Document layout (``version`` 1)::

    {"format": "poker-arena/hand-history", "version": 1, "hand_number": 3, "seed": "42:3",
     "config": {...GameConfig.to_dict()...}, "button_index": 0,
     "seats": [{"seat_index": 0, "player_id": "ann", "stack": 200, "is_sitting_out": false}],
     "deck": ["As", "7d", ...], "actions": [{"seat_index": 1, "action": "RAISE",
     "amount": 6}, {"seat_index": 0, "action": "CALL"}, ...], "events": [...],
     "result": {...HandResult.to_dict()...} or null while the hand is not over}

A hand whose blinds are not where the default rule puts them (the next two players left of
``button_index``) - a dead small blind or a dead button, from the table's dead button rule
- also has ``"blinds": {"small_blind_index": null, "big_blind_index": 4}`` (the small blind
null when it is dead), and its ``button_index`` may be a seat where nobody sits. A document
without ``blinds`` is a hand with the default blinds, as every document was before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from engine.actions import Action, ActionKind, Call, Check, Discard, Fold, RaiseTo
from engine.cards import CARD_TEXTS, Card, CardParseError
from engine.config import ConfigError, GameConfig
from engine.deck import Deck
from engine.errors import EngineError, IllegalActionError
from engine.events import ActionTaken, CardsDrawn
from engine.hand import BlindSeats, Hand, SeatSetup

__all__ = [
    "HISTORY_FORMAT",
    "HISTORY_VERSION",
    "HistoryError",
    "action_from_dict",
    "action_to_dict",
    "hand_actions",
    "hand_to_history",
    "history_from_json",
    "history_to_json",
    "replay_history",
]

HISTORY_FORMAT = "poker-arena/hand-history"
HISTORY_VERSION = 1


class HistoryError(EngineError, ValueError):
    """A history that cannot be read or does not replay; ``code`` is stable.

    ``bad_history`` (malformed document or JSON), ``unsupported_history`` (another format
    or version) or ``history_mismatch`` (the replay differs from the record, or a recorded
    action is rejected).
    """


def hand_actions(hand: Hand) -> list[tuple[int, Action]]:
    """Every decision taken in ``hand`` so far, as ``(seat_index, action)`` in order."""
    actions: list[tuple[int, Action]] = []
    for event in hand.events:
        if isinstance(event, ActionTaken):
            actions.append((event.seat_index, _action_of(event)))
        elif isinstance(event, CardsDrawn):
            actions.append((event.seat_index, Discard(tuple(event.discarded))))
    return actions


def _action_of(event: ActionTaken) -> Action:
    kind = event.kind
    if kind is ActionKind.FOLD:
        return Fold()
    if kind is ActionKind.CHECK:
        return Check()
    if kind is ActionKind.CALL:
        return Call()
    return RaiseTo(event.total)  # a bet or raise (all-in or not) to this round total


def action_to_dict(seat_index: int, action: Action) -> dict[str, Any]:
    """``{"seat_index": 2, "action": "RAISE", "amount": 60}`` (amount only for a raise,
    ``cards`` only for a discard)."""
    data: dict[str, Any] = {"seat_index": seat_index, "action": str(action.kind)}
    if isinstance(action, RaiseTo):
        data["amount"] = action.amount
    elif isinstance(action, Discard):
        data["cards"] = [str(card) for card in action.cards]
    return data


_SIMPLE: dict[str, Action] = {
    ActionKind.FOLD: Fold(),
    ActionKind.CHECK: Check(),
    ActionKind.CALL: Call(),
}


def action_from_dict(data: Any) -> tuple[int, Action]:
    """Inverse of :func:`action_to_dict`; a malformed entry raises ``HistoryError``."""
    if not isinstance(data, dict):
        raise HistoryError("bad_history", f"an action must be an object, got {data!r}")
    seat_index = data.get("seat_index")
    name = data.get("action")
    if not isinstance(seat_index, int) or isinstance(seat_index, bool):
        raise HistoryError("bad_history", f"action without a seat index: {data!r}")
    if name in _SIMPLE:
        return seat_index, _SIMPLE[name]
    if name == ActionKind.RAISE:
        amount = data.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise HistoryError("bad_history", f"RAISE needs an integer amount: {data!r}")
        return seat_index, RaiseTo(amount)
    if name == ActionKind.DISCARD:
        try:
            cards = tuple(Card.parse(text) for text in data.get("cards", ()))
        except (CardParseError, TypeError) as exc:
            raise HistoryError("bad_history", f"DISCARD with bad cards: {data!r}") from exc
        return seat_index, Discard(cards)
    raise HistoryError("bad_history", f"unknown action {name!r} in {data!r}")


def _seat_to_dict(seat: SeatSetup) -> dict[str, Any]:
    return {
        "seat_index": seat.seat_index,
        "player_id": seat.player_id,
        "stack": seat.stack,
        "is_sitting_out": seat.is_sitting_out,
    }


# Each config's dict made once (``GameConfig.to_dict`` deep-copies): the arena writes a
# history per hand.
@lru_cache(maxsize=64)
def _config_dict(config: GameConfig) -> dict[str, Any]:
    return config.to_dict()


def hand_to_history(hand: Hand, *, seed: int | str | None = None) -> dict[str, Any]:
    """The JSON-ready history document of ``hand`` (finished or not).

    ``seed`` is recorded as given (e.g. :func:`engine.table.hand_seed`); it is not needed
    to replay, since the document holds the deck order.
    """
    result = hand.result
    doc: dict[str, Any] = {
        "format": HISTORY_FORMAT,
        "version": HISTORY_VERSION,
        "hand_number": hand.hand_number,
        "seed": seed,
        "config": dict(_config_dict(hand.config)),  # a copy: values are plain
        "button_index": hand.button_index,
        "seats": [_seat_to_dict(seat) for seat in hand.seats],
        "deck": [CARD_TEXTS[card] for card in hand.deck_order],
        "actions": [action_to_dict(seat, action) for seat, action in hand_actions(hand)],
        # ``to_dict`` already gives JSON values (lists, str keys): the document equals
        # the document read back from its JSON text. The dicts are the hand's cached ones
        # (made once per event, shared with its views).
        "events": hand.event_dicts(),
        "result": None if result is None else result.to_dict(),
    }
    blinds = hand.explicit_blinds
    if blinds is not None:  # only then: other documents stay as they always were
        doc["blinds"] = {
            "small_blind_index": blinds.small_blind_index,
            "big_blind_index": blinds.big_blind_index,
        }
    return doc


def _plain(value: Any) -> Any:
    """The value as JSON would give it back (tuples become lists), so that a document
    compares equal to the same document read from its JSON text."""
    return json.loads(json.dumps(value))


def history_to_json(doc: dict[str, Any]) -> str:
    """Canonical JSON text of a history: sorted keys, compact, ASCII (byte-stable)."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def history_from_json(text: str | bytes) -> dict[str, Any]:
    """Parse a history's JSON text; anything but a JSON object raises ``HistoryError``."""
    try:
        doc = json.loads(text)
    except (ValueError, TypeError) as exc:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise HistoryError("bad_history", f"history is not valid JSON: {exc}") from exc
    if not isinstance(doc, dict):
        raise HistoryError(
            "bad_history", f"history must be a JSON object, got {type(doc).__name__}"
        )
    return doc


def _field(doc: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    value = doc.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise HistoryError("bad_history", f"history field {name!r} is missing or bad: {value!r}")
    return value


def _parse_seats(raw: Sequence[Any]) -> list[SeatSetup]:
    seats = []
    for entry in raw:
        try:
            seats.append(
                SeatSetup(
                    seat_index=entry["seat_index"],
                    player_id=entry["player_id"],
                    stack=entry["stack"],
                    is_sitting_out=bool(entry.get("is_sitting_out", False)),
                )
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise HistoryError("bad_history", f"bad seat in history: {entry!r}") from exc
    return seats


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _parse_blinds(raw: Any) -> BlindSeats | None:
    """The optional ``blinds`` entry (absent: the default blinds)."""
    if raw is None:
        return None
    if (
        not isinstance(raw, dict)
        or "small_blind_index" not in raw
        or not _is_int(raw.get("big_blind_index"))
        or not (raw["small_blind_index"] is None or _is_int(raw["small_blind_index"]))
    ):
        raise HistoryError("bad_history", f"bad blinds in history: {raw!r}")
    return BlindSeats(
        small_blind_index=raw["small_blind_index"], big_blind_index=raw["big_blind_index"]
    )


def replay_history(doc: dict[str, Any], *, verify: bool = True) -> Hand:
    """Deal the recorded hand again and apply the recorded decisions; returns the hand.

    With ``verify`` (the default) the replayed events and result must equal the recorded
    ones exactly, else ``HistoryError("history_mismatch")`` names the first difference.
    """
    if doc.get("format") != HISTORY_FORMAT or doc.get("version") != HISTORY_VERSION:
        raise HistoryError(
            "unsupported_history",
            f"not a {HISTORY_FORMAT} version {HISTORY_VERSION} document: "
            f"format {doc.get('format')!r}, version {doc.get('version')!r}",
        )
    try:
        config = GameConfig.from_dict(_field(doc, "config", dict))
        deck = Deck([Card.parse(text) for text in _field(doc, "deck", list)])
    except (ConfigError, CardParseError, TypeError) as exc:
        raise HistoryError("bad_history", f"bad config or deck in history: {exc}") from exc
    seats = _parse_seats(_field(doc, "seats", list))
    actions = [action_from_dict(entry) for entry in _field(doc, "actions", list)]
    blinds = _parse_blinds(doc.get("blinds"))
    try:
        hand = Hand.start(
            config,
            seats,
            button_index=_field(doc, "button_index", int),
            blinds=blinds,
            deck=deck,
            hand_number=_field(doc, "hand_number", int),
        )
    except EngineError as exc:
        raise HistoryError("bad_history", f"the recorded hand cannot start: {exc}") from exc
    for number, (seat_index, action) in enumerate(actions):
        try:
            hand.act(action, seat_index=seat_index)
        except IllegalActionError as exc:
            raise HistoryError(
                "history_mismatch",
                f"recorded action {number} ({action}, seat {seat_index}) is rejected on "
                f"replay: {exc}",
            ) from exc
    if verify:
        _verify(doc, hand)
    return hand


def _verify(doc: dict[str, Any], hand: Hand) -> None:
    recorded = _field(doc, "events", list)
    replayed = [event.to_dict() for event in hand.events]
    if recorded == replayed:
        return _verify_result(doc, hand)
    # A document built in memory may hold tuples where JSON has lists: not a difference.
    recorded, replayed = _plain(recorded), _plain(replayed)
    for index in range(max(len(recorded), len(replayed))):
        want = recorded[index] if index < len(recorded) else None
        got = replayed[index] if index < len(replayed) else None
        if want != got:
            raise HistoryError(
                "history_mismatch",
                f"hand {hand.hand_number}: event {index} differs on replay: "
                f"recorded {want!r}, replayed {got!r}",
            )
    _verify_result(doc, hand)


def _verify_result(doc: dict[str, Any], hand: Hand) -> None:
    result = hand.result
    replayed_result = None if result is None else result.to_dict()
    recorded = doc.get("result")
    if recorded != replayed_result and _plain(recorded) != _plain(replayed_result):
        raise HistoryError(
            "history_mismatch",
            f"hand {hand.hand_number}: result differs on replay: recorded "
            f"{recorded!r}, replayed {replayed_result!r}",
        )
