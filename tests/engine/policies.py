"""A policy for :meth:`engine.tournament.Freezeout.play` and random hands in the tests."""

from __future__ import annotations

import random
from collections.abc import Callable

from engine.actions import Action, AllIn, Call, Check, Discard, Fold, RaiseTo
from engine.hand import Hand
from engine.tournament import TournamentError

__all__ = ["random_policy"]


def random_policy(rng: random.Random) -> Callable[[Hand], Action]:
    """A policy that picks a random legal action.

    It folds only when facing a bet, calls or checks most often and sometimes bets or
    raises a random legal amount or goes all-in, so that random hands reach showdowns,
    side pots and busts. In a draw it throws away a random number of cards, aces last
    (so a four-card draw keeps its ace).
    """

    def policy(hand: Hand) -> Action:
        legal = hand.legal_actions()
        if legal is None:
            raise TournamentError("no_decision", "the hand is not waiting for a decision")
        if legal.can_draw:
            cards = list(hand.view(legal.seat_index).hole_cards)
            rng.shuffle(cards)
            cards.sort(key=lambda card: card.rank == "A")
            count = rng.randint(0, legal.max_discard_count)
            return Discard(tuple(cards[:count]))
        roll = rng.random()
        if roll < 0.15 and legal.call_amount > 0 and legal.can_fold:
            return Fold()
        if roll < 0.75 or not legal.can_raise:
            return Call() if legal.call_amount > 0 else Check()
        low, high = legal.min_raise_to, legal.max_raise_to
        if roll < 0.8:
            # Pot-limit and fixed-limit cap the raise below the stack: then bet the cap.
            return AllIn() if legal.all_in_to <= high else RaiseTo(high)
        # Mostly small raises: a uniform amount up to the whole stack would end most hands
        # in an all-in on the first street.
        return RaiseTo(min(high, low + int((high - low) * rng.random() ** 3)))

    return policy
