"""The parts of a chat table one by one: settings, the public texts, the tapped seats, and
the ways a table can stop."""

from __future__ import annotations

import asyncio
import json
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import InMemoryTransport
from arena.bots.stderr_log import CappedLog
from arena.bots.transport import BotStartError, ExitInfo
from arena.discord.bot import DiscordSink
from arena.discord.public import public_event, public_table_text
from arena.discord.seats import TappedTransport, tapped_factory
from arena.discord.settings import SettingsError, TableSettings, parse_settings
from arena.discord.table import TableState
from arena.discord.tables import TableManager
from arena.human.render import SeatNames
from arena.match.config import MatchConfig
from arena.session.policy import TimeLimits
from arena.store.run_folder import RunFolder
from tests.arena.discord.helpers import WAIT_S, RecordingSink, play_out, station_factory
from tests.arena.scripted import calling_station

CHANNEL, ANN = 5, 1


def test_settings_in_minutes_and_with_a_hand_cap() -> None:
    settings = parse_settings("level=1m hands=3 turn=2m blinds=0.02 stack=300")
    assert settings.blind_fraction == Fraction(1, 50)
    assert (settings.small_blind, settings.big_blind, settings.turn_s) == (3, 6, 120.0)
    schedule = settings.schedule()
    assert schedule.is_timed and schedule.every_seconds == 60.0
    assert settings.describe() == (
        "stacks 300, blinds 3/6 doubling every 1 minute, 120 s a turn, at most 3 hands"
    )
    assert (
        TableSettings(level_hands=1)
        .describe()
        .startswith("stacks 1000, blinds 5/10 doubling every 1 hand,")
    )
    # A tiny stack still has a big blind of 2 chips and a small blind of 1.
    assert (
        TableSettings(starting_stack=4).small_blind,
        TableSettings(starting_stack=4).big_blind,
    ) == (1, 2)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("stack", "'stack' is not key=value"),
        ("seats=4", "unknown setting 'seats'"),
        ("level=10", "level '10' must be hands (10h) or minutes (15m)"),
        ("level=0m", "level '0m' must be hands"),
        ("turn=soon", "turn 'soon' must be a time above 0"),
        ("turn=2h", "turn '2h' must be a time above 0"),
        ("turn=2000m", "turn '2000m' is longer than 3600 s"),
        ("hands=0", "hands '0' must be a whole number above 0"),
        ("blinds=1/0", "blinds '1/0' must be a fraction"),
        ("stack=3 blinds=1/3", "stack 3 is too small for blinds of 1/3 of it"),
    ],
)
def test_bad_settings_name_the_bad_value(text: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_settings(text)


def seat(index: int, **extra: Any) -> dict[str, Any]:
    row = {"player_id": f"p{index}", "seat_index": index, "position": "", "stack": 50,
           "status": "ACTIVE", "current_bet": 0, "discard_count": None}  # fmt: skip
    row.update(extra)
    return row


def test_the_public_table_shows_side_pots_and_draws_without_the_cards() -> None:
    request = {
        "type": "act", "seq": 3, "hand_id": "d-1", "hand_number": 4, "seat_index": 1,
        "game_state": "POST_DRAW_BET", "hole_cards": [{"rank": "A", "suit": "spades"}],
        "community_cards": [], "current_bet": 0, "to_call": 0, "min_raise_to": 2,
        "max_raise_to": 50, "legal_actions": ["FOLD", "CHECK", "RAISE", "ALL_IN"],
        "player_stack": 50, "pot_total": 90,
        "pots": [{"amount": 60}, {"amount": 30}],
        "table_state": [seat(0, discard_count=2, status="ALL_IN"), seat(1, discard_count=0)],
        "history": [
            {"type": "hole_cards_dealt", "seat_index": 1, "cards": ["As"]},
            {"type": "cards_drawn", "seat_index": 0, "discarded": None, "discard_count": 2},
            {"type": "cards_drawn", "seat_index": 1, "discarded": [], "drawn": []},
        ],
    }  # fmt: skip
    text = public_table_text(request, SeatNames(None, {"p0": "ann", "p1": "bob"}))
    assert text.splitlines() == [
        "ann draws 2",
        "bob draws 0",
        "**Hand 4** · after the draw · pot 90 (pot 1: 60, pot 2: 30)",
        "`seat 0` ann: stack 50, bet 0  all-in  drew 2",
        "`seat 1` bob: stack 50, bet 0  drew 0  <- to act",
        "To act: bob, who may: fold, check, bet 2..50, all-in 50",
    ]
    assert public_event({"type": "something_new"}) is None


class StderrTransport(InMemoryTransport):
    """An in-memory bot that keeps a stderr log, as a process does."""

    @property
    def stderr_log(self) -> CappedLog:
        return CappedLog(100)


class Watcher:
    def __init__(self) -> None:
        self.seen: list[tuple[int, str]] = []

    def seat_message(self, seat_index: int, message: dict[str, Any]) -> None:
        self.seen.append((seat_index, str(message["type"])))

    def seat_replied(self, seat_index: int) -> None:
        self.seen.append((seat_index, "replied"))


def test_a_tapped_seat_passes_everything_on_and_keeps_a_process_stderr() -> None:
    watcher = Watcher()
    process = tapped_factory(lambda: StderrTransport(calling_station), 3, watcher)()
    assert isinstance(process.stderr_log, CappedLog)  # type: ignore[attr-defined]
    plain = tapped_factory(lambda: InMemoryTransport(calling_station), 1, watcher)()
    assert isinstance(plain, TappedTransport) and not hasattr(plain, "stderr_log")
    assert plain.is_alive and not plain.has_output()
    plain.send(b'{"type":"hand_end","hand_id":"x"}\n')
    assert plain.read_line(deadline=0.0) is None  # nothing to answer: no reply heard
    assert watcher.seen == [(1, "hand_end")]
    assert isinstance(plain.close(0.0), ExitInfo) and not plain.is_alive


def failing_factory() -> InMemoryTransport:
    raise BotStartError("no such program")


def broken_factory() -> InMemoryTransport:
    raise RuntimeError("an arena bug")


@pytest.mark.parametrize(
    ("factory", "told"),
    [
        (failing_factory, "The table could not start: "),
        (broken_factory, "The table stopped on an error of the arena: an arena bug"),
    ],
)
@pytest.mark.allow_error_logs
def test_a_table_that_cannot_play_says_why_in_the_channel(
    tmp_path: Path, factory: Any, told: str
) -> None:
    sink = RecordingSink()
    tables = TableManager(sink, {"bad": factory}, tmp_path)
    tables.open(CHANNEL, ANN, "ann")
    tables.seat_bot(CHANNEL, ANN, "bad")
    tables.start(CHANNEL, ANN)
    play_out(tables, CHANNEL, {})
    assert sink.channel()[-1].startswith(told)
    table = tables.table(CHANNEL)
    assert table is not None and table.state is TableState.OVER and table.result is None


def test_two_tables_of_one_channel_in_one_second_get_their_own_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The folder is named after the time to the second (time.strftime).
    monkeypatch.setattr(time, "strftime", lambda pattern: "STAMP")
    (tmp_path / f"discord-{CHANNEL}-STAMP").mkdir()
    sink = RecordingSink()
    tables = TableManager(sink, {"station": station_factory}, tmp_path, seed=lambda: 2)
    tables.open(CHANNEL, ANN, "ann", "stack=100 blinds=1/10 level=1h")
    tables.seat_bot(CHANNEL, ANN, "station")
    tables.start(CHANNEL, ANN)
    table = tables.table(CHANNEL)
    assert table is not None and table.wait_turn(WAIT_S) is not None
    # While it plays, the status shows the latest public table.
    assert "To act: " in tables.status(CHANNEL)
    play_out(tables, CHANNEL, {0: lambda table: "all in"})
    assert table.out_dir == tmp_path / f"discord-{CHANNEL}-STAMP-2"


def test_the_discord_sink_must_be_started_and_drops_texts_once_the_client_closed() -> None:
    sink = DiscordSink(client=None)  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="not started"):
        sink.to_channel(1, "hello")

    async def start() -> None:
        sink.start()
        sink.start()  # a second start does nothing
        await sink.stop()

    loop = asyncio.new_event_loop()
    loop.run_until_complete(start())
    loop.close()
    sink.to_person(2, "too late")  # no error: nobody to tell any more


def test_the_bots_of_a_table_play_under_the_time_limits_it_was_given(tmp_path: Path) -> None:
    # The manager's time limits reach the match whole (the time bank too); a person's
    # seat has the table's turn time instead, which is not what the header records.
    limits = TimeLimits(decision_s=1.5, startup_s=4.0, time_bank_s=2.0)
    sink = RecordingSink()
    tables = TableManager(sink, {"station": station_factory}, tmp_path, time_limits=limits)
    assert TableManager(sink, {}, tmp_path).time_limits == TimeLimits()  # the arena's own
    tables.open(CHANNEL, ANN, "ann", "stack=100 blinds=1/10 level=1h")
    tables.seat_bot(CHANNEL, ANN, "station")
    tables.start(CHANNEL, ANN)
    play_out(tables, CHANNEL, {0: lambda table: "all in"})
    table = tables.table(CHANNEL)
    assert table is not None and table.out_dir is not None
    history = RunFolder(table.out_dir).history.read_text(encoding="utf-8")
    header = json.loads(history.splitlines()[0])
    assert MatchConfig.from_dict(header["config"]).time_limits == limits
