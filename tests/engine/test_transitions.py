"""The phase table (``engine.transitions``): a hand moves only along its arrows."""

from __future__ import annotations

import itertools

import pytest

from engine.actions import Call
from engine.errors import InvariantError
from engine.phases import Phase
from engine.transitions import TRANSITIONS, check_transition
from tests.engine.test_hand_rules import start


def test_phases_follow_the_transition_table() -> None:
    hand = start([100, 100], button=0)
    seen = [hand.phase]
    while not hand.is_over:
        hand.act(Call())
        if hand.phase is not seen[-1]:
            seen.append(hand.phase)
    assert seen == [Phase.PRE_FLOP, Phase.FLOP, Phase.TURN, Phase.RIVER, Phase.HAND_COMPLETE]
    # Internally the hand also passed SHOWDOWN and POT_DISTRIBUTION; every step is allowed.
    path = [Phase.PRE_FLOP, Phase.FLOP, Phase.TURN, Phase.RIVER, Phase.SHOWDOWN]
    path += [Phase.POT_DISTRIBUTION, Phase.HAND_COMPLETE]
    for before, after in itertools.pairwise(path):
        assert after in TRANSITIONS[before]


def test_a_phase_change_not_in_the_table_is_an_invariant_error() -> None:
    with pytest.raises(InvariantError) as info:
        check_transition(Phase.PRE_FLOP, Phase.RIVER)
    assert info.value.code == "illegal_transition"
    with pytest.raises(InvariantError):
        check_transition(Phase.HAND_COMPLETE, Phase.HAND_COMPLETE)
    check_transition(Phase.TURN, Phase.HAND_COMPLETE)  # a void ends the hand from anywhere
