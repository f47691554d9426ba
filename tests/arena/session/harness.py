"""Sessions on in-memory bots and a fake clock, for the session tests.

No process and no sleep: :class:`InMemoryTransport` runs a function as the bot and moves a
:class:`FakeClock` when the session waits, so a 5 s timeout takes no time at all.
:class:`StubTransport` scripts the lines a bot writes and breaks its pipe on demand.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from arena.bots.in_memory import BotExit, BotOutput, FakeClock, InMemoryTransport
from arena.bots.transport import ExitInfo, TransportClosedError
from arena.session.faults import FaultKind
from arena.session.policy import TimeLimits
from arena.session.watchdog import BotSession
from engine.actions import Call
from engine.cards import parse_cards
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.view import SeatView

HELLO: dict[str, Any] = {"player_id": "p0", "seat_index": 0, "game": {"variant": "holdem"}}


LIMITS = TimeLimits(decision_s=5.0, startup_s=10.0, grace_s=0.05)


Bot = Callable[[dict[str, Any]], BotOutput]


def new_hand() -> Hand:
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
    return Hand.start(
        GameConfig(small_blind=1, big_blind=2),
        seats,
        button_index=0,
        deck=Deck.stacked("As Kd Ah Kc"),
    )


def facing_bet_view() -> SeatView:
    """Seat 0 (button, small blind) to act pre-flop: a call is needed, no free check."""
    return new_hand().view(0)


def free_check_view() -> SeatView:
    """Seat 1 (big blind) after the button limped: checking is free."""
    hand = new_hand()
    hand.act(Call())
    return hand.view(1)


def draw_view() -> SeatView:
    """A five-card-draw discard decision (built by hand: only the fields the arena uses)."""
    view = facing_bet_view()
    legal = view.legal_actions
    assert legal is not None
    legal = dataclasses.replace(legal, can_draw=True, max_discard_count=3, can_fold=False)
    return dataclasses.replace(
        view,
        hole_cards=tuple(parse_cards("As Ad 7c 5h 2s")),
        legal_actions=legal,
        phase="DRAW",
    )


def reply(message: dict[str, Any], action: str = "CALL", **extra: Any) -> dict[str, Any]:
    return {"type": "action", "seq": message["seq"], "action": action, **extra}


def script(on_act: Callable[[dict[str, Any]], BotOutput], **others: Bot) -> Bot:
    """A bot: ready to hello, ``on_act`` for act/draw, ``others[type]`` for the rest; it
    exits at ``match_end`` unless ``others`` says otherwise."""

    def bot(message: dict[str, Any]) -> BotOutput:
        kind = message["type"]
        if kind == "hello":
            return {"type": "ready", "seq": message["seq"], "name": "scripted", "version": "2"}
        if kind in ("act", "draw"):
            return on_act(message)
        if kind in others:
            return others[kind](message)
        if kind == "match_end":
            raise BotExit(0)
        return None

    return bot


class Harness:
    """A session on a fake clock, keeping every transport it started."""

    def __init__(self, bot: Bot, **options: Any) -> None:
        self.clock = FakeClock(100.0)
        self.bot = bot
        self.transports: list[InMemoryTransport] = []
        options.setdefault("limits", LIMITS)
        self.session = BotSession(
            self.factory,
            player_id="p0",
            seat_index=0,
            clock=self.clock,
            **options,
        )

    def factory(self) -> InMemoryTransport:
        transport = InMemoryTransport(self.bot, clock=self.clock)
        self.transports.append(transport)
        return transport

    def start(self) -> BotSession:
        assert self.session.start(HELLO) is not None
        return self.session

    @property
    def sent(self) -> list[dict[str, Any]]:
        return [message for t in self.transports for message in t.sent]

    def sent_of(self, kind: str) -> list[dict[str, Any]]:
        return [message for message in self.sent if message["type"] == kind]

    def kinds(self) -> dict[FaultKind, int]:
        return {k: n for k, n in self.session.ledger.counts().items() if n}


class StubTransport:
    """A transport whose lines are scripted and whose ``send`` breaks on the n-th call."""

    def __init__(
        self,
        lines: list[bytes | None],
        *,
        fail_send_at: int | None = None,
        exit_info: ExitInfo | None = None,
    ) -> None:
        self.lines = lines
        self.fail_send_at = fail_send_at
        self.exit_info = exit_info or ExitInfo(exit_code=7, stderr_tail="Traceback: boom")
        self.sent: list[bytes] = []
        self.is_alive = True

    def send(self, data: bytes) -> None:
        self.sent.append(data)
        if len(self.sent) == self.fail_send_at:
            self.is_alive = False
            raise TransportClosedError("broken pipe")

    def read_line(self, deadline: float) -> bytes | None:
        return self.lines.pop(0) if self.lines else None

    def has_output(self) -> bool:
        return bool(self.lines)

    def close(self, grace_s: float) -> ExitInfo:
        self.is_alive = False
        return self.exit_info


READY = b'{"type":"ready","seq":1,"name":"stub"}'


def stub_session(transport: StubTransport) -> BotSession:
    return BotSession(lambda: transport, player_id="p0", seat_index=0, clock=FakeClock())


def mixed_reply(message: dict[str, Any]) -> dict[str, Any]:
    """A mixed strategy over every legal betting action (a RAISE to the minimum), with
    uneven probabilities that add up to 1: what a bot that reports its strategy sends."""
    names = list(message["legal_actions"])
    if "RAISE" in names and "ALL_IN" in names:
        names.remove("ALL_IN")  # may be the same move as a raise (a duplicate)
    if "CALL" in names and "ALL_IN" in names:
        names.remove("ALL_IN")  # the call may take the whole stack
    weights = [index + 1.5 for index in range(len(names))]
    entries = []
    for name, weight in zip(names, weights, strict=True):
        entry: dict[str, Any] = {"action": name, "probability": weight / sum(weights)}
        if name == "RAISE":
            entry["amount"] = message["min_raise_to"]
        entries.append(entry)
    return {"type": "action", "seq": message["seq"], "distribution": entries}


def mixer(received: list[dict[str, Any]] | None = None) -> Bot:
    """A bot that answers every ``act`` with :func:`mixed_reply` and stands pat in a draw;
    every message it gets is appended to ``received``."""

    def bot(message: dict[str, Any]) -> BotOutput:
        if received is not None:
            received.append(message)
        kind = message["type"]
        if kind == "hello":
            return {"type": "ready", "seq": message["seq"], "name": "mixer"}
        if kind == "act":
            return mixed_reply(message)
        if kind == "draw":
            return {"type": "discard", "seq": message["seq"], "cards": []}
        if kind == "match_end":
            raise BotExit(0)
        return None

    return bot
