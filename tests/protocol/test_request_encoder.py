"""The fast request encoder writes its lines as text: they must stay the plain messages' bytes.

Random hands of every variant, structure and table size, with odd player ids and hand ids,
compare each fast line with ``encode`` of the plain builder and with the plain encoder; the
unit tests below reach the writer's rare paths (values the engine's events seldom or never
hold) and the generated layout's own checks.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from engine.actions import Action, Call, Check, Discard, Fold, LegalActions, RaiseTo
from engine.cards import FULL_DECK, parse_cards
from engine.config import AnteMode, BettingStructure, DrawLimit, GameConfig, Variant
from engine.hand import Hand, SeatSetup
from engine.view import PotView, SeatView
from protocol import layout
from protocol import request_encoder as request_encoder_module
from protocol.cards import cards_to_wire, text_cards_to_wire
from protocol.codec import encode, json_text
from protocol.errors import ArenaBugError
from protocol.legal import legal_action_names
from protocol.messages import RequestEncoder, act_request, draw_request, hand_end, hand_start
from protocol.request_encoder import EventTextCache
from tests.engine.freezeouts import dead_button_positions
from tests.engine.policies import random_policy
from tests.protocol.test_messages import DRAW_VIEW, LEGAL, VIEW

# Player ids a bot may be given: plain, non-ASCII (written as UTF-8, not escaped), and
# with characters JSON escapes.
PLAYER_IDS = ("p", "joueur-é", "玩家", 'quote"d', "back\\slash", "tab\tbed", "emoji-🂡")
CONFIGS = [
    GameConfig(),
    GameConfig(small_blind=50, big_blind=100, ante=10, structure=BettingStructure.POT_LIMIT),
    GameConfig(small_blind=5, big_blind=10, ante=2, ante_mode=AnteMode.BIG_BLIND),
    GameConfig(structure=BettingStructure.FIXED_LIMIT),
    GameConfig(variant=Variant.FIVE_CARD_DRAW),
    GameConfig(
        variant=Variant.FIVE_CARD_DRAW,
        structure=BettingStructure.FIXED_LIMIT,
        draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE,
        ante=1,
    ),
]


def _plain_request(view: SeatView, **fields: Any) -> bytes:
    legal = view.legal_actions
    assert legal is not None
    return encode((draw_request if legal.can_draw else act_request)(view, **fields))


def _play(config: GameConfig, hand_count: int, seed: int) -> int:
    """Random hands at random tables; every fast line must be the plain line. The seats'
    encoders live across hands (as in a match) and prepare at random moments; at some
    tables they share one event text cache, at others each has its own. Some hands have a
    dead small blind or a dead button (a null ``small_blind_seat``, an empty button seat)."""
    rng = random.Random(seed)
    dead_rng = random.Random(f"dead button {seed}")
    policy = random_policy(rng)
    compared = 0
    for number in range(1, hand_count + 1):
        if number % 25 == 1:  # a new table now and then
            seat_indexes = sorted(rng.sample(range(10), rng.randint(2, 6)))
            ids = {s: f"{rng.choice(PLAYER_IDS)}{s}" for s in seat_indexes}
            shared = EventTextCache() if rng.random() < 0.5 else None
            encoders = {s: RequestEncoder(shared) for s in seat_indexes}
        stacks = {s: rng.choice((3, 20, 200, 1000, 123_456)) for s in seat_indexes}
        setups = [SeatSetup(s, ids[s], stacks[s]) for s in seat_indexes]
        button = rng.choice(seat_indexes)
        dead = dead_button_positions(dead_rng, seat_indexes) if dead_rng.random() < 0.4 else None
        blinds = None if dead is None else dead[1]
        if dead is not None:
            button = dead[0]
        hand = Hand.start(
            config, setups, button_index=button, blinds=blinds, rng=rng, hand_number=number
        )
        hand_id = rng.choice((f"m1-{number}", f'odd "hand" {number}', f"hånd-{number}"))
        for seat_index, encoder in encoders.items():
            view = hand.view(seat_index)
            expected = encode(hand_start(view, hand_id=hand_id))
            assert encoder.hand_start(view, hand_id=hand_id) == expected
        while not hand.is_over:
            actor, legal = hand.actor_index, hand.legal_actions()
            assert actor is not None and legal is not None
            view = hand.view(actor)
            max_attempts = rng.choice((1, 3, 5))
            fields: dict[str, Any] = {
                "seq": rng.choice((compared + 1, 10**6 + compared)),
                "hand_id": hand_id,
                "time_limit_ms": rng.choice((900, 5000, 123_456)),
                "max_attempts": max_attempts,
            }
            for attempt in range(1, rng.randint(1, max_attempts) + 1):
                line = encoders[actor].request(view, attempt=attempt, **fields)
                assert line == _plain_request(view, attempt=attempt, **fields)
                compared += 1
            if rng.random() < 0.7:  # the arena encodes ahead while the actor thinks
                other = rng.choice(seat_indexes)
                encoders[other].prepare(hand.view(other))
            hand.act(policy(hand))
        result = hand.result
        assert result is not None
        message = hand_end(result, hand_id=hand_id, player_ids=ids)
        assert message["board"] == [card.to_wire() for card in result.board]
    return compared


@pytest.mark.parametrize("seed", range(len(CONFIGS)))
def test_fast_request_lines_are_the_plain_lines_over_hundreds_of_random_hands(seed: int) -> None:
    assert _play(CONFIGS[seed], hand_count=350, seed=seed) > 1000


class _CountingCache(EventTextCache):
    """An event text cache that lists the types of the events it encodes."""

    def __init__(self) -> None:
        super().__init__()
        self.encoded: list[str] = []

    def event_text(self, event: Mapping[str, Any]) -> str:
        self.encoded.append(event["type"])
        return super().event_text(event)


def test_a_prepared_request_encodes_only_the_events_that_came_after() -> None:
    cache = _CountingCache()
    encoded = cache.encoded
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
    hand = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(1))
    first, second = RequestEncoder(cache), RequestEncoder(cache)
    actor = hand.actor_index
    assert actor is not None
    first.request(hand.view(actor), seq=1, hand_id="h", time_limit_ms=10)
    second.prepare(hand.view(1 - actor))  # shares the public events' texts
    assert encoded.count("hand_started") == 1 and encoded.count("blind_posted") == 2
    encoded.clear()
    hand.act(Call())
    view = hand.view(1 - actor)
    line = second.request(view, seq=2, hand_id="h", time_limit_ms=10)
    assert line == _plain_request(view, seq=2, hand_id="h", time_limit_ms=10)
    assert encoded == ["action_taken"]


def test_an_event_text_cache_holds_one_event_per_place_and_the_next_hand_overwrites_it() -> None:
    cache = _CountingCache()
    first, second = {"type": "a", "amount": 1}, {"type": "b", "amount": 1}
    assert cache.text(0, first) == cache.text(0, first) == '{"type":"a","amount":1}'
    assert cache.text(0, second) == '{"type":"b","amount":1}'  # another hand's first event
    assert cache.text(0, second) == '{"type":"b","amount":1}'
    assert cache.encoded == ["a", "b"]
    # A place past the end (an encoder given the cache mid-hand) is encoded, not kept.
    assert cache.text(5, first) == cache.text(5, first)
    assert cache.encoded == ["a", "b", "a", "a"]


def test_encoders_without_a_shared_cache_keep_their_event_texts_apart() -> None:
    first, second = _CountingCache(), _CountingCache()
    _same_line(RequestEncoder(first), VIEW)
    _same_line(RequestEncoder(second), VIEW)
    assert first.encoded == second.encoded == [event["type"] for event in VIEW.history]


def test_cards_in_wire_form_are_fresh_dicts_equal_to_the_engines() -> None:
    assert cards_to_wire(FULL_DECK) == [card.to_wire() for card in FULL_DECK]
    assert text_cards_to_wire([str(card) for card in FULL_DECK]) == cards_to_wire(FULL_DECK)
    first, second = cards_to_wire(FULL_DECK[:1]), cards_to_wire(FULL_DECK[:1])
    assert first == second and first[0] is not second[0]


# -- the writer's rare paths ---------------------------------------------------------------

SEATS = VIEW.seats
FIELDS: dict[str, Any] = {"seq": 4, "hand_id": "h", "time_limit_ms": 10}


def _same_line(encoder: RequestEncoder, view: SeatView) -> None:
    assert encoder.request(view, **FIELDS) == _plain_request(view, **FIELDS)


def test_events_with_rare_values_are_written_as_the_json_encoder_writes_them() -> None:
    odd_keys: dict[Any, Any] = {"type": "odd", 7: "an integer key", None: "a null key"}
    history = (
        {"type": "cards_drawn", "seat_index": 0, "discarded": ["Ah"], "drawn": ["2c"]},
        {"type": "pot_awarded", "eligible_seat_indexes": [0, 1], "shares": [{"amount": 3}]},
        {"type": "odd", "ratio": 0.5, "cards": None, "is_shown": True, "text": "é\n\u2028"},
        {"type": "odd", "cards": ("As",), "board": "As", "big": 2**70, "nested": {"a": [1]}},
        odd_keys,
    )
    _same_line(RequestEncoder(), replace(VIEW, history=history))


def test_an_event_with_a_non_card_in_a_card_field_is_an_engine_bug() -> None:
    view = replace(VIEW, history=({"type": "street_dealt", "cards": ["Xx"]},))
    with pytest.raises(KeyError):
        RequestEncoder().request(view, **FIELDS)
    with pytest.raises(KeyError):
        act_request(view, **FIELDS)


def test_event_memos_are_emptied_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(request_encoder_module, "_MAX_EVENT_MEMO_COUNT", 2)
    monkeypatch.setattr(request_encoder_module, "_EVENT_KEY_TEXTS", {})
    monkeypatch.setattr(request_encoder_module, "_EVENT_STRING_TEXTS", {})
    history = tuple({"type": f"t{n}", f"key{n}": f"value{n}"} for n in range(5))
    _same_line(RequestEncoder(), replace(VIEW, history=history))
    assert len(request_encoder_module._EVENT_KEY_TEXTS) <= 2
    assert len(request_encoder_module._EVENT_STRING_TEXTS) <= 2


def test_a_line_that_cannot_be_utf8_is_our_bug_as_with_encode() -> None:
    seats = (replace(SEATS[0], player_id="p\ud800"), SEATS[1])
    view = replace(VIEW, seats=seats)
    with pytest.raises(ArenaBugError, match="'act' message"):
        RequestEncoder().request(view, **FIELDS)
    with pytest.raises(ArenaBugError, match="'act' message"):
        encode(act_request(view, **FIELDS))
    with pytest.raises(ArenaBugError, match="'hand_start' message"):
        RequestEncoder().hand_start(view, hand_id="h")


def test_what_changes_within_a_hand_is_written_anew_and_the_rest_reused() -> None:
    encoder = RequestEncoder()
    _same_line(encoder, VIEW)
    _same_line(encoder, replace(VIEW, legal_actions=replace(LEGAL, can_raise=False)))
    # The same seats as new (equal, not identical) objects; one seat fewer; other pots.
    _same_line(encoder, replace(VIEW, seats=tuple(replace(seat) for seat in SEATS)))
    three = (*SEATS, replace(SEATS[1], seat_index=4, player_id="p4"))
    _same_line(encoder, replace(VIEW, seats=three))
    _same_line(encoder, replace(VIEW, pots=(PotView(4, (0, 1)),)))
    _same_line(encoder, replace(VIEW, pots=(PotView(4, (0, 1)),)))  # equal, not identical
    # The next hand: another button, blinds and hole cards; then a draw.
    _same_line(encoder, replace(VIEW, hand_number=4, button_index=1, small_blind=2, ante=1))
    draw_legal = replace(LEGAL, can_draw=True, can_raise=False, max_discard_count=3)
    draw = replace(VIEW, hole_cards=tuple(parse_cards("Ah Ks 7c 7d 2s")), legal_actions=draw_legal)
    _same_line(encoder, draw)
    _same_line(encoder, replace(draw, board=tuple(parse_cards("2c 3c 4c"))))


# -- the layout the encoder and the builders are made from -----------------------------


def test_the_encoder_reports_our_mistakes_like_the_builders() -> None:
    with pytest.raises(ArenaBugError, match="not to act"):
        RequestEncoder().request(replace(VIEW, legal_actions=None), **FIELDS)
    with pytest.raises(ArenaBugError, match="attempt 0"):
        RequestEncoder().request(VIEW, attempt=0, **FIELDS)


def test_nested_layouts_write_what_their_builders_build() -> None:
    for seat in SEATS:
        assert layout.SEAT_STATE.text(seat) == json_text(layout.SEAT_STATE.build(seat))
    pot = PotView(40, (0, 1, 3))
    assert layout.POT_STATE.text(pot) == json_text(layout.POT_STATE.build(pot))
    assert layout.POT_STATE.build(pot) == {"amount": 40, "eligible_seats": [0, 1, 3]}


def test_every_layout_lists_its_keys_once_in_wire_order() -> None:
    for message in (layout.ACT_REQUEST, layout.DRAW_REQUEST, layout.HAND_START):
        keys = message.keys()
        assert len(set(keys)) == len(keys) and keys[0] == "type"
        assert message.name in repr(message)
    built = act_request(VIEW, **FIELDS)
    assert tuple(built) == layout.ACT_REQUEST.keys()
    assert tuple(hand_start(VIEW, hand_id="h")) == layout.HAND_START.keys()


def test_a_layout_expression_that_would_break_the_generated_code_is_refused() -> None:
    with pytest.raises(ArenaBugError, match="must not quote"):
        layout.Layout("bad", ["view"], [layout.Field("name", "view.get('x')")])
    non_scalar = layout.Field("hole_cards", "view.hole_cards", layout.Kind.HOLE_CARDS)
    with pytest.raises(ArenaBugError, match="not a scalar"):
        layout.Group("cards", (non_scalar,))


# -- Random hands of every shape: the fast lines are the plain messages' bytes ---------------


def _expected_line(view: SeatView, **fields: Any) -> bytes:
    legal = view.legal_actions
    assert legal is not None
    build = draw_request if legal.can_draw else act_request
    return encode(build(view, **fields))


def _play_and_compare(
    config: GameConfig,
    seat_count: int,
    hand_count: int,
    seed: int,
    event_texts: EventTextCache | None = None,
) -> int:
    """Random play; every request line of RequestEncoder must equal encode(act_request)."""
    rng = random.Random(seed)
    encoders = [RequestEncoder(event_texts) for _ in range(seat_count)]
    stacks = [rng.choice((20, 60, 200)) for _ in range(seat_count)]  # side pots happen
    compared = 0
    for number in range(1, hand_count + 1):
        seats = [SeatSetup(i, f"p{i}", stacks[i]) for i in range(seat_count)]
        hand = Hand.start(
            config, seats, button_index=number % seat_count, rng=rng, hand_number=number
        )
        for seat_index, encoder in enumerate(encoders):
            view = hand.view(seat_index)
            expected = encode(hand_start(view, hand_id=f"m-{number}"))
            assert encoder.hand_start(view, hand_id=f"m-{number}") == expected
        while not hand.is_over:
            actor = hand.actor_index
            legal = hand.legal_actions()
            assert actor is not None and legal is not None
            view = hand.view(actor)
            attempt = rng.choice((1, 1, 2))
            fields: dict[str, Any] = {
                "seq": compared + 1,
                "hand_id": f"m-{number}",
                "time_limit_ms": 900,
            }
            line = encoders[actor].request(view, attempt=attempt, **fields)
            assert line == _expected_line(view, attempt=attempt, **fields)
            compared += 1
            # While the actor thinks, the arena encodes ahead for another seat.
            other = rng.randrange(seat_count)
            encoders[other].prepare(hand.view(other))
            hand.act(_random_action(rng, legal, view))
    return compared


def _random_action(rng: random.Random, legal: LegalActions, view: SeatView) -> Action:
    if legal.can_draw:
        count = rng.randint(0, min(3, legal.max_discard_count))
        return Discard(tuple(rng.sample(view.hole_cards, count)))
    options: list[Action] = []
    if legal.can_check:
        options += [Check(), Check()]
    if legal.can_call:
        options += [Call(), Call()]
    if legal.can_fold:
        options.append(Fold())
    if legal.can_raise:
        options += [RaiseTo(legal.min_raise_to), RaiseTo(legal.max_raise_to)]
    return rng.choice(options)


@pytest.mark.parametrize(
    ("config", "seat_count"),
    [
        (GameConfig(), 2),
        (GameConfig(small_blind=5, big_blind=10, ante=1), 6),
        (GameConfig(structure=BettingStructure.FIXED_LIMIT), 3),
        (
            GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE),
            4,
        ),
    ],
)
def test_request_encoder_lines_are_byte_for_byte_the_plain_messages(
    config: GameConfig, seat_count: int
) -> None:
    assert _play_and_compare(config, seat_count, hand_count=20, seed=seat_count) > 30


def test_request_encoders_sharing_one_event_text_cache_write_the_same_lines() -> None:
    shared = EventTextCache()
    assert _play_and_compare(GameConfig(), 3, hand_count=3, seed=7, event_texts=shared) > 5
    assert _play_and_compare(GameConfig(), 3, hand_count=3, seed=7) > 5


def test_request_encoder_starts_afresh_when_the_history_is_not_the_one_it_knows() -> None:
    encoder = RequestEncoder()
    fields: dict[str, Any] = {"seq": 4, "hand_id": "h", "time_limit_ms": 10}
    assert encoder.request(VIEW, **fields) == encode(act_request(VIEW, **fields))
    # Asked again (an invalid reply): nothing new to encode.
    again = encode(act_request(VIEW, attempt=2, **fields))
    assert encoder.request(VIEW, attempt=2, **fields) == again
    # The same events as new (equal, not identical) dicts, one changed: encoded anew.
    copied = tuple(dict(event) for event in VIEW.history)
    copied[0]["amount"] = 2
    view = replace(VIEW, history=copied)
    assert encoder.request(view, **fields) == encode(act_request(view, **fields))
    # A shorter history (a new hand) and a draw with pots.
    view = replace(DRAW_VIEW, history=VIEW.history[:1])
    assert encoder.request(view, **fields) == encode(draw_request(view, **fields))
    # Pots and seats that changed since the last request.
    seats = (replace(VIEW.seats[0], stack=150), VIEW.seats[1])
    view = replace(DRAW_VIEW, pots=(PotView(8, (0, 1)), PotView(2, (1,))), seats=seats)
    assert encoder.request(view, **fields) == encode(draw_request(view, **fields))


def test_request_encoder_reports_our_mistakes_like_the_builders() -> None:
    encoder = RequestEncoder()
    with pytest.raises(ArenaBugError, match="not to act"):
        encoder.request(replace(VIEW, legal_actions=None), seq=1, hand_id="h", time_limit_ms=1)
    with pytest.raises(ArenaBugError, match="attempt 4"):
        encoder.request(VIEW, seq=1, hand_id="h", time_limit_ms=1, attempt=4)


def test_each_combination_of_legal_action_names_is_encoded_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The table lives as long as the program, so other tests may have filled it: start empty.
    monkeypatch.setattr(layout, "_ACTION_NAME_TEXTS", {})
    first = layout.action_names_text(LEGAL)
    assert json.loads(first) == legal_action_names(LEGAL)
    assert layout.action_names_text(LEGAL) is first  # looked up, not encoded again
