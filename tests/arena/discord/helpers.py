"""A recording sink and a driver that plays people's turns through the table manager."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.in_memory import InMemoryTransport
from arena.discord.table import ChatTable
from arena.discord.tables import TableManager
from tests.arena.scripted import calling_station, exits_on_match_end

#: Longest wait for anything a test expects (a bug fails the test, it never hangs it).
WAIT_S = 20.0

#: A card as the texts write it: rank and suit letter ("Ah", "Td").
CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")
HAND_HEADER = re.compile(r"\bHand (\d+)\b")


@dataclass(frozen=True)
class Sent:
    """One text the table sent: to the channel (``to`` is its id) or a person."""

    is_channel: bool
    to: int
    text: str


class RecordingSink:
    """Keeps every text in order (the worker thread and the test thread both write)."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self._lock = threading.Lock()

    def to_channel(self, channel_id: int, text: str) -> None:
        with self._lock:
            self.sent.append(Sent(True, channel_id, text))

    def to_person(self, user_id: int, text: str) -> None:
        with self._lock:
            self.sent.append(Sent(False, user_id, text))

    def channel(self) -> list[str]:
        return [sent.text for sent in self.sent if sent.is_channel]

    def person(self, user_id: int) -> list[str]:
        return [sent.text for sent in self.sent if not sent.is_channel and sent.to == user_id]


def station_factory() -> InMemoryTransport:
    """The calling station, in memory (answers at once)."""
    return InMemoryTransport(exits_on_match_end(calling_station))


def manager(
    sink: RecordingSink, runs: Path, **bots: Callable[[], InMemoryTransport]
) -> TableManager:
    """A manager whose configured bots are ``bots`` (default: the calling station)."""
    return TableManager(sink, bots or {"station": station_factory}, runs, seed=lambda: 11)


#: A person's strategy: the entry to type for a turn (None: let the time run out).
Strategy = Callable[[ChatTable], str | None]


def play_out(tables: TableManager, channel_id: int, people: Mapping[int, Strategy]) -> list[str]:
    """Play people's turns (``people``: seat index -> strategy) until the match ends;
    returns every reply the manager gave."""
    table = tables.table(channel_id)
    assert table is not None
    users = {index: seat.user_id for index, seat in enumerate(table.seats)}
    replies = []
    turn = None
    while True:
        turn = table.wait_turn(WAIT_S, after=turn)
        if turn is None:
            break
        strategy = people.get(turn.seat_index)
        user_id = users[turn.seat_index]
        if strategy is None or user_id is None:
            continue
        entry = strategy(table)
        if entry is not None:
            replies.append(tables.act(channel_id, user_id, entry))
    table.join(WAIT_S)
    assert not table.is_running
    return replies


def history(out_dir: Path) -> list[dict[str, Any]]:
    """The table's hand history, one record per hand."""
    lines = (out_dir / "hands.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]
