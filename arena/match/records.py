"""The records of a match's hand history, as typed values with one encoder.

``hands.jsonl`` holds one JSON object per line (layout ``HISTORY_FORMAT`` 1)::

    {"type": "match", "format": 1, "match_id": ..., "seed": ..., "config": {...},
     "players": [{"player_id": "p0", "seat_index": 0, "name": "..."}, ...]}
    {"type": "hand", "hand_number": 1, "hand_id": "...", "sitting_out": [seat_index, ...],
     "decisions": [decision, ...], "history": {engine document}}
    ...
    {"type": "match_end", "hands_played": N, "standings": [...]}

``history`` is :func:`engine.history.hand_to_history` of the hand (deck, seats, every
event), so a hand can be dealt again by the engine alone. ``decisions`` holds, for every
decision in order, the raw replies the bot sent (what ``arena replay`` parses again), the
action applied and who chose it: ``"bot"`` (its reply), ``"policy"`` (the arena's default
after a timeout, a crash or too many invalid replies), ``"sitting_out"`` or ``"dead"``
(the bot was not asked).

Nothing time-dependent is written (no timestamps, no latencies: those are in
``results.json``), so with deterministic bots the same seed gives a byte-identical file.
Each record's ``to_dict`` gives the keys in the order they are written, and
:func:`encode_record` is the one place a record becomes a line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena.store.hand_log import HISTORY_FORMAT
from engine.actions import Action, Discard, RaiseTo
from engine.tournament import Standing
from protocol import messages

__all__ = [
    "HISTORY_FORMAT",
    "DecisionRecord",
    "HandRecord",
    "MatchEndRecord",
    "MatchHeader",
    "PlayerEntry",
    "Record",
    "StandingEntry",
    "action_to_dict",
    "encode_record",
    "encode_value",
]

# Made once (json.dumps with options builds an encoder per call); records are trees, so
# the cycle check is skipped (a cycle would still fail, as a RecursionError).
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False)


def action_to_dict(action: Action) -> dict[str, Any]:
    """The action as recorded in the hand history (wire names, raise-to amounts).

    >>> from engine.actions import Fold
    >>> action_to_dict(RaiseTo(40)), action_to_dict(Fold())
    ({'action': 'RAISE', 'amount': 40}, {'action': 'FOLD'})
    """
    if isinstance(action, RaiseTo):
        return {"action": action.kind.value, "amount": action.amount}
    if isinstance(action, Discard):
        return {"action": action.kind.value, "cards": [str(card) for card in action.cards]}
    return {"action": action.kind.value}


@dataclass(frozen=True, slots=True)
class PlayerEntry:
    """A bot at the table, as the header lists it."""

    player_id: str
    seat_index: int
    name: str

    def to_dict(self) -> dict[str, Any]:
        """The header's ``players`` entry."""
        return {"player_id": self.player_id, "seat_index": self.seat_index, "name": self.name}


