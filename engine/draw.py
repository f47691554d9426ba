"""Five-card draw: the rules of the draw round, kept out of the hand state machine.

During the ``DRAW`` phase :class:`~engine.hand.Hand` asks a :class:`DrawRoundState` who
draws next (``actor``), what that player may do (``legal``), whether a decision is legal
(``resolve``, which changes nothing) and what it does (``apply``, which deals the
replacement cards). The hand turns the outcome into events; this module has no events and
no chips. ``engine.betting.RoundState`` is its counterpart for betting rounds.

The rules, each cited where it is applied:

* Draw order: every player still in the hand draws once - not folded; an all-in player
  draws too, since their hand still plays for the pots - in turn clockwise from the first
  such player left of the button (Robert's Rules of Poker, draw).
* Discards: 0 to ``config.max_discard_count`` cards (default 5; 0 is standing pat). With
  the house rule ``DrawLimit.THREE_OR_FOUR_WITH_ACE`` at most three, or four when the one
  card kept is an ace (the engine knows the hand, so the ace is not shown).
* Burn: one card is burned just before the first replacement card of the round. When
  nobody draws, nothing is dealt and nothing is burned.
* Reshuffle (Robert's Rules of Poker, draw games): cards are dealt one at a time; when the
  stub runs out, the muck - the burn card, the discards of the players who already drew
  and the hands folded before the draw - is shuffled to form a new stub. The discards of
  the player now drawing are never in it: they join the muck only once that player has
  all their cards, so nobody can get back what they just threw away.
* The reshuffle's generator is a cryptographic stream keyed by the deck's original order
  (:func:`reshuffle_rng`), never a global or time-seeded source. The deck order is
  what a hand history records, so a replay reshuffles exactly as the hand did.
* Cards available to the player drawing are the stub plus the muck: 52 less five for each
  player in the hand. Up to nine players that is at least seven, more than any draw; ten
  players leave two, so ``max_discard_count`` is capped at what can be dealt (the menu
  never offers a draw the dealer cannot complete).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from engine.actions import Action, Discard, LegalActions
from engine.cards import Card
from engine.config import DrawLimit, GameConfig
from engine.deck import Deck, shuffle_in_place
from engine.errors import IllegalActionError, InvariantError
from engine.phases import PlayerStatus
from engine.seeds import StreamRandom

__all__ = [
    "RESHUFFLE_DOMAIN",
    "DrawOutcome",
    "DrawRoundState",
    "check_discard",
    "discard_limit",
    "draw_order",
    "reshuffle_rng",
]

_ACTIVE = PlayerStatus.ACTIVE
_ALL_IN = PlayerStatus.ALL_IN
_FOLDED = PlayerStatus.FOLDED

#: The house rule's limits: three cards, or four when the card kept is an ace.
_HOUSE_LIMIT = 3
_HOUSE_LIMIT_WITH_ACE = 4

#: The first bytes of the reshuffle's key (see :func:`reshuffle_rng`).
RESHUFFLE_DOMAIN = b"poker-arena reshuffle v1|"


def reshuffle_rng(deck_order: Sequence[Card]) -> random.Random:
    """The generator that reshuffles the muck into a new stub, derived from the deck order.

    A cryptographic stream as the deal's (:class:`~engine.seeds.StreamRandom`), keyed by
    ``RESHUFFLE_DOMAIN`` and the deck order's text (``"As Kd ..."`` without spaces): the
    deck order comes from the hand's secret shuffle (or is the stacked deck of a test or a
    replay), so the reshuffle is as reproducible, and as unpredictable, as the deal.

    >>> from engine.cards import parse_cards
    >>> order = parse_cards("As Kd Qh")
    >>> reshuffle_rng(order).random() == reshuffle_rng(order).random()
    True
    """
    return StreamRandom(RESHUFFLE_DOMAIN + "".join(str(c) for c in deck_order).encode())


def draw_order(statuses: Sequence[PlayerStatus], button: int) -> list[int]:
    """The positions that draw, in turn: clockwise from left of ``button``, skipping players
    not in the hand (folded or not dealt in). All-in players draw.

    >>> S = PlayerStatus
    >>> draw_order([S.ACTIVE, S.FOLDED, S.ALL_IN, S.OUT, S.ACTIVE], button=2)
    [4, 0, 2]
    """
    count = len(statuses)
    positions = ((button + step) % count for step in range(1, count + 1))
    return [p for p in positions if statuses[p] is _ACTIVE or statuses[p] is _ALL_IN]


def discard_limit(config: GameConfig, hole: Sequence[Card]) -> int:
    """The most cards a player holding ``hole`` may discard under ``config``'s draw limit.

    >>> from engine.cards import parse_cards
    >>> house = GameConfig(draw_limit=DrawLimit.THREE_OR_FOUR_WITH_ACE)
    >>> discard_limit(house, parse_cards("As 7d 5c 3h 2s"))
    4
    >>> discard_limit(house, parse_cards("Ks 7d 5c 3h 2s"))
    3
    >>> discard_limit(GameConfig(), parse_cards("Ks 7d 5c 3h 2s"))
    5
    """
    limit = config.max_discard_count
    if config.draw_limit is DrawLimit.THREE_OR_FOUR_WITH_ACE:
        # House rule: three cards, or four when the card kept is an ace.
        has_ace = any(card.rank == "A" for card in hole)
        limit = min(limit, _HOUSE_LIMIT_WITH_ACE if has_ace else _HOUSE_LIMIT)
    return limit


def check_discard(
    action: Action,
    hole: Sequence[Card],
    *,
    max_discard_count: int,
    draw_limit: DrawLimit,
    where: str,
) -> tuple[Card, ...]:
    """Validate a draw decision against the hand ``hole``; return the cards thrown away.

    Nothing changes here. Raises ``IllegalActionError`` with a stable code: ``not_a_bet``
    (a betting action during the draw), ``bad_discard`` (not a sequence of cards),
    ``duplicate_discard``, ``card_not_in_hand`` or ``too_many_discards``. ``where`` is the
    context for messages, e.g. ``"seat 2, DRAW"``.

    >>> from engine.cards import parse_cards
    >>> hole = parse_cards("As 7d 5c 3h 2s")
    >>> [str(c) for c in check_discard(Discard(tuple(parse_cards("7d 2s"))), hole,
    ...     max_discard_count=5, draw_limit=DrawLimit.ANY, where="seat 0, DRAW")]
    ['7d', '2s']
    """
    if not isinstance(action, Discard):
        raise IllegalActionError(
            "not_a_bet",
            f"{action} is not allowed in the draw: discard 0 to {max_discard_count} cards "
            f"({where})",
        )
    cards = action.cards
    if not isinstance(cards, tuple | list) or not all(isinstance(c, Card) for c in cards):
        raise IllegalActionError(
            "bad_discard",
            f"a discard must be a sequence of cards, got {cards!r} ({where})",
        )
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise IllegalActionError(
                "duplicate_discard",
                f"card {card} is discarded twice ({where})",
            )
        seen.add(card)
        if card not in hole:
            held = " ".join(str(c) for c in hole)
            raise IllegalActionError(
                "card_not_in_hand",
                f"card {card} is not in the hand {held} ({where})",
            )
    count = len(cards)
    if count > max_discard_count:
        raise IllegalActionError(
            "too_many_discards",
            f"{count} cards discarded, at most {max_discard_count} allowed ({where})",
        )
    if draw_limit is DrawLimit.THREE_OR_FOUR_WITH_ACE and count == _HOUSE_LIMIT_WITH_ACE:
        kept = [card for card in hole if card not in seen]
        if not all(card.rank == "A" for card in kept):
            # House rule: a fourth card may be drawn only when the card kept is an ace.
            raise IllegalActionError(
                "too_many_discards",
                f"4 cards discarded but the card kept, {' '.join(str(c) for c in kept)}, "
                f"is not an ace: at most 3 without an ace ({where})",
            )
    return tuple(cards)


@dataclass(frozen=True, slots=True)
class DrawOutcome:
    """What one player's draw did: the cards thrown away and received, the burn card (only
    before the round's first replacement) and the size of each new stub shuffled from the
    muck while dealing these cards (usually none)."""

    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]
    burned: Card | None
    reshuffled_counts: tuple[int, ...]


class DrawRoundState:
    """The draw round over the hand's shared per-position hole cards and deck.

    ``holes`` is the hand's own list of hole-card lists (changed in place by :meth:`apply`);
    ``deck_order`` is the deck's original order (the reshuffle's seed). Players are
    positions (indexes into ``holes``/``statuses``), as in ``engine.betting``.
    """

    __slots__ = (
        "_burned",
        "_deck",
        "_deck_order",
        "_next",
        "_rng",
        "config",
        "discard_counts",
        "holes",
        "muck",
        "order",
    )

    def __init__(
        self,
        *,
        config: GameConfig,
        deck: Deck,
        deck_order: Sequence[Card],
        holes: list[list[Card]],
        statuses: Sequence[PlayerStatus],
        button: int,
    ) -> None:
        self.config = config
        self.holes = holes
        self._deck = deck
        self._deck_order = tuple(deck_order)
        self.order = draw_order(statuses, button)
        self._next = 0
        # The muck starts with the hands folded before the draw, in seat order from the
        # button; burn cards and finished players' discards join it as the round goes.
        count = len(statuses)
        self.muck: list[Card] = [
            card
            for step in range(1, count + 1)
            if statuses[(button + step) % count] is _FOLDED
            for card in holes[(button + step) % count]
        ]
        self.discard_counts: dict[int, int] = {}
        self._burned = False
        self._rng: random.Random | None = None

    @property
    def actor(self) -> int | None:
        """The position that draws next, or None once everyone has drawn."""
        return self.order[self._next] if self._next < len(self.order) else None

    @property
    def available_count(self) -> int:
        """Cards that can still be dealt: the stub and the muck (reshuffled when needed)."""
        return self._deck.remaining_count + len(self.muck)

    def legal(self, position: int, seat_index: int, stack: int) -> LegalActions:
        """The draw decision of the player at ``position``: discard 0 to ``max_discard_count``."""
        limit = min(discard_limit(self.config, self.holes[position]), self.available_count)
        return LegalActions.draw(seat_index, stack, limit)

    def resolve(
        self, position: int, action: Action, legal: LegalActions, phase: str
    ) -> tuple[Card, ...]:
        """Validate ``action`` for the player at ``position``; return the discards. Changes
        nothing; raises ``IllegalActionError`` (see :func:`check_discard`)."""
        return check_discard(
            action,
            self.holes[position],
            max_discard_count=legal.max_discard_count,
            draw_limit=self.config.draw_limit,
            where=f"seat {legal.seat_index}, {phase}",
        )

    def apply(self, position: int, discards: tuple[Card, ...]) -> DrawOutcome:
        """Throw away ``discards`` (already validated) and deal as many replacements."""
        if position != self.actor:
            raise InvariantError(
                "draw_out_of_turn",
                f"position {position} drew but position {self.actor} is to draw",
            )
        hole = self.holes[position]
        kept = [card for card in hole if card not in discards]
        burned: Card | None = None
        reshuffled: list[int] = []
        drawn: list[Card] = []
        if discards and not self._burned:
            # One card is burned before the first replacement card of the draw.
            burned = self._take_one(reshuffled)
            self.muck.append(burned)
            self._burned = True
        for _ in discards:
            # One at a time: the stub may run out in the middle of a player's draw.
            drawn.append(self._take_one(reshuffled))
        hole[:] = kept + drawn
        # Only now do this player's discards join the muck (Robert's Rules: the discards of
        # the player drawing are never reshuffled into their own replacements).
        self.muck.extend(discards)
        self.discard_counts[position] = len(discards)
        self._next += 1
        return DrawOutcome(tuple(discards), tuple(drawn), burned, tuple(reshuffled))

    def _take_one(self, reshuffled: list[int]) -> Card:
        """The next card of the stub, reshuffling the muck into a new stub when it is empty."""
        deck = self._deck
        if deck.remaining_count == 0:
            pool = self.muck
            if not pool:
                # legal() caps every draw at the cards available: a dealer bug.
                raise InvariantError(
                    "deck_exhausted", "the stub and the muck are empty in the middle of a draw"
                )
            if self._rng is None:
                self._rng = reshuffle_rng(self._deck_order)
            # Robert's Rules: the muck (burn card, earlier discards, folded hands) is
            # shuffled to form a new stub.
            shuffle_in_place(pool, self._rng)
            deck.replace_stub(pool)
            reshuffled.append(len(pool))
            self.muck = []
        return deck.deal_one()
