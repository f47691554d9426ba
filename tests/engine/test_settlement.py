"""Settling a hand: the big blind ante as dead money, and who must show at an all-in showdown."""

from __future__ import annotations

from collections.abc import Sequence

from engine.actions import AllIn, Call, Check, RaiseTo
from engine.cards import FULL_DECK, Card, parse_cards
from engine.config import AnteMode, GameConfig
from engine.deck import Deck
from engine.events import AntePosted, BlindPosted, HandMucked, HandShown
from engine.hand import Hand, SeatSetup
from engine.pots import Pot
from engine.view import PotView

BIG_BLIND_ANTE = GameConfig(small_blind=50, big_blind=100, ante=100, ante_mode=AnteMode.BIG_BLIND)
BOARD = "2c7d9hTcJd"  # no straight or flush for the pairs below


def deck_for(order: Sequence[int], holes: dict[int, str], board: str = BOARD) -> Deck:
    """Hole cards one at a time in dealing ``order``, then burn-and-deal ``board``."""
    parsed = {seat: parse_cards(text) for seat, text in holes.items()}
    top: list[Card] = [parsed[seat][k] for k in range(2) for seat in order]
    board_cards = parse_cards(board)
    spare = iter(c for c in FULL_DECK if c not in set(top) | set(board_cards))
    for street in (board_cards[:3], board_cards[3:4], board_cards[4:5]):
        top.append(next(spare))
        top.extend(street)
    return Deck.stacked(top)


def three_handed(stacks: Sequence[int], holes: dict[int, str], config: GameConfig) -> Hand:
    """Seat 0 is the button, 1 the small blind, 2 the big blind (dealt 1, 2, 0)."""
    seats = [SeatSetup(i, f"p{i}", stack) for i, stack in enumerate(stacks)]
    return Hand.start(config, seats, button_index=0, deck=deck_for([1, 2, 0], holes))


def check_down(hand: Hand) -> None:
    while not hand.is_over:
        hand.act(Check())


# -- the big blind ante ----------------------------------------------------------------------


def test_big_blind_ante_is_dead_money_in_the_main_pot_tda() -> None:
    # The big blind (seat 2, 250 chips) antes 100, posts 100 and calls all-in for 50 more.
    # The ante is dead money: the main pot is 100 + 3 x 150 = 550, which the big blind may
    # win whole; the side pot of 2 x 150 is only for seats 0 and 1. (Layering the ante as a
    # live bet made a main pot of 750 and gave the big blind its own ante as a "side pot".)
    hand = three_handed([1000, 1000, 250], {0: "KsKh", 1: "QsQh", 2: "AsAh"}, BIG_BLIND_ANTE)
    hand.act(RaiseTo(300))  # seat 0
    hand.act(Call())  # seat 1
    hand.act(Call())  # seat 2, all-in for 150 on the street
    assert hand.pots() == [Pot(550, (0, 1, 2)), Pot(300, (0, 1))]
    assert hand.view(None).pots == (PotView(550, (0, 1, 2)), PotView(300, (0, 1)))
    check_down(hand)
    result = hand.result
    assert result is not None
    main, side = result.awards
    assert (main.amount, main.eligible_seat_indexes, main.shares) == (550, (0, 1, 2), ((2, 550),))
    assert (side.amount, side.eligible_seat_indexes, side.shares) == (300, (0, 1), ((0, 300),))
    assert result.final_stacks == {0: 1000, 1: 700, 2: 550}


def test_big_blind_ante_stays_in_the_main_pot_when_the_big_blind_is_beaten() -> None:
    # Heads-up between the covering players after the big blind is all-in: the best hand
    # among everyone wins the ante with the main pot; the big blind gets nothing back.
    hand = three_handed([1000, 1000, 250], {0: "AsAh", 1: "QsQh", 2: "KsKh"}, BIG_BLIND_ANTE)
    hand.act(RaiseTo(300))
    hand.act(Call())
    hand.act(Call())
    check_down(hand)
    assert hand.result is not None
    assert hand.result.final_stacks == {0: 1550, 1: 700, 2: 0}  # 300 in, 850 won


