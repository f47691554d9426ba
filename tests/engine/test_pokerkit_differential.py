"""Differential test against pokerkit 0.7.7: same cards, same actions, same outcome.

Each random hand (2-9 players, short stacks, side pots, boards that tie everyone) is dealt
from one deck: our engine deals it, and the same hole and board cards are pinned in
pokerkit. Both are driven with the same actions, chosen from our legal menu. At every
decision the two menus are compared (who acts, check or call amount, whether a raise is
allowed, minimum and maximum raise-to), and at the end the final stacks.

Where pokerkit knowingly differs from our rules, we normalise, and only there:

* pokerkit treats an opening all-in bet smaller than the big blind as a full bet, so it
  reopens the betting for players who checked; we do not (WSOP Rule 96: it is less than a
  full bet). After such a bet we skip the "may raise" comparison for the rest of the round
  (pokerkit's menu is then a superset of ours; the actions are chosen from ours).
* pokerkit merges side pots with the same players and gives a split pot's whole remainder
  to the first winner; we give the odd chips one each to the winners clockwise from the
  button, pot by pot. Both agree when the remainder is one chip; for larger remainders we
  convert our shares to pokerkit's rule before comparing stacks.
* pokerkit asks a player who has matched the bet to act when every opponent is all-in,
  though checking is the only choice; our engine asks nobody then. The driver checks for
  that player in pokerkit.
* pokerkit (tournament mode) does not let a player fold when they could check; our engine
  does (a binding fold). The driver never folds when checking is possible, and ``can_fold``
  is not compared.
* pokerkit adds consecutive short all-ins up (Rule 96a) but forgets the sum once it reached
  a full raise and a further short all-in follows; then it refuses a raise that Rule 96a
  allows (the player faces more than a full raise since they acted, all in short
  all-ins). The driver then picks a non-raising action.
* Fixed-limit: pokerkit caps every street at four bets and raises not counting the blinds
  and never lifts the cap; we count the big blind as the first bet pre-flop (one bet and
  three raises) and lift the cap heads-up; pokerkit counts a short all-in raise towards
  the cap and never lets it reopen the betting, while our limit rule lets an all-in of half
  a bet count as a full raise. When the menus differ only in "may raise" and one of these
  explains it, the driver picks a non-raising action and goes on.

Every-player antes are used only with stacks that cover them (pokerkit without ante
trimming puts all antes in the main pot, which is the same thing when every ante is posted
in full). The big blind ante is used with any stack: in both engines it is posted before
the blind and is dead money in the main pot (TDA).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from pokerkit import Automation, FixedLimitTexasHoldem, NoLimitTexasHoldem, State
from pokerkit.games import PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem

from engine.actions import Action, AllIn, Call, Check, Fold, LegalActions, RaiseTo
from engine.cards import Card, parse_cards
from engine.config import AnteMode, BettingStructure, GameConfig
from engine.deck import Deck
from engine.events import ActionTaken, BettingRoundComplete, BlindPosted, StreetDealt
from engine.hand import Hand, SeatSetup

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)

# Every hand ties when the board is a broadway straight with no flush possible.
TIE_BOARD = parse_cards("AsKdQhJcTs")


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """pokerkit has no pot-limit Texas hold'em class; its pieces make one."""


@dataclass
class Deal:
    config: GameConfig
    stacks: list[int]
    button: int
    deck: Deck


def random_deal(rng: random.Random, structure: BettingStructure) -> Deal:
    count = rng.randint(2, 9)
    ante = rng.choice([0, 0, 0, 1, 2])
    ante_mode = rng.choice(list(AnteMode))
    config = GameConfig(
        small_blind=1, big_blind=2, ante=ante, ante_mode=ante_mode, structure=structure
    )
    low = ante + 1 if ante_mode is AnteMode.EVERY_PLAYER else 1
    stacks = [
        rng.choice([rng.randint(low, low + 6), rng.randint(low, 40), 100, 200])
        for _ in range(count)
    ]
    deck = Deck.shuffled(rng)
    if rng.random() < 0.25:
        order = [c for c in deck.order if c not in TIE_BOARD]
        start = 2 * count
        # Burn, flop, burn, turn, burn, river at the positions our engine deals them.
        for offset, card in zip((1, 2, 3, 5, 7), TIE_BOARD, strict=True):
            order.insert(start + offset, card)
        deck = Deck(order)
    return Deal(config, stacks, rng.randrange(count), deck)


