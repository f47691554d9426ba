"""``arena play`` driven through a pseudo-terminal (pexpect), as a person plays it: three
hands against the sample calling station with a bad entry, a call, a raise and a fold."""

from __future__ import annotations

import json
import re
import signal
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from arena.match.replay import replay_file
from tests import REPO_ROOT
from tests.arena.scripted import SAMPLE_BOTS

STATION = str(SAMPLE_BOTS / "python_calling_station" / "bot.toml")
PROMPT = "your action> "


def play_command() -> list[str]:
    """How ``arena play`` is started: the real command line."""
    return [sys.executable, "-m", "arena.cli", "play"]


@pytest.fixture
def game(tmp_path: Path) -> Iterator[tuple[pexpect.spawn[str], Path]]:
    """A person's game of 3 hands at a pseudo-terminal; killed if the test leaves it."""
    out_dir = tmp_path / "run"
    command = [*play_command(), STATION, "--hands", "3", "--seed", "11"]
    command += ["--sandbox", "none", "--out", str(out_dir), "--no-report", "--name", "ann"]
    child = pexpect.spawn(command[0], command[1:], cwd=str(REPO_ROOT), encoding="utf-8", timeout=60)
    try:
        yield child, out_dir
    finally:
        if child.isalive():
            # Ctrl-C first: the arena then stops its bots before it exits.
            child.kill(signal.SIGINT)
            child.expect([pexpect.EOF, pexpect.TIMEOUT], timeout=10)
        child.close(force=True)


def answer_until_the_hand_ends(child: pexpect.spawn[str], hand_number: int, entry: str) -> None:
    """Type ``entry`` at every prompt until hand ``hand_number`` is over."""
    while child.expect_exact([PROMPT, f"Hand {hand_number} over"]) == 0:
        child.sendline(entry)


def test_a_person_plays_three_hands_at_a_terminal(game: tuple[pexpect.spawn[str], Path]) -> None:
    child, out_dir = game
    child.expect_exact("Welcome, ann. You sit in seat 0 of 2: no-limit hold'em, blinds 1/2")
    # Hand 1: the person is on the button (the small blind heads-up) and acts first.
    child.expect_exact("=== Hand 1 · blinds 1/2 · you are on the button ===")
    child.expect_exact("You may: fold, call 1, raise 4..200, all-in 200")
    child.expect_exact(PROMPT)
    child.sendline("zz")
    child.expect_exact(
        "'zz' is not an action (? for help). You may: fold, call 1, raise 4..200, all-in 200"
    )
    child.expect_exact(PROMPT)
    child.sendline("c")  # a call
    child.expect_exact("you call 1")
    answer_until_the_hand_ends(child, 1, "c")  # then check it down
    # Hand 2: the person is the big blind; the station calls and the person raises.
    child.expect_exact("=== Hand 2 · blinds 1/2 · you are the big blind ===")
    child.expect_exact("python calling station calls 1")
    child.expect_exact("You may: fold, check, raise 4..200, all-in 200")
    child.expect_exact(PROMPT)
    child.sendline("r 10")
    child.expect_exact("you raise to 10")
    child.expect_exact("python calling station calls 8")
    answer_until_the_hand_ends(child, 2, "c")
    # Hand 3: the person folds at once.
    child.expect_exact("=== Hand 3 · blinds 1/2 · you are on the button ===")
    child.expect_exact(PROMPT)
    child.sendline("f")
    child.expect_exact("Hand 3 over (all but one folded).")
    child.expect_exact("Match over after 3 hands.")
    child.expect_exact("match play: 3 hands, seed 11")
    child.expect_exact(f"hand history: {out_dir / 'hands.jsonl'}")
    child.expect(pexpect.EOF)
    transcript = child.before  # what followed the last match; the whole text is below
    child.close()
    assert child.exitstatus == 0, transcript

    report = replay_file(out_dir / "hands.jsonl")
    assert report.is_ok and len(report.checks) == 3
    records = [json.loads(line) for line in (out_dir / "hands.jsonl").read_text().splitlines()]
    # The person's replies are recorded as a bot's are (the bad entry never left the seat).
    person: list[tuple[int, str, dict[str, Any]]] = [
        (record["hand_number"], decision["phase"], decision["replies"][-1])
        for record in records[1:-1]
        for decision in record["decisions"]
        if decision["seat_index"] == 0
    ]
    assert person[0] == (1, "PRE_FLOP", {"type": "action", "seq": 2, "action": "CALL"})
    raises = [(n, phase, reply) for n, phase, reply in person if reply["action"] == "RAISE"]
    assert [(n, phase, reply["amount"]) for n, phase, reply in raises] == [(2, "PRE_FLOP", 10)]
    assert person[-1][0] == 3 and person[-1][2]["action"] == "FOLD"
    decisions = [d for record in records[1:-1] for d in record["decisions"] if d["seat_index"] == 0]
    assert all(len(decision["replies"]) == 1 for decision in decisions)


