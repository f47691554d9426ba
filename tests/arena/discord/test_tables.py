"""Tables with people and a bot, driven through the manager's commands (no Discord)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from arena.bots.manifest import load_manifest
from arena.bots.process import process_factory
from arena.commands.report import report_after_run
from arena.discord.table import ChatTable, TableState
from arena.discord.tables import TableManager
from arena.match.replay import replay_file
from tests.arena.discord.helpers import (
    CARD,
    HAND_HEADER,
    WAIT_S,
    RecordingSink,
    history,
    manager,
    play_out,
)
from tests.arena.scripted import SAMPLE_BOTS

CHANNEL, ANN, BOB = 100, 1, 2


def shove(table: ChatTable) -> str:
    return "all in"


def call(table: ChatTable) -> str:
    return "call"


def table_of_three(
    tmp_path: Path, settings: str = "stack=100 blinds=1/20 level=1h"
) -> tuple[TableManager, RecordingSink]:
    """Ann and Bob (people) and the calling station, started."""
    sink = RecordingSink()
    tables = manager(sink, tmp_path)
    assert tables.open(CHANNEL, ANN, "ann", settings).startswith("ann opened a table")
    assert tables.join(CHANNEL, BOB, "bob") == "bob joined: 2 seats."
    assert tables.seat_bot(CHANNEL, ANN, "station") == "Bot station takes seat 2."
    assert tables.start(CHANNEL, ANN).startswith("Shuffle up and deal: ann, bob, station.")
    return tables, sink


def finished(tables: TableManager) -> ChatTable:
    table = tables.table(CHANNEL)
    assert table is not None and table.state is TableState.OVER
    return table


def test_a_freezeout_of_two_people_and_a_bot_is_played_to_its_winner(tmp_path: Path) -> None:
    tables, sink = table_of_three(tmp_path)
    play_out(tables, CHANNEL, {0: shove, 1: call})
    table = finished(tables)
    assert table.result is not None and table.result.ended_reason == "one_player_left"
    winner = [p for p in table.result.players if p.final_stack == 300]
    assert len(winner) == 1
    channel = sink.channel()
    # The showdown is public: the shown hands and the winner with the hand's name.
    assert any(" shows " in text and " wins " in text and " with " in text for text in channel)
    assert f"  1. {winner[0].name}" in channel[-2]
    assert channel[-1].startswith("Hand history:")
    # The table wrote the same hand history as a match: it replays, and reports.
    assert table.out_dir is not None
    assert replay_file(table.out_dir / "hands.jsonl").is_ok
    assert report_after_run(table.out_dir, io.StringIO()) is not None
    results = json.loads((table.out_dir / "results.json").read_text())
    assert results["mode"] == "freezeout"


def test_hole_cards_go_privately_and_the_channel_never_shows_an_unseen_card(
    tmp_path: Path,
) -> None:
    tables, sink = table_of_three(tmp_path, "stack=200 blinds=1/50 level=3h")
    play_out(tables, CHANNEL, {0: call, 1: call})
    table = finished(tables)
    assert table.out_dir is not None
    hands = [record for record in history(table.out_dir) if record["type"] == "hand"]
    assert len(hands) >= 2
    public: dict[int, set[str]] = {}
    for hand in hands:
        events = hand["history"]["events"]
        seen = {card for e in events if e["type"] == "street_dealt" for card in e["board"]}
        seen |= {card for e in events if e["type"] == "hand_shown" for card in e["cards"]}
        public[hand["hand_number"]] = seen
        for event in events:
            if event["type"] == "hole_cards_dealt" and event["seat_index"] in (0, 1):
                user = (ANN, BOB)[event["seat_index"]]
                # Each person got their own cards by direct message.
                expected = f"=== Hand {hand['hand_number']} "
                start = [text for text in sink.person(user) if expected in text]
                assert start and f"Your cards: {' '.join(event['cards'])}" in start[0]
    for text in sink.channel():
        numbers = {int(number) for number in HAND_HEADER.findall(text)}
        allowed = set().union(*(public[n] for n in numbers)) if numbers else set()
        assert set(CARD.findall(text)) <= allowed, text
    # A person's own texts never name another seat's unshown cards of that hand.
    bob_cards = {
        hand["hand_number"]: {
            card
            for e in hand["history"]["events"]
            if e["type"] == "hole_cards_dealt" and e["seat_index"] == 1
            for card in e["cards"]
        }
        for hand in hands
    }
    for text in sink.person(ANN):
        for number in {int(number) for number in HAND_HEADER.findall(text)}:
            assert not set(CARD.findall(text)) & (bob_cards[number] - public[number]), text


def test_a_bad_command_gets_what_is_legal_now_and_changes_nothing(tmp_path: Path) -> None:
    tables, sink = table_of_three(tmp_path)
    table = tables.table(CHANNEL)
    assert table is not None
    turn = table.wait_turn(WAIT_S)
    assert turn is not None and turn.seat_index == 0  # Ann is on the button, first to act
    reply = tables.act(CHANNEL, ANN, "raise 3")
    assert reply.startswith("raise to 3 below minimum 10. You may: fold, call 5, raise 10..100")
    assert tables.act(CHANNEL, ANN, "dance") == (
        "'dance' is not an action (? for help). You may: fold, call 5, raise 10..100, all-in 100"
    )
    assert tables.act(CHANNEL, ANN, "bet").startswith("'bet' needs an amount")
    assert table.turn() == turn  # still Ann's turn, the same request
    assert tables.act(CHANNEL, ANN, "help") == "You may: fold, call 5, raise 10..100, all-in 100"
    assert tables.act(CHANNEL, ANN, "raise to 20") == ""
    play_out(tables, CHANNEL, {0: shove, 1: shove})
    assert any("ann raises to 20" in text for text in sink.channel())


def test_acting_out_of_turn_is_refused_without_changing_anything(tmp_path: Path) -> None:
    tables, sink = table_of_three(tmp_path)
    table = tables.table(CHANNEL)
    assert table is not None
    turn = table.wait_turn(WAIT_S)
    assert turn is not None and turn.seat_index == 0
    told = len(sink.channel())
    assert tables.act(CHANNEL, BOB, "fold") == "It is not your turn: it is ann's turn."
    assert tables.act(CHANNEL, 99, "fold") == "You are not at this table."
    assert table.turn() == turn and len(sink.channel()) == told
    assert tables.act(CHANNEL, ANN, "call") == ""
    play_out(tables, CHANNEL, {0: shove, 1: shove})
    first = [record for record in history(finished(tables).out_dir or tmp_path)][1]
    # Bob's early fold was never played: his first decision is his own later one.
    bob = [d for d in first["decisions"] if d["seat_index"] == 1]
    assert bob and bob[0]["action"]["action"] != "FOLD"


def test_a_person_out_of_time_is_checked_or_folded_as_a_bot(tmp_path: Path) -> None:
    sink = RecordingSink()
    tables = manager(sink, tmp_path)
    tables.open(CHANNEL, ANN, "ann", "stack=100 blinds=1/20 turn=0.05 hands=1")
    tables.join(CHANNEL, BOB, "bob")
    tables.start(CHANNEL, ANN)
    # Nobody types: Ann (small blind, facing the big blind) is folded.
    play_out(tables, CHANNEL, {})
    table = finished(tables)
    assert any(text.startswith("ann ran out of time: ") for text in sink.channel())
    hand = history(table.out_dir or tmp_path)[1]
    assert hand["decisions"][0]["action"]["action"] == "FOLD"
    assert any(text.startswith("Time is up") for text in sink.person(ANN))


def test_a_person_who_leaves_mid_freezeout_is_folded_until_blinded_out(tmp_path: Path) -> None:
    tables, _sink = table_of_three(tmp_path, "stack=100 blinds=1/20 level=2h")
    table = tables.table(CHANNEL)
    assert table is not None
    assert tables.leave(CHANNEL, BOB) == "You left: your seat folds every hand from now on."
    assert tables.leave(CHANNEL, BOB) == "You left this table already."
    assert tables.act(CHANNEL, BOB, "call") == "You left this table."
    assert "bob (person) (left)" in tables.status(CHANNEL)
    play_out(tables, CHANNEL, {0: call})
    table = finished(tables)
    hands = [record for record in history(table.out_dir or tmp_path) if record["type"] == "hand"]
    bob = [d for hand in hands for d in hand["decisions"] if d["seat_index"] == 1]
    assert bob and all(d["action"]["action"] == "FOLD" for d in bob)
    assert table.result is not None
    assert [p.final_stack for p in table.result.players if p.name == "bob"] == [0]


def test_the_lobby_takes_seats_until_the_start(tmp_path: Path) -> None:
    sink = RecordingSink()
    tables = manager(sink, tmp_path)
    assert tables.join(CHANNEL, BOB, "bob").endswith("open one first.")
    assert tables.open(CHANNEL, ANN, "ann", "stack=0").startswith("stack '0' must be")
    assert tables.open(CHANNEL, ANN, "x" * 65).startswith("A name must be 1 to 64")
    tables.open(CHANNEL, ANN, "ann")
    assert tables.open(CHANNEL, BOB, "bob") == "This channel has a table already (open)."
    assert tables.join(CHANNEL, ANN, "ann") == "You are at this table already."
    assert tables.seat_bot(CHANNEL, BOB, "station") == "Only a person at the table may seat a bot."
    assert tables.seat_bot(CHANNEL, ANN, "shark") == "No bot named 'shark'; the bots: station."
    assert tables.act(CHANNEL, ANN, "call") == "The game has not started."
    tables.join(CHANNEL, BOB, "bob")
    assert tables.start(CHANNEL, BOB) == "Only the host (ann) may start the table."
    assert tables.leave(CHANNEL, ANN) == "ann left the table."
    assert tables.start(CHANNEL, BOB).startswith("A table needs at least 2 seats")
    for _index in range(9):
        tables.seat_bot(CHANNEL, BOB, "station")
    assert tables.seat_bot(CHANNEL, BOB, "station") == "The table is full (10 seats)."
    assert tables.join(CHANNEL, ANN, "ann") == "The table is full (10 seats)."
    status = tables.status(CHANNEL)
    assert status.startswith("Table (open): stacks 1000, blinds 5/10")
    assert "`seat 0` bob (person)" in status and "`seat 9` station (bot)" in status
    assert tables.leave(CHANNEL, BOB) == "bob left the table. Nobody is left: the table is closed."
    assert tables.status(CHANNEL) == "There is no table in this channel."
    assert tables.act(CHANNEL, BOB, "call") == "There is no table in this channel."
    assert tables.leave(CHANNEL, BOB) == "There is no table playing in this channel."


def test_seats_are_fixed_once_the_table_plays_and_a_new_one_opens_after(tmp_path: Path) -> None:
    tables, _sink = table_of_three(tmp_path)
    assert tables.join(CHANNEL, 3, "cy") == "The table has started: seats are fixed until it ends."
    assert tables.open(CHANNEL, 3, "cy") == "This channel has a table already (playing)."
    assert tables.table(CHANNEL) is not None
    play_out(tables, CHANNEL, {0: shove, 1: shove})
    assert tables.act(CHANNEL, ANN, "call") == "The game is over."
    assert tables.leave(CHANNEL, ANN) == "There is no table playing in this channel."
    assert tables.open(CHANNEL, 3, "cy").startswith("cy opened a table")


def test_closing_stops_a_table_and_keeps_the_hands_played(tmp_path: Path) -> None:
    tables, sink = table_of_three(tmp_path)
    table = tables.table(CHANNEL)
    assert table is not None and table.wait_turn(WAIT_S) is not None
    tables.close(WAIT_S)
    assert table.state is TableState.OVER and not table.is_running
    assert sink.channel()[-1].startswith("The table was closed; the hands played are in")


@pytest.mark.parametrize("entry", ["quit", "table"])
def test_seat_commands_in_the_chat(tmp_path: Path, entry: str) -> None:
    tables, _sink = table_of_three(tmp_path)
    table = tables.table(CHANNEL)
    assert table is not None and table.wait_turn(WAIT_S) is not None
    reply = tables.act(CHANNEL, ANN, entry)
    if entry == "quit":
        assert reply == "You left: your seat folds every hand from now on."
    else:
        assert reply.startswith("You may: fold, call 5")
    play_out(tables, CHANNEL, {0: shove, 1: shove})
    assert finished(tables).result is not None


def test_a_bot_seat_is_an_ordinary_bot_process(tmp_path: Path) -> None:
    manifest = load_manifest(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
    sink = RecordingSink()
    tables = TableManager(sink, {"station": process_factory(manifest)}, tmp_path, seed=lambda: 4)
    tables.open(CHANNEL, ANN, "ann", "stack=100 blinds=1/10 hands=2")
    tables.seat_bot(CHANNEL, ANN, "station")
    tables.start(CHANNEL, ANN)
    play_out(tables, CHANNEL, {0: call})
    table = finished(tables)
    assert table.result is not None and table.result.hands_played >= 1
    assert table.out_dir is not None and replay_file(table.out_dir / "hands.jsonl").is_ok
