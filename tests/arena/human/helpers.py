"""Helpers of the human-seat tests: a scripted front end and real requests from the engine."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.bots.in_memory import FakeClock
from engine.actions import Action, AllIn, Call, Check, Discard, Fold, RaiseTo
from engine.config import GameConfig
from engine.hand import Hand
from engine.seating import SeatSetup
from engine.view import SeatView
from protocol.messages import act_request, draw_request, hand_start

#: A scripted entry that times out instead of answering.
TIMEOUT = None


@dataclass
class ScriptedFrontEnd:
    """A person who types ``entries`` in order: a string is typed, :data:`TIMEOUT` lets the
    time run out (moving ``clock`` on by the time limit), and when none is left the input
    ends (``EOFError``). ``on_prompt`` runs before each entry (a test moves a fake clock
    there)."""

    entries: list[str | None]
    shown: list[str] = field(default_factory=list)
    prompts: list[tuple[str, float | None]] = field(default_factory=list)
    on_prompt: Callable[[], None] | None = None
    #: Moved on by the time limit when an entry lets the time run out.
    clock: FakeClock | None = None

    def show(self, text: str) -> None:
        self.shown.append(text)

    def prompt(self, text: str, *, timeout_s: float | None = None) -> str | None:
        self.prompts.append((text, timeout_s))
        if self.on_prompt is not None:
            self.on_prompt()
        if not self.entries:
            raise EOFError("no entries left")
        entry = self.entries.pop(0)
        if entry is TIMEOUT and self.clock is not None and timeout_s is not None:
            self.clock.sleep(timeout_s)
        return entry

    @property
    def screen(self) -> str:
        """Everything shown so far, as one text."""
        return "\n".join(self.shown)


@dataclass(frozen=True)
class Decision:
    """One decision of a random hand: the engine's view of the actor and its request."""

    hand: Hand
    view: SeatView
    request: dict[str, Any]


def random_action(rng: random.Random, view: SeatView) -> Action:
    """A random legal action for the actor of ``view`` (random raise sizes, discards)."""
    legal = view.legal_actions
    assert legal is not None
    if legal.can_draw:
        count = rng.randint(0, min(3, legal.max_discard_count))  # 4 needs an ace kept
        return Discard(tuple(rng.sample(view.hole_cards, count)))
    options: list[Action] = []
    if legal.can_check:
        options += [Check(), Check()]
    if legal.can_call:
        options += [Call(), Call()]
    if legal.can_fold:
        options.append(Fold())
    if legal.can_raise:
        options.append(RaiseTo(rng.randint(legal.min_raise_to, legal.max_raise_to)))
    if legal.can_all_in:
        options.append(AllIn())
    return rng.choice(options)


def random_decisions(
    config: GameConfig,
    *,
    seat_count: int,
    hand_count: int,
    seed: int,
    stacks: Sequence[int] = (20, 60, 200),
) -> Iterator[Decision]:
    """Every decision of ``hand_count`` randomly played hands (stacks drawn from
    ``stacks``, so that short all-ins and side pots happen), with the request the actor
    gets; the action is played after the caller has looked at it."""
    rng = random.Random(seed)
    for number in range(1, hand_count + 1):
        seats = [SeatSetup(i, f"p{i}", rng.choice(stacks)) for i in range(seat_count)]
        hand = Hand.start(
            config, seats, button_index=number % seat_count, rng=rng, hand_number=number
        )
        seq = 0
        while not hand.is_over:
            actor = hand.actor_index
            assert actor is not None
            view = hand.view(actor)
            assert view.legal_actions is not None
            seq += 1
            build = draw_request if view.legal_actions.can_draw else act_request
            request = build(view, seq=seq, hand_id=f"m-{number}", time_limit_ms=1000)
            yield Decision(hand, view, request)
            hand.act(random_action(rng, view))


def start_message(hand: Hand, seat_index: int) -> dict[str, Any]:
    """The ``hand_start`` the seat gets for ``hand``."""
    return hand_start(hand.view(seat_index), hand_id=f"m-{hand.hand_number}")


def hello_message(
    *,
    seat_index: int = 0,
    seat_count: int = 2,
    hand_count: int | None = 3,
    game: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``hello`` as the arena sends it (only the fields the seat reads matter)."""
    fields = GameConfig().to_dict() if game is None else game
    fields.update(seat_count=seat_count, starting_stack=200, hand_count=hand_count)
    return {
        "type": "hello",
        "seq": 1,
        "player_id": f"p{seat_index}",
        "seat_index": seat_index,
        "game": fields,
    }


def wire(text: str) -> list[dict[str, str]]:
    """Wire cards from ``"Ah Td"``."""
    ranks = {"T": "10"}
    suits = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
    return [{"rank": ranks.get(c[0], c[0]), "suit": suits[c[1]]} for c in text.split()]


def act(**changes: Any) -> dict[str, Any]:
    """An ``act`` request on the flop for seat 0, against two bots."""
    request: dict[str, Any] = {
        "type": "act",
        "seq": 9,
        "hand_id": "m-3",
        "hand_number": 3,
        "player_id": "p0",
        "seat_index": 0,
        "game_state": "FLOP",
        "hole_cards": wire("Ah Kh"),
        "community_cards": wire("Th 7d 2s"),
        "current_bet": 8,
        "to_call": 8,
        "min_raise_to": 16,
        "max_raise_to": 190,
        "legal_actions": ["FOLD", "CALL", "RAISE", "ALL_IN"],
        "player_stack": 190,
        "pot_total": 38,
        "pots": [{"amount": 30, "eligible_seats": [0, 1, 2]}],
        "table_state": [
            {"player_id": "p0", "seat_index": 0, "position": "button", "stack": 190,
             "status": "ACTIVE", "current_bet": 0, "hand_committed": 10, "discard_count": None},
            {"player_id": "p1", "seat_index": 1, "position": "small_blind", "stack": 182,
             "status": "ACTIVE", "current_bet": 8, "hand_committed": 18, "discard_count": None},
            {"player_id": "p2", "seat_index": 2, "position": "big_blind", "stack": 190,
             "status": "FOLDED", "current_bet": 0, "hand_committed": 10, "discard_count": None},
        ],
        "history": [],
    }  # fmt: skip
    request.update(changes)
    return request
