"""The button rules: the moving button and the tournament dead button (``engine.button``),
at the table and over many random freezeouts."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.actions import Call, Check, Discard, Fold
from engine.button import ButtonRule, Rotation, next_rotation
from engine.config import BettingStructure, GameConfig, Variant
from engine.deck import Deck
from engine.events import BlindPosted, CardsDrawn, HoleCardsDealt
from engine.hand import BlindSeats, Hand, SeatSetup
from engine.schedule import BlindLevel, BlindSchedule
from engine.table import Table, TableError
from tests.engine.freezeouts import freezeout_hands, play_bust, random_freezeout

CONFIG = GameConfig(small_blind=1, big_blind=2)
DEAD = ButtonRule.DEAD


def _table(stacks: dict[int, int], rule: ButtonRule = DEAD, **kwargs: object) -> Table:
    table = Table(CONFIG, seat_count=10, button_rule=rule, **kwargs)  # type: ignore[arg-type]
    for seat_index, stack in stacks.items():
        table.join(f"p{seat_index}", stack, seat_index=seat_index)
    return table


def _fold_to_the_blinds(hand: Hand) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if legal.can_check else Fold())


def _positions(hand: Hand) -> tuple[int, int | None, int | None]:
    return hand.button_index, hand.small_blind_index, hand.big_blind_index


def _blinds_posted(hand: Hand) -> list[tuple[int, str]]:
    return [(e.seat_index, e.blind) for e in hand.events if isinstance(e, BlindPosted)]


def _dealt_order(hand: Hand) -> list[int]:
    return [e.seat_index for e in hand.events if isinstance(e, HoleCardsDealt)]


def _next_hand(table: Table, seed: int = 0) -> Hand:
    return table.start_hand(random.Random(seed))


# ------------------------------------------------------------------ the rotation itself


def test_first_hand_has_the_button_at_the_first_seat_and_the_blinds_left_of_it() -> None:
    for rule in ButtonRule:
        assert next_rotation(rule, [2, 5, 7], None) == Rotation(2, 5, 5, 7)
        assert next_rotation(rule, [2, 5, 7], None, first_button_index=6) == Rotation(7, 2, 2, 5)
        # Heads-up the button posts the small blind.
        assert next_rotation(rule, [2, 5], None) == Rotation(2, 2, 2, 5)


def test_moving_button_goes_to_the_next_player_and_the_blinds_follow_it() -> None:
    previous = Rotation(0, 1, 1, 2)
    # Seat 1 busted: the moving button skips it, seat 3 never posts this orbit's big blind.
    assert next_rotation(ButtonRule.MOVING, [0, 2, 3], previous) == Rotation(2, 3, 3, 0)


def test_dead_button_rule_moves_the_big_blind_one_player() -> None:
    previous = Rotation(0, 1, 1, 2)
    assert next_rotation(DEAD, [0, 1, 2, 3], previous) == Rotation(1, 2, 2, 3)
    # The small blind's player busted: the button stays on the empty seat 1.
    assert next_rotation(DEAD, [0, 2, 3], previous) == Rotation(1, 2, 2, 3)
    # The big blind's player busted: a dead small blind.
    assert next_rotation(DEAD, [0, 1, 3], previous) == Rotation(1, 2, None, 3)
    # After a dead small blind the button goes to its (empty) seat.
    assert next_rotation(DEAD, [0, 1, 3], Rotation(1, 2, None, 3)) == Rotation(2, 3, 3, 0)


def test_hands_without_blinds_move_the_button_as_the_moving_rule_does() -> None:
    previous = Rotation(0, 1, 1, 2)
    assert next_rotation(DEAD, [0, 1, 2], previous, has_blinds=False) == Rotation(1)
    # The first hand with blinds after it: the blinds left of the moved button.
    assert next_rotation(DEAD, [0, 1, 2], Rotation(1)) == Rotation(2, 0, 0, 1)
    # One player left: only a button.
    assert next_rotation(DEAD, [4], previous) == Rotation(4)


def test_rotation_gives_the_blind_seats_to_start_a_hand_with() -> None:
    assert Rotation(1, 2, None, 3).blinds == BlindSeats(small_blind_index=None, big_blind_index=3)
    assert Rotation(1).blinds is None


# ------------------------------------------------------------------ the table's option


def test_table_button_rule_defaults_to_moving_and_a_bad_rule_is_refused() -> None:
    assert Table(CONFIG, seat_count=2).button_rule is ButtonRule.MOVING
    assert Table(CONFIG, seat_count=2, button_rule="dead").button_rule is DEAD  # type: ignore[arg-type]
    with pytest.raises(TableError, match="button_rule must be a ButtonRule, got 'dealer'") as info:
        Table(CONFIG, seat_count=2, button_rule="dealer")  # type: ignore[arg-type]
    assert info.value.code == "bad_button_rule"


def test_moving_rule_starts_hands_with_the_default_blinds() -> None:
    table = _table({0: 100, 2: 100, 3: 100}, ButtonRule.MOVING)
    for seed in range(4):
        hand = _next_hand(table, seed)
        assert hand.explicit_blinds is None
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)


# ------------------------------------------------------------------ busts, by the rules


def _after_small_blind_bust(rule: ButtonRule = DEAD) -> tuple[Table, Hand]:
    """Hand 1: button 0, small blind 1, big blind 2; seat 1 busts. Returns hand 2."""
    table = _table({0: 100, 1: 10, 2: 300, 3: 100}, rule)
    first = play_bust(table, losers={1}, winner=2)
    assert _positions(first) == (0, 1, 2)
    return table, _next_hand(table)


def test_dead_button_when_small_blind_player_busts() -> None:
    table, hand = _after_small_blind_bust()
    # The big blind moves on one player to seat 3; the last big blind posts the small
    # blind; the button goes to the empty seat of the last small blind.
    assert _positions(hand) == (1, 2, 3)
    assert table.button_index == 1
    assert hand.positions == {1: "button", 2: "small_blind", 3: "big_blind"}
    assert hand.explicit_blinds == BlindSeats(small_blind_index=2, big_blind_index=3)
    assert _blinds_posted(hand) == [(2, "small_blind"), (3, "big_blind")]
    assert _dealt_order(hand) == [2, 3, 0]  # dealt from the left of the button seat
    assert hand.actor_index == 0  # first to act pre-flop: left of the big blind
    assert {seat.seat_index for seat in hand.view(0).seats} == {0, 2, 3}
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    # Then the dead button rule gives the usual positions again.
    assert _positions(_next_hand(table)) == (2, 3, 0)


def test_moving_button_lets_a_player_skip_the_big_blind_when_the_small_blind_busts() -> None:
    # The same bust under the moving rule: seat 3 goes from no blind to the small blind.
    _, hand = _after_small_blind_bust(ButtonRule.MOVING)
    assert _positions(hand) == (2, 3, 0)


def test_postflop_action_starts_left_of_dead_button() -> None:
    _, hand = _after_small_blind_bust()
    hand.act(Call(), seat_index=0)
    hand.act(Call(), seat_index=2)
    hand.act(Check(), seat_index=3)
    assert str(hand.phase) == "FLOP"
    assert hand.actor_index == 2  # seat 1 (the button) is empty: seat 2 is next


def test_dead_small_blind_when_big_blind_player_busts() -> None:
    table = _table({0: 100, 1: 100, 2: 10, 3: 300})
    play_bust(table, losers={2}, winner=3)
    hand = _next_hand(table)
    # The big blind moves to seat 3; its seat 2 is empty, so nobody posts the small blind.
    assert _positions(hand) == (1, None, 3)
    assert hand.positions == {1: "button", 3: "big_blind"}
    assert hand.explicit_blinds == BlindSeats(small_blind_index=None, big_blind_index=3)
    assert _blinds_posted(hand) == [(3, "big_blind")]
    assert hand.pot_total == 2
    assert _dealt_order(hand) == [3, 0, 1]
    assert hand.actor_index == 0
    hand.act(Call(), seat_index=0)
    hand.act(Call(), seat_index=1)
    hand.act(Check(), seat_index=3)
    assert hand.actor_index == 3  # after the flop: first left of the button seat 1
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    # Next: the button on the empty seat of the dead small blind, seat 3 posts the small.
    hand = _next_hand(table, 1)
    assert _positions(hand) == (2, 3, 0)
    assert hand.positions == {2: "button", 3: "small_blind", 0: "big_blind"}
    assert _dealt_order(hand) == [3, 0, 1]
    _fold_to_the_blinds(hand)
    table.finish_hand(hand)
    assert _positions(_next_hand(table, 2)) == (3, 0, 1)


def test_two_players_bust_same_hand() -> None:
    table = _table({0: 100, 1: 10, 2: 10, 3: 500, 4: 100})
    play_bust(table, losers={1, 2}, winner=3)
    assert [e.player_id for e in table.eliminations] == ["p1", "p2"]
    big_blinds = []
    expected = [(1, None, 3), (2, 3, 4), (3, 4, 0), (4, 0, 3)]
    for seed, positions in enumerate(expected):
        hand = _next_hand(table, seed)
        assert _positions(hand) == positions
        big_blinds.append(hand.big_blind_index)
        if seed == 0:
            # Both the button and the small blind are dead; seat 3 is first after the flop.
            assert _blinds_posted(hand) == [(3, "big_blind")]
            assert _dealt_order(hand) == [3, 4, 0]
            assert hand.actor_index == 4
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    assert big_blinds == [3, 4, 0, 3]  # each survivor once per orbit, in turn


@pytest.mark.parametrize(
    ("busted", "winner", "big_blind", "button"),
    [(0, 1, 1, 2), (1, 2, 0, 2), (2, 0, 0, 1)],
)
def test_heads_up_transition_no_big_blind_twice(
    busted: int, winner: int, big_blind: int, button: int
) -> None:
    stacks = {0: 100, 1: 100, 2: 100}
    stacks[busted], stacks[winner] = 10, 200
    for rule in ButtonRule:
        table = _table(stacks, rule)
        first = play_bust(table, losers={busted}, winner=winner)
        assert first.big_blind_index == 2
        hand = _next_hand(table)
        if rule is ButtonRule.MOVING:
            continue  # (the moving rule may give seat 2 the big blind again)
        # The big blind moves on one player; the other player is button and small blind.
        assert _positions(hand) == (button, button, big_blind)
        assert _blinds_posted(hand) == [(button, "small_blind"), (big_blind, "big_blind")]
        assert hand.actor_index == button  # heads-up the button acts first pre-flop
        assert hand.explicit_blinds is None  # where the default rule puts them
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
        assert _positions(_next_hand(table, 1)) == (big_blind, big_blind, button)


def test_moving_button_can_give_the_big_blind_twice_when_play_becomes_heads_up() -> None:
    table = _table({0: 10, 1: 200, 2: 100}, ButtonRule.MOVING)
    play_bust(table, losers={0}, winner=1)
    assert _positions(_next_hand(table)) == (1, 1, 2)  # seat 2 again: what DEAD prevents


def test_draw_order_starts_left_of_a_dead_button() -> None:
    config = GameConfig(
        small_blind=1,
        big_blind=2,
        variant=Variant.FIVE_CARD_DRAW,
        structure=BettingStructure.FIXED_LIMIT,
    )
    seats = [SeatSetup(0, "a", 50), SeatSetup(2, "b", 50), SeatSetup(3, "c", 50)]
    blinds = BlindSeats(small_blind_index=2, big_blind_index=3)
    hand = Hand.start(config, seats, button_index=1, blinds=blinds, rng=random.Random(5))
    assert _dealt_order(hand) == [2, 3, 0]
    for seat_index in (0, 2):
        hand.act(Call(), seat_index=seat_index)
    hand.act(Check(), seat_index=3)
    order = []
    while str(hand.phase) == "DRAW":
        order.append(hand.actor_index)
        hand.act(Discard(()))
    assert order == [2, 3, 0]
    assert [e.seat_index for e in hand.events if isinstance(e, CardsDrawn)] == [2, 3, 0]
    assert hand.actor_index == 2  # the betting after the draw, too


def test_a_newcomer_restarts_the_rotation_from_the_last_button() -> None:
    table = _table({0: 100, 1: 10, 2: 300, 3: 100})
    play_bust(table, losers={1}, winner=2)
    table.join("late", 100, seat_index=5)
    # The dead button rule has no place for a newcomer: the button moves on from seat 0.
    hand = _next_hand(table)
    assert _positions(hand) == (2, 3, 5)
    assert hand.explicit_blinds is None


def test_antes_only_levels_move_the_button_under_the_dead_button_rule() -> None:
    schedule = BlindSchedule([BlindLevel(0, 0, 1), BlindLevel(1, 2, 1)], every_hands=2)
    table = _table({0: 100, 1: 100, 2: 100, 3: 100}, schedule=schedule)
    rotations = []
    for seed in range(4):
        hand = _next_hand(table, seed)
        rotations.append(_positions(hand))
        _fold_to_the_blinds(hand)
        table.finish_hand(hand)
    assert rotations == [(0, None, None), (1, None, None), (2, 3, 0), (3, 0, 1)]


def test_next_button_index_and_rotation_follow_the_dead_button_rule() -> None:
    table = _table({0: 100, 1: 10, 2: 300, 3: 100})
    assert table.next_button_index() == 0
    play_bust(table, losers={1}, winner=2)
    assert table.next_button_index() == 1  # an empty seat
    assert table.next_rotation() == Rotation(1, 2, 2, 3)


def test_a_hand_dealt_ahead_must_have_the_same_blinds() -> None:
    table = _table({0: 100, 1: 10, 2: 300, 3: 100})
    play_bust(table, losers={1}, winner=2)
    ahead = table.deal_ahead(random.Random(4))
    assert table.is_next_hand(ahead) and _positions(ahead) == (1, 2, 3)
    # The same seats, button and config with the small blind dead instead: not the hand due.
    other = Hand.start(
        CONFIG,
        ahead.seats,
        button_index=1,
        blinds=BlindSeats(small_blind_index=None, big_blind_index=2),
        deck=Deck.stacked([]),
        hand_number=ahead.hand_number,
    )
    assert not table.is_next_hand(other)
    assert table.start_hand(dealt=ahead) is ahead
    _fold_to_the_blinds(ahead)
    table.finish_hand(ahead)
    assert table.next_rotation() == Rotation(2, 3, 3, 0)


# ------------------------------------------------------------------ random freezeouts


def _check_rotation(hands: list[Hand]) -> Counter[str]:
    """Check the dead button rule hand by hand; count what was seen."""
    seen: Counter[str] = Counter()
    due_small_blind: int | None = None  # the seat the last hand's small blind was due at
    previous: Hand | None = None
    for hand in hands:
        seats = [seat.seat_index for seat in hand.seats]
        button, small, big = _positions(hand)
        posted = _blinds_posted(hand)
        if big is None:  # antes only: no blinds, no rule
            assert small is None and not posted
            previous, due_small_blind = None, None
            continue
        # (An ante may take a short stack's last chip before its blind.)
        assert [s for s, blind in posted if blind == "big_blind"] in ([big], [])
        assert [s for s, blind in posted if blind == "small_blind"] in ([small], [])
        assert small is not None or len(posted) <= 1
        if len(seats) == 2:
            # Heads-up: the button posts the small blind; never a dead small blind.
            assert small == button and big in seats and big != button
            seen["heads_up"] += 1
        if previous is None or previous.big_blind_index is None:
            due_small_blind = small
            previous = hand
            continue
        last_big = previous.big_blind_index
        # The big blind moves forward exactly one player: the first with chips after the
        # last big blind's seat. So nobody posts it twice in a row.
        assert big == next((s for s in seats if s > last_big), seats[0])
        assert big != last_big
        if len(seats) > 2:
            # The small blind comes from the last big blind's seat, dead if it is empty;
            # the button goes to the last small blind's seat, empty or not.
            assert small == (last_big if last_big in seats else None)
            assert button == due_small_blind
            seen["dead_small_blind"] += small is None
            seen["dead_button"] += button not in seats
            due_small_blind = last_big
        else:
            due_small_blind = button
        previous = hand
    return seen


def _check_orbits(hands: list[Hand]) -> int:
    """Between two big blinds of one player every player still seated posts the big blind
    exactly once (and nobody else more than once); returns how many orbits were checked."""
    orbits = 0
    chain = [
        (h.big_blind_index, {s.seat_index for s in h.seats})
        for h in hands
        if h.big_blind_index is not None
    ]
    last_post: dict[int, int] = {}
    for k, (big, seats) in enumerate(chain):
        if big in last_post:
            between = Counter(b for b, _ in chain[last_post[big] + 1 : k])
            assert between[big] == 0
            assert all(between[seat] == 1 for seat in seats if seat != big), (between, seats)
            assert all(count <= 1 for count in between.values())
            orbits += 1
        last_post[big] = k
    return orbits


# make test plays 75 random freezeouts per variant; make test-long 600.
@pytest.mark.parametrize("match_count", [75, pytest.param(600, marks=pytest.mark.slow)])
@pytest.mark.parametrize("variant", list(Variant))
def test_big_blind_never_skipped_or_repeated_in_freezeout(
    variant: Variant, match_count: int
) -> None:
    seen: Counter[str] = Counter()
    orbits = 0
    for seed in range(match_count):
        match = random_freezeout(seed, variant=variant)
        hands = list(freezeout_hands(match, random.Random(seed)))
        assert match.winner is not None
        seen += _check_rotation(hands)
        orbits += _check_orbits(hands)
    # Not vacuous: the rule's every case happened, many times.
    least = match_count // 7
    assert seen["dead_small_blind"] >= least and seen["dead_button"] >= least, seen
    assert seen["heads_up"] >= match_count * 2 // 3 and orbits >= match_count * 3, (seen, orbits)


def test_chips_are_conserved_over_thousands_of_dead_button_freezeout_hands() -> None:
    hand_count = dead = 0
    for seed in range(300):
        match = random_freezeout(1000 + seed)
        total = sum(match.table.stacks.values())
        for hand in freezeout_hands(match, random.Random(seed)):
            hand_count += 1
            dead += hand.explicit_blinds is not None
            assert sum(hand.stacks.values()) == sum(hand.starting_stacks.values())
            assert hand.result is not None and hand.result.ended_reason != "VOID"
            assert sum(match.table.stacks.values()) == total
        assert match.table.stacks == {match.winner: total}
    assert hand_count >= 3000 and dead >= 50, (hand_count, dead)
