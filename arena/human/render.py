"""The text a person reads at their seat, drawn from the protocol messages their seat gets.

Everything here reads a message a bot would get for the same seat (``hello``,
``hand_start``, ``act``, ``draw``, ``error``, ``hand_end``, ``match_end``) and nothing else,
so the person sees exactly what the engine let that seat see: other seats' cards only
once shown at showdown. A card is written as in the engine (``Ah``, ``Td``); a chat front
end can draw the same text or build its own from the same messages.

>>> names = SeatNames("p0", {"p1": "calling station"})
>>> names.label("p0"), names.label("p1"), names.label("p7")
('you', 'calling station', 'p7')
>>> event_lines([{"type": "action_taken", "seat_index": 1, "kind": "RAISE", "amount": 6,
...     "total": 8, "is_bet": False, "is_all_in": False}], {1: "p1"}, names)
['calling station raises to 8']
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from arena.human.entry import describe_legal
from engine.evaluator import RANK_NAMES, HandCategory, HandRank, InvalidHandError, evaluate
from protocol.cards import card_from_wire

__all__ = [
    "HELP_TEXT",
    "PHASE_NAMES",
    "POSITION_NAMES",
    "STATUS_NAMES",
    "SeatNames",
    "cards_text",
    "error_text",
    "event_lines",
    "hand_end_text",
    "hand_start_text",
    "hello_text",
    "match_end_text",
    "phase_and_pots",
    "request_text",
    "seat_notes",
]

HELP_TEXT = """\
Betting:  f = fold   c = call (or check)   k = check   r 40 = raise to 40 (bet 40 too)
          a = all-in.  Amounts are round totals: what your bet is after the raise.
Drawing:  the cards to throw away, by name (9h 2c; a ten is Th or 10h) or by place
          (3 5); pat keeps every card.
