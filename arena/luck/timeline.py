"""A hand's history walked into the states the luck estimator values.

Theory of operation: the history document (``engine.history``) records every event of the
hand, private ones included, so the walk needs no replay. It keeps, per position (the
index of a seat in the document's ``seats`` list), what the seat has put in, what it has
left, what it put in on this betting round, whether it is still in the hand and its cards,
plus the board and the cards already out of the deck. It reports the moments the estimator
needs, each with the state just before and just after:

* a :class:`ChanceStep` for every chance event: the deal (once every hand is dealt), each
  board street (its burn card included: a burn card is never seen, so it stays among the
  cards that could have come) and each five-card-draw replacement;
* a :class:`DecisionStep` for every betting decision, with the state before it (the
  estimator's action term looks at the actions the seat could have drawn).

A replacement draw that needed the muck reshuffled (and every draw after it in the hand)
is marked ``is_reshuffled``: its cards came from a stub the estimator does not model, so it
gets no term. Whether a reshuffle happens depends only on how many cards the players
discarded, which is public before the cards come, so skipping those terms biases nothing.
"""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.cards import FULL_DECK, Card
from engine.speed.dataclass_init import fast_init

__all__ = [
    "EVENT_KEYS",
    "HISTORY_KEYS",
    "ChanceStep",
    "DecisionStep",
    "HandTimeline",
    "LuckError",
    "TableState",
    "event_cards",
    "walk_history",
    "walk_input",
]


#: The keys of a history document that :func:`walk_history` reads (the rest - the
#: format, the button, the actions' summary - it never looks at).
HISTORY_KEYS = ("seats", "events", "config", "result", "seed", "deck")
#: The keys of a history's ``result`` that the walk reads (the rest - the board, the
#: shown cards, the awards - it never looks at).
RESULT_KEYS = ("starting_stacks", "final_stacks")
#: The keys of a history's ``config`` that the walk reads.
CONFIG_KEYS = ("variant", "big_blind", "ante", "ante_mode")
#: The events the walk passes over: the showdown's and the hand's end, after every card
#: and every chip put in (what they say, the result's stacks say too).
UNREAD_EVENTS = frozenset(
    {"hand_shown", "hand_mucked", "pot_awarded", "showdown_resolved", "hand_ended"}
)
#: Per event type the walk reads, the keys it reads of such an event (an action's
#: phase, total and flags, a street's new cards, a blind's name: never).
EVENT_KEYS: dict[str, tuple[str, ...]] = {
    "action_taken": ("type", "seat_index", "amount", "kind"),
    "betting_round_complete": ("type",),
    "street_dealt": ("type", "board"),
    "hand_started": ("type", "seats"),
    "ante_posted": ("type", "seat_index", "amount"),
    "blind_posted": ("type", "seat_index", "amount"),
    "hole_cards_dealt": ("type", "seat_index", "cards"),
    "uncalled_bet_returned": ("type", "seat_index", "amount"),
    "stub_reshuffled": ("type",),
    "cards_drawn": ("type", "seat_index", "discarded", "drawn"),
    "hand_voided": ("type",),
}