def test_big_blind_all_in_for_the_ante_alone_wins_only_the_dead_money() -> None:
    # 100 chips cover only the ante (posted first, TDA): no big blind is posted, the bet to
    # call is the small blind, and the big blind's best hand wins just the 100 ante.
    hand = three_handed([1000, 1000, 100], {0: "KsKh", 1: "QsQh", 2: "AsAh"}, BIG_BLIND_ANTE)
    posts = [e for e in hand.events if isinstance(e, AntePosted | BlindPosted)]
    assert [(type(p).__name__, p.seat_index, p.amount) for p in posts] == [
        ("AntePosted", 2, 100),
        ("BlindPosted", 1, 50),
    ]
    legal = hand.legal_actions()
    assert legal is not None and (legal.seat_index, legal.call_amount) == (0, 50)
    hand.act(RaiseTo(200))
    hand.act(Call())
    assert hand.pots() == [Pot(100, (0, 1, 2)), Pot(400, (0, 1))]
    check_down(hand)
    assert hand.result is not None
    assert hand.result.final_stacks == {0: 1200, 1: 800, 2: 100}


def test_big_blind_ante_is_dead_money_when_everyone_checks_in_an_ante_only_game() -> None:
    # With no blinds the ante is the only money: one main pot everyone may win.
    config = GameConfig(small_blind=0, big_blind=0, ante=5, ante_mode=AnteMode.BIG_BLIND)
    seats = [SeatSetup(i, f"p{i}", 100) for i in range(3)]
    hand = Hand.start(
        config, seats, button_index=0, deck=deck_for([1, 2, 0], {0: "AsAh", 1: "2s3h", 2: "4s5h"})
    )
    assert hand.pots() == [Pot(5, (0, 1, 2))]
    check_down(hand)
    assert hand.result is not None
    assert hand.result.final_stacks == {0: 105, 1: 100, 2: 95}
    assert hand.result.net_chips == {0: 5, 1: 0, 2: -5}


def test_every_player_antes_still_make_layers_when_short() -> None:
    # Only the big blind ante is dead money; a short every-player ante is a contribution.
    config = GameConfig(small_blind=1, big_blind=2, ante=5)
    hand = three_handed([100, 100, 3], {0: "KsKh", 1: "QsQh", 2: "AsAh"}, config)
    # Seat 2 antes its 3 chips all-in (no blind); the bet to call is the small blind.
    assert hand._dead_money() is None
    hand.act(Call())  # seat 0
    hand.act(Check())  # seat 1, the small blind
    assert hand.pots() == [Pot(9, (0, 1, 2)), Pot(6, (0, 1))]


# -- all-in showdowns (TDA Rule 16) ----------------------------------------------------------


def test_covering_player_may_not_muck_at_an_all_in_showdown_tda_16() -> None:
    # The button moves all-in, the short big blind calls and shows aces first; the button
    # got its uncalled bet back (it is no longer all-in) but its beaten kings are tabled.
    seats = [SeatSetup(0, "deep", 200), SeatSetup(1, "short", 40)]
    deck = deck_for([1, 0], {0: "KsKh", 1: "AsAh"})
    hand = Hand.start(GameConfig(), seats, button_index=0, deck=deck)
    hand.act(AllIn())
    hand.act(Call())
    shows = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    assert [(type(e).__name__, e.seat_index) for e in shows] == [
        ("HandShown", 1),
        ("HandShown", 0),
    ]
    assert hand.result is not None and set(hand.result.shown_cards) == {0, 1}
    assert hand.result.final_stacks == {0: 160, 1: 80}
    assert [seat.shown_cards for seat in hand.view(None).seats] == [
        tuple(parse_cards("KsKh")),
        tuple(parse_cards("AsAh")),
    ]


def test_every_hand_still_in_is_tabled_when_one_player_is_all_in_tda_16() -> None:
    # Seat 2 is all-in pre-flop; seats 1 and 0 check it down. Seat 1's aces show first,
    # seat 0's queens are beaten in every pot but are tabled all the same.
    config = GameConfig(small_blind=1, big_blind=2)
    hand = three_handed([100, 100, 20], {0: "QsQh", 1: "AsAh", 2: "KsKh"}, config)
    hand.act(Call())  # seat 0
    hand.act(Call())  # seat 1
    hand.act(AllIn())  # seat 2, the big blind, all-in for 20
    hand.act(Call())
    hand.act(Call())
    check_down(hand)
    shows = [e for e in hand.events if isinstance(e, HandShown | HandMucked)]
    assert [(type(e).__name__, e.seat_index) for e in shows] == [
        ("HandShown", 1),
        ("HandShown", 2),
        ("HandShown", 0),
    ]
