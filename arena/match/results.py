"""The outcome of a match: chips and big blinds won per bot, places, faults, latency.

Written as ``results.json`` next to the hand history. Big blinds per 100 hands is
``100 * sum(net_chips_in_hand / big_blind_of_that_hand) / hands_played``: each hand is
measured in its own big blind, so the figure stays meaningful under a rising blind
schedule (with fixed blinds it is simply ``chips_won / big_blind / hands * 100``).

>>> player = PlayerResult(player_id="p0", name="caller", seat_index=0, hands_played=200,
...                       chips_won=300, big_blinds_won=150.0)
>>> player.big_blinds_per_100
75.0

With the luck estimator on (:mod:`arena.luck`), each bot's luck-adjusted big blinds are
beside the raw ones (``adjusted_big_blinds_won``; luck is raw minus adjusted) and the
result names the estimator; without it neither key is written, as before it existed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.store.outcome import HandSummary

__all__ = ["RESULT_FORMAT", "MatchResult", "PlayerResult"]

#: Version of the ``results.json`` layout.
RESULT_FORMAT = 1


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One bot's line in the results."""

    player_id: str
    name: str
    seat_index: int
    hands_played: int
    chips_won: int
    big_blinds_won: float
    final_stack: int | None = None  # chips at the end when stacks carry over
    place: int | None = None  # 1 = best; ties share a place
    eliminated_in_hand: int | None = None  # the hand in which it lost its last chip
    is_sitting_out: bool = False  # restart budget exhausted: folded every hand
    faults: dict[str, Any] = field(default_factory=dict)  # FaultLedger.to_dict()
    #: The seat's stderr file, relative to the match's folder ("stderr/0-alice.log"); None
    #: when none was written (no folder, no process ran, or a results file from before).
    stderr_log: str | None = None
    stderr_bytes: int | None = None  # bytes the bot wrote to stderr, kept or not
    #: Big blinds won, luck-adjusted (each hand in its own big blind); None without the
    #: luck estimator.
    adjusted_big_blinds_won: float | None = None

    @property
    def big_blinds_per_100(self) -> float:
        """Big blinds won per 100 hands played (0.0 before any hand)."""
        return self._per_100(self.big_blinds_won)

    def _per_100(self, big_blinds: float) -> float:
        return 0.0 if self.hands_played == 0 else 100.0 * big_blinds / self.hands_played

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (``big_blinds_per_100`` included, rounded to 0.01); the
        stderr keys only when the seat's stderr was kept (a match without a folder, or
        with in-memory bots, writes the same file as before they existed)."""
        out = {
            "player_id": self.player_id,
            "name": self.name,
            "seat_index": self.seat_index,
            "hands_played": self.hands_played,
            "chips_won": self.chips_won,
            "big_blinds_won": round(self.big_blinds_won, 4),
            "big_blinds_per_100": round(self.big_blinds_per_100, 2),
            "final_stack": self.final_stack,
            "place": self.place,
            "eliminated_in_hand": self.eliminated_in_hand,
            "is_sitting_out": self.is_sitting_out,
            "faults": self.faults,
        }
        if self.stderr_log is not None or self.stderr_bytes is not None:
            out["stderr_log"] = self.stderr_log
            out["stderr_bytes"] = self.stderr_bytes
        adjusted = self.adjusted_big_blinds_won
        if adjusted is not None:
            out["adjusted_big_blinds_won"] = round(adjusted, 4)
            out["adjusted_big_blinds_per_100"] = round(self._per_100(adjusted), 2)
            out["luck_big_blinds"] = round(self.big_blinds_won - adjusted, 4)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PlayerResult:
        """Inverse of :meth:`to_dict` (the derived ``big_blinds_per_100`` is ignored)."""
        return cls(
            player_id=data["player_id"],
            name=data["name"],
            seat_index=data["seat_index"],
            hands_played=data["hands_played"],
            chips_won=data["chips_won"],
            big_blinds_won=float(data["big_blinds_won"]),
            final_stack=data.get("final_stack"),
            place=data.get("place"),
            eliminated_in_hand=data.get("eliminated_in_hand"),
            is_sitting_out=bool(data.get("is_sitting_out", False)),
            faults=dict(data.get("faults") or {}),
            stderr_log=data.get("stderr_log"),
            stderr_bytes=data.get("stderr_bytes"),
            adjusted_big_blinds_won=(
                None
                if data.get("adjusted_big_blinds_won") is None
                else float(data["adjusted_big_blinds_won"])
            ),
        )


@dataclass(frozen=True, slots=True)
class MatchResult:
    """Everything a match produced except the hands themselves (those are in the history).

    ``estimator`` names the luck estimator and its version when it ran. ``hands`` holds
    each hand's summary (its big blind, each seat's net chips and, with the estimator,
    luck-adjusted result) for whoever plays the match in memory (a tournament's worker,
    the intervals of ``arena match``'s table); it is not written to ``results.json``
    (the hand history has the hands).
    """

    match_id: str
    seed: int
    mode: str  # "hands" (stacks reset), "carry" (--no-reset) or "freezeout"
    hands_played: int
    players: tuple[PlayerResult, ...]
    config: dict[str, Any] = field(default_factory=dict)
    duration_s: float = 0.0
    decision_count: int = 0
    ended_reason: str = ""  # "hand_count", "one_player_left", "max_hands", ...
    history_path: str | None = None
    estimator: str | None = None
    hands: tuple[HandSummary, ...] = field(default=(), compare=False, repr=False)

    @property
    def hands_per_second(self) -> float:
        """Hands dealt per second of wall-clock time."""
        return self.hands_played / self.duration_s if self.duration_s > 0 else 0.0

    def player(self, player_id: str) -> PlayerResult:
        """The result of ``player_id`` (``KeyError`` naming it when absent)."""
        for player in self.players:
            if player.player_id == player_id:
                return player
        raise KeyError(f"no player {player_id!r} in match {self.match_id}")

    def ranked(self) -> list[PlayerResult]:
        """Players best first: by place, then by chips won, then by seat."""
        return sorted(
            self.players,
            key=lambda p: (
                p.place if p.place is not None else len(self.players) + 1,
                -p.chips_won,
                p.seat_index,
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "format": RESULT_FORMAT,
            "match_id": self.match_id,
            "seed": self.seed,
            "mode": self.mode,
            "hands_played": self.hands_played,
            "decision_count": self.decision_count,
            "ended_reason": self.ended_reason,
            "duration_s": round(self.duration_s, 3),
            "hands_per_second": round(self.hands_per_second, 1),
            "history_path": self.history_path,
            "config": self.config,
            **({} if self.estimator is None else {"estimator": self.estimator}),
            "players": [player.to_dict() for player in self.players],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchResult:
        """Inverse of :meth:`to_dict`."""
        return cls(
            match_id=data["match_id"],
            seed=data["seed"],
            mode=data["mode"],
            hands_played=data["hands_played"],
            players=tuple(PlayerResult.from_dict(p) for p in data["players"]),
            config=dict(data.get("config") or {}),
            duration_s=float(data.get("duration_s", 0.0)),
            decision_count=int(data.get("decision_count", 0)),
            ended_reason=data.get("ended_reason", ""),
            history_path=data.get("history_path"),
            estimator=data.get("estimator"),
        )

    def write_json(self, path: Path) -> None:
        """Write ``results.json`` (indented: people read it)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    @classmethod
    def read_json(cls, path: Path) -> MatchResult:
        """Load a ``results.json`` written by :meth:`write_json`."""
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