def walk_input(history: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`walk_history` reads of a ``history`` document (:data:`HISTORY_KEYS`),
    no more: the result's stacks (:data:`RESULT_KEYS`), the config's keys the walk reads
    (:data:`CONFIG_KEYS`), the events but the showdown's and the end's
    (:data:`UNREAD_EVENTS`), each with only the keys the walk reads of its type
    (:data:`EVENT_KEYS`; an event of another type whole), and the deck only when there
    is no seed (the deck keys the samples only then). Walked, it gives the document's own
    timeline (a test checks it), from a smaller document: the match sends it to the
    estimator's process. A value the walk would refuse is kept, to be refused (an error
    that quotes an event quotes the part kept).
    """
    read = {key: history[key] for key in HISTORY_KEYS if key in history}
    if read.get("seed") is not None:
        read.pop("deck", None)
    for key, kept in (("result", RESULT_KEYS), ("config", CONFIG_KEYS)):
        part = read.get(key)
        if isinstance(part, dict):
            read[key] = {name: part[name] for name in kept if name in part}
    events = read.get("events")
    if isinstance(events, list):
        walked: list[Any] = []
        for event in events:
            if not isinstance(event, dict):
                walked.append(event)  # for the walk to refuse
                continue
            kind = event.get("type")
            keys = EVENT_KEYS.get(kind) if isinstance(kind, str) else None
            if keys is not None:
                walked.append({name: event[name] for name in keys if name in event})
            elif not isinstance(kind, str) or kind not in UNREAD_EVENTS:
                walked.append(event)
        read["events"] = walked
    return read


class LuckError(ValueError):
    """A hand record the estimator cannot read; ``code`` is stable, the message names the
    bad value (``bad_luck_record``)."""

    code = "bad_luck_record"


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything the value function reads, by position (the index in ``seats``).

    ``committed`` is what each seat has put in this hand, ``street`` what it put in on the
    current betting round, ``dead`` the part of ``committed`` that is dead money (the big
    blind ante), ``hands`` each seat's cards (empty when not dealt in), ``out`` every card
    the dealer has shown anyone (all hands ever dealt, the board, replacements),
    ``last_raised`` what the last completed betting round raised: how much further the
    pot went beyond two big blinds (or the antes' unit) during it (0 before the first
    round completes, and after a round of checks and calls that raised nothing).
    """

    committed: tuple[int, ...]
    street: tuple[int, ...]
    stacks: tuple[int, ...]
    live: tuple[bool, ...]
    hands: tuple[tuple[Card, ...], ...]
    board: tuple[Card, ...]
    dead: tuple[int, ...]
    out: frozenset[Card]
    last_raised: int = 0

    @property
    def current_bet(self) -> int:
        """The highest commitment on this betting round."""
        return max(self.street, default=0)


fast_init(TableState)  # one per chance event, and per action of a reported strategy


@dataclass(frozen=True, slots=True)
class ChanceStep:
    """A chance event: ``kind`` is ``"deal"``, ``"street"`` or ``"draw"``; ``position`` is
    the drawing seat for a draw (else None)."""

    kind: str
    before: TableState
    after: TableState
    position: int | None = None
    is_reshuffled: bool = False


fast_init(ChanceStep)


@dataclass(frozen=True, slots=True)
class DecisionStep:
    """A betting decision of ``position``, the ``index``-th decision of the hand."""

    index: int
    position: int
    before: TableState


@dataclass(frozen=True, slots=True)
class HandTimeline:
    """The walked hand: its variant, unit (big blind, else ante), seats, steps and raw
    result per position; ``street_pots``: per board size the hand reached (0, 3, 4, 5;
    five-card draw: 0 only), the chips in the pots when that street's betting ended (the
    next street was dealt, or the hand ended), uncalled bets returned."""

    variant: str
    unit: int
    seat_indexes: tuple[int, ...]
    steps: tuple[ChanceStep | DecisionStep, ...]
    raw: tuple[int, ...]
    is_voided: bool
    key: bytes
    street_pots: Mapping[int, int]


fast_init(DecisionStep)
fast_init(HandTimeline)

_CARD_BY_TEXT = {str(card): card for card in FULL_DECK}


def event_cards(raw: Any, number: int) -> tuple[Card, ...]:
    """The cards a history's event ``number`` names (their texts, ``raw``), by a look-up
    per card (an error naming them if they are not cards)."""
    try:
        return tuple([_CARD_BY_TEXT[text] for text in raw])
    except (KeyError, TypeError) as exc:
        raise LuckError(f"bad cards {raw!r} in event {number}") from exc


def _int(event: Mapping[str, Any], name: str) -> int:
    value = event.get(name)
    if not isinstance(value, int) or isinstance(value, bool):
        raise LuckError(f"event field {name!r} is missing or not an integer in {event!r}")
    return value


