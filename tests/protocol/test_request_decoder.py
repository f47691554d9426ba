"""Decoding a request into legal actions (:mod:`protocol.request_decoder`): the inverse of
the request encoder, checked as a round trip over random hands of every game."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import AnteMode, BettingStructure, DrawLimit, GameConfig, Variant
from engine.hand import Hand, SeatSetup
from protocol.codec import encode
from protocol.messages import act_request, draw_request
from protocol.request_decoder import legal_from_request
from tests.engine.policies import random_policy

CONFIGS = st.sampled_from(
    [
        GameConfig(),
        GameConfig(small_blind=5, big_blind=10, ante=1),
        GameConfig(ante=2, ante_mode=AnteMode.BIG_BLIND),
        GameConfig(structure=BettingStructure.POT_LIMIT),
        GameConfig(structure=BettingStructure.FIXED_LIMIT),
        GameConfig(variant=Variant.FIVE_CARD_DRAW),
        GameConfig(variant=Variant.FIVE_CARD_DRAW, draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE),
    ]
)


@settings(max_examples=40, deadline=None)
@given(
    config=CONFIGS,
    seed=st.integers(0, 2**32 - 1),
    stacks=st.lists(st.integers(1, 400), min_size=2, max_size=6),
)
def test_a_request_decodes_to_the_legal_actions_it_was_encoded_from(
    config: GameConfig, seed: int, stacks: list[int]
) -> None:
    """Every decision of a random hand (short stacks make short all-ins, side pots and
    raise caps): the request line the arena sends, decoded, gives the engine's
    ``LegalActions`` back exactly."""
    rng = random.Random(seed)
    policy = random_policy(rng)
    seats = [SeatSetup(index, f"p{index}", stack) for index, stack in enumerate(stacks)]
    hand = Hand.start(config, seats, button_index=0, rng=rng, hand_number=1)
    seq = 0
    while not hand.is_over:
        actor = hand.actor_index
        assert actor is not None
        view = hand.view(actor)
        seq += 1
        assert view.legal_actions is not None
        build = draw_request if view.legal_actions.can_draw else act_request
        line = encode(build(view, seq=seq, hand_id="h-1", time_limit_ms=1000))
        assert legal_from_request(json.loads(line)) == view.legal_actions
        hand.act(policy(hand))


def test_a_seat_missing_from_its_table_state_has_committed_nothing() -> None:
    request = {
        "type": "act",
        "seat_index": 2,
        "player_stack": 50,
        "current_bet": 0,
        "to_call": 0,
        "min_raise_to": None,
        "max_raise_to": None,
        "legal_actions": ["CHECK", "ALL_IN"],
        "table_state": [{"seat_index": 0, "current_bet": 4}],
    }
    legal = legal_from_request(request)
    assert legal.committed == 0 and not legal.can_raise and legal.can_check
    assert (legal.min_raise_to, legal.max_raise_to) == (0, 0)
