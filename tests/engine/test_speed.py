"""The speed helpers (``engine.speed``) give exactly what the plain algorithms give.

Event dicts come from a ``to_dict`` compiled per event class, views from a per-hand cache,
events and other hot values from a faster dataclass constructor. Each is compared with the
plain algorithm it replaced (``build_view``, the generated ``__init__``,
and the algorithms written out again below) over many random hands - Hold'em and
five-card draw, every betting structure and ante mode - with values compared by type as
well, so the JSON bytes are the same.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import random
from enum import Enum
from typing import Any, ClassVar

import pytest

from engine.actions import LegalActions
from engine.cards import Card, parse_cards
from engine.config import AnteMode, BettingStructure, GameConfig, Variant
from engine.events import (
    ActionTaken,
    Event,
    HandEnded,
    HandStarted,
    HandVoided,
    PotAwarded,
    StubReshuffled,
    public_dict,
)
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from engine.phases import Phase
from engine.redaction import HandReader
from engine.speed.dataclass_init import fast_init
from engine.view import PotView, SeatPublicView, SeatView
from tests.engine.policies import random_policy

# -- the plain algorithms, as they were ---------------------------------------------------

_AS_IS = frozenset({int, str, bool, type(None)})


def build_view(hand: HandReader, seat_index: int | None) -> SeatView:
    """The hand as seen from ``seat_index`` (``None``: a spectator who sees no hole cards),
    built from scratch: the plain algorithm ``Hand.view``'s cache replaced."""
    own: tuple[Card, ...] = ()
    if seat_index is not None:
        own = hand.hole_cards(seat_index)  # also rejects a seat not in the hand
    config = hand.config
    positions = hand.positions
    shown = hand.shown_cards
    seats = tuple(
        SeatPublicView(
            setup.seat_index,
            setup.player_id,
            stack,
            str(status),
            street,
            committed,
            positions.get(setup.seat_index, ""),
            shown.get(setup.seat_index),
            discard_count,
        )
        for setup, (stack, status, street, committed, discard_count) in zip(
            hand.seats, hand.seat_rows(), strict=True
        )
    )
    actor_index = hand.actor_index
    # Only the player to act sees the legal actions.
    legal = None
    if seat_index is not None and seat_index == actor_index:
        legal = hand.legal_actions()
    return SeatView(
        hand.hand_number,
        str(config.variant),
        str(config.structure),
        str(hand.phase),
        seat_index,
        own,
        hand.board,
        hand.button_index,
        hand.small_blind_index,
        hand.big_blind_index,
        config.small_blind,
        config.big_blind,
        config.ante,
        seats,
        tuple(PotView(pot.amount, pot.eligible) for pot in hand.gathered_pots()),
        hand.pot_total,
        hand.current_bet,
        actor_index,
        legal,
        tuple(public_dict(event, seat_index) for event in hand.events),
        hand.is_over,
    )


def plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple | list):
        return [plain(item) for item in value]
    return value


def reference_dict(event: Event) -> dict[str, Any]:
    """The generic to_dict: every field through ``plain``, then the record lists."""
    data: dict[str, Any] = {"type": event.type}
    for item in dataclasses.fields(event):
        value = getattr(event, item.name)
        data[item.name] = value if type(value) in _AS_IS else plain(value)
    if isinstance(event, HandStarted):
        data["seats"] = [{"seat_index": s, "player_id": p, "stack": st} for s, p, st in event.seats]
    if isinstance(event, PotAwarded):
        data["shares"] = [{"seat_index": s, "amount": a} for s, a in event.shares]
    if isinstance(event, HandVoided):
        data["refunds"] = [{"seat_index": s, "amount": a} for s, a in event.refunds]
    if isinstance(event, HandEnded):
        data["final_stacks"] = [{"seat_index": s, "stack": a} for s, a in event.final_stacks]
    return data


def reference_public_dict(event: Event, viewer: int | None) -> dict[str, Any]:
    data = reference_dict(event)
    if event.private_fields and viewer != getattr(event, "seat_index", None):
        for name in event.private_fields:
            data[name + "_count"] = len(data[name])
            data[name] = None
    return data