class _Walker:
    """The mutable state of the walk (lists by position), snapshotted into TableStates."""

    def __init__(
        self, seats: Sequence[Mapping[str, Any]], *, dead_ante: bool, unit: int = 1
    ) -> None:
        count = len(seats)
        self.position_of: dict[int, int] = {}
        for position, seat in enumerate(seats):
            self.position_of[seat["seat_index"]] = position
        self.committed = [0] * count
        self.street = [0] * count
        self.stacks = [int(seat["stack"]) for seat in seats]
        self.live = [False] * count
        self.hands: list[tuple[Card, ...]] = [()] * count
        self.board: tuple[Card, ...] = ()
        self.dead = [0] * count
        self.out: set[Card] = set()
        # ``out`` frozen for the states, made when a state needs it after a deal changed it
        # (the hole cards are dealt one seat at a time; the state comes after the last).
        self._frozen_out: frozenset[Card] | None = frozenset()
        self.dead_ante = dead_ante
        self.unit = unit
        self.last_raised = 0

    def position(self, event: Mapping[str, Any]) -> int:
        seat = event.get("seat_index")
        if seat not in self.position_of:
            raise LuckError(f"event names seat {seat!r}, which is not in the hand: {event!r}")
        return self.position_of[seat]

    def snapshot(self) -> TableState:
        out = self._frozen_out
        if out is None:
            out = self._frozen_out = frozenset(self.out)
        return TableState(
            tuple(self.committed),
            tuple(self.street),
            tuple(self.stacks),
            tuple(self.live),
            tuple(self.hands),
            self.board,
            tuple(self.dead),
            out,
            self.last_raised,
        )

    def complete_round(self) -> None:
        """A betting round is over: keep what it raised (see :class:`TableState`) and
        start the next round's bets from zero."""
        end = sum(self.committed)
        start = end - sum(self.street)
        floor = 2 * self.unit
        self.last_raised = max(end - floor, 0) - max(start - floor, 0)
        self.street = [0] * len(self.street)

    def deal(self, cards: Sequence[Card]) -> None:
        """``cards`` are out of the deck (shown to someone)."""
        self.out.update(cards)
        self._frozen_out = None

    def put_in(self, position: int, amount: int, *, on_street: bool) -> None:
        self.committed[position] += amount
        self.stacks[position] -= amount
        if on_street:
            self.street[position] += amount


def _raw(doc: Mapping[str, Any], seat_indexes: Sequence[int]) -> tuple[int, ...]:
    result = doc.get("result")
    if not isinstance(result, dict):
        raise LuckError(f"the hand is not over (no result): result {result!r}")
    start, final = result.get("starting_stacks"), result.get("final_stacks")
    if not isinstance(start, dict) or not isinstance(final, dict):
        raise LuckError(f"result without stacks: {result!r}")
    nets = []
    for seat in seat_indexes:
        key = str(seat)
        if key in final and key in start:
            nets.append(int(final[key]) - int(start[key]))
        else:
            nets.append(0)  # not dealt in (sitting out): nothing won or lost
    return tuple(nets)


def _luck_key(doc: Mapping[str, Any]) -> bytes:
    """What the sampling stream is keyed by: the hand's seed, or its deck order."""
    seed = doc.get("seed")
    if seed is not None:
        return b"seed|" + str(seed).encode()
    deck = doc.get("deck")
    if not isinstance(deck, list):
        raise LuckError(f"history without a seed or a deck: deck {deck!r}")
    return b"deck|" + "".join(str(card) for card in deck).encode()


