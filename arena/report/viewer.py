"""A hand's steps for the report's hand viewer, computed from the hand history's events.

The viewer draws a table at one moment of a hand: each seat's stack, its bet in front of
it, whether it folded, the pots, the board. Those moments are computed here, in Python,
from the events the engine recorded (``engine.history``), one snapshot per step; the page's
script only draws a snapshot and never replays poker rules. A snapshot is a few short
arrays (one entry per seat; the cards only in five-card draw, where they change), so a
hand of 30 steps at a 6-seat table is about 8 KB of JSON, and the report embeds a
bounded number of hands. Snapshots rather than events for the script to replay: the
script stays a drawing routine, and the size is bounded by the number of hands embedded.

The steps follow the events: the deal (every hole card face up, as a spectator sees the
hand once it is over), the antes and blinds, every action, each street (the bets of the
round are gathered into the pots first), each draw of five-card draw (what was thrown
and what came), the uncalled bet going back, the showdown (what each shown hand is) and
each pot going to its winners. Pots are layered as the dealer layers them
(:func:`engine.pots.build_pots`): a player all-in for less can win only what it
matched, so the chips above it make a side pot. When the pots are awarded the viewer
shows the engine's own pots (the ``pot_awarded`` events), so what it draws at the end is
exactly what was paid.

Chips are conserved at every step (stacks, bets and pots add up to the starting stacks;
the tests check it on engine-played hands), and the last step's stacks are the hand's
final stacks.

>>> history = {"hand_number": 1, "button_index": 0,
...     "config": {"variant": "holdem", "structure": "no_limit", "small_blind": 1,
...                "big_blind": 2, "ante": 0, "ante_mode": "every_player"},
...     "seats": [{"seat_index": 0, "player_id": "p0", "stack": 10},
...               {"seat_index": 1, "player_id": "p1", "stack": 10}],
...     "events": [
...         {"type": "hand_started", "seats": [{"seat_index": 0}, {"seat_index": 1}]},
...         {"type": "blind_posted", "seat_index": 0, "blind": "small_blind", "amount": 1},
...         {"type": "blind_posted", "seat_index": 1, "blind": "big_blind", "amount": 2},
...         {"type": "action_taken", "seat_index": 0, "kind": "FOLD", "amount": 0,
...          "total": 1},
...         {"type": "uncalled_bet_returned", "seat_index": 1, "amount": 1},
...         {"type": "pot_awarded", "pot_index": 0, "amount": 2,
...          "eligible_seat_indexes": [1], "shares": [{"seat_index": 1, "amount": 2}],
...          "description": ""},
...         {"type": "hand_ended", "reason": "FOLD",
...          "final_stacks": [{"seat_index": 0, "stack": 9}, {"seat_index": 1, "stack": 11}]}],
...     "result": {"awards": [{"amount": 2, "shares": [{"seat_index": 1, "amount": 2}],
...                            "hand_description": ""}]}}
>>> hand = viewer_hand(history, {"p0": "ann", "p1": "bob"}, match_id="m")
>>> [step["say"] for step in hand["steps"]]  # doctest: +NORMALIZE_WHITESPACE
['hand 1: ann has the button; blinds 1/2', 'ann posts the small blind 1, bob posts the
 big blind 2', 'ann folds', '1 uncalled returned to bob', 'bob wins 2 (others folded)']
>>> hand["steps"][-1]["stacks"], hand["result"]["winners"][0]["why"]
([9, 11], 'others folded')
>>> [(seat["name"], seat["net"]) for seat in hand["seats"]]
[('ann', -1), ('bob', 1)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.pots import build_pots

__all__ = ["FOLDED_WHY", "ViewerError", "viewer_hand"]

#: The reason shown for a pot won because every other player folded.
FOLDED_WHY = "others folded"

_STREET_NAMES = {"FLOP": "flop", "TURN": "turn", "RIVER": "river"}


class ViewerError(ValueError):
    """A hand history the viewer cannot follow; the message names the hand and the event."""


def viewer_hand(
    history: Mapping[str, Any],
    names: Mapping[str, str],
    *,
    match_id: str,
    decisions: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """The viewer's document of one hand: its seats, board, result and steps.

    ``history`` is the engine's hand history (``engine.history.hand_to_history``),
    ``names`` maps its player ids to the bots' names, ``decisions`` are the hand record's
    decisions (who chose each action: an action the arena chose for a bot that faulted is
    marked). A history that does not follow the engine's layout raises
    :class:`ViewerError` naming the hand.
    """
    try:
        return _Replay(history, names, decisions).document(match_id)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError) as error:
        raise ViewerError(
            f"hand {match_id}/{history.get('hand_number')}: the history cannot be shown "
            f"({type(error).__name__}: {error})"
        ) from None


class _Replay:
    """Walks a hand's events once and records the table after each step."""

    def __init__(
        self,
        history: Mapping[str, Any],
        names: Mapping[str, str],
        decisions: Sequence[Mapping[str, Any]],
    ) -> None:
        self.history = history
        self.config: Mapping[str, Any] = history["config"]
        seats = history["seats"]
        self.position = {seat["seat_index"]: index for index, seat in enumerate(seats)}
        count = len(seats)
        self.names = [str(names.get(seat["player_id"], seat["player_id"])) for seat in seats]
        self.starts = [int(seat["stack"]) for seat in seats]
        self.stacks = list(self.starts)
        self.bets = [0] * count  # this betting round's, in front of the seat
        self.collected = [0] * count  # gathered into the pots (antes, earlier rounds)
        self.dead = [0] * count  # dead money (a big blind ante) inside ``collected``
        self.status = ["out"] * count  # "in", "folded", "allin" or "out" (not dealt in)
        self.notes = [""] * count
        self.cards: list[list[str]] = [[] for _ in range(count)]
        self.board: list[str] = []
        self.board_count = 0
        self.awarded: list[dict[str, Any]] | None = None  # the engine's pots, once paid
        self.award_count = sum(1 for e in history["events"] if e["type"] == "pot_awarded")
        self.posts: list[str] = []
        self.decisions = [d for d in decisions if isinstance(d, Mapping)]
        self.decision_index = 0
        self.draws: list[dict[str, Any]] = []
        self.faults: list[str] = []
        self.steps: list[dict[str, Any]] = []
        self.final_stacks: list[int] | None = None
        self.is_draw = self.config.get("variant") == "five_card_draw"
        self.dealt: list[list[str]] = self.cards  # replaced below by a copy of the deal

    # -- the walk ----------------------------------------------------------------------

    def document(self, match_id: str) -> dict[str, Any]:
        """Walk the events and return the hand's viewer document."""
        events = self.history["events"]
        for event in events:  # every hole card face up from the start (a spectator's view)
            if event["type"] == "hole_cards_dealt":
                self.cards[self.position[event["seat_index"]]] = list(event["cards"])
        self.dealt = [list(cards) for cards in self.cards]
        for event in events:
            handler = getattr(self, "on_" + str(event["type"]), None)
            if handler is not None:
                handler(event)
        self.flush_posts()
        result = self.result()
        if self.award_count > 1:
            self.step("result: " + result["say"])
        if self.final_stacks is not None and self.final_stacks != self.stacks:
            self.stacks = list(self.final_stacks)  # our own bug: show what was recorded
            self.step("final stacks (as recorded)")
        config = self.config
        history = self.history
        return {
            "id": f"{match_id}/{history['hand_number']}",
            "match": match_id,
            "number": history["hand_number"],
            "variant": config.get("variant", "holdem"),
            "structure": config.get("structure", ""),
            "blinds": [
                config.get("small_blind", 0),
                config.get("big_blind", 0),
                config.get("ante", 0),
            ],
            "button": self.position.get(history.get("button_index"), -1),
            # Each seat's net result of the hand: its final stack less its starting one.
            "seats": [
                {"name": name, "seat": seat["seat_index"], "start": start, "net": end - start}
                for name, seat, start, end in zip(
                    self.names, history["seats"], self.starts, self.stacks, strict=True
                )
            ],
            "cards": self.dealt,
            "board": self.board,
            "pot": result["pot"],
            "result": result,
            "draws": self.draws,
            "faults": self.faults,
            "steps": self.steps,
        }

    def step(self, say: str, *, actor: int | None = None) -> dict[str, Any]:
        """Record the table as it is now as one step of the viewer."""
        if self.awarded is not None:
            pots = self.awarded
        else:
            live = [status in ("in", "allin") for status in self.status]
            pots = [
                {"amount": pot.amount, "seats": list(pot.eligible)}
                for pot in build_pots(self.collected, live, dead_money=self.dead)
                if pot.amount
            ]
        snapshot: dict[str, Any] = {
            "say": say,
            "actor": actor,
            "stacks": list(self.stacks),
            "bets": list(self.bets),
            "status": list(self.status),
            "notes": list(self.notes),
            "pots": [{"amount": pot["amount"], "seats": list(pot["seats"])} for pot in pots],
            "board": self.board_count,
        }
        if self.is_draw:  # the cards change in a draw; in hold'em they never do
            snapshot["cards"] = [list(cards) for cards in self.cards]
        self.steps.append(snapshot)
        return snapshot

    def flush_posts(self) -> None:
        """The antes and blinds as one step, once the first thing after them happens."""
        if self.posts:
            self.step(", ".join(self.posts))
            self.posts = []

    def gather(self) -> None:
        """The round's bets go into the pots (the next step draws it)."""
        for seat, bet in enumerate(self.bets):
            self.collected[seat] += bet
        self.bets = [0] * len(self.bets)

    def next_decision(self) -> Mapping[str, Any] | None:
        index = self.decision_index
        self.decision_index += 1
        return self.decisions[index] if index < len(self.decisions) else None

    def mark_chosen_by_arena(self, text: str, decision: Mapping[str, Any] | None) -> str:
        """An action the arena chose (the bot timed out, crashed or kept replying nonsense)."""
        by = None if decision is None else decision.get("by")
        if by in (None, "bot"):
            return text
        why = "the arena's default for a faulted bot" if by == "policy" else str(by)
        marked = f"{text} ({why})"
        self.faults.append(marked)
        return marked

    # -- one handler per event type ------------------------------------------------------

    def on_hand_started(self, event: Mapping[str, Any]) -> None:
        for seat in event["seats"]:
            self.status[self.position[seat["seat_index"]]] = "in"
        button = self.history.get("button_index")
        who = self.names[self.position[button]] if button in self.position else "nobody"
        config = self.config
        blinds = f"{config.get('small_blind', 0)}/{config.get('big_blind', 0)}"
        ante = f", ante {config['ante']}" if config.get("ante") else ""
        self.step(
            f"hand {self.history['hand_number']}: {who} has the button; blinds {blinds}{ante}"
        )

    def on_ante_posted(self, event: Mapping[str, Any]) -> None:
        seat = self.position[event["seat_index"]]
        amount = int(event["amount"])
        self.stacks[seat] -= amount
        self.collected[seat] += amount  # antes go straight into the pot, not in front
        if self.config.get("ante_mode") == "big_blind":
            self.dead[seat] += amount  # the table's ante, paid by the big blind: dead money
        self.posts.append(f"{self.names[seat]} posts the ante {amount}")
        self.notes[seat] = f"ante {amount}"
        if event.get("is_all_in"):
            self.status[seat] = "allin"

    def on_blind_posted(self, event: Mapping[str, Any]) -> None:
        seat = self.position[event["seat_index"]]
        amount = int(event["amount"])
        self.stacks[seat] -= amount
        self.bets[seat] += amount
        blind = str(event.get("blind", "blind")).replace("_", " ")
        self.posts.append(f"{self.names[seat]} posts the {blind} {amount}")
        self.notes[seat] = f"{blind} {amount}"
        if event.get("is_all_in"):
            self.status[seat] = "allin"

    def on_action_taken(self, event: Mapping[str, Any]) -> None:
        self.flush_posts()
        seat = self.position[event["seat_index"]]
        kind = event["kind"]
        amount = int(event.get("amount", 0))
        total = int(event.get("total", 0))
        if kind == "FOLD":
            self.status[seat] = "folded"
            text = "folds"
        elif kind == "CHECK":
            text = "checks"
        elif kind == "CALL":
            text = f"calls {amount}"
        elif event.get("is_bet"):
            text = f"bets {total}"
        else:
            text = f"raises to {total}"
        self.stacks[seat] -= amount
        if kind != "FOLD":
            self.bets[seat] = total
        if event.get("is_all_in"):
            self.status[seat] = "allin"
            text += " (all-in)"
        self.notes[seat] = text
        said = self.mark_chosen_by_arena(f"{self.names[seat]} {text}", self.next_decision())
        self.step(said, actor=seat)

    def on_cards_drawn(self, event: Mapping[str, Any]) -> None:
        """Five-card draw: kept cards stay in their places, the new ones come after them."""
        self.flush_posts()
        seat = self.position[event["seat_index"]]
        discarded = list(event.get("discarded", ()))
        drawn = list(event.get("drawn", ()))
        name = self.names[seat]
        self.cards[seat] = [card for card in self.cards[seat] if card not in discarded] + drawn
        if discarded:
            text = f"{name} discards {' '.join(discarded)} and draws {' '.join(drawn)}"
            self.notes[seat] = f"throws {' '.join(discarded)}, draws {len(drawn)}"
        else:
            text = f"{name} stands pat"
            self.notes[seat] = "stands pat"
        said = self.mark_chosen_by_arena(text, self.next_decision())
        self.step(said, actor=seat)["draw"] = {"discarded": discarded, "drawn": drawn}
        self.draws.append({"seat": seat, "name": name, "discarded": discarded, "drawn": drawn})

    def on_betting_round_complete(self, event: Mapping[str, Any]) -> None:
        self.flush_posts()
        self.gather()
        self.notes = ["" for _ in self.notes]  # the round's actions are over

    def on_street_dealt(self, event: Mapping[str, Any]) -> None:
        self.flush_posts()  # all-in on the blinds: the board comes with no action
        self.gather()
        self.board = list(event["board"])
        self.board_count = len(self.board)
        self.notes = ["" for _ in self.notes]
        street = _STREET_NAMES.get(str(event.get("phase")), "board")
        self.step(f"{street}: {' '.join(event['cards'])}")

    def on_stub_reshuffled(self, event: Mapping[str, Any]) -> None:
        count = event.get("card_count", 0)
        self.step(f"the stub ran out: {count} mucked cards are shuffled into a new one")

    def on_uncalled_bet_returned(self, event: Mapping[str, Any]) -> None:
        self.flush_posts()
        seat = self.position[event["seat_index"]]
        amount = int(event["amount"])
        from_bet = min(amount, self.bets[seat])
        self.bets[seat] -= from_bet
        self.collected[seat] -= amount - from_bet
        self.stacks[seat] += amount
        self.step(f"{amount} uncalled returned to {self.names[seat]}", actor=seat)

    def on_hand_shown(self, event: Mapping[str, Any]) -> None:
        self.gather()
        seat = self.position[event["seat_index"]]
        description = str(event.get("description", ""))
        self.notes[seat] = description
        text = f"{self.names[seat]} shows {' '.join(event['cards'])}"
        self.step(f"{text}: {description}" if description else text, actor=seat)

    def on_hand_mucked(self, event: Mapping[str, Any]) -> None:
        self.gather()
        seat = self.position[event["seat_index"]]
        self.notes[seat] = "mucks"
        self.step(f"{self.names[seat]} mucks", actor=seat)

    def on_pot_awarded(self, event: Mapping[str, Any]) -> None:
        """One pot goes to its winners; from the first award on, the pots drawn are the
        engine's own (what was paid)."""
        self.flush_posts()
        self.gather()
        if self.awarded is None:
            self.awarded = [
                {
                    "amount": int(e["amount"]),
                    "seats": [self.position[s] for s in e["eligible_seat_indexes"]],
                }
                for e in self.history["events"]
                if e["type"] == "pot_awarded"
            ]
            self.collected = [0] * len(self.collected)
            self.dead = [0] * len(self.dead)
        self.awarded.pop(0)  # the engine pays its pots in order, one event each
        why = str(event.get("description") or "") or FOLDED_WHY
        pieces = []
        winners = []
        for share in event["shares"]:
            seat = self.position[share["seat_index"]]
            amount = int(share["amount"])
            self.stacks[seat] += amount
            self.notes[seat] = f"wins {amount}"
            pieces.append(f"{self.names[seat]} wins {amount}")
            winners.append(seat)
        if self.award_count > 1:
            pot = "the main pot" if not event.get("pot_index") else f"side pot {event['pot_index']}"
            why = f"{pot}: {why}"
        snapshot = self.step(", ".join(pieces) + f" ({why})", actor=winners[0] if winners else None)
        snapshot["win"] = winners

    def on_hand_voided(self, event: Mapping[str, Any]) -> None:
        for refund in event["refunds"]:
            self.stacks[self.position[refund["seat_index"]]] += int(refund["amount"])
        self.bets = [0] * len(self.bets)
        self.collected = [0] * len(self.collected)
        self.dead = [0] * len(self.dead)
        self.awarded = []
        self.step(f"the hand is voided ({event.get('reason', '')}): every bet is refunded")

    def on_hand_ended(self, event: Mapping[str, Any]) -> None:
        final = list(self.stacks)
        for entry in event["final_stacks"]:
            final[self.position[entry["seat_index"]]] = int(entry["stack"])
        self.final_stacks = final

    # -- the result ----------------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """Who won what and why (the award's hand description, or "others folded")."""
        result = self.history.get("result") or {}
        winners: dict[int, dict[str, Any]] = {}
        pot = 0
        for award in result.get("awards", ()):
            pot += int(award.get("amount", 0))
            why = str(award.get("hand_description") or "") or FOLDED_WHY
            for share in award.get("shares", ()):
                seat = self.position[share["seat_index"]]
                entry = winners.setdefault(
                    seat, {"seat": seat, "name": self.names[seat], "amount": 0, "why": why}
                )
                entry["amount"] += int(share["amount"])
        ordered = sorted(winners.values(), key=lambda entry: (-entry["amount"], entry["seat"]))
        reason = str(result.get("ended_reason", "")).lower()
        if ordered:
            say = "; ".join(f"{w['name']} wins {w['amount']} ({w['why']})" for w in ordered)
        elif reason == "void":
            say = "the hand was voided: every bet was refunded"
        else:
            say = "the hand is not over"
        return {"reason": reason, "winners": ordered, "pot": pot, "say": say}
