"""Random freezeouts (dead button rule) and rigged hands that bust chosen players, for the
tests of the button rules, the table and the hand histories."""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Iterator

from engine.actions import Action, AllIn, Call, Check, Fold
from engine.config import AnteMode, GameConfig, Variant
from engine.deck import Deck
from engine.hand import BlindSeats, Hand
from engine.schedule import BlindLevel, BlindSchedule
from engine.table import Table
from engine.tournament import Freezeout
from tests.engine.policies import random_policy

__all__ = [
    "bust_deck",
    "cautious_policy",
    "dead_button_positions",
    "freezeout_hands",
    "play_bust",
    "random_freezeout",
]


def random_freezeout(seed: int, *, variant: Variant = Variant.HOLDEM) -> Freezeout:
    """3 to 10 players with uneven stacks and quickly rising blinds (some games with
    antes, some with a big blind ante, now and then a level with antes only)."""
    rng = random.Random(seed)
    count = rng.randint(3, 10)
    players = [f"p{k}" for k in range(count)]
    stacks = {player: rng.randint(10, 300) for player in players}
    antes_first = rng.random() < 0.2  # a first level with antes only: no blinds
    ante = 1 if antes_first else rng.choice([0, 1])
    levels = [BlindLevel(1, 2, ante), BlindLevel(2, 4, ante), BlindLevel(5, 10, 1)]
    if antes_first:
        levels.insert(0, BlindLevel(0, 0, 1))
    schedule = BlindSchedule(levels, every_hands=rng.randint(2, 12), keeps_doubling=True)
    config = GameConfig(
        variant=variant,
        ante_mode=rng.choice([AnteMode.EVERY_PLAYER, AnteMode.BIG_BLIND]),
    )
    return Freezeout(
        config,
        players,
        starting_stack=stacks,
        seed=seed,
        schedule=schedule,
        seat_count=rng.randint(count, 10),
        first_button_index=rng.randrange(count),
    )


def cautious_policy(rng: random.Random) -> Callable[[Hand], Action]:
    """Random play that folds or calls nearly always: freezeouts last many orbits."""
    wild = random_policy(rng)

    def policy(hand: Hand) -> Action:
        legal = hand.legal_actions()
        assert legal is not None
        roll = rng.random()
        if legal.can_draw or roll < 0.03:
            return wild(hand)  # anything legal, all-ins included
        if legal.call_amount > 0 and roll < 0.4:
            return Fold()
        return Call() if legal.call_amount > 0 else Check()

    return policy


def freezeout_hands(match: Freezeout, rng: random.Random) -> Iterator[Hand]:
    """Play ``match`` to the end with random legal actions (wild or cautious play, by a
    coin toss); yield each hand once it is over, before the table applies it."""
    policy = cautious_policy(rng) if rng.random() < 0.5 else random_policy(rng)
    while not match.is_over:
        hand = match.next_hand()
        while not hand.is_over:
            hand.act(policy(hand))
        yield hand
        match.finish_hand(hand)


# A dry board: the winner's aces make two pair, aces and kings; the low cards of the
# others can make neither a straight nor a flush with it, nor more than kings up.
_WINNER = ("As", "Ah")
_LOSER_CARDS = ["2c", "3d", "4s", "6c", "7d", "2d", "3s", "4c", "6d", "7s", "2s", "3c", "4d"]
_LOSER_CARDS += ["6s", "7c", "8c", "8d", "8s"]
_BURN_AND_BOARD = ["Jc", "Kh", "Kd", "Qs", "Jd", "9c", "Js", "5h"]  # burn, flop, burn, turn...


def bust_deck(dealing_order: list[int], winner: int) -> Deck:
    """A deck where ``winner`` (a seat) holds the best hand at the showdown of a hold'em
    hand dealt to the seats in ``dealing_order``."""
    losers = iter(_LOSER_CARDS)
    holes = {
        seat: list(_WINNER) if seat == winner else [next(losers), next(losers)]
        for seat in dealing_order
    }
    cards = [holes[seat][0] for seat in dealing_order] + [holes[seat][1] for seat in dealing_order]
    return Deck.stacked(" ".join(cards + _BURN_AND_BOARD))


def play_bust(table: Table, losers: Collection[int], winner: int) -> Hand:
    """Start and finish a hold'em hand at ``table`` in which every seat in ``losers`` goes
    all-in, ``winner`` calls and wins, and everybody else folds (give the winner the
    biggest stack). Returns the finished hand."""
    rotation = table.next_rotation()
    assert rotation is not None
    seats = [seat.seat_index for seat in table.seats]
    button = rotation.button_index
    order = [s for s in seats if s > button] + [s for s in seats if s <= button]
    hand = table.start_hand(deck=bust_deck(order, winner))
    while not hand.is_over:
        legal = hand.legal_actions()
        assert legal is not None
        if legal.seat_index in losers:
            hand.act(AllIn() if legal.can_all_in else Call())
        elif legal.seat_index == winner:
            hand.act(Check() if legal.can_check else Call())
        else:
            hand.act(Check() if legal.can_check else Fold())
    table.finish_hand(hand)
    busted = {seat for seat in losers if seat not in {s.seat_index for s in table.seats}}
    assert busted == set(losers), f"rigged hand busted {busted}, not {set(losers)}"
    return hand


def _between(first: int, last: int, seat_count: int) -> list[int]:
    """The seats strictly between ``first`` and ``last`` going clockwise."""
    return [(first + step) % seat_count for step in range(1, (last - first) % seat_count)]


def dead_button_positions(
    rng: random.Random, dealt: list[int], seat_count: int = 10
) -> tuple[int, BlindSeats] | None:
    """A random button seat and blind seats with a dead small blind or a dead button, as
    the dead button rule gives them, for the players ``dealt`` (seat order) at a table of
    ``seat_count`` seats; None when no seat without a player can take a dead blind."""
    if len(dealt) < 3:
        return None  # heads-up the button posts the small blind: nothing is dead
    k = rng.randrange(len(dealt))
    big, before, before_that = dealt[k], dealt[k - 1], dealt[k - 2]
    options = []
    empty_before_big = _between(before, big, seat_count)
    if empty_before_big:
        # A dead small blind on one of those seats; the button at or after the player
        # before it.
        button = rng.choice([before, *empty_before_big])
        options.append((button, BlindSeats(small_blind_index=None, big_blind_index=big)))
    empty_before_small = _between(before_that, before, seat_count)
    if empty_before_small:
        button = rng.choice(empty_before_small)  # a dead button
        options.append((button, BlindSeats(small_blind_index=before, big_blind_index=big)))
    return rng.choice(options) if options else None
