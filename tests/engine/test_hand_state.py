"""Starting a hand: bad setups, queries, and voiding when an invariant fails."""

from __future__ import annotations

import random

import pytest

from engine import invariants as invariants_module
from engine.actions import Call, Fold
from engine.config import GameConfig
from engine.deck import Deck
from engine.errors import InvariantError
from engine.events import HandVoided
from engine.hand import BlindSeats, Hand, SeatSetup, SetupError
from engine.invariants import pot_violations, violations
from engine.phases import Phase, PlayerStatus

NL = GameConfig(small_blind=1, big_blind=2)


def seats(*stacks: int) -> list[SeatSetup]:
    return [SeatSetup(i, f"p{i}", s) for i, s in enumerate(stacks)]


@pytest.mark.parametrize(
    ("setups", "button", "code"),
    [
        ([SeatSetup(0, "a", 10), SeatSetup(0, "b", 10)], 0, "bad_seats"),
        ([SeatSetup(0, "a", 10), SeatSetup(1, "a", 10)], 0, "bad_seats"),
        ([SeatSetup(0, "a", 10), SeatSetup(1, "b", -5)], 0, "bad_seats"),
        ([SeatSetup(0, "a", 10), SeatSetup(1, "b", 10)], 7, "bad_button"),
        ([SeatSetup(0, "a", 10), SeatSetup(1, "b", 0)], 0, "not_enough_players"),
    ],
)
def test_a_hand_that_cannot_be_played_is_refused(
    setups: list[SeatSetup],
    button: int,
    code: str,
) -> None:
    with pytest.raises(SetupError) as info:
        Hand.start(NL, setups, button_index=button, deck=Deck.stacked([]))
    assert info.value.code == code


def test_a_hand_needs_a_deck_or_a_seeded_rng() -> None:
    with pytest.raises(SetupError) as info:
        Hand.start(NL, seats(10, 10), button_index=0)
    assert info.value.code == "no_deck"
    hand = Hand.start(NL, seats(10, 10), button_index=0, rng=random.Random(3))
    assert hand.deck_order == Deck.shuffled(random.Random(3)).order


def test_queries_name_seats_by_seat_index() -> None:
    setups = [SeatSetup(3, "a", 50), SeatSetup(5, "b", 60), SeatSetup(8, "c", 70)]
    hand = Hand.start(NL, setups, button_index=5, deck=Deck.stacked([]), hand_number=9)
    assert hand.hand_number == 9
    assert hand.starting_stacks == {3: 50, 5: 60, 8: 70}
    assert hand.stacks == {3: 48, 5: 60, 8: 69}
    assert (hand.small_blind_index, hand.big_blind_index, hand.actor_index) == (8, 3, 5)
    assert hand.positions == {5: "button", 8: "small_blind", 3: "big_blind"}
    assert hand.seats == tuple(setups)
    assert hand.current_bet == 2 and hand.pot_total == 3
    with pytest.raises(SetupError) as info:
        hand.view(4)
    assert info.value.code == "unknown_seat"


def test_pots_during_a_round_only_split_at_all_in_players() -> None:
    hand = Hand.start(NL, seats(100, 30, 100), button_index=0, deck=Deck.stacked([]))
    hand.act(Call())
    assert [(p.amount, p.eligible) for p in hand.pots()] == [(5, (0, 1, 2))]
    hand.act(Fold())
    hand.act(Call())  # big blind checks: flop
    assert hand.gathered_pots()[0].amount == 5
    assert hand.phase is Phase.FLOP


def test_invariant_failure_at_the_start_voids_the_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(invariants_module, "violations", lambda **_: ["injected failure"])
    stacks = seats(10, 0, 10)
    # Make the fast path fail too: a stack that does not add up.
    original = Hand._begin

    def corrupt(self: Hand) -> None:
        self._stacks[0] += 1
        original(self)

    monkeypatch.setattr(Hand, "_begin", corrupt)
    hand = Hand.start(NL, stacks, button_index=0, deck=Deck.stacked([]))
    assert hand.is_over and hand.result is not None
    assert hand.result.ended_reason == "VOID"
    assert hand.result.final_stacks == {0: 10, 1: 0, 2: 10}
    voided = next(e for e in hand.events if isinstance(e, HandVoided))
    assert voided.reason == "injected failure"