def walk_history(
    doc: Mapping[str, Any], *, decisions: Container[int] | None = None
) -> HandTimeline:
    """Walk a finished hand's history document into its chance and decision steps;
    ``decisions``: the indexes of the decisions to report (default: every one; a decision
    step's state is a snapshot, which the estimator needs only where a bot reported its
    strategy)."""
    if not isinstance(doc, Mapping):
        raise LuckError(f"a history must be an object, got {type(doc).__name__}")
    seats = doc.get("seats")
    events = doc.get("events")
    config = doc.get("config")
    if not isinstance(seats, list) or not isinstance(events, list) or not isinstance(config, dict):
        raise LuckError("history without seats, events or config")
    try:
        seat_indexes = tuple(int(seat["seat_index"]) for seat in seats)
    except (KeyError, TypeError, ValueError) as exc:
        raise LuckError(f"bad seats in history: {seats!r}") from exc
    variant = str(config.get("variant", "holdem"))
    big_blind, ante = config.get("big_blind", 0), config.get("ante", 0)
    unit = big_blind or ante or 1
    try:
        walker = _Walker(seats, dead_ante=config.get("ante_mode") == "big_blind", unit=unit)
    except (KeyError, TypeError, ValueError) as exc:
        raise LuckError(f"bad seats in history: {seats!r}") from exc
    raw = _raw(doc, seat_indexes)
    steps: list[ChanceStep | DecisionStep] = []
    dealing: TableState | None = None  # the state before the first hole cards
    decision_index = 0
    reshuffled = False
    voided = False
    street_pots: dict[int, int] = {}
    # The walker's lists that the betting changes in place, named once (the loop is hot).
    position_of: Mapping[Any, int] = walker.position_of
    committed, stacks = walker.committed, walker.stacks
    for number, event in enumerate(events):
        if not isinstance(event, dict):
            raise LuckError(f"event {number} is not an object: {event!r}")
        kind = event.get("type")
        # The commonest events first; an action is read inline.
        if kind == "action_taken":
            position = position_of.get(event.get("seat_index"), -1)
            if position < 0:
                position = walker.position(event)  # raises, naming the seat
            if decisions is None or decision_index in decisions:
                steps.append(DecisionStep(decision_index, position, walker.snapshot()))
            decision_index += 1
            amount = event.get("amount")
            if type(amount) is not int:
                amount = _int(event, "amount")  # an int subclass, or an error naming it
            committed[position] += amount
            stacks[position] -= amount
            walker.street[position] += amount
            if event.get("kind") == "FOLD":
                walker.live[position] = False
        elif kind == "betting_round_complete":
            walker.complete_round()
        elif kind == "street_dealt":
            street_pots[len(walker.board)] = sum(walker.committed)
            before = walker.snapshot()
            walker.board = event_cards(event.get("board"), number)
            walker.deal(walker.board)
            steps.append(ChanceStep("street", before, walker.snapshot()))
        elif kind == "hand_started":
            for entry in event.get("seats", ()):
                walker.live[walker.position(entry)] = True
        elif kind == "ante_posted":
            position = walker.position(event)
            amount = _int(event, "amount")
            walker.put_in(position, amount, on_street=False)
            if walker.dead_ante:
                walker.dead[position] += amount  # the big blind ante is dead money
        elif kind == "blind_posted":
            walker.put_in(walker.position(event), _int(event, "amount"), on_street=True)
        elif kind == "hole_cards_dealt":
            if dealing is None:
                dealing = walker.snapshot()
            position = walker.position(event)
            cards = event_cards(event.get("cards"), number)
            walker.hands[position] = cards
            walker.deal(cards)
            following = events[number + 1] if number + 1 < len(events) else None
            if not (isinstance(following, dict) and following.get("type") == kind):
                steps.append(ChanceStep("deal", dealing, walker.snapshot()))
        elif kind == "uncalled_bet_returned":
            position = walker.position(event)
            walker.put_in(position, -_int(event, "amount"), on_street=True)
        elif kind == "stub_reshuffled":
            reshuffled = True
        elif kind == "cards_drawn":
            position = walker.position(event)
            decision_index += 1
            before = walker.snapshot()
            discarded = event_cards(event.get("discarded"), number)
            drawn = event_cards(event.get("drawn"), number)
            walker.hands[position] = (
                tuple(card for card in walker.hands[position] if card not in discarded) + drawn
            )
            walker.deal(drawn)
            if drawn:
                steps.append(ChanceStep("draw", before, walker.snapshot(), position, reshuffled))
        elif kind == "hand_voided":
            voided = True
    street_pots[len(walker.board)] = sum(walker.committed)
    return HandTimeline(
        variant=variant,
        unit=unit,
        seat_indexes=seat_indexes,
        steps=tuple(steps),
        raw=raw,
        is_voided=voided,
        key=_luck_key(doc),
        street_pots=street_pots,
    )


def with_action(state: TableState, position: int, action: Mapping[str, Any]) -> TableState:
    """The state right after ``position`` takes ``action`` (a recorded action dict:
    ``{"action": "RAISE", "amount": 40}``), as the engine would apply it: a call adds up to
    the current bet (all-in for less when short), a raise goes to ``amount`` this round,
    all-in puts in the whole stack."""
    name = action.get("action") if isinstance(action, Mapping) else None
    stack = state.stacks[position]
    mine = state.street[position]
    if name == "FOLD":
        live = list(state.live)
        live[position] = False
        return replace(state, live=tuple(live))
    if name == "CHECK":
        return state
    if name == "CALL":
        add = min(max(state.current_bet - mine, 0), stack)
    elif name == "RAISE":
        amount = action.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise LuckError(f"RAISE without an integer amount: {action!r}")
        add = min(max(amount - mine, 0), stack)
    elif name == "ALL_IN":
        add = stack
    else:
        raise LuckError(f"not a betting action: {action!r}")
    committed = list(state.committed)
    street = list(state.street)
    stacks = list(state.stacks)
    committed[position] += add
    street[position] += add
    stacks[position] -= add
    # Made directly rather than by dataclasses.replace: an action term makes one state per
    # action of every reported distribution, and replace() costs several times as much.
    return TableState(
        tuple(committed),
        tuple(street),
        tuple(stacks),
        state.live,
        state.hands,
        state.board,
        state.dead,
        state.out,
        state.last_raised,
    )