@pytest.fixture
def logged_game(
    game: tuple[pexpect.spawn[str], Path],
) -> Iterator[tuple[pexpect.spawn[str], Path, list[str]]]:
    """The same game, with everything the terminal showed kept."""
    child, out_dir = game
    screen: list[str] = []

    class Log:
        def write(self, text: str) -> None:
            screen.append(text)

        def flush(self) -> None:
            pass

    child.logfile_read = Log()
    yield child, out_dir, screen


def test_no_bot_card_is_on_the_screen_before_its_showdown(
    logged_game: tuple[pexpect.spawn[str], Path, list[str]],
) -> None:
    child, out_dir, screen = logged_game
    for number in (1, 2, 3):
        answer_until_the_hand_ends(child, number, "c")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = "".join(screen)
    records = [json.loads(line) for line in (out_dir / "hands.jsonl").read_text().splitlines()]
    showdowns = 0
    for record in records[1:-1]:
        number = record["hand_number"]
        events = record["history"]["events"]
        bot_cards = next(
            e["cards"] for e in events if e["type"] == "hole_cards_dealt" and e["seat_index"] == 1
        )
        start = text.index(f"=== Hand {number} ·")
        end = text.index(f"Hand {number} over")
        during = set(re.findall(r"[2-9TJQKA][cdhs]", text[start:end]))
        assert not during & set(bot_cards), f"hand {number}: a bot card was shown"
        after = text[end : text.find("=== Hand", end) if number < 3 else len(text)]
        if any(e["type"] == "hand_shown" and e["seat_index"] == 1 for e in events):
            showdowns += 1
            assert " ".join(bot_cards) in after  # shown at showdown, as a bot would see it
    assert showdowns >= 1  # calling every hand down reaches a showdown


def _told(event: dict[str, Any], who: str) -> str | None:
    """The line the person should read for an event of the hand history (None: not told
    as a line of its own)."""
    kind = event["type"]
    verb = {"you": ""}.get(who, "s")
    if kind == "street_dealt":
        street = {"FLOP": "flop", "TURN": "turn", "RIVER": "river"}[event["phase"]]
        return f"{street}: {' '.join(event['board'])}"
    if kind == "uncalled_bet_returned":
        return f"{who} take{verb} back {event['amount']} (not called)"
    if kind == "hand_mucked":
        return f"{who} muck{verb}"
    if kind != "action_taken":
        return None
    action = event["kind"]
    all_in = " (all-in)" if event["is_all_in"] else ""
    if action in ("FOLD", "CHECK"):
        return f"{who} {action.lower()}{verb}"
    if action == "CALL":
        return f"{who} call{verb} {event['amount']}{all_in}"
    if event["is_bet"]:
        return f"{who} bet{verb} {event['total']}{all_in}"
    return f"{who} raise{verb} to {event['total']}{all_in}"


def test_the_rest_of_each_hand_is_shown_after_the_last_decision(
    logged_game: tuple[pexpect.spawn[str], Path, list[str]],
) -> None:
    # After the person's last decision of a hand no request comes to tell them the rest:
    # their own action, the bot's replies, the streets dealt must still be on the screen,
    # after the last prompt of the hand and before its result.
    child, out_dir, screen = logged_game
    answer_until_the_hand_ends(child, 1, "c")  # called and checked down
    answer_until_the_hand_ends(child, 2, "a")  # all-in: the streets are dealt after it
    child.expect_exact(PROMPT)
    child.sendline("f")  # hand 3: folded at once
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    text = "".join(screen).replace("\r\n", "\n")
    records = [json.loads(line) for line in (out_dir / "hands.jsonl").read_text().splitlines()]
    names = {0: "you", 1: "python calling station"}
    told_after = 0
    for record in records[1:-1]:
        number = record["hand_number"]
        events = record["history"]["events"]
        last = max(
            index
            for index, event in enumerate(events)
            if event["type"] == "action_taken" and event["seat_index"] == 0
        )
        expected = [
            line
            for event in events[last:]
            if (line := _told(event, names.get(event.get("seat_index", -1), ""))) is not None
        ]
        end = text.index(f"Hand {number} over")
        after_prompt = text.rindex(PROMPT, 0, end) + len(PROMPT)
        echo, *shown = text[after_prompt:end].splitlines()  # the terminal echoes the entry
        assert echo in ("c", "a", "f")
        assert shown == expected, f"hand {number}"
        told_after += len(expected)
    assert told_after > 3  # more than the person's own last action in each hand
    assert "river: " in text[text.rindex(PROMPT, 0, text.index("Hand 2 over")) :]
