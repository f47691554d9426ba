"""Information hiding on the wire, over thousands of random hands with the real engine.

Every message a seat receives (``hand_start``, ``act``/``draw``, ``hand_end``) may name only
cards that seat has seen: its own hole cards (every card it ever held), the board dealt so
far and, in ``hand_end``, the hands shown at showdown. Anything else (another seat's hole
cards, the deck, the burn cards, a mucked hand) is a leak.

The random play goes through the wire as a bot would: the reply is built from the ``act``
message alone, parsed with ``protocol.replies`` and handed to the engine, which must accept
every action the protocol accepted (so the arena can trust the parse).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine.cards import Card
from engine.config import BettingStructure, DrawLimit, GameConfig, Variant
from engine.errors import IllegalActionError
from engine.hand import Hand, SeatSetup
from protocol.cards import card_from_wire
from protocol.codec import decode, encode
from protocol.errors import BotReplyError
from protocol.messages import act_request, draw_request, hand_end, hand_start
from protocol.replies import parse_action_reply, parse_discard
from protocol.strategy import MixedStrategy
from tests.engine.freezeouts import dead_button_positions

HOLDEM_HAND_COUNT = 1000
DRAW_HAND_COUNT = 300
DEAD_BUTTON_HAND_COUNT = 200
STRICT_HAND_COUNT = 30  # full JSON Schema validation (slow) on the first hands only


# Cards as the encoder writes them: wire objects (either key order) or engine text ("As").
_WIRE_CARD = re.compile(
    rb'\{"rank":"(10|[2-9JQKA])","suit":"(clubs|diamonds|hearts|spades)"\}'
    rb'|\{"suit":"(clubs|diamonds|hearts|spades)","rank":"(10|[2-9JQKA])"\}',
)
_TEXT_CARD = re.compile(rb'"([2-9TJQKA][cdhs])"')


def _cards_on_wire(line: bytes) -> set[Card]:
    """Every card named anywhere in an encoded message, as a wire object or as text."""
    cards = set()
    for match in _WIRE_CARD.finditer(line):
        rank = (match[1] or match[4]).decode()
        suit = (match[2] or match[3]).decode()
        card = card_from_wire({"rank": rank, "suit": suit})
        assert card is not None
        cards.add(card)
    cards.update(Card.parse(match[1].decode()) for match in _TEXT_CARD.finditer(line))
    return cards


def _leaked(line: bytes, allowed: set[Card]) -> set[Card]:
    return _cards_on_wire(line) - allowed


class _Tally:
    """What the run saw, to prove that the checks were not vacuous."""

    def __init__(self) -> None:
        self.messages = 0
        self.own_cards_seen = 0
        self.others_shown = 0
        self.raises = 0
        self.all_ins = 0
        self.rejected = 0
        self.dead_small_blinds = 0  # hand_start with a null small_blind_seat
        self.dead_buttons = 0  # hand_start with a button_seat where nobody sits
        self.mixed = 0  # decisions drawn from a reported distribution


def _random_config(rng: random.Random, variant: Variant) -> GameConfig:
    big_blind = rng.choice([2, 4, 10])
    return GameConfig(
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=rng.choice([0, 0, 1]),
        variant=variant,
        structure=rng.choice(list(BettingStructure)),
        draw_limit=rng.choice(list(DrawLimit)),
    )


def _random_seats(rng: random.Random) -> list[SeatSetup]:
    """2 to 10 seats, not always contiguous; short and deep stacks, now and then a busted
    seat (not dealt in)."""
    count = rng.randint(2, 10)
    indexes = sorted(rng.sample(range(10), count))
    stacks = [rng.choice([0, rng.randint(1, 30), *[rng.randint(30, 400)] * 3]) for _ in indexes]
    if sum(stack > 0 for stack in stacks) < 2:
        stacks = [stack or 50 for stack in stacks]
    return [
        SeatSetup(index, f"p{index}", stack) for index, stack in zip(indexes, stacks, strict=True)
    ]


def _random_reply(rng: random.Random, message: dict[str, Any]) -> dict[str, Any]:
    """What a random (sometimes sloppy) bot would answer to ``message``."""
    reply: dict[str, Any] = {"type": "action", "seq": message["seq"]}
    if rng.random() < 0.1:  # a mixed strategy over some of the legal actions
        reply["distribution"] = _random_distribution(rng, message)
        return reply
    if rng.random() < 0.1:  # sloppy: any action, any amount
        reply["action"] = rng.choice(["CHECK", "CALL", "FOLD", "RAISE", "ALL_IN"])
        reply["amount"] = rng.randint(0, message["player_stack"] + message["current_bet"] + 5)
        return reply
    names = message["legal_actions"]
    weights = [{"FOLD": 1, "ALL_IN": 1, "RAISE": 3}.get(name, 6) for name in names]
    action = rng.choices(names, weights)[0]
    reply["action"] = action
    if action == "RAISE":
        low, high = message["min_raise_to"], message["max_raise_to"]
        reply["amount"] = rng.choice([low, high, rng.randint(low, high)])
    elif action == "CALL" and rng.random() < 0.5:
        reply["amount"] = message["current_bet"]
    return reply


def _random_distribution(rng: random.Random, message: dict[str, Any]) -> list[dict[str, Any]]:
    """1 to 3 distinct legal actions with weights that sum to 1, the last taking the rest."""
    names = rng.sample(
        message["legal_actions"], rng.randint(1, min(3, len(message["legal_actions"])))
    )
    if "CALL" in names and "ALL_IN" in names and message["player_stack"] <= message["to_call"]:
        names.remove("ALL_IN")  # the same move as the call: a duplicate
    if "RAISE" in names and "ALL_IN" in names:
        names.remove("ALL_IN")  # may be the same move as a raise to the whole stack
    entries: list[dict[str, Any]] = []
    left = 1.0
    for index, name in enumerate(names):
        share = left if index == len(names) - 1 else round(rng.uniform(0, left), 3)
        left -= share
        entry: dict[str, Any] = {"action": name, "probability": share}
        if name == "RAISE":
            entry["amount"] = message["min_raise_to"]
        entries.append(entry)
    return entries


def _play(
    rng: random.Random,
    variant: Variant,
    hand_number: int,
    tally: _Tally,
    *,
    strict: bool,
    dead_rng: random.Random | None = None,
) -> None:
    """One random hand through the wire; with ``dead_rng``, most hands of three or more
    players have a dead small blind or a dead button (the tournament dead button rule)."""
    seats = _random_seats(rng)
    config = _random_config(rng, variant)
    button = rng.choice(seats).seat_index
    blinds = None
    if dead_rng is not None:
        dead = dead_button_positions(dead_rng, [seat.seat_index for seat in seats if seat.stack])
        if dead is not None:
            button, blinds = dead
    hand = Hand.start(
        config,
        seats,
        button_index=button,
        blinds=blinds,
        rng=random.Random(rng.getrandbits(64)),
        hand_number=hand_number,
    )
    hand_id = f"h{hand_number}"
    seen: dict[int, set[Card]] = {seat.seat_index: set() for seat in seats}

    def note_holdings() -> None:
        for seat_index, cards in seen.items():
            cards.update(hand.hole_cards(seat_index))

    def send(seat_index: int, message: dict[str, Any], extra: frozenset[Card] = frozenset()) -> Any:
        line = encode(message, strict=strict)
        # A reported distribution stays in the arena: no seat is ever sent one.
        assert b"distribution" not in line and b"probability" not in line, line
        cards = _cards_on_wire(line)
        leaked = cards - seen[seat_index] - set(hand.board) - extra
        assert not leaked, f"{line!r} to seat {seat_index} leaks {sorted(map(str, leaked))}"
        tally.messages += 1
        tally.own_cards_seen += bool(cards & seen[seat_index])
        return decode(line)

    note_holdings()
    for seat in seats:
        start = send(seat.seat_index, hand_start(hand.view(seat.seat_index), hand_id=hand_id))
    tally.dead_small_blinds += start["small_blind_seat"] is None
    tally.dead_buttons += start["button_seat"] not in {
        s["seat_index"] for s in start["table_state"]
    }
    seq = 0
    while not hand.is_over:
        actor = hand.actor_index
        legal = hand.legal_actions()
        assert actor is not None and legal is not None
        view = hand.view(actor)
        seq += 1
        if legal.can_draw:
            message = send(
                actor,
                draw_request(view, seq=seq, hand_id=hand_id, time_limit_ms=5000),
            )
            hole = list(view.hole_cards)
            count = rng.randint(0, message["max_discards"])
            discards = [card.to_wire() for card in rng.sample(hole, count)]
            reply = {"type": "discard", "seq": seq, "cards": discards}
            try:
                discard = parse_discard(reply, seq, legal, hole, draw_limit=config.draw_limit)
            except BotReplyError:  # four cards without keeping an ace (house rule)
                tally.rejected += 1
                continue
            try:
                hand.act(discard)
            except IllegalActionError as error:  # pragma: no cover - a failure report
                pytest.fail(f"protocol accepted {reply} as {discard} but the engine said {error}")
        else:
            message = send(actor, act_request(view, seq=seq, hand_id=hand_id, time_limit_ms=5000))
            reply = _random_reply(rng, message)
            try:
                action = parse_action_reply(reply, seq, legal)
            except BotReplyError:
                tally.rejected += 1
                continue
            if isinstance(action, MixedStrategy):
                action = action.draw(rng.random())  # the arena draws it
                tally.mixed += 1
            tally.raises += action.kind == "RAISE"
            tally.all_ins += action.kind == "ALL_IN"
            try:
                hand.act(action)
            except IllegalActionError as error:  # pragma: no cover - a failure report
                pytest.fail(f"protocol accepted {reply} as {action} but the engine said {error}")
        note_holdings()
    result = hand.result
    assert result is not None
    shown = frozenset(card for cards in result.shown_cards.values() for card in cards)
    player_ids = {seat.seat_index: seat.player_id for seat in seats}
    message = hand_end(result, hand_id=hand_id, player_ids=player_ids)  # the same for all
    for seat in seats:
        send(seat.seat_index, message, extra=shown)
        tally.others_shown += bool(shown - seen[seat.seat_index])


# make test plays a thousand hands; make test-long five times as many.
@pytest.mark.parametrize(
    "hand_count", [HOLDEM_HAND_COUNT, pytest.param(5 * HOLDEM_HAND_COUNT, marks=pytest.mark.slow)]
)
def test_no_message_to_a_bot_leaks_hidden_cards_in_random_holdem_hands(hand_count: int) -> None:
    rng = random.Random(20240601)
    tally = _Tally()
    for number in range(1, hand_count + 1):
        _play(rng, Variant.HOLDEM, number, tally, strict=number <= STRICT_HAND_COUNT)
    assert tally.messages > 10 * hand_count
    assert tally.own_cards_seen > hand_count  # the checker does see cards
    assert tally.others_shown > 100  # showdowns happened and were allowed
    assert tally.raises > 100 and tally.all_ins > 100 and tally.rejected > 100
    assert tally.mixed > 100  # distributions were accepted, drawn and never sent on


def test_no_message_to_a_bot_leaks_hidden_cards_in_random_five_card_draw_hands() -> None:
    rng = random.Random(7)
    tally = _Tally()
    for number in range(1, DRAW_HAND_COUNT + 1):
        _play(rng, Variant.FIVE_CARD_DRAW, number, tally, strict=number <= 20)
    assert tally.others_shown > 10


# make test checks the first 20 hands' messages against the JSON Schemas (the validation
# takes about four fifths of the test's time), make test-long the first 200.
@pytest.mark.parametrize(
    ("hand_count", "strict_count"),
    [(DEAD_BUTTON_HAND_COUNT, 20), pytest.param(2000, 200, marks=pytest.mark.slow)],
)
@pytest.mark.parametrize("variant", list(Variant))
def test_no_message_leaks_hidden_cards_with_a_dead_button_or_a_dead_small_blind(
    variant: Variant, hand_count: int, strict_count: int
) -> None:
    rng, dead_rng = random.Random(99), random.Random(100)
    tally = _Tally()
    checked_small_blinds = checked_buttons = 0
    for number in range(1, hand_count + 1):
        # Every message of the first hands is checked against the JSON Schemas, which
        # must accept a null small_blind_seat and a button_seat where nobody sits.
        strict = number <= strict_count
        small_blinds, buttons = tally.dead_small_blinds, tally.dead_buttons
        _play(rng, variant, number, tally, strict=strict, dead_rng=dead_rng)
        if strict:
            checked_small_blinds += tally.dead_small_blinds - small_blinds
            checked_buttons += tally.dead_buttons - buttons
    # The schemas did see both rules.
    assert checked_small_blinds >= 3 and checked_buttons >= 3, vars(tally)
    # About one hand in five has a dead small blind or a dead button.
    least = hand_count // 6
    assert tally.dead_small_blinds >= least and tally.dead_buttons >= least, vars(tally)
    assert tally.own_cards_seen > hand_count and tally.others_shown > 10


def test_leak_checker_catches_another_seats_card_in_any_form() -> None:
    allowed = {Card.parse("As"), Card.parse("Kd")}
    clean = {"hole_cards": [{"rank": "A", "suit": "spades"}], "history": [{"cards": ["Kd"]}]}
    assert _leaked(encode(clean), allowed) == set()
    as_object = {"history": [{"type": "x", "cards": [{"rank": "10", "suit": "hearts"}]}]}
    assert _leaked(encode(as_object), allowed) == {Card.parse("Th")}
    reordered = {"cards": [{"suit": "clubs", "rank": "2"}]}
    assert _leaked(encode(reordered), allowed) == {Card.parse("2c")}
    as_text = {"history": [{"type": "x", "cards": ["Qc"]}]}
    assert _leaked(encode(as_text), allowed) == {Card.parse("Qc")}