def pokerkit_state(deal: Deal, order: Sequence[int]) -> State:
    """pokerkit's state with players in its order (small blind first, button last)."""
    config = deal.config
    stacks = tuple(deal.stacks[seat] for seat in order)
    count = len(order)
    # pokerkit's second player is the big blind (it swaps the first two heads-up, as it
    # does for the blinds).
    antes: int | dict[int, int] = config.ante
    if config.ante_mode is AnteMode.BIG_BLIND:
        antes = {1: config.ante}
    if config.structure is BettingStructure.FIXED_LIMIT:
        return FixedLimitTexasHoldem.create_state(
            AUTOMATIONS,
            False,
            antes,
            (config.small_blind, config.big_blind),
            config.small_bet,
            config.big_bet,
            stacks,
            count,
        )
    if config.structure is BettingStructure.POT_LIMIT:
        return PotLimitTexasHoldem(
            AUTOMATIONS,
            False,
            antes,
            (config.small_blind, config.big_blind),
            config.big_blind,
        )(stacks, count)
    return NoLimitTexasHoldem.create_state(
        AUTOMATIONS,
        False,
        antes,
        (config.small_blind, config.big_blind),
        config.big_blind,
        stacks,
        count,
    )


def pokerkit_order(hand: Hand) -> list[int]:
    """Our seats in pokerkit's player order."""
    seats = list(hand.stacks)
    small, big = hand.small_blind_index, hand.big_blind_index
    assert small is not None and big is not None
    if len(seats) == 2:
        return [big, small]  # pokerkit heads-up: the big blind is player 0
    first = seats.index(small)
    return seats[first:] + seats[:first]


@dataclass
class Menu:
    actor: int
    call_amount: int
    can_raise: bool
    min_raise_to: int
    max_raise_to: int


def our_menu(legal: LegalActions) -> Menu:
    return Menu(
        legal.seat_index,
        legal.call_amount,
        legal.can_raise,
        legal.min_raise_to if legal.can_raise else 0,
        legal.max_raise_to if legal.can_raise else 0,
    )


def their_menu(state: State, order: Sequence[int]) -> Menu:
    actor = state.actor_index
    assert actor is not None
    can_raise = state.can_complete_bet_or_raise_to()
    return Menu(
        order[actor],
        state.checking_or_calling_amount or 0,
        can_raise,
        (state.min_completion_betting_or_raising_to_amount or 0) if can_raise else 0,
        (state.max_completion_betting_or_raising_to_amount or 0) if can_raise else 0,
    )


def advance_dealing(state: State, hand: Hand, order: Sequence[int]) -> None:
    """Deal pokerkit the cards our engine dealt (hole cards, burns, board), and check for
    a player whose every opponent is all-in (we do not ask for that pointless check)."""
    deck = hand.deck_order
    base = 2 * len(order)
    burns = {0: deck[base], 3: deck[base + 4], 4: deck[base + 6]}
    while True:
        if state.can_deal_hole():
            dealee = state.hole_dealee_index
            assert dealee is not None
            state.deal_hole(text(hand.hole_cards(order[dealee])))
        elif state.can_burn_card():
            state.burn_card(str(burns[len(state.board_cards)]))
        elif state.can_deal_board():
            dealt = len(state.board_cards)
            count = 3 if dealt == 0 else 1
            state.deal_board(text(board_cards(hand, base)[dealt : dealt + count]))
        elif state.actor_index is not None and pointless_check(state, hand, order):
            state.check_or_call()
        else:
            return


def pointless_check(state: State, hand: Hand, order: Sequence[int]) -> bool:
    """pokerkit still asks a player who has matched the bet to act when every opponent is
    all-in (a check is the only choice); our engine skips that decision."""
    actor = state.actor_index
    assert actor is not None
    if hand.actor_index == order[actor] and len(hand.board) == len(state.board_cards):
        return False
    assert state.checking_or_calling_amount == 0
    assert not state.can_complete_bet_or_raise_to()
    return True


def text(cards: Sequence[Card]) -> str:
    return "".join(str(card) for card in cards)


def board_cards(hand: Hand, base: int) -> tuple[Card, ...]:
    deck = hand.deck_order
    return (deck[base + 1], deck[base + 2], deck[base + 3], deck[base + 5], deck[base + 7])