def reference_view(hand: Hand, seat_index: int | None) -> SeatView:
    """The view built field by field from the hand's public queries."""
    shown = hand.shown_cards
    positions = hand.positions
    seats = tuple(
        SeatPublicView(
            seat_index=state.seat_index,
            player_id=state.player_id,
            stack=state.stack,
            status=str(state.status),
            street_committed=state.street_committed,
            hand_committed=state.hand_committed,
            position=positions.get(state.seat_index, ""),
            shown_cards=shown.get(state.seat_index),
            discard_count=state.discard_count,
        )
        for state in hand.seat_states()
    )
    legal = hand.legal_actions() if seat_index is not None else None
    if legal is not None and legal.seat_index != seat_index:
        legal = None
    return SeatView(
        hand_number=hand.hand_number,
        variant=str(hand.config.variant),
        structure=str(hand.config.structure),
        phase=str(hand.phase),
        seat_index=seat_index,
        hole_cards=() if seat_index is None else hand.hole_cards(seat_index),
        board=hand.board,
        button_index=hand.button_index,
        small_blind_index=hand.small_blind_index,
        big_blind_index=hand.big_blind_index,
        small_blind=hand.config.small_blind,
        big_blind=hand.config.big_blind,
        ante=hand.config.ante,
        seats=seats,
        pots=tuple(PotView(pot.amount, pot.eligible) for pot in hand.gathered_pots()),
        pot_total=hand.pot_total,
        current_bet=hand.current_bet,
        actor_index=hand.actor_index,
        legal_actions=legal,
        history=tuple(reference_public_dict(event, seat_index) for event in hand.events),
        is_over=hand.is_over,
    )


def assert_same(new: Any, old: Any) -> None:
    """Equal, with the same types all the way down and dict keys in the same order."""
    assert type(new) is type(old), (new, old)
    if isinstance(new, dict):
        assert list(new) == list(old)
        for key in new:
            assert_same(new[key], old[key])
    elif isinstance(new, list | tuple):
        assert len(new) == len(old)
        for a, b in zip(new, old, strict=True):
            assert_same(a, b)
    else:
        assert new == old


# -- random play --------------------------------------------------------------------------