Also:     t = the table again   ? = this help   q = leave the table"""

#: Betting rounds and the draw in words, by the protocol's ``game_state``.
PHASE_NAMES = {
    "PRE_FLOP": "pre-flop",
    "FLOP": "flop",
    "TURN": "turn",
    "RIVER": "river",
    "PRE_DRAW_BET": "before the draw",
    "DRAW": "the draw",
    "POST_DRAW_BET": "after the draw",
}
POSITION_NAMES = {"button": "button", "small_blind": "small blind", "big_blind": "big blind"}
STATUS_NAMES = {"FOLDED": "folded", "ALL_IN": "all-in", "OUT": "out"}
_GAMES = {"holdem": "hold'em", "five_card_draw": "five-card draw"}
_STRUCTURES = {"no_limit": "no-limit", "pot_limit": "pot-limit", "fixed_limit": "fixed-limit"}


class SeatNames:
    """How the person's screen names players: ``you`` for their own seat, else the name
    the table was given (a bot's manifest name), else the player id."""

    def __init__(self, own_player_id: str | None, names: Mapping[str, str]) -> None:
        self.own_player_id = own_player_id
        self.names = dict(names)
        counts = Counter(self.names.values())
        # Two copies of one bot are told apart by their player ids.
        self._labels = {
            player_id: f"{name} ({player_id})" if counts[name] > 1 else name
            for player_id, name in self.names.items()
        }

    def label(self, player_id: str) -> str:
        """``you``, the player's name (with its id when two share it), or its id."""
        if player_id == self.own_player_id:
            return "you"
        return self._labels.get(player_id, player_id)


def cards_text(wires: Sequence[Any], *, numbered: bool = False) -> str:
    """Wire cards as ``Ah Kd`` (``1:Ah 2:Kd`` when ``numbered``); ``-`` for none.

    >>> cards_text([{"rank": "10", "suit": "hearts"}, {"rank": "2", "suit": "clubs"}])
    'Th 2c'
    """
    cards = [card_from_wire(wire) for wire in wires]
    # Not `or`: a card is an int, and the two of clubs is card 0.
    texts = ["??" if card is None else str(card) for card in cards]
    if numbered:
        texts = [f"{place}:{text}" for place, text in enumerate(texts, start=1)]
    return " ".join(texts) or "-"


def hello_text(hello: Mapping[str, Any], names: SeatNames, *, name: str) -> str:
    """The welcome: the seat, the game and who else sits at the table."""
    game = hello["game"]
    hands = game.get("hand_count")
    length = "until one player has every chip" if hands is None else _count(hands, "hand")
    kind = f"{_STRUCTURES.get(game['structure'], game['structure'])} " + _GAMES.get(
        game["variant"], game["variant"]
    )
    lines = [
        f"Welcome, {name}. You sit in seat {hello['seat_index']} of {game['seat_count']}: "
        f"{kind}, blinds {game['small_blind']}/{game['big_blind']}, "
        f"stacks {game['starting_stack']}, {length}.",
    ]
    others = [
        names.label(player_id)
        for player_id in sorted(names.names)
        if player_id != names.own_player_id
    ]
    if others:
        lines.append("At the table: " + ", ".join(others) + ".")
    lines.append("Enter ? for help.")
    return "\n".join(lines)


def hand_start_text(message: Mapping[str, Any]) -> str:
    """A new hand: its number, the blinds, the person's position and cards."""
    own = _own_seat(message)
    position = POSITION_NAMES.get(own.get("position", ""), "") if own else ""
    where = ""
    if position == "button":
        where = " · you are on the button"
    elif position:
        where = f" · you are the {position}"
    return (
        f"\n=== Hand {message['hand_number']} · blinds {message['small_blind']}/"
        f"{message['big_blind']}{where} ===\n"
        f"Your cards: {cards_text(message['hole_cards'])}"
    )


def request_text(request: Mapping[str, Any], names: SeatNames) -> str:
    """The table when the person is to act: seats, stacks, bets, pot, board, their cards,
    whose turn it is and what is legal, with the amounts."""
    lines = [f"--- Hand {request['hand_number']} · {phase_and_pots(request)} ---"]
    if request.get("community_cards"):
        lines.append(f"Board: {cards_text(request['community_cards'])}")
    seats = request["table_state"]
    labels = [names.label(seat["player_id"]) for seat in seats]
    width = max(len(label) for label in labels)
    for seat, label in zip(seats, labels, strict=True):
        lines.append(
            f"  seat {seat['seat_index']}  {label.ljust(width)}  stack {seat['stack']:>5}"
            f"  bet {seat['current_bet']:>4}  {seat_notes(seat, request)}".rstrip()
        )
    is_draw = request["type"] == "draw"
    lines.append(f"Your cards: {cards_text(request['hole_cards'], numbered=is_draw)}")
    lines.append("You may: " + ", ".join(describe_legal(request)))
    return "\n".join(lines)


def phase_and_pots(request: Mapping[str, Any]) -> str:
    """``flop · pot 40`` of a request, with each pot when there are side pots."""
    phase = PHASE_NAMES.get(request["game_state"], request["game_state"])
    pots = request.get("pots") or []
    side = ""
    if len(pots) > 1:
        side = " (" + ", ".join(f"pot {i + 1}: {pot['amount']}" for i, pot in enumerate(pots)) + ")"
    return f"{phase} · pot {request['pot_total']}{side}"


def seat_notes(seat: Mapping[str, Any], request: Mapping[str, Any]) -> str:
    """A seat of ``request``'s table in a few words: position, status, cards drawn, and
    whether it is the seat to act."""
    notes = [POSITION_NAMES.get(seat["position"], ""), STATUS_NAMES.get(seat["status"], "")]
    if seat.get("discard_count") is not None:
        notes.append(f"drew {seat['discard_count']}")
    if seat["seat_index"] == request["seat_index"]:
        notes.append("<- to act")
    return "  ".join(note for note in notes if note)


def event_lines(
    events: Sequence[Mapping[str, Any]], seat_players: Mapping[int, str], names: SeatNames
) -> list[str]:
    """One line per public event worth telling a person (what the others did, the
    streets); the hand's start and its end are told by ``hand_start``/``hand_end``."""
    lines = []
    for event in events:
        seat = event.get("seat_index")
        who = names.label(seat_players.get(seat, f"seat {seat}")) if seat is not None else ""
        line = _event_line(event, who)
        if line:
            lines.append(line)
    return lines


def _event_line(event: Mapping[str, Any], who: str) -> str:
    kind = event["type"]
    if kind == "blind_posted":
        blind = POSITION_NAMES.get(event["blind"], event["blind"])
        return f"{who} {_verb(who, 'post')} the {blind} {event['amount']}"
    if kind == "ante_posted":
        return f"{who} {_verb(who, 'post')} an ante of {event['amount']}"
    if kind == "street_dealt":
        return f"{PHASE_NAMES.get(event['phase'], event['phase'])}: {cards_text(event['board'])}"
    if kind == "action_taken":
        return _action_line(event, who)
    if kind == "uncalled_bet_returned":
        return f"{who} {_verb(who, 'take')} back {event['amount']} (not called)"
    if kind == "cards_drawn":
        if event.get("discarded") is not None:
            return (
                f"{who} {_verb(who, 'discard')} {cards_text(event['discarded'])} "
                f"and {_verb(who, 'draw')} {cards_text(event.get('drawn') or [])}"
            )
        return f"{who} {_verb(who, 'draw')} {event['discard_count']}"
    if kind == "stub_reshuffled":
        return "the discards are shuffled into a new stub"
    if kind == "hand_shown":
        return f"{who} {_verb(who, 'show')} {cards_text(event['cards'])} ({event['description']})"
    if kind == "hand_mucked":
        return f"{who} {_verb(who, 'muck')}"
    return ""  # the hand's start and its settling are told apart; unknown types are skipped


def _action_line(event: Mapping[str, Any], who: str) -> str:
    action = event["kind"]
    if action == "FOLD":
        text = _verb(who, "fold")
    elif action == "CHECK":
        text = _verb(who, "check")
    elif action == "CALL":
        text = f"{_verb(who, 'call')} {event['amount']}"
    elif event.get("is_bet"):
        text = f"{_verb(who, 'bet')} {event['total']}"
    else:
        text = f"{_verb(who, 'raise')} to {event['total']}"
    return f"{who} {text}{' (all-in)' if event.get('is_all_in') else ''}"


def _verb(who: str, verb: str) -> str:
    """``verb`` agreeing with ``who``: "you call", "alice calls"."""
    return verb if who == "you" else verb + "s"


def hand_end_text(message: Mapping[str, Any], names: SeatNames) -> str:
    """How the hand ended: the board, the hands shown, who won which pot, the person's
    result."""
    reason = message["reason"]
    number = message["hand_number"]
    if reason == "VOID":
        return f"Hand {number} was called off: every chip went back."
    how = "showdown" if reason == "SHOWDOWN" else "all but one folded"
    lines = [f"Hand {number} over ({how})."]
    if message.get("board"):
        lines.append(f"Board: {cards_text(message['board'])}")
    for shown in message.get("shown_hands", []):
        who = names.label(shown["player_id"])
        cards = cards_text(shown["cards"])
        lines.append(f"  {who} {_verb(who, 'show')} {cards} ({shown['description']})")
    shown = _shown_ranks(message)
    for pot in message.get("pots", []):
        decided_by = _tie_break(pot, shown)
        for winner in pot["winners"]:
            who = names.label(winner["player_id"])
            description = f" with {pot['description']}" if pot.get("description") else ""
            lines.append(f"  {who} {_verb(who, 'win')} {winner['amount']}{description}{decided_by}")
    for stack in message.get("stacks", []):
        if stack["player_id"] == names.own_player_id:
            lines.append(f"You: {stack['net']:+d} this hand, stack {stack['stack']}.")
    return "\n".join(lines)


def _shown_ranks(message: Mapping[str, Any]) -> dict[int, HandRank]:
    """Each shown hand's value (seat index -> rank), from its cards and the board."""
    board = [card_from_wire(wire) for wire in message.get("board", [])]
    ranks = {}
    for shown in message.get("shown_hands", []):
        cards = [*(card_from_wire(wire) for wire in shown["cards"]), *board]
        known = [card for card in cards if card is not None]
        if len(known) < len(cards):
            continue  # a hidden card: nothing to rank
        with contextlib.suppress(InvalidHandError):  # no five cards to rank: no tie-break
            ranks[shown["seat_index"]] = evaluate(known)
    return ranks


def _tie_break(pot: Mapping[str, Any], shown: Mapping[int, HandRank]) -> str:
    """How the pot's winning hand beat a shown hand of the same description, when it did
    (``one pair, kings`` against ``one pair, kings``): `` (kicker: ace against queen)``;
    empty when no loser's hand reads the same.

    Cards are compared in the order the hand ranks them (the groups, then the kickers,
    high to low): the first that differs decided the pot.
    """
    winners = {winner.get("seat_index") for winner in pot["winners"]}
    best = next((shown[seat] for seat in winners if seat in shown), None)
    if best is None:
        return ""
    alike = [
        rank
        for seat, rank in shown.items()
        if seat not in winners
        and seat in pot.get("eligible_seats", ())
        and rank.description == best.description
        and rank < best
    ]
    if not alike:
        return ""
    runner_up = max(alike)
    for place, (ours, theirs) in enumerate(zip(best.best_five, runner_up.best_five, strict=True)):
        if ours >> 2 != theirs >> 2:
            what = "kicker" if place else "high card"
            if best.category in (HandCategory.FLUSH, HandCategory.HIGH_CARD):
                what = _ORDINALS[place] + " card"
            return f" ({what}: {_rank_name(ours)} against {_rank_name(theirs)})"
    return ""  # pragma: no cover - equal ranks would have split the pot


_ORDINALS = ("first", "second", "third", "fourth", "fifth")


def _rank_name(card: int) -> str:
    """``ace``, ``ten``, ``two``: the rank of a card in words."""
    return RANK_NAMES[card >> 2]


def error_text(message: Mapping[str, Any]) -> str:
    """A refusal or timeout from the arena (the seat checks entries first, so mostly the
    time running out)."""
    if message.get("code") == "timeout":
        return f"Time is up: {message['message']}"
    left = message.get("attempts_left", 0)
    return f"The arena refused that: {message['message']} ({left} tries left)"


def match_end_text(message: Mapping[str, Any], names: SeatNames) -> str:
    """The final standings, best first."""
    lines = [f"\nMatch over after {_count(message['hands_played'], 'hand')}."]
    standings = message.get("standings", [])
    width = max((len(_standing_label(entry, names)) for entry in standings), default=0)
    for entry in standings:
        label = _standing_label(entry, names).ljust(width)
        lines.append(f"  {entry['place']}. {label}  {entry['net']:+d}")
    return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    """``1 hand``, ``3 hands``."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _standing_label(entry: Mapping[str, Any], names: SeatNames) -> str:
    # The name the table was given for the seat (a chat table's is plain text), as in
    # every other line; the standing's own name otherwise.
    name = names.names.get(entry["player_id"], entry["name"])
    if entry["player_id"] == names.own_player_id:
        return f"you ({name})"
    return str(name)


def _own_seat(message: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for seat in message.get("table_state", []):
        if seat["seat_index"] == message["seat_index"]:
            return seat  # type: ignore[no-any-return]
    return None
