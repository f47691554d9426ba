"""Unit tests of ``engine.draw``: the draw round's rules without a hand around them."""

from __future__ import annotations

import pytest

from engine.actions import Discard, Fold, RaiseTo
from engine.cards import FULL_DECK, Card, parse_cards
from engine.config import DrawLimit, GameConfig
from engine.deck import Deck
from engine.draw import DrawRoundState, check_discard, discard_limit, draw_order, reshuffle_rng
from engine.errors import IllegalActionError, InvariantError
from engine.phases import PlayerStatus

A = PlayerStatus.ACTIVE
F = PlayerStatus.FOLDED
HOUSE = GameConfig(draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)


def cards(text: str) -> tuple[Card, ...]:
    return tuple(parse_cards(text))


def round_over(
    deck_text: str,
    holes: list[str],
    *,
    statuses: list[PlayerStatus] | None = None,
    button: int = 0,
    config: GameConfig | None = None,
    fill: bool = True,
) -> tuple[DrawRoundState, Deck, list[list[Card]]]:
    """A draw round after ``holes`` were dealt; the stub is ``deck_text`` (then the rest of
    the deck when ``fill``)."""
    hole_lists = [list(parse_cards(text)) for text in holes]
    dealt = [card for hole in hole_lists for card in hole]
    top = dealt + list(parse_cards(deck_text))
    if fill:
        top += [card for card in FULL_DECK if card not in set(top)]
    deck = Deck(top)
    deck.deal(len(dealt))
    draw = DrawRoundState(
        config=config or GameConfig(),
        deck=deck,
        deck_order=deck.order,
        holes=hole_lists,
        statuses=statuses or [A] * len(holes),
        button=button,
    )
    return draw, deck, hole_lists


def test_draw_order_is_clockwise_from_left_of_button_and_skips_folded_players() -> None:
    statuses = [A, F, PlayerStatus.ALL_IN, PlayerStatus.OUT, A]
    assert draw_order(statuses, 2) == [4, 0, 2]
    assert draw_order(statuses, 4) == [0, 2, 4]


def test_discard_limit_defaults_to_five_and_follows_max_discard_count() -> None:
    hole = cards("Ks 7d 5c 3h 2s")
    assert discard_limit(GameConfig(), hole) == 5
    assert discard_limit(GameConfig(max_discard_count=2), hole) == 2


def test_house_rule_limit_is_three_or_four_with_an_ace() -> None:
    assert discard_limit(HOUSE, cards("Ks 7d 5c 3h 2s")) == 3
    assert discard_limit(HOUSE, cards("Ks 7d 5c 3h As")) == 4
    house_two = GameConfig(draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE, max_discard_count=2)
    assert discard_limit(house_two, cards("Ks 7d 5c 3h As")) == 2


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (Fold(), "not_a_bet"),
        (RaiseTo(10), "not_a_bet"),
        (Discard(("As",)), "bad_discard"),  # type: ignore[arg-type]
        (Discard(cards("7d 7d")), "duplicate_discard"),
        (Discard(cards("7d Ah")), "card_not_in_hand"),
        (Discard(cards("Ks 7d 5c 3h")), "too_many_discards"),
    ],
)
def test_bad_discards_are_rejected_with_their_code(action: object, code: str) -> None:
    hole = cards("Ks 7d 5c 3h 2s")
    with pytest.raises(IllegalActionError) as info:
        check_discard(
            action,  # type: ignore[arg-type]
            hole,
            max_discard_count=3,
            draw_limit=DrawLimit.ANY,
            where="seat 4, DRAW",
        )
    assert info.value.code == code
    assert "(seat 4, DRAW)" in str(info.value)


def test_house_rule_four_cards_only_when_the_card_kept_is_an_ace() -> None:
    hole = cards("As 7d 5c 3h 2s")

    def house(text: str) -> tuple[Card, ...]:
        return check_discard(
            Discard(cards(text)),
            hole,
            max_discard_count=4,
            draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE,
            where="seat 0, DRAW",
        )

    assert house("7d 5c 3h 2s") == cards("7d 5c 3h 2s")
    with pytest.raises(IllegalActionError) as info:
        house("As 5c 3h 2s")
    assert info.value.code == "too_many_discards"
    assert "7d" in str(info.value) and "not an ace" in str(info.value)
    assert len(house("As 5c 3h")) == 3  # three cards need no ace