def bend_in_round(hand: Hand) -> bool:
    """True if pokerkit counted an all-in of this round as a full raise and we did not.

    pokerkit's minimum raise increment starts at 0 on every street (the blinds do not set
    it), so any all-in bet or raise before the first full one looks "full" to it.
    """
    round_events: list[ActionTaken] = []
    current = 0
    for event in reversed(hand.events):
        if isinstance(event, BettingRoundComplete | StreetDealt):
            break
        if isinstance(event, ActionTaken):
            round_events.append(event)
        elif isinstance(event, BlindPosted):
            current = max(current, event.amount)
    increment = 0
    for event in reversed(round_events):
        if event.kind == "RAISE":
            size = event.total - current
            if size >= increment and not event.is_full_raise:
                return True
            increment = max(increment, size)
            current = event.total
    return False


def reopened_by_short_all_ins(hand: Hand) -> bool:
    """True if the actor already acted this round and faces only short all-in raises since
    (two or more: WSOP Rule 96a lets them add up to a full raise).

    pokerkit adds consecutive short all-ins up too, but forgets the sum once it reaches a
    full raise and a further short all-in follows, so it may refuse a raise that Rule 96a
    allows.
    """
    actor = hand.actor_index
    shorts = 0
    for event in reversed(hand.events):
        if isinstance(event, BettingRoundComplete | StreetDealt):
            return False
        if not isinstance(event, ActionTaken):
            continue
        if event.seat_index == actor:
            return shorts >= 2
        if event.kind == "RAISE":
            if event.is_full_raise or not event.is_all_in:
                return False
            shorts += 1
    return False


def limit_difference_explained(hand: Hand, ours: Menu, theirs: Menu) -> bool:
    """Fixed-limit "may raise" differences that the module docstring documents."""
    if hand.config.structure is not BettingStructure.FIXED_LIMIT:
        return False
    round_state = hand._round
    assert round_state is not None and hand._actor is not None
    if theirs.can_raise and not ours.can_raise:
        # Our pre-flop cap counts the big blind as the first bet.
        reason = round_state.raise_blocker(hand._actor) or ""
        return "cap" in reason and hand.phase == "PRE_FLOP"
    if ours.can_raise and not theirs.can_raise:
        live = sum(1 for seat in hand.seat_states() if seat.status in ("ACTIVE", "ALL_IN"))
        if live == 2:
            return True  # our cap is lifted when only two players are left
        raises = [
            e
            for e in round_events(hand)
            if isinstance(e, ActionTaken) and e.kind == "RAISE" and e.is_all_in
        ]
        # An all-in of half a bet or more reopens the betting for us, not for pokerkit;
        # pokerkit counts a smaller all-in raise towards its cap, we do not.
        return bool(raises)
    return False


def round_events(hand: Hand) -> list[ActionTaken]:
    """This betting round's actions so far."""
    found: list[ActionTaken] = []
    for event in reversed(hand.events):
        if isinstance(event, BettingRoundComplete | StreetDealt):
            break
        if isinstance(event, ActionTaken):
            found.append(event)
    return found[::-1]


def choose(rng: random.Random, legal: LegalActions, *, may_raise: bool) -> Action:
    roll = rng.random()
    if roll < 0.12 and not legal.can_check:
        return Fold()
    if roll < 0.6 or not (legal.can_raise and may_raise):
        return Call() if legal.can_call else Check()
    pick = rng.random()
    if pick < 0.3:
        return RaiseTo(legal.min_raise_to)
    if pick < 0.5:
        return RaiseTo(legal.max_raise_to)
    if pick < 0.6 and legal.can_all_in:
        return AllIn()
    return RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to))


def apply_to_pokerkit(state: State, action: Action, legal: LegalActions) -> None:
    if isinstance(action, Fold):
        state.fold()
    elif isinstance(action, Check | Call):
        state.check_or_call()
    else:
        total = legal.all_in_to if isinstance(action, AllIn) else action.amount  # type: ignore[union-attr]
        if total <= legal.current_bet:
            state.check_or_call()  # an all-in for no more than the bet is a call
        else:
            state.complete_bet_or_raise_to(total)


def pokerkit_style_stacks(hand: Hand) -> dict[int, int]:
    """Our final stacks, re-split the way pokerkit splits pots.

    pokerkit kills every hand that wins nothing, merges consecutive pots whose remaining
    players are the same, and gives a split pot's whole remainder to its first winner (in
    its player order, which is ours: clockwise from the left of the button).
    """
    result = hand.result
    assert result is not None
    stacks = dict(result.final_stacks)
    survivors = {seat for award in result.awards for seat, _ in award.shares}
    groups: list[tuple[tuple[int, ...], int, list[int]]] = []
    for award in result.awards:
        for seat, chips in award.shares:
            stacks[seat] -= chips
        players = tuple(s for s in award.eligible_seat_indexes if s in survivors)
        winners = [seat for seat, _ in award.shares]
        if groups and groups[-1][0] == players:
            groups[-1] = (players, groups[-1][1] + award.amount, winners)
        else:
            groups.append((players, award.amount, winners))
    for _, amount, winners in groups:
        base, odd = divmod(amount, len(winners))
        for k, seat in enumerate(winners):
            stacks[seat] += base + (odd if k == 0 else 0)
    return stacks


