"""Showdown: who shows, who mucks, and who wins each pot.

Rules applied here:

* Showdown order: the last player to bet or raise on the final betting round shows first;
  if nobody did (or no betting round was possible on the last street), the first player
  still in the hand left of the button shows first; then clockwise (TDA Rule 16).
* All-in showdowns: when any player still in the hand is all-in, every hand still in is
  tabled and nobody may muck (TDA Rule 16, "Face Up for All-Ins": all cards are turned
  face up once a player is all-in and all betting is complete). This includes a covering
  player whose uncalled bet came back, who is no longer all-in.
* Mucking, otherwise: a player whose hand is beaten, in every pot they are eligible for, by
  a hand already shown mucks it unseen (the engine decides for them, since it can never
  help them to show). The first player to show always shows.
* Each pot is won by the best hand among the players eligible for it; a tie
  splits it evenly and the odd chip goes to the first winner clockwise from the button,
  pot by pot (TDA Rule 18 for flop games). Dead money (the big blind ante) is in the main
  pot (``engine.pots``).
* Ranks come from ``engine.evaluator.rank_class`` (lower is better); a description only
  for hands that are shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.evaluator import hand_description, rank_class
from engine.pots import Pot, build_pots, split_pot
from engine.speed.dataclass_init import fast_init

__all__ = ["PotOutcome", "ShowdownOutcome", "describe", "resolve_showdown"]

# A hand's description ("two pair, kings and nines") depends only on its class number, so
# each of the 7,462 descriptions is worked out once (the arena plays many hands).
_DESCRIPTIONS: dict[int, str] = {}


def describe(cards: Sequence[Card], class_number: int) -> str:
    """The description of ``cards``, whose class number is ``class_number`` (cached)."""
    description = _DESCRIPTIONS.get(class_number)
    if description is None:
        description = hand_description(cards, class_number)
        _DESCRIPTIONS[class_number] = description
    return description


@dataclass(frozen=True, slots=True)
class PotOutcome:
    """One pot's winners (positions, odd chip first) and their shares."""

    pot: Pot
    shares: tuple[tuple[int, int], ...]
    description: str


@dataclass(frozen=True, slots=True)
class ShowdownOutcome:
    """The showdown in order: (position, cards shown or None if mucked, description),
    and the pots."""

    reveals: tuple[tuple[int, tuple[Card, ...] | None, str], ...]
    pots: tuple[PotOutcome, ...]


fast_init(PotOutcome)
fast_init(ShowdownOutcome)


def resolve_showdown(
    *,
    holes: Sequence[Sequence[Card]],
    board: Sequence[Card],
    contributions: Sequence[int],
    live: Sequence[bool],
    all_in: Sequence[bool],
    button: int,
    first_to_show: int | None,
    rank: Callable[[Sequence[int]], int] = rank_class,
    dead_money: Sequence[int] | None = None,
) -> ShowdownOutcome:
    """Resolve a showdown among the ``live`` positions (indexes into every sequence).

    ``button`` is the position whose left neighbour gets the odd chip first and, when
    ``first_to_show`` is None, shows first. ``dead_money`` is the part of each
    contribution that goes to the main pot without making a layer (the big blind ante).
    """
    count = len(live)
    board_list = list(board)
    # Clockwise from the player left of the button.
    in_order = [p for p in (*range(button + 1, count), *range(button + 1)) if live[p]]
    ranks = {p: rank([*holes[p], *board_list]) for p in in_order}
    pots = build_pots(contributions, live, dead_money=dead_money)

    start = first_to_show if first_to_show is not None else in_order[0]
    offset = in_order.index(start)
    show_order = in_order[offset:] + in_order[:offset]
    eligible_sets = [frozenset(pot.eligible) for pot in pots]
    # The best (lowest) rank shown so far among each pot's eligible players.
    best_shown: list[int | None] = [None] * len(pots)
    reveals: list[tuple[int, tuple[Card, ...] | None, str]] = []
    descriptions: dict[int, str] = {}
    # TDA Rule 16: with a player all-in, every hand still in is tabled.
    is_all_in_showdown = any([all_in[p] for p in in_order])
    for position in show_order:
        own = ranks[position]
        # The first hand is shown; any other only while it can still win or tie a pot it
        # is eligible for (unless everyone shows).
        must_show = is_all_in_showdown or not reveals
        if not must_show:
            for best, members in zip(best_shown, eligible_sets, strict=True):
                if position in members and (best is None or own <= best):
                    must_show = True
                    break
        if must_show:
            for number, members in enumerate(eligible_sets):
                if position in members:
                    best = best_shown[number]
                    if best is None or own < best:
                        best_shown[number] = own
            cards = tuple(holes[position])
            description = describe([*cards, *board_list], own)
            descriptions[position] = description
            reveals.append((position, cards, description))
        else:
            reveals.append((position, None, ""))

    outcomes = []
    for pot, members in zip(pots, eligible_sets, strict=True):
        best = min([ranks[p] for p in pot.eligible])
        winners = [p for p in in_order if p in members and ranks[p] == best]
        shares = tuple(split_pot(pot.amount, winners))
        outcomes.append(PotOutcome(pot, shares, descriptions.get(winners[0], "")))
    return ShowdownOutcome(tuple(reveals), tuple(outcomes))
