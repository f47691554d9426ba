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

from arena.tools.replay import replay_file
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
