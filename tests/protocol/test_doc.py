"""PROTOCOL.md cannot drift: its examples, codes and event list are checked here.

Every fenced block tagged ``json <direction> <type>`` must be a message of that type that
its schema accepts (``invalid`` at the end of the tag: one that the schema rejects). The
conversation is replayed: every reply echoes the request before it, and the arena's answer to
each reply (an ``error`` or the next request) is what ``protocol.replies`` decides.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine import events
from engine.actions import Action, Call, Check, Discard, Fold, RaiseTo
from engine.config import BettingStructure, GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from protocol.cards import card_from_wire
from protocol.codec import encode
from protocol.errors import BotReplyError, ErrorCode
from protocol.messages import (
    TimeLimits,
    act_request,
    draw_request,
    error_message,
    hand_end,
    hand_start,
    hello,
)
from protocol.replies import parse_action, parse_action_reply, parse_discard, parse_ready
from protocol.request_decoder import legal_from_request
from protocol.schema import ARENA_TO_BOT, MESSAGE_TYPES, direction_of, find_issue, load_schema
from protocol.strategy import MixedStrategy
from protocol.version import FEATURES
from tests import REPO_ROOT

DOC = REPO_ROOT / "protocol" / "PROTOCOL.md"
TEXT = DOC.read_text(encoding="utf-8")
FENCE = re.compile(r"^```json(?P<tag>[^\n]*)\n(?P<body>.*?)^```$", re.M | re.S)


def _examples() -> list[tuple[str, str, bool, dict[str, Any], int]]:
    """(direction, type, is_invalid, message, offset) for every tagged JSON block."""
    found = []
    for match in FENCE.finditer(TEXT):
        words = match["tag"].split()
        assert len(words) in (2, 3), f"untagged or badly tagged json block: {match['tag']!r}"
        direction, message_type = words[:2]
        assert words[2:] in ([], ["invalid"]), f"unknown tag {match['tag']!r}"
        message = json.loads(match["body"])
        found.append((direction, message_type, bool(words[2:]), message, match.end()))
    return found


EXAMPLES = _examples()


def _section(title: str) -> str:
    start = TEXT.index(f"\n## {title}\n")
    end = TEXT.find("\n## ", start + 1)
    return TEXT[start : end if end >= 0 else len(TEXT)]


@pytest.mark.parametrize(
    ("direction", "message_type", "is_invalid", "message"),
    [example[:4] for example in EXAMPLES],
)
def test_every_example_matches_its_tag_and_its_schema(
    direction: str,
    message_type: str,
    is_invalid: bool,
    message: dict[str, Any],
) -> None:
    assert direction_of(message_type) == direction
    assert message["type"] == message_type
    issue = find_issue(message, message_type)
    if is_invalid:
        assert issue is not None, f"{message} is tagged invalid but is valid"
    else:
        assert issue is None, f"{message}: {issue}"


def test_every_message_type_has_a_valid_example() -> None:
    shown = {message_type for _, message_type, is_invalid, _, _ in EXAMPLES if not is_invalid}
    assert shown == set(MESSAGE_TYPES)


def test_the_example_conversation_replays_through_the_parser() -> None:
    messages = [message for _, _, is_invalid, message, _ in EXAMPLES if not is_invalid]
    checked = 0
    for index, request in enumerate(messages[:-1]):
        reply = messages[index + 1]
        answer = messages[index + 2] if index + 2 < len(messages) else {}
        if request["type"] not in ("act", "draw") or reply["type"] not in ("action", "discard"):
            continue
        assert reply["seq"] == request["seq"]
        try:
            _parse(request, reply)
        except BotReplyError as error:
            assert answer["type"] == "error", f"{reply} was rejected: {error}"
            assert (answer["code"], answer["path"]) == (error.code, error.path)
            assert answer["message"] == error.message
            assert answer["in_reply_to"] == request["seq"]
        else:
            assert answer.get("type") != "error", f"{reply} is accepted, yet the doc says {answer}"
        checked += 1
    assert checked >= 5


def _parse(request: dict[str, Any], reply: dict[str, Any]) -> object:
    """Parse ``reply`` as the arena would, knowing only what ``request`` told the bot."""
    if request["type"] == "act":
        return parse_action(reply, request["seq"], legal_from_request(request))
    hole = [card_from_wire(card) for card in request.get("hole_cards", [])]
    assert all(card is not None for card in hole)
    return parse_discard(reply, request["seq"], legal_from_request(request), hole)  # type: ignore[arg-type]


def test_the_rejected_examples_fail_with_the_code_and_path_the_doc_names() -> None:
    invalid = [example for example in EXAMPLES if example[2]]
    requests = {t: m for _, t, bad, m, _ in EXAMPLES if t in ("act", "draw") and not bad}
    assert invalid
    for _, message_type, _, message, end in invalid:
        claim = re.match(r"\s*→ `(\w+)` at `([^`]*)`", TEXT[end:])
        assert claim, f"no '→ `code` at `path`' after {message}"
        request = requests["act" if message_type == "action" else "draw"] | {"seq": message["seq"]}
        with pytest.raises(BotReplyError) as info:
            _parse(request, message)
        assert (info.value.code, info.value.path) == (claim[1], claim[2])


def test_error_code_table_lists_exactly_the_stable_codes() -> None:
    codes = re.findall(r"^\| `([a-z0-9_]+)` \|", _section("Error codes"), re.M)
    assert sorted(codes) == sorted(code.value for code in ErrorCode)


def test_history_event_table_lists_every_engine_event_type() -> None:
    rows = re.findall(r"^\| `([a-z_]+)` \|", _section("History events"), re.M)
    documented = set(rows) - {"type"}  # the header row
    engine_types = {
        cls.type
        for cls in vars(events).values()
        if isinstance(cls, type) and issubclass(cls, events.Event) and cls is not events.Event
    }
    assert documented == engine_types


def test_every_field_of_every_arena_message_is_documented() -> None:
    defs = load_schema("defs")["$defs"]
    for message_type in ARENA_TO_BOT:
        schema = load_schema(message_type)
        fields = set(schema.get("properties", {}))
        if schema.get("$ref", "").endswith("/context"):
            fields |= set(defs["context"]["properties"])
        for field in fields - {"type"}:
            spellings = (f"`{field}`", f"`{field}.", f"`game.{field}`")
            assert any(text in TEXT for text in spellings), f"{message_type}.{field}"


def _wire(message: dict[str, Any]) -> Any:
    return json.loads(encode(message))


def test_the_example_hand_is_exactly_what_the_engine_and_the_builders_produce() -> None:
    # The hand of "A complete hand": a stacked deck, and p1's actions in order.
    messages = iter(message for _, _, bad, message, _ in EXAMPLES if not bad)
    config = GameConfig(small_blind=1, big_blind=2)
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
    deck = Deck.stacked("Qh Ah Qd Kh 3c Th 7d 2s 3d Kc 3s 4h")
    hand = Hand.start(config, seats, button_index=0, deck=deck)
    opponent: Iterator[Action] = iter([Call(), Check(), Check(), Call(), Check()])
    # The example's match_end reveals the seed and the salt its hello committed to.
    reveal = next(m for _, t, bad, m, _ in EXAMPLES if t == "match_end" and not bad)
    salt_and_seed = bytes.fromhex(reveal["deck_salt"]) + reveal["deck_seed"].encode()
    greeting = hello(
        seq=1,
        player_id="p0",
        seat_index=0,
        config=config,
        seat_count=2,
        starting_stack=200,
        hand_count=100,
        # The clock of the example's hello.
        time_limits=TimeLimits(startup_ms=10_000, decision_ms=5_000, time_bank_ms=0),
        deck_commitment=hashlib.sha256(salt_and_seed).hexdigest(),
    )
    assert next(messages) == _wire(greeting)
    assert parse_ready(next(messages), 1).name == "example-bot"
    assert next(messages) == _wire(hand_start(hand.view(0), hand_id="m1-h1"))
    seq, attempt = 1, 1
    while not hand.is_over:
        if hand.actor_index == 1:
            hand.act(next(opponent))
            continue
        seq += 1
        view = hand.view(0)
        request = act_request(view, seq=seq, hand_id="m1-h1", time_limit_ms=5000, attempt=attempt)
        assert next(messages) == _wire(request)
        legal = hand.legal_actions()
        assert legal is not None
        try:
            action = parse_action(next(messages), seq, legal)
        except BotReplyError as error:
            answer = error_message(error, in_reply_to=seq, attempts_left=3 - attempt)
            assert next(messages) == _wire(answer)
            attempt += 1
            continue
        attempt = 1
        hand.act(action)
    assert hand.result is not None
    assert next(messages) == _wire(
        hand_end(hand.result, hand_id="m1-h1", player_ids={0: "p0", 1: "p1"})
    )
    end = next(messages)
    assert [row["chips"] for row in end["standings"]] == [hand.stacks[0], hand.stacks[1]]
    assert end == reveal


def test_the_example_draw_is_exactly_what_the_engine_and_the_builders_produce() -> None:
    request = next(m for _, t, bad, m, _ in EXAMPLES if t == "draw" and not bad)
    reply = next(m for _, t, bad, m, _ in EXAMPLES if t == "discard" and not bad)
    config = GameConfig(
        small_blind=1,
        big_blind=2,
        variant=Variant.FIVE_CARD_DRAW,
        structure=BettingStructure.FIXED_LIMIT,
    )
    seats = [SeatSetup(0, "p0", 100), SeatSetup(1, "p1", 100), SeatSetup(2, "p2", 100)]
    deck = Deck.stacked("Qs Ks 4c Jd Kd 8c 9c 9h Th 5h 6h Ac 2d 2c 3c")
    hand = Hand.start(config, seats, button_index=0, deck=deck, hand_number=7)
    for action in (Fold(), Call(), Check()):
        hand.act(action)
    hand.act(Discard(hand.hole_cards(1)[2:]))
    built = draw_request(hand.view(2), seq=31, hand_id="m1-h7", time_limit_ms=5000)
    assert request == _wire(built)
    legal = hand.legal_actions()
    assert legal is not None
    discard = parse_discard(reply, 31, legal, hand.hole_cards(2))
    hand.act(discard)  # the engine accepts it


def test_the_mixed_strategy_example_is_accepted_for_the_example_hands_first_decision() -> None:
    reply = next(
        m for _, t, bad, m, _ in EXAMPLES if t == "action" and "distribution" in m and not bad
    )
    request = next(m for _, t, bad, m, _ in EXAMPLES if t == "act" and m["seq"] == reply["seq"])
    strategy = parse_action_reply(reply, reply["seq"], legal_from_request(request))
    assert isinstance(strategy, MixedStrategy)
    assert strategy.entries == ((Call(), 0.6), (RaiseTo(6), 0.3), (Fold(), 0.1))
    assert next(m for _, t, _, m, _ in EXAMPLES if t == "hello")["features"] == list(FEATURES)
