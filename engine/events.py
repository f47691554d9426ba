"""Events: past-tense facts that every change of a hand returns and keeps.

Each event is a frozen, slotted dataclass with ``to_dict()`` giving plain JSON
(``{"type": "blind_posted", ...}``; cards as text such as ``"As"``). Private events
(``HoleCardsDealt``, ``CardsDrawn``) carry their owner in ``seat_index`` and name their
secret fields in ``private_fields``; :func:`public_dict` (from ``engine.redaction``, the
one place where redaction happens) blanks them for everyone else. Each class's
``to_dict`` is generated once from its fields (``compile_to_dict``, a speed helper of
``engine.speed``), since every event of every hand is turned into a dict.

>>> BlindPosted(seat_index=2, blind="big_blind", amount=10, is_all_in=False).to_dict()
{'type': 'blind_posted', 'seat_index': 2, 'blind': 'big_blind', 'amount': 10, 'is_all_in': False}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from engine.actions import ActionKind
from engine.cards import Card
from engine.phases import Phase
from engine.redaction import public_dict
from engine.speed.dataclass_init import fast_init
from engine.speed.event_dicts import compile_to_dict

__all__ = [
    "ActionTaken",
    "AntePosted",
    "BettingRoundComplete",
    "BlindPosted",
    "CardsDrawn",
    "Event",
    "HandEnded",
    "HandMucked",
    "HandShown",
    "HandStarted",
    "HandVoided",
    "HoleCardsDealt",
    "PotAwarded",
    "ShowdownResolved",
    "StreetDealt",
    "StubReshuffled",
    "UncalledBetReturned",
    "compile_to_dict",
    "public_dict",
]


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events; ``type`` is the snake_case name used in ``to_dict()``.

    ``record_fields`` names the fields that hold tuples of records (``seats``, ``shares``,
    ...) and the keys of each record's object in ``to_dict()``.
    """

    type: ClassVar[str] = "event"
    private_fields: ClassVar[tuple[str, ...]] = ()
    record_fields: ClassVar[dict[str, tuple[str, ...]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A new event class first gets the generic to_dict below, which compiles its own
        # (a subclass must not inherit a parent's compiled to_dict: it has more fields).
        super(Event, cls).__init_subclass__(**kwargs)  # (zero-argument super fails with slots)
        if "to_dict" not in cls.__dict__:
            cls.to_dict = _COMPILING_TO_DICT  # type: ignore[method-assign]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form with a ``type`` key."""
        # The first call compiles the class's own to_dict, which then replaces this one.
        return compile_to_dict(type(self))(self)


_COMPILING_TO_DICT = Event.to_dict


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    """A hand began: who is dealt in, where the button and the blinds are."""

    type: ClassVar[str] = "hand_started"
    record_fields: ClassVar[dict[str, tuple[str, ...]]] = {
        "seats": ("seat_index", "player_id", "stack"),
    }
    hand_number: int
    variant: str
    structure: str
    small_blind: int
    big_blind: int
    ante: int
    button_index: int
    small_blind_index: int | None
    big_blind_index: int | None
    seats: tuple[tuple[int, str, int], ...]  # (seat_index, player_id, stack) dealt in


@dataclass(frozen=True, slots=True)
class AntePosted(Event):
    """A player posted an ante (all-in for less when the stack was shorter)."""

    type: ClassVar[str] = "ante_posted"
    seat_index: int
    amount: int
    is_all_in: bool


@dataclass(frozen=True, slots=True)
class BlindPosted(Event):
    """A player posted the ``small_blind`` or ``big_blind`` (all-in for less if short)."""

    type: ClassVar[str] = "blind_posted"
    seat_index: int
    blind: str
    amount: int
    is_all_in: bool


@dataclass(frozen=True, slots=True)
class HoleCardsDealt(Event):
    """Private: ``seat_index`` received these hole cards."""

    type: ClassVar[str] = "hole_cards_dealt"
    private_fields: ClassVar[tuple[str, ...]] = ("cards",)
    seat_index: int
    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class StreetDealt(Event):
    """Community cards were dealt (after a burn card); ``board`` is the whole board now."""

    type: ClassVar[str] = "street_dealt"
    phase: Phase
    cards: tuple[Card, ...]
    board: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class ActionTaken(Event):
    """A player acted. ``kind`` is what the action amounted to (FOLD, CHECK, CALL, RAISE).

    ``amount`` is the chips this action added, ``total`` the player's commitment on this
    betting round afterwards. ``is_bet`` marks the first bet of a round, ``is_raise`` a
    raise of an earlier bet, ``is_all_in`` that the stack is now empty (a call, bet or raise
    for the whole stack). ``is_full_raise`` is false for an all-in bet or raise smaller than a
    full one, which does not reopen the betting (WSOP Rule 96).
    """

    type: ClassVar[str] = "action_taken"
    seat_index: int
    phase: Phase
    kind: ActionKind
    amount: int
    total: int
    is_bet: bool
    is_raise: bool
    is_call: bool
    is_all_in: bool
    is_full_raise: bool


@dataclass(frozen=True, slots=True)
class UncalledBetReturned(Event):
    """The part of a bet nobody called went back to the bettor."""

    type: ClassVar[str] = "uncalled_bet_returned"
    seat_index: int
    amount: int


@dataclass(frozen=True, slots=True)
class BettingRoundComplete(Event):
    """A betting round ended; ``pot_total`` is everything committed in the hand so far."""

    type: ClassVar[str] = "betting_round_complete"
    phase: Phase
    pot_total: int


@dataclass(frozen=True, slots=True)
class CardsDrawn(Event):
    """Five-card draw: a player discarded and drew. The count is public, the cards private."""

    type: ClassVar[str] = "cards_drawn"
    private_fields: ClassVar[tuple[str, ...]] = ("discarded", "drawn")
    seat_index: int
    discard_count: int
    discarded: tuple[Card, ...]
    drawn: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class StubReshuffled(Event):
    """Five-card draw: the stub ran out, so the muck (burn card, discards of players who
    already drew, folded hands) was shuffled into a new stub of ``card_count`` cards
    (Robert's Rules of Poker). Which cards is never shown."""

    type: ClassVar[str] = "stub_reshuffled"
    card_count: int


@dataclass(frozen=True, slots=True)
class HandShown(Event):
    """A player's hole cards were shown at showdown."""

    type: ClassVar[str] = "hand_shown"
    seat_index: int
    cards: tuple[Card, ...]
    description: str


@dataclass(frozen=True, slots=True)
class HandMucked(Event):
    """A player's hand could not win and was mucked unseen."""

    type: ClassVar[str] = "hand_mucked"
    seat_index: int


@dataclass(frozen=True, slots=True)
class PotAwarded(Event):
    """A pot (0 = main) went to ``shares`` ((seat_index, chips), odd chip first)."""

    type: ClassVar[str] = "pot_awarded"
    record_fields: ClassVar[dict[str, tuple[str, ...]]] = {"shares": ("seat_index", "amount")}
    pot_index: int
    amount: int
    eligible_seat_indexes: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]
    description: str


@dataclass(frozen=True, slots=True)
class ShowdownResolved(Event):
    """Winners are known (also when everyone else folded: then ``is_showdown`` is false)."""

    type: ClassVar[str] = "showdown_resolved"
    winner_seat_indexes: tuple[int, ...]
    is_showdown: bool


@dataclass(frozen=True, slots=True)
class HandVoided(Event):
    """The hand was aborted (an invariant failed) and every contribution refunded, per seat."""

    type: ClassVar[str] = "hand_voided"
    record_fields: ClassVar[dict[str, tuple[str, ...]]] = {"refunds": ("seat_index", "amount")}
    reason: str
    refunds: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The hand is over: ``reason`` is ``FOLD``, ``SHOWDOWN`` or ``VOID``."""

    type: ClassVar[str] = "hand_ended"
    record_fields: ClassVar[dict[str, tuple[str, ...]]] = {"final_stacks": ("seat_index", "stack")}
    reason: str
    final_stacks: tuple[tuple[int, int], ...]


# Events are built on every change of a hand and each is turned into a dict once: the
# faster constructor and a to_dict compiled for each class (engine.speed).
for _event_class in (
    HandStarted,
    AntePosted,
    BlindPosted,
    HoleCardsDealt,
    StreetDealt,
    ActionTaken,
    UncalledBetReturned,
    BettingRoundComplete,
    CardsDrawn,
    StubReshuffled,
    HandShown,
    HandMucked,
    PotAwarded,
    ShowdownResolved,
    HandVoided,
    HandEnded,
):
    fast_init(_event_class)
    compile_to_dict(_event_class)