def play_both(deal: Deal, rng: random.Random) -> dict[str, Any]:
    seats = [SeatSetup(i, f"p{i}", s) for i, s in enumerate(deal.stacks)]
    hand = Hand.start(deal.config, seats, button_index=deal.button, deck=deal.deck)
    order = pokerkit_order(hand)
    state = pokerkit_state(deal, order)
    stats = {"decisions": 0, "skipped": 0, "limit_differences": 0, "rule_96a": 0}
    log: list[str] = []  # the hand so far, for failure messages
    while True:
        advance_dealing(state, hand, order)
        if hand.is_over:
            break
        legal = hand.legal_actions()
        assert legal is not None
        ours, theirs = our_menu(legal), their_menu(state, order)
        stats["decisions"] += 1
        may_raise = True
        if ours != theirs:
            same_but_raise = (ours.actor, ours.call_amount) == (theirs.actor, theirs.call_amount)
            if same_but_raise and bend_in_round(hand) and not ours.can_raise:
                stats["skipped"] += 1
            elif (
                same_but_raise
                and ours.can_raise
                and not theirs.can_raise
                and reopened_by_short_all_ins(hand)
            ):
                stats["rule_96a"] += 1
                may_raise = False
            elif same_but_raise and limit_difference_explained(hand, ours, theirs):
                stats["limit_differences"] += 1
                may_raise = False
            else:
                log.append(f"ours {ours}\npokerkit {theirs}")
                raise AssertionError("menus differ:\n" + "\n".join(log))
        action = choose(rng, legal, may_raise=may_raise)
        log.append(f"{hand.phase} seat {legal.seat_index} {ours} -> {action}")
        hand.act(action)
        apply_to_pokerkit(state, action, legal)
    advance_dealing(state, hand, order)
    assert not state.status, "pokerkit's hand did not end with ours"
    theirs_stacks = {order[i]: stack for i, stack in enumerate(state.stacks)}
    assert pokerkit_style_stacks(hand) == theirs_stacks, "\n".join(log)
    assert hand.result is not None
    stats["side_pots"] = int(len(hand.result.awards) > 1)
    stats["splits"] = int(any(len(a.shares) > 1 for a in hand.result.awards))
    return stats


def run(structure: BettingStructure, count: int, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    totals = dict.fromkeys(
        ("decisions", "skipped", "limit_differences", "rule_96a", "side_pots", "splits"),
        0,
    )
    for _ in range(count):
        deal = random_deal(rng, structure)
        stats = play_both(deal, rng)
        for key, value in stats.items():
            totals[key] += value
    return totals


def test_no_limit_holdem_matches_pokerkit_on_random_hands() -> None:
    totals = run(BettingStructure.NO_LIMIT, 250, seed=1)
    assert totals["decisions"] > 2000
    assert totals["side_pots"] > 50 and totals["splits"] > 50


@pytest.mark.slow
def test_no_limit_holdem_matches_pokerkit_on_many_random_hands() -> None:
    totals = run(BettingStructure.NO_LIMIT, 5000, seed=11)
    assert totals["decisions"] > 40_000
    assert totals["side_pots"] > 1000 and totals["splits"] > 500


# make test compares a few hundred hands of each structure; make test-long thousands.
@pytest.mark.parametrize("hand_count", [250, pytest.param(2000, marks=pytest.mark.slow)])
def test_pot_limit_holdem_matches_pokerkit_on_random_hands(hand_count: int) -> None:
    totals = run(BettingStructure.POT_LIMIT, hand_count, seed=2)
    assert totals["decisions"] > 4 * hand_count


@pytest.mark.parametrize("hand_count", [250, pytest.param(2000, marks=pytest.mark.slow)])
def test_fixed_limit_holdem_matches_pokerkit_on_random_hands(hand_count: int) -> None:
    totals = run(BettingStructure.FIXED_LIMIT, hand_count, seed=3)
    assert totals["decisions"] > 4 * hand_count