def test_pots_not_matching_commitments_at_the_end_void_the_hand(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(invariants_module, "pot_violations", lambda *_: ["pots hold 1 but 3"])
    hand = Hand.start(NL, seats(10, 10), button_index=0, deck=Deck.stacked([]))
    events = hand.act(Fold())
    assert [e.type for e in events][-2:] == ["hand_voided", "hand_ended"]
    assert hand.result is not None and hand.result.final_stacks == {0: 10, 1: 10}
    assert hand.phase is Phase.HAND_COMPLETE


def test_invariant_messages_name_the_bad_values() -> None:
    active = PlayerStatus.ACTIVE
    assert violations(
        stacks=[0, -2],
        committed=[-1, 3],
        statuses=[active, PlayerStatus.ALL_IN],
        total_chips=5,
    ) == [
        "negative commitment -1 at position 0",
        "position 0 has no chips but is ACTIVE, not ALL_IN",
        "negative stack -2 at position 1",
        "chips not conserved: 0 in play, 5 expected",
    ]
    assert pot_violations([1], [2]) == ["pots hold 1 but 2 chips were committed"]


def test_active_player_with_an_empty_stack_is_caught() -> None:
    hand = Hand.start(NL, seats(10, 10, 10), button_index=0, deck=Deck.stacked([]))
    hand._stacks[2] = 0  # the big blind's chips move to seat 1, but it stays ACTIVE
    hand._stacks[1] += 8
    events = hand.act(Call())
    assert isinstance(events[-2], HandVoided)
    assert "has no chips but is ACTIVE" in events[-2].reason


def test_invariant_error_is_an_assertion_error_with_a_code() -> None:
    error = InvariantError("invariant_failed", "chips not conserved")
    assert isinstance(error, AssertionError) and error.code == "invariant_failed"


# ------------------------------------------------------------------ blind seats given


def _gapped(*stacks: int) -> list[SeatSetup]:
    """Seats 0, 2, 4, ... (the odd seats are empty)."""
    return [SeatSetup(2 * i, f"p{2 * i}", s) for i, s in enumerate(stacks)]


@pytest.mark.parametrize(
    ("setups", "button", "blinds", "code", "message"),
    [
        (_gapped(10, 10, 10), 3, None, "bad_button", "button seat 3 is not among [0, 2, 4]"),
        (
            _gapped(10, 10, 10),
            True,
            BlindSeats(2, 4),
            "bad_button",
            "button seat must be a seat number, got True",
        ),
        (
            _gapped(10, 10, 10),
            -1,
            BlindSeats(2, 4),
            "bad_button",
            "button seat must be a seat number, got -1",
        ),
        (
            _gapped(10, 10, 10),
            1,
            BlindSeats(2, 3),
            "bad_blinds",
            "big blind seat 3 is not dealt in (players with chips: [0, 2, 4])",
        ),
        (
            _gapped(10, 0, 10, 10),
            1,
            BlindSeats(2, 4),
            "bad_blinds",
            "small blind seat 2 is not dealt in (players with chips: [0, 4, 6])",
        ),
        (
            _gapped(10, 10, 10),
            1,
            BlindSeats(4, 0),
            "bad_blinds",
            "small blind seat 4 and big blind seat 0 do not follow button seat 1 "
            "(expected 2 and 4)",
        ),
        (
            _gapped(10, 10, 10),
            1,
            BlindSeats(None, 4),
            "bad_blinds",
            "small blind seat None and big blind seat 4 do not follow button seat 1 "
            "(expected None and 2)",
        ),
        # Heads-up the button posts the small blind: no dead button, no dead small blind.
        (
            _gapped(10, 10),
            1,
            BlindSeats(2, 0),
            "bad_blinds",
            "small blind seat 2 and big blind seat 0 do not follow button seat 1 "
            "(expected 1 and 2)",
        ),
        (
            _gapped(10, 10),
            0,
            BlindSeats(None, 2),
            "bad_blinds",
            "small blind seat None and big blind seat 2 do not follow button seat 0 "
            "(expected 0 and 2)",
        ),
        (
            list(reversed(_gapped(10, 10, 10))),
            1,
            BlindSeats(2, 4),
            "bad_seats",
            "blind seats need the seats in seat-index order, got [4, 2, 0]",
        ),
    ],
)
def test_blind_seats_the_dead_button_rule_cannot_give_are_refused(
    setups: list[SeatSetup],
    button: int,
    blinds: BlindSeats | None,
    code: str,
    message: str,
) -> None:
    with pytest.raises(SetupError) as info:
        Hand.start(NL, setups, button_index=button, blinds=blinds, deck=Deck.stacked([]))
    assert info.value.code == code
    assert message in str(info.value)


def test_blind_seats_must_be_blind_seats_and_need_a_game_with_blinds() -> None:
    with pytest.raises(SetupError, match=r"blinds must be BlindSeats or None, got \(2, 4\)"):
        Hand.start(NL, _gapped(9, 9, 9), button_index=0, blinds=(2, 4), deck=Deck.stacked([]))  # type: ignore[arg-type]
    antes_only = GameConfig(small_blind=0, big_blind=0, ante=1)
    with pytest.raises(SetupError, match="a game without blinds takes no blind seats") as info:
        Hand.start(
            antes_only,
            _gapped(9, 9, 9),
            button_index=0,
            blinds=BlindSeats(2, 4),
            deck=Deck.stacked([]),
        )
    assert info.value.code == "bad_blinds"


def test_blind_seats_where_the_default_rule_puts_them_are_the_default() -> None:
    plain = Hand.start(NL, _gapped(50, 50, 50), button_index=2, deck=Deck.stacked([]))
    given = Hand.start(
        NL, _gapped(50, 50, 50), button_index=2, blinds=BlindSeats(4, 0), deck=Deck.stacked([])
    )
    assert given.explicit_blinds is None and plain.explicit_blinds is None
    assert given.events == plain.events


def test_dead_small_blind_and_dead_button_are_kept_and_nobody_posts_the_small_blind() -> None:
    blinds = BlindSeats(small_blind_index=None, big_blind_index=4)
    hand = Hand.start(NL, _gapped(50, 50, 50), button_index=3, blinds=blinds, deck=Deck.stacked([]))
    assert hand.explicit_blinds == blinds
    assert (hand.button_index, hand.small_blind_index, hand.big_blind_index) == (3, None, 4)
    assert hand.positions == {3: "button", 4: "big_blind"}
    assert hand.pot_total == 2 and hand.stacks == {0: 50, 2: 50, 4: 48}
    assert hand.actor_index == 0  # left of the big blind
    view = hand.view(0)
    assert (view.button_index, view.small_blind_index, view.big_blind_index) == (3, None, 4)
    assert [seat.position for seat in view.seats] == ["", "", "big_blind"]