def random_config(rng: random.Random) -> GameConfig:
    big_blind = rng.choice([2, 2, 4, 10])
    small_blind = big_blind // 2
    ante = rng.choice([0, 0, 1, big_blind // 2, big_blind])
    if rng.random() < 0.1:  # antes only: no blind seats
        small_blind = big_blind = 0
        ante = max(ante, 1)
    return GameConfig(
        small_blind=small_blind,
        big_blind=big_blind,
        ante=ante,
        ante_mode=rng.choice(list(AnteMode)),
        structure=rng.choice(list(BettingStructure)),
        variant=rng.choice(list(Variant)),
    )


def random_hand(rng: random.Random, hand_number: int) -> Hand:
    config = random_config(rng)
    count = rng.randint(2, 7 if config.variant is Variant.FIVE_CARD_DRAW else 10)
    big_blind = max(config.big_blind, 2)
    stacks = [
        rng.choice([0, 1, big_blind, 3 * big_blind, rng.randint(1, 400), 200]) for _ in range(count)
    ]
    if sum(1 for s in stacks if s > 0) < 2:
        stacks[0] = stacks[-1] = 100
    seat_indexes = sorted(rng.sample(range(10), count))
    seats = [SeatSetup(s, f"p{s}", stack) for s, stack in zip(seat_indexes, stacks, strict=True)]
    return Hand.start(
        config,
        seats,
        button_index=rng.choice(seat_indexes),
        rng=random.Random(rng.randrange(2**32)),
        hand_number=hand_number,
    )


def play(hand: Hand, rng: random.Random, *, check_views: bool) -> None:
    viewers: list[int | None] = [None, *(setup.seat_index for setup in hand.seats)]
    policy = random_policy(rng)
    while True:
        if check_views:
            for viewer in rng.sample(viewers, len(viewers)):
                assert_same(_fields(hand.view(viewer)), _fields(reference_view(hand, viewer)))
        legal = hand.legal_actions()
        if legal is None:
            break
        hand.act(policy(hand))


def _fields(view: SeatView) -> dict[str, Any]:
    """The view's fields as a dict (so assert_same also compares their types)."""
    return {item.name: getattr(view, item.name) for item in dataclasses.fields(view)}


# -- tests ----------------------------------------------------------------------------------


def test_compiled_event_dicts_equal_the_generic_algorithm_over_random_hands() -> None:
    rng = random.Random(20240601)
    seen: set[str] = set()
    for number in range(1, 2001):
        hand = random_hand(rng, number)
        play(hand, rng, check_views=False)
        dicts = hand.event_dicts()
        for event, data in zip(hand.events, dicts, strict=True):
            seen.add(event.type)
            expected = reference_dict(event)
            assert_same(event.to_dict(), expected)
            assert_same(data, expected)
            assert json.dumps(data) == json.dumps(expected)
    assert len(seen) >= 15  # every event type but hand_voided (below) was produced


def test_compiled_event_dicts_of_rare_events() -> None:
    voided = HandVoided("invariant failed", ((0, 5), (3, 10)))
    reshuffled = StubReshuffled(7)
    for event in (voided, reshuffled):
        assert_same(event.to_dict(), reference_dict(event))
    assert_same(Event().to_dict(), {"type": "event"})


def test_a_new_event_class_gets_its_own_compiled_to_dict() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class CardsPeeked(PotAwarded):
        type: ClassVar[str] = "cards_peeked"
        cards: tuple[Card, ...] = ()
        weights: list[int] = dataclasses.field(default_factory=list)
        extra: Any = None  # converted at run time: cards, enums and tuples inside

    extra = (Card.parse("Kh"), Phase.FLOP, [Variant.HOLDEM, 4])
    event = CardsPeeked(0, 10, (1, 2), ((1, 10),), "", tuple(parse_cards("As 2d")), [3], extra)
    expected = {**reference_dict(event), "shares": [{"seat_index": 1, "amount": 10}]}
    assert_same(event.to_dict(), expected)
    assert_same(event.to_dict(), expected)  # the compiled one, installed by the first call
    assert "cards" not in PotAwarded(0, 10, (1,), ((1, 10),), "").to_dict()


@pytest.mark.parametrize("hand_count", [100, pytest.param(1000, marks=pytest.mark.slow)])
def test_cached_views_equal_views_built_field_by_field(hand_count: int) -> None:
    rng = random.Random(77)
    for number in range(1, hand_count + 1):
        hand = random_hand(rng, number)
        play(hand, rng, check_views=True)


def test_views_without_a_cache_agree_with_the_cached_view() -> None:
    rng = random.Random(5)
    hand = random_hand(rng, 1)
    policy = random_policy(rng)
    while not hand.is_over:
        seat = hand.actor_index
        view = hand.view(seat)
        assert build_view(hand, seat) == view
        # A spectator sees no hole cards and no legal actions, built either way.
        assert build_view(hand, None) == hand.view(None)
        assert build_view(hand, None).legal_actions is None
        hand.act(policy(hand))


def test_fast_init_keeps_the_signature_defaults_and_frozenness() -> None:
    legal = LegalActions(0, 10, 2, 1, True, False, True, 1, True, 4, 11)
    assert legal.can_draw is False and legal.max_discard_count == 0
    assert dataclasses.replace(legal, can_raise=False).can_raise is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        legal.stack = 5  # type: ignore[misc]
    parameters = inspect.signature(LegalActions).parameters
    assert list(parameters) == [item.name for item in dataclasses.fields(LegalActions)]
    assert parameters["can_draw"].default is False
    assert Event() == Event()
    assert "ActionTaken.__init__" in ActionTaken.__init__.__qualname__


def test_fast_init_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        amount: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        cards: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True)
    class WithPostInit:
        amount: int

        def __post_init__(self) -> None:
            pass

    for cls in (Unslotted, WithFactory, WithPostInit):
        with pytest.raises(TypeError):
            fast_init(cls)


def random_table(rng: random.Random) -> tuple[GameConfig, list[SeatSetup], int]:
    count = rng.randint(2, 10)
    variant = rng.choice(list(Variant))
    big_blind = rng.choice([0, 2, 10]) if variant is Variant.FIVE_CARD_DRAW else 2
    config = GameConfig(
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=rng.choice([0, 1, 5]) if big_blind else 2,
        ante_mode=rng.choice(list(AnteMode)),
        structure=rng.choice(list(BettingStructure)),
        variant=variant,
    )
    seats = [SeatSetup(i, f"p{i}", rng.choice([0, 3, 12, 60, 200])) for i in range(count - 2)] + [
        SeatSetup(count - 2, "x", 100),
        SeatSetup(count - 1, "y", 50),
    ]
    return config, seats, rng.randrange(count)


def check_view_is_exact(hand: Hand, viewer: int | None) -> None:
    """The cached view equals one built from scratch, event dicts included."""
    view = hand.view(viewer)
    assert view == build_view(hand, viewer)
    assert view.history == tuple(public_dict(event, viewer) for event in hand.events)


def test_cached_views_and_histories_equal_views_built_from_scratch() -> None:
    rng = random.Random(20250101)
    for number in range(150):
        config, seats, button = random_table(rng)
        hand = Hand.start(config, seats, button_index=button, rng=rng, hand_number=number)
        policy = random_policy(rng)
        viewers: list[int | None] = [None, *hand.stacks]
        while True:
            # Sometimes skip a few transitions, so the cache catches up on several events.
            if rng.random() < 0.6:
                for viewer in rng.sample(viewers, min(3, len(viewers))):
                    check_view_is_exact(hand, viewer)
                    check_view_is_exact(hand, viewer)  # the same state again: a cache hit
            if hand.is_over:
                break
            hand.act(policy(hand))
        assert hand.event_dicts() == [event.to_dict() for event in hand.events]
        assert hand_to_history(hand)["events"] == [event.to_dict() for event in hand.events]
        for viewer in viewers:
            check_view_is_exact(hand, viewer)