@dataclass(frozen=True, slots=True)
class MatchHeader:
    """The first record: the match's id, seed, configuration and players."""

    match_id: str
    seed: int
    config: dict[str, Any]
    players: tuple[PlayerEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        """The record as written."""
        return {
            "type": "match",
            "format": HISTORY_FORMAT,
            "match_id": self.match_id,
            "seed": self.seed,
            "config": self.config,
            "players": [player.to_dict() for player in self.players],
        }

    def to_line(self) -> str:
        """The record's line (:func:`encode_record`)."""
        return encode_record(self)


@dataclass(frozen=True, slots=True)
class DecisionRecord:
    """One decision of a hand: who chose the action, and the bot's replies if it was asked.

    ``replies`` is None when the bot was not asked (sitting out, dead); ``fault`` names
    why the arena chose (``timeout``, ``invalid_reply``, ``crash``, ...).
    ``distribution`` is the mixed strategy the bot reported and the arena drew ``action``
    from, as ``({"action": ..., "amount": ...}, probability)`` pairs in the bot's order;
    None when the bot answered with one action. Only the entries of probability above 0
    are kept, each a legal move, and the probabilities are the bot's divided by their sum
    (the bot's own numbers are in its reply): the distribution the draw used
    (:mod:`arena.session.draws`). It stays in the arena's records: no other seat is ever
    sent it (the luck estimator's action term reads it).
    """

    seat_index: int
    player_id: str
    phase: str
    by: str
    action: Action
    replies: tuple[dict[str, Any], ...] | None = None
    fault: str | None = None
    distribution: tuple[tuple[dict[str, Any], float], ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as written."""
        data: dict[str, Any] = {
            "seat_index": self.seat_index,
            "player_id": self.player_id,
            "phase": self.phase,
            "by": self.by,
            "action": action_to_dict(self.action),
        }
        if self.replies is not None:
            data["replies"] = list(self.replies)
        if self.fault is not None:
            data["fault"] = self.fault
        if self.distribution is not None:
            data["distribution"] = [
                {"action": action, "probability": probability}
                for action, probability in self.distribution
            ]
        return data


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand: the seats sitting out, every decision, and the engine's history document.

    ``history_text`` is ``history`` already encoded (:func:`encode_value`), when it was
    encoded in a step of its own; the line is the same either way. ``luck`` is the luck
    estimator's result for the hand (its name and version and each seat's adjusted
    result), None when the match ran without it.
    """

    hand_number: int
    hand_id: str
    sitting_out: tuple[int, ...]
    decisions: tuple[DecisionRecord, ...]
    history: dict[str, Any]
    history_text: str | None = field(default=None, compare=False, repr=False)
    luck: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as written (``history`` last: the biggest value)."""
        data: dict[str, Any] = {
            "type": "hand",
            "hand_number": self.hand_number,
            "hand_id": self.hand_id,
            "sitting_out": list(self.sitting_out),
            "decisions": [decision.to_dict() for decision in self.decisions],
        }
        if self.luck is not None:
            data["luck"] = self.luck
        data["history"] = self.history
        return data

    def to_line(self) -> str:
        """The record's line (:func:`encode_record`)."""
        return encode_record(self)


@dataclass(frozen=True, slots=True)
class StandingEntry(messages.Standing):
    """A final place as ``match_end`` lists it (the message's own line, written as sent);
    ``net`` is the chips won in the match and ``chips`` the final stack, None when stacks
    reset every hand (there is none)."""

    @classmethod
    def of(
        cls, standing: Standing, *, name: str, net: int, is_carried: bool = True
    ) -> StandingEntry:
        """The entry for one of the engine's standings (``is_carried``: stacks carry over,
        so the standing's chips are a real final stack)."""
        chips = standing.chips if is_carried else None
        return cls(standing.player_id, name, chips, net, standing.place)


@dataclass(frozen=True, slots=True)
class MatchEndRecord:
    """The last record: how many hands were played and the final standings."""

    hands_played: int
    standings: tuple[StandingEntry, ...]

    def to_dict(self) -> dict[str, Any]:
        """The record as written."""
        return {
            "type": "match_end",
            "hands_played": self.hands_played,
            "standings": [entry.to_dict() for entry in self.standings],
        }

    def to_line(self) -> str:
        """The record's line (:func:`encode_record`)."""
        return encode_record(self)


#: Any record of the hand history.
Record = MatchHeader | HandRecord | MatchEndRecord


def encode_record(record: Record) -> str:
    """The record's line: compact JSON, keys in the written order, and a newline.

    >>> encode_record(MatchEndRecord(3, ()))
    '{"type":"match_end","hands_played":3,"standings":[]}\\n'
    """
    data = record.to_dict()
    if isinstance(record, HandRecord) and record.history_text is not None:
        # "history" is the last key: the head's text, then the history's, in one object.
        del data["history"]
        head = _ENCODER.encode(data)
        return f'{head[:-1]},"history":{record.history_text}}}\n'
    return _ENCODER.encode(data) + "\n"


def encode_value(value: Any) -> str:
    """A record's value as :func:`encode_record` writes it.

    >>> encode_value({"seed": "1:2", "name": "café"})
    '{"seed":"1:2","name":"café"}'
    """
    return _ENCODER.encode(value)
