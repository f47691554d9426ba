"""Export a hand to the Poker Hand History format (PHH, the TOML files pokerkit reads).

PHH (https://phh.readthedocs.io) orders players from the first seat left of the button:
``p1`` is the small blind and the button is last. Heads-up the button posts the small blind
and is still last, so ``p1`` is the big blind; PHH lists ``blinds_or_straddles`` as
``[small, big, 0, ...]`` all the same and readers (pokerkit) swap them for two players.
That is exactly our dealing order (``HandStarted.seats``), so ``pK`` is the K-th seat dealt.

Only the variants PHH can name are exported: no-limit hold'em (``NT``) and fixed-limit
hold'em (``FT``). Pot-limit hold'em and five-card draw have no PHH code (``PO`` is Omaha,
``N2L1D`` is deuce-to-seven lowball), and a voided hand never happened, so those raise
:class:`PhhError`. Seats not dealt in (no chips) are left out; ``seats`` keeps the real
seat numbers (1-based, as PHH counts them).

Equal antes set ``ante_trimming_status = true``: they are layered into the pots with the
other chips, so a player all-in for less than an ante wins only what it matched (without
it, pokerkit puts every ante whole into the main pot). A big blind ante is dead money in
the main pot, as pokerkit has it, so it does not set the flag.

Actions: ``d dh pK AsKd`` (hole cards), ``d db 2c3d4h`` (board), ``pK f``, ``pK cc``
(check or call), ``pK cbr 60`` (bet or raise *to* 60 on this street, all-ins included),
``pK sm AsKd`` (shown at showdown) and ``pK sm`` (mucked). Burn cards are not written (PHH
readers burn unknown cards themselves). When the betting ended with players all-in before
the river, the hands are shown before the rest of the board is dealt, as PHH expects; a
player who mucks at such a showdown holds the cards face down (``pK sm ????``) through the
rest of the board and mucks at the end.

>>> import random
>>> from engine.config import GameConfig
>>> from engine.hand import Hand, SeatSetup
>>> from engine.actions import Fold
>>> seats = [SeatSetup(0, "ann", 100), SeatSetup(1, "bob", 100), SeatSetup(2, "cy", 100)]
>>> hand = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(1))
>>> _ = hand.act(Fold()); _ = hand.act(Fold())
>>> print(hand_to_phh(hand, seat_count=6))  # doctest: +ELLIPSIS
variant = "NT"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = ["d dh p1 ...", "d dh p2 ...", "d dh p3 ...", "p3 f", "p1 f"]
hand = 1
players = ["bob", "cy", "ann"]
seats = [2, 3, 1]
seat_count = 6
finishing_stacks = [99, 101, 100]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.actions import ActionKind
from engine.cards import Card
from engine.config import AnteMode, BettingStructure, Variant
from engine.errors import EngineError
from engine.events import (
    ActionTaken,
    HandMucked,
    HandShown,
    HandStarted,
    HandVoided,
    HoleCardsDealt,
    StreetDealt,
)
from engine.hand import Hand

__all__ = ["PhhError", "dumps_phh", "hand_to_phh", "phh_fields"]


class PhhError(EngineError, ValueError):
    """A hand PHH cannot express: ``unsupported_variant`` or ``voided_hand``."""


def _cards(cards: Sequence[Card]) -> str:
    return "".join(str(card) for card in cards)


def _variant_fields(hand: Hand) -> dict[str, Any]:
    config = hand.config
    if config.variant is not Variant.HOLDEM or config.structure is BettingStructure.POT_LIMIT:
        raise PhhError(
            "unsupported_variant",
            f"PHH has no code for {config.structure} {config.variant} "
            "(only no-limit and fixed-limit hold'em are exported)",
        )
    if config.structure is BettingStructure.NO_LIMIT:
        return {"variant": "NT"}
    return {"variant": "FT"}


def phh_fields(
    hand: Hand, *, seat_count: int | None = None, table: str | int | None = None
) -> dict[str, Any]:
    """The PHH fields of ``hand`` in the order PHH files list them."""
    fields = _variant_fields(hand)
    events = hand.events
    if any(isinstance(event, HandVoided) for event in events):
        raise PhhError("voided_hand", f"hand {hand.hand_number} was voided; PHH cannot record it")
    started = events[0]
    assert isinstance(started, HandStarted)
    # pK is the K-th player dealt in: left of the button first, the button last.
    order = [seat_index for seat_index, _, _ in started.seats]
    label = {seat_index: f"p{k}" for k, seat_index in enumerate(order, start=1)}
    config = hand.config
    count = len(order)
    blinds = [config.small_blind, config.big_blind] + [0] * (count - 2)
    big_blind_entry = 1
    big_blind_index = started.big_blind_index
    if count > 2 and big_blind_index is not None:
        # Each blind at its player's entry: with a dead small blind (the dead button rule)
        # the first player left of the button posts the big blind and nobody the small.
        big_blind_entry = order.index(big_blind_index)
        blinds = [0] * count
        blinds[big_blind_entry] = config.big_blind
        if started.small_blind_index is not None:
            blinds[order.index(started.small_blind_index)] = config.small_blind
    antes = [config.ante] * count
    if config.ante_mode is AnteMode.BIG_BLIND:
        # One ante, by the big blind: its entry, like the big blind itself.
        antes = [0] * count
        antes[big_blind_entry] = config.ante
    if config.ante and config.ante_mode is AnteMode.EVERY_PLAYER:
        # Equal antes are layered into the pots like any other chips (a player all-in for
        # less than an ante wins only as much of each ante as it put in): PHH's "ante
        # trimming" (pokerkit otherwise puts every ante whole into the main pot).
        fields["ante_trimming_status"] = True
    fields["antes"] = antes
    fields["blinds_or_straddles"] = blinds
    if fields["variant"] == "NT":
        fields["min_bet"] = config.minimum_bet
    else:
        fields["small_bet"] = config.small_bet
        fields["big_bet"] = config.big_bet
    fields["starting_stacks"] = [stack for _, _, stack in started.seats]
    fields["actions"] = _actions(events, label)
    fields["hand"] = hand.hand_number
    fields["players"] = [player_id for _, player_id, _ in started.seats]
    fields["seats"] = [seat_index + 1 for seat_index in order]
    if seat_count is not None:
        fields["seat_count"] = seat_count
    if table is not None:
        fields["table"] = table
    if hand.is_over:
        stacks = hand.stacks
        fields["finishing_stacks"] = [stacks[seat_index] for seat_index in order]
    return fields


def _actions(events: Sequence[Any], label: dict[int, str]) -> list[str]:
    # PHH settles an all-in showdown before the rest of the board is dealt: right before
    # the first street dealt after the last decision. A player who mucks there keeps the
    # cards face down ("????") while each street is dealt and mucks at the end, as at a
    # real table; a player who shows does so at once.
    last_decision = max(
        (i for i, e in enumerate(events) if isinstance(e, ActionTaken | HoleCardsDealt)),
        default=0,
    )
    runout = next(
        (i for i, e in enumerate(events) if i > last_decision and isinstance(e, StreetDealt)),
        len(events),
    )
    hole_count = {e.seat_index: len(e.cards) for e in events if isinstance(e, HoleCardsDealt)}
    first_showdown: list[str] = []
    face_down: list[str] = []
    mucks: list[str] = []
    for event in events:
        if isinstance(event, HandShown):
            first_showdown.append(f"{label[event.seat_index]} sm {_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            hidden = f"{label[event.seat_index]} sm {'??' * hole_count[event.seat_index]}"
            first_showdown.append(hidden)
            face_down.append(hidden)
            mucks.append(f"{label[event.seat_index]} sm")
    actions: list[str] = []
    for index, event in enumerate(events):
        if index == runout:
            actions.extend(first_showdown)
        elif index > runout and isinstance(event, StreetDealt):
            actions.extend(face_down)
        if isinstance(event, HoleCardsDealt):
            actions.append(f"d dh {label[event.seat_index]} {_cards(event.cards)}")
        elif isinstance(event, StreetDealt):
            actions.append(f"d db {_cards(event.cards)}")
        elif isinstance(event, ActionTaken):
            actions.append(_decision(label[event.seat_index], event))
    if runout == len(events):
        actions.extend(line for line in first_showdown if not line.endswith("??"))
    actions.extend(mucks)
    return actions


def _decision(player: str, event: ActionTaken) -> str:
    if event.kind is ActionKind.FOLD:
        return f"{player} f"
    if event.kind is ActionKind.RAISE:
        return f"{player} cbr {event.total}"
    return f"{player} cc"  # a check or a call (an all-in call too)


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = ['"']
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    raise PhhError("bad_value", f"cannot write {value!r} to PHH")


def dumps_phh(fields: dict[str, Any]) -> str:
    """Write PHH fields as TOML text (``key = value`` lines in the given order)."""
    return "\n".join(f"{key} = {_toml_value(value)}" for key, value in fields.items())


def hand_to_phh(
    hand: Hand, *, seat_count: int | None = None, table: str | int | None = None
) -> str:
    """``hand`` as PHH text (TOML) that pokerkit's ``HandHistory.loads`` reads."""
    return dumps_phh(phh_fields(hand, seat_count=seat_count, table=table))
