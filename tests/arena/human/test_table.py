"""A person's seat in real matches (in-memory bots, a fake clock) and the table's sessions."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import pytest

from arena.bots.in_memory import FakeClock, InMemoryTransport
from arena.human.seat import HumanSeat, LeftTableError
from arena.human.table import (
    PersonDecider,
    human_session,
    player_names,
    table_sessions,
)
from arena.human.transport import NO_TIME_LIMIT_S, HumanTransport
from arena.match.config import MatchConfig, MatchConfigError
from arena.match.players import Decider
from arena.match.replay import replay_file
from arena.match.run import run_match
from arena.session.policy import TimeLimits
from engine.actions import Fold
from engine.config import GameConfig, Variant
from engine.hand import Hand
from engine.seating import SeatSetup
from tests.arena.human.helpers import TIMEOUT, ScriptedFrontEnd
from tests.arena.scripted import Bot, calling_station, exits_on_match_end, min_raiser


def idle() -> InMemoryTransport:
    """A bot that is never started in these tests."""
    return InMemoryTransport(calling_station)


def play_with_person(
    entries: Sequence[str | None],
    config: MatchConfig,
    out_dir: Path,
    *,
    seat_index: int = 0,
    timeout_s: float | None = None,
    bots: tuple[Bot, ...] = (calling_station,),
) -> ScriptedFrontEnd:
    """A match of the person (typing ``entries``) against in-memory bots on a fake clock."""
    clock = FakeClock()
    front = ScriptedFrontEnd(list(entries), clock=clock)
    seat = HumanSeat(front, name="ann", names={"p1": "station"}, clock=clock)

    def factory(bot: Bot) -> Callable[[], InMemoryTransport]:
        return lambda: InMemoryTransport(exits_on_match_end(bot), clock=clock)

    table = table_sessions(
        [(f"bot{index}", factory(bot)) for index, bot in enumerate(bots)],
        config,
        seat,
        seat_index=seat_index,
        timeout_s=timeout_s,
        clock=clock,
    )
    run_match(config, table, out_dir, clock=clock)
    return front


def test_a_persons_match_is_recorded_and_replays_identical(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=7, prefetch=False)
    front = play_with_person(["zz", "r 10", "c", "f"] + ["c"] * 30, config, tmp_path)
    results = json.loads((tmp_path / "results.json").read_text())
    person = results["players"][0]
    assert person["name"] == "ann" and person["hands_played"] == 3
    assert person["faults"]["faults"] == []  # a refused entry is no fault
    lines = (tmp_path / "hands.jsonl").read_text().splitlines()
    replies = [
        reply
        for line in lines[1:-1]
        for decision in json.loads(line)["decisions"]
        if decision["seat_index"] == 0 and decision["by"] == "bot"
        for reply in decision["replies"]
    ]
    assert replies[0] == {"type": "action", "seq": 2, "action": "RAISE", "amount": 10}
    report = replay_file(tmp_path / "hands.jsonl")
    assert report.is_ok and len(report.checks) == 3
    assert "'zz' is not an action" in front.screen
    assert "Match over after 3 hands." in front.screen


def test_a_person_in_a_later_seat_of_a_draw_game(tmp_path: Path) -> None:
    game = GameConfig(variant=Variant.FIVE_CARD_DRAW)
    config = MatchConfig(game=game, hand_count=2, seed=3, prefetch=False)
    entries = ["c", "1 2", "c", "c", "pat", "c", "c", "c", "c"]
    front = play_with_person(
        entries, config, tmp_path, seat_index=2, bots=(calling_station, min_raiser)
    )
    assert "discard> " in [text for text, _ in front.prompts]
    assert "You sit in seat 2 of 3" in front.screen
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_a_person_out_of_time_gets_the_default_action_as_a_bot_does(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=1, seed=7, prefetch=False)
    front = play_with_person([TIMEOUT] + ["c"] * 10, config, tmp_path, timeout_s=30.0)
    text, timeout_s = front.prompts[0]
    assert text == "your action> " and timeout_s == pytest.approx(30.05)  # with the grace
    assert "Time is up: no reply to request 2 within 30000 ms; FOLD was applied" in front.screen
    results = json.loads((tmp_path / "results.json").read_text())
    counts = results["players"][0]["faults"]["counts"]
    assert {kind: n for kind, n in counts.items() if n} == {"timeout": 1}
    assert results["players"][0]["faults"]["faults"][0]["latency_ms"] == pytest.approx(30050)
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_leaving_the_table_stops_the_match_and_keeps_the_hands_played(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=5, seed=7, prefetch=False)
    with pytest.raises(LeftTableError):
        play_with_person(["f", "f", "q"], config, tmp_path)
    lines = (tmp_path / "hands.jsonl").read_text().splitlines()
    assert len(lines) == 3  # the header and the two hands folded before leaving
    assert not (tmp_path / "results.json").exists()
    report = replay_file(tmp_path / "hands.jsonl")
    assert report.is_ok and len(report.checks) == 2


# -- the sessions of the table ------------------------------------------------------------------


def test_the_person_takes_their_seat_and_the_bots_fill_the_others_in_order() -> None:
    seat = HumanSeat(ScriptedFrontEnd([]), name="ann")
    config = MatchConfig(time_limits=TimeLimits(decision_s=2.0))
    table = table_sessions([("a", idle), ("b", idle)], config, seat, seat_index=1)
    assert [name for name, _ in table] == ["a", "ann", "b"]
    assert [session.name for _, session in table] == ["a", "ann", "b"]
    assert [session.player_id for _, session in table] == ["p0", "p1", "p2"]
    assert [session.seat_index for _, session in table] == [0, 1, 2]
    person = table[1][1]
    assert person.limits.decision_s == NO_TIME_LIMIT_S and person.limits.time_bank_s == 0
    assert table[0][1].limits.decision_s == 2.0
    assert all(session.transport is None for _, session in table)  # nothing started yet


def test_the_person_has_no_time_limit_unless_given_one() -> None:
    seat = HumanSeat(ScriptedFrontEnd([]))
    untimed = human_session(seat, MatchConfig(), seat_index=0)
    timed = human_session(seat, MatchConfig(), seat_index=0, timeout_s=20.0)
    assert untimed.limits.decision_s == NO_TIME_LIMIT_S
    assert timed.limits.decision_s == 20.0
    transport = timed.transport_factory()
    assert isinstance(transport, HumanTransport) and transport.is_timed
    assert not untimed.transport_factory().is_timed  # type: ignore[attr-defined]


@pytest.mark.parametrize("timeout_s", [0.0, -1.0, float("nan")])
def test_a_time_limit_that_is_not_positive_is_refused(timeout_s: float) -> None:
    seat = HumanSeat(ScriptedFrontEnd([]))
    with pytest.raises(MatchConfigError, match="the person's time limit must be positive"):
        human_session(seat, MatchConfig(), seat_index=0, timeout_s=timeout_s)


def test_a_seat_not_at_the_table_is_refused() -> None:
    seat = HumanSeat(ScriptedFrontEnd([]))
    with pytest.raises(MatchConfigError, match=r"seat 2 is not at a table of 2 \(0..1\)"):
        table_sessions([("a", idle)], MatchConfig(), seat, seat_index=2)
    with pytest.raises(MatchConfigError, match="a match needs 2 to 10 bots, got 11"):
        table_sessions([("a", idle)] * 10, MatchConfig(), seat)


def test_player_names_skip_the_persons_seat() -> None:
    assert player_names(["a", "b"], seat_index=0) == {"p1": "a", "p2": "b"}
    assert player_names(["a", "b"], seat_index=2) == {"p0": "a", "p1": "b"}


def test_a_person_who_lets_the_time_run_out_three_times_is_hung_like_a_bot(
    tmp_path: Path,
) -> None:
    # Three timeouts in a row: the seat is closed, folded for the rest of the hand and
    # started again (a new hello) before the next hand, within the restart budget.
    config = MatchConfig(hand_count=5, seed=7, prefetch=False)
    front = play_with_person([TIMEOUT] * 3 + ["f"] * 10, config, tmp_path, timeout_s=10.0)
    results = json.loads((tmp_path / "results.json").read_text())
    counts = results["players"][0]["faults"]["counts"]
    assert counts["timeout"] == 3 and counts["hung"] == 1 and counts["restart"] == 1
    assert front.screen.count("Welcome, ann.") == 2
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_the_person_is_told_the_rest_of_each_hand_before_it_ends() -> None:
    # Folding ends the person's part of the hand: no request tells them the rest, so the
    # match's decider tells it (their fold, the blind the station takes back).
    config = MatchConfig(hand_count=2, seed=7, prefetch=False)
    clock = FakeClock()
    front = ScriptedFrontEnd(["f", "f"], clock=clock)
    seat = HumanSeat(front, name="ann", names={"p1": "station"}, clock=clock)
    bot = exits_on_match_end(calling_station)
    table = table_sessions(
        [("station", lambda: InMemoryTransport(bot, clock=clock))], config, seat, clock=clock
    )
    run_match(
        config,
        table,
        clock=clock,
        wrap_decider=lambda inner: PersonDecider(inner, seat, seat_index=0),
    )
    text = "\n".join(front.shown)
    first = text[text.rindex("You may:", 0, text.index("Hand 1 over")) : text.index("Hand 1 over")]
    assert first.splitlines()[1:] == ["you fold", "station takes back 1 (not called)"]
    assert "you fold" in text[text.index("=== Hand 2") : text.index("Hand 2 over")]


class _Heard:
    """A decider that only hears hands end."""

    def __init__(self) -> None:
        self.ended: list[str] = []

    def hand_ended(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        self.ended.append(hand_id)


def test_a_person_sitting_out_or_not_dealt_in_is_told_nothing_more() -> None:
    front = ScriptedFrontEnd([])
    seat = HumanSeat(front, name="ann")
    heard = _Heard()
    hand = Hand.start(
        GameConfig(small_blind=1, big_blind=2),
        [SeatSetup(0, "p0", 100), SeatSetup(1, "p1", 100)],
        button_index=0,
        rng=random.Random(1),
    )
    hand.act(Fold())
    for seat_index, sitting_out in ((0, [0]), (5, [])):
        decider = PersonDecider(cast(Decider, heard), seat, seat_index=seat_index)
        decider.hand_ended(hand, "m-1", sitting_out)
    assert front.shown == [] and heard.ended == ["m-1", "m-1"]