def test_standing_pat_is_a_discard_of_no_cards() -> None:
    draw, deck, _ = round_over("", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"])
    before = deck.remaining_count
    outcome = draw.apply(draw.order[0], ())
    assert outcome.drawn == () and outcome.burned is None
    assert deck.remaining_count == before
    assert draw.discard_counts == {1: 0}


def test_draw_burns_one_card_before_first_replacement_only() -> None:
    # Button 0: seat 1 draws first and stands pat; seat 0 draws two after the burn (Tc).
    draw, _, holes = round_over("Tc Jd Jh 9s 9d", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"])
    assert draw.actor == 1
    assert draw.apply(1, ()).burned is None
    assert draw.actor == 0
    first = draw.apply(0, cards("3h 2s"))
    assert first.burned == Card.parse("Tc")
    assert first.drawn == cards("Jd Jh")
    assert holes[0] == list(cards("Ks 7d 5c Jd Jh"))
    assert draw.actor is None
    assert draw.muck == [Card.parse("Tc"), *cards("3h 2s")]


def test_second_drawer_gets_no_extra_burn() -> None:
    draw, _, _ = round_over("Tc Jd Jh 9s 9d", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"])
    assert draw.apply(1, cards("4s")).burned == Card.parse("Tc")
    second = draw.apply(0, cards("2s"))
    assert second.burned is None and second.drawn == cards("Jh")


def test_legal_draw_menu_offers_only_a_discard() -> None:
    draw, _, _ = round_over("", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"], config=HOUSE)
    legal = draw.legal(1, seat_index=7, stack=40)
    assert legal.can_draw and legal.is_draw and not legal.can_all_in
    assert (legal.seat_index, legal.stack, legal.max_discard_count) == (7, 40, 3)
    assert not (legal.can_fold or legal.can_check or legal.can_call or legal.can_raise)


def test_stub_reshuffle_excludes_the_discards_of_the_player_drawing() -> None:
    # A two-card stub: the burn card and one card, then the muck is reshuffled.
    draw, deck, holes = round_over("Tc Jd", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"], fill=False)
    assert draw.available_count == 2
    assert draw.legal(1, 1, 10).max_discard_count == 2  # capped at what can be dealt
    first = draw.apply(1, cards("8h 4s"))
    # Burn Tc, deal Jd; the stub is empty, so the muck (only the burn card) is reshuffled:
    # never seat 1's own discards 8h 4s.
    assert first.burned == Card.parse("Tc")
    assert first.drawn == cards("Jd Tc")
    assert first.reshuffled_counts == (1,)
    second = draw.apply(0, cards("3h 2s"))
    # Seat 0 gets seat 1's discards back, never its own.
    assert set(second.drawn) == set(cards("8h 4s"))
    assert second.reshuffled_counts == (2,)
    assert sorted(holes[0] + holes[1]) == sorted(cards("Ks 7d 5c Qs Qd 9c Jd Tc 8h 4s"))
    assert draw.muck == list(cards("3h 2s"))
    assert deck.remaining_count == 0


def test_folded_hands_are_in_the_muck_that_is_reshuffled() -> None:
    draw, _, _ = round_over(
        "Tc",
        ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s", "Ac Ad Ah Kc Kd"],
        statuses=[A, A, F],
        fill=False,
    )
    assert draw.muck == list(cards("Ac Ad Ah Kc Kd"))
    assert draw.available_count == 6
    outcome = draw.apply(1, cards("8h 4s"))
    assert outcome.burned == Card.parse("Tc")
    assert set(outcome.drawn) <= set(cards("Ac Ad Ah Kc Kd Tc"))
    assert outcome.reshuffled_counts == (6,)


def test_reshuffle_is_the_same_for_the_same_deck_order() -> None:
    def run() -> tuple[Card, ...]:
        draw, _, _ = round_over(
            "Tc",
            ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s", "Ac Ad Ah Kc Kd"],
            statuses=[A, A, F],
            fill=False,
        )
        return draw.apply(1, cards("Qs Qd 9c 8h 4s")).drawn

    assert run() == run()
    order = parse_cards("As Kd Qh")
    assert reshuffle_rng(order).getrandbits(64) == reshuffle_rng(order).getrandbits(64)
    assert reshuffle_rng(order).getrandbits(64) != reshuffle_rng(order[::-1]).getrandbits(64)


def test_drawing_more_than_can_be_dealt_is_an_invariant_error() -> None:
    draw, _, _ = round_over("Tc", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"], fill=False)
    with pytest.raises(InvariantError) as info:
        draw.apply(1, cards("8h 4s"))
    assert info.value.code == "deck_exhausted"


def test_drawing_out_of_turn_is_an_invariant_error() -> None:
    draw, _, _ = round_over("", ["Ks 7d 5c 3h 2s", "Qs Qd 9c 8h 4s"])
    with pytest.raises(InvariantError) as info:
        draw.apply(0, ())
    assert info.value.code == "draw_out_of_turn"
