"""``arena replay``: a match re-run from its recorded replies comes out identical."""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from arena.luck import ESTIMATOR, LuckError, LuckValue, estimate_hand, estimator_name, luck_record
from arena.match import replay
from arena.match.config import MatchConfig, StackPolicy
from arena.match.replay import (
    HandCheck,
    RecordedDecider,
    ReplayReport,
    replay_file,
    replay_run,
)
from arena.session.policy import TimeLimits
from arena.store.hand_log import HandLog, HandLogError
from engine.actions import Fold, LegalActions, RaiseTo
from engine.config import GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.schedule import BlindSchedule
from tests.arena.scripted import (
    calling_station,
    chooser,
    crasher,
    folder,
    garbage,
    match_leans,
    min_raiser,
    play,
    read_records,
    shover,
    sleeper,
)
from tests.arena.session.harness import mixer

Record = dict[str, Any]


def _history(tmp_path: Path, config: MatchConfig | None = None, bots: Any = None) -> Path:
    play(
        bots or [min_raiser, calling_station, folder],
        config or MatchConfig(hand_count=6, seed=21),
        tmp_path,
    )
    return tmp_path / "hands.jsonl"


def _rewrite(path: Path, change: Callable[[list[Record]], None]) -> None:
    records = read_records(path)
    change(records)
    path.write_text("".join(_json_line(record) for record in records), encoding="utf-8")


def _bot_decision(records: list[Record], *, hand_index: int = 0, action: str = "RAISE") -> Record:
    hands = [r for r in records if r["type"] == "hand"]
    return next(
        d
        for d in hands[hand_index]["decisions"]
        if d["by"] == "bot" and d["action"]["action"] == action
    )


def test_replay_of_an_untouched_history_is_identical(tmp_path: Path) -> None:
    report = replay_file(_history(tmp_path))
    assert report.is_ok, report.format()
    assert [check.hand_number for check in report.checks] == [1, 2, 3, 4, 5, 6]
    assert "6 hands replayed, 0 mismatched: identical" in report.format()
    assert "hand 3: OK" in report.format(verbose=True)
    assert "hand 3" not in report.format(verbose=False)


def test_replay_reproduces_faults_timeouts_and_restarts(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=5, seed=2, time_limits=TimeLimits(decision_s=0.5), restart_budget=1
    )
    bots = [garbage, sleeper(1.0), crasher(on="act"), min_raiser]
    report = replay_file(_history(tmp_path, config, bots))
    assert report.is_ok, report.format()


def test_replay_applies_check_on_timeout_as_the_match_did(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=4, seed=3, time_limits=TimeLimits(decision_s=0.5), check_on_timeout=True
    )
    report = replay_file(_history(tmp_path, config, [calling_station, sleeper(1.0)]))
    assert report.is_ok, report.format()


def test_replay_of_a_freezeout_with_a_schedule(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=None,
        seed=5,
        starting_stack=60,
        stack_policy=StackPolicy.FREEZEOUT,
        schedule=BlindSchedule.doubling(1, 2, every_hands=3),
    )
    report = replay_file(_history(tmp_path, config, [shover, calling_station, min_raiser]))
    assert report.is_ok, report.format()


def test_a_tampered_reply_is_reported_as_a_mismatch_of_that_hand_only(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def raise_more(records: list[Record]) -> None:
        decision = _bot_decision(records)
        decision["replies"][-1]["amount"] += 2

    _rewrite(path, raise_more)
    report = replay_file(path)
    assert not report.is_ok
    first = report.checks[0]
    assert (first.hand_number, first.is_ok) == (1, False)
    assert "/decisions/" in first.reason and "/action/amount" in first.reason
    assert all(check.is_ok for check in report.checks[1:])  # stacks reset: only hand 1
    assert "1 mismatched: NOT identical" in report.format(verbose=False)


def test_a_reply_that_is_now_illegal_is_reported(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def raise_too_little(records: list[Record]) -> None:
        _bot_decision(records)["replies"][-1]["amount"] = 1

    _rewrite(path, raise_too_little)
    report = replay_file(path)
    assert "rejected now: raise_below_minimum" in report.checks[0].reason


def test_a_tampered_deck_is_reported(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def swap_cards(records: list[Record]) -> None:
        deck = records[2]["history"]["deck"]
        deck[0], deck[1] = deck[1], deck[0]

    _rewrite(path, swap_cards)
    report = replay_file(path)
    assert not report.checks[1].is_ok and "/history/deck/0" in report.checks[1].reason


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d.update(replies=[]), "a bot decision without any reply"),
        (lambda d: d["replies"][-1].pop("seq"), "the decisive reply has no seq"),
        (lambda d: d.update(by="magic"), "unexpected decision kind 'magic'"),
        (lambda d: d.update(seat_index=9), "the record has seat 9's"),
    ],
)
def test_broken_decision_records_are_reported(
    tmp_path: Path, change: Callable[[Record], None], reason: str
) -> None:
    path = _history(tmp_path)
    _rewrite(path, lambda records: change(_bot_decision(records)))
    report = replay_file(path)
    assert reason in report.checks[0].reason


def test_missing_decisions_are_reported(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def drop_last(records: list[Record]) -> None:
        records[1]["decisions"].pop()

    _rewrite(path, drop_last)
    report = replay_file(path)
    assert "was not recorded" in report.checks[0].reason


def test_an_interrupted_match_is_replayed_as_far_as_it_went(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def cut_after_hand_3(records: list[Record]) -> None:
        del records[4:]  # header and hands 1-3; no match_end

    _rewrite(path, cut_after_hand_3)
    report = replay_file(path)
    assert report.is_ok, report.format()
    assert len(report.checks) == 3
    assert "did not finish" in report.format()


def test_hands_missing_or_extra_and_changed_standings_are_reported(tmp_path: Path) -> None:
    path = _history(tmp_path)

    def mangle(records: list[Record]) -> None:
        records[3]["hand_number"] = 99  # hand 3 is "missing", hand 99 is extra
        records[-1]["standings"][0]["net"] += 1

    _rewrite(path, mangle)
    report = replay_file(path)
    assert not report.is_ok
    assert report.checks[2] == HandCheck(3, False, "the hand is not in the history")
    text = report.format(verbose=False)
    assert "the replay did not deal: 99" in text
    assert "match_end standings differ" in text


def test_report_without_hands() -> None:
    report = ReplayReport(path="x", match_id="m", checks=())
    assert report.is_ok and report.mismatch_count == 0


def test_a_single_match_is_not_named_match_match() -> None:
    # A lone match's id is the default "match"; a tournament's match keeps its id.
    lone = ReplayReport(path="runs/x/hands.jsonl", match_id="match", checks=())
    assert lone.format().splitlines()[0] == "replay runs/x/hands.jsonl"
    named = ReplayReport(path="h.jsonl", match_id="rr-001-b01-a-vs-b", checks=())
    assert named.format().splitlines()[0] == "replay h.jsonl (match rr-001-b01-a-vs-b)"


def _json_line(record: object) -> str:
    """A record as the hand history writes it: compact JSON and a newline."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n"


# -- the recorded-reply decider on its own -------------------------------------------------------


def _decider(decisions: list[Record], *, sitting_out: list[int] | None = None) -> RecordedDecider:
    header = {"players": [{"seat_index": 0, "name": "ann"}, {"seat_index": 1, "name": "bob"}]}
    hand = {"hand_number": 1, "sitting_out": sitting_out or [], "decisions": decisions}
    return RecordedDecider(HandLog(header=header, hands=(hand,)), MatchConfig(hand_count=2))


def _heads_up() -> tuple[Hand, int, LegalActions]:
    seats = [SeatSetup(0, "p0", 200), SeatSetup(1, "p1", 200)]
    hand = Hand.start(GameConfig(), seats, button_index=0, deck=Deck.shuffled(random.Random(3)))
    legal = hand.legal_actions()
    assert hand.actor_index is not None and legal is not None
    return hand, hand.actor_index, legal


def test_the_decider_parses_the_recorded_reply_again() -> None:
    hand, actor, legal = _heads_up()
    reply = {"type": "action", "seq": 2, "action": "RAISE", "amount": 6}
    decider = _decider([{"seat_index": actor, "by": "bot", "replies": [reply]}])
    assert decider.start(cast(Any, None)) == {0: "ann", 1: "bob"}
    assert decider.prepare_hand(1, [0, 1]) == []
    decision = decider.decide(hand, "m-1", actor, legal, None)
    assert (decision.action, decision.by, decision.replies) == (RaiseTo(6), "bot", (reply,))
    assert decider.divergence == "" and decider.seat_summary(actor) == (False, {})


def test_the_decider_reports_the_first_divergence_and_plays_on_with_defaults() -> None:
    hand, actor, legal = _heads_up()
    too_small = {"type": "action", "seq": 2, "action": "RAISE", "amount": 1}
    decider = _decider([{"seat_index": actor, "by": "bot", "replies": [too_small]}])
    decider.prepare_hand(1, [0, 1])
    decision = decider.decide(hand, "m-1", actor, legal, None)
    assert decision.action == Fold() and decision.by == "bot"  # the default, in its place
    first = decider.divergence
    assert first.startswith(f"decision 0 (seat {actor}): the recorded reply is rejected now")
    # The next decision was never recorded: the seat is folded, the first reason stays.
    later = decider.decide(hand, "m-1", actor, legal, None)
    assert (later.action, later.by) == (Fold(), "diverged")
    assert decider.divergence == first
    # A new hand starts with a clean slate (and hand 2 is not in the history).
    decider.prepare_hand(2, [0, 1])
    assert decider.divergence == "the hand is not in the history"
    assert decider.recorded_hand() == {}


def test_a_decision_recorded_for_another_seat_is_a_divergence() -> None:
    hand, actor, legal = _heads_up()
    decider = _decider([{"seat_index": 1 - actor, "by": "policy", "fault": "timeout"}])
    decider.prepare_hand(1, [0, 1])
    decision = decider.decide(hand, "m-1", actor, legal, None)
    assert (decision.action, decision.by) == (Fold(), "diverged")
    assert decider.divergence == f"decision 0 is seat {actor}'s, the record has seat {1 - actor}'s"


def test_a_seat_recorded_dead_stays_dead_for_the_rest_of_the_hand_only() -> None:
    hand, actor, legal = _heads_up()
    decider = _decider([{"seat_index": actor, "by": "dead"}])
    decider.prepare_hand(1, [0, 1])
    assert decider.decide(hand, "m-1", actor, legal, None).by == "dead"
    # Asked again in the same hand: dead without reading the record (nothing to diverge).
    assert decider.decide(hand, "m-1", actor, legal, None).by == "dead"
    assert decider.divergence == ""
    decider.prepare_hand(1, [0, 1])
    assert decider.decide(hand, "m-1", actor, legal, None).by == "dead"  # from the record


def test_recorded_sitting_out_seats_sit_out_in_the_replay() -> None:
    hand, actor, legal = _heads_up()
    decider = _decider([], sitting_out=[actor])
    assert decider.prepare_hand(1, [0, 1]) == [actor]
    decision = decider.decide(hand, "m-1", actor, legal, None)
    assert (decision.action, decision.by) == (Fold(), "sitting_out")
    assert decider.divergence == ""


def test_a_replay_of_a_match_with_dead_seats_is_identical(tmp_path: Path) -> None:
    config = MatchConfig(
        hand_count=4,
        seed=1,
        restart_budget=2,
        time_limits=TimeLimits(startup_s=0.5),
        allow_absent_bots=True,
    )
    path = _history(tmp_path, config, [crasher(on="hello"), calling_station])
    kinds = {d["by"] for r in read_records(path) if r["type"] == "hand" for d in r["decisions"]}
    assert {"dead", "sitting_out"} <= kinds
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_reset_match_end_has_no_final_stack_and_old_histories_with_one_still_replay(
    tmp_path: Path,
) -> None:
    # With stacks reset every hand there is no final stack: match_end lists each bot's net
    # (which may be negative) and leaves "chips" out. Histories written before that carry
    # "chips" (the starting stack plus the net, e.g. -410) and must still replay identical.
    golden = Path(__file__).resolve().parents[1] / "golden" / "reset_holdem" / "hands.jsonl"
    lines = golden.read_text(encoding="utf-8").splitlines()
    footer = json.loads(lines[-1])
    assert all("chips" not in entry for entry in footer["standings"])
    stack = json.loads(lines[0])["config"]["starting_stack"]
    for entry in footer["standings"]:
        entry_items = list(entry.items())
        entry.clear()
        entry.update([*entry_items[:2], ("chips", stack + entry_items[2][1]), *entry_items[2:]])
    old = tmp_path / "hands.jsonl"
    old.write_text("\n".join([*lines[:-1], json.dumps(footer)]) + "\n", encoding="utf-8")
    report = replay_file(old)
    assert report.is_ok, report.format()


def _deep(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda records: records[0].update(config=["a list"]), id="config-list"),
        pytest.param(lambda records: records[0].update(players=[1, 2, 3]), id="players-ints"),
        pytest.param(
            lambda records: records[1].update(decisions=[{"by": "bot", "replies": 7}]),
            id="decision-garbage",
        ),
        pytest.param(lambda records: records[1]["history"].update(deck=_deep(900)), id="deck-deep"),
        pytest.param(lambda records: records[-1].update(standings=_deep(900)), id="end-deep"),
        pytest.param(lambda records: records[1].update(hand_number=10**400), id="huge-number"),
    ],
)
def test_a_file_no_arena_wrote_is_one_error_naming_it_never_a_traceback(
    tmp_path: Path, change: Callable[[list[Record]], None]
) -> None:
    path = _history(tmp_path)
    _rewrite(path, change)
    try:
        report = replay_file(path)
    except HandLogError as error:
        assert str(path) in str(error) and "\n" not in str(error)
    else:
        assert not report.is_ok  # read, and found different from what the arena deals


def test_a_reply_holding_unicode_line_separators_is_replayed_identically(
    tmp_path: Path,
) -> None:
    # An invalid reply is kept raw in the history: U+2028/U+2029/NEL must not split its line.
    path = _history(tmp_path)

    def add_separators(records: list[Record]) -> None:
        for record in records:
            if record["type"] == "hand":
                for decision in record["decisions"]:
                    if decision["by"] == "bot" and decision["action"]["action"] == "FOLD":
                        decision["replies"] = ["not json \u2028\u2029\x85", *decision["replies"]]
                        return

    _rewrite(path, add_separators)
    assert "\u2028" in path.read_text(encoding="utf-8")
    report = replay_file(path)
    assert [check.hand_number for check in report.checks] == [1, 2, 3, 4, 5, 6]


def test_a_match_run_folder_is_replayed_through_its_hand_history(tmp_path: Path) -> None:
    _history(tmp_path)
    run = replay_run(tmp_path)
    assert run.is_ok and len(run.reports) == 1
    assert run.format() == replay_file(tmp_path / "hands.jsonl").format()


def test_a_tournament_run_folder_replays_every_match_it_played(tmp_path: Path) -> None:
    for name, seed in (("b-2", 5), ("a-1", 4)):
        _history(tmp_path / "matches" / name, MatchConfig(hand_count=3, seed=seed))
    (tmp_path / "matches" / "never-played").mkdir()
    run = replay_run(tmp_path)
    assert [Path(report.path).parent.name for report in run.reports] == ["a-1", "b-2"]
    assert run.is_ok
    assert run.format().endswith("2 matches replayed: identical")
    _rewrite(
        tmp_path / "matches" / "b-2" / "hands.jsonl",
        lambda records: _bot_decision(records).update(replies=['{"action":"FOLD"}']),
    )
    assert replay_run(tmp_path).format().endswith("2 matches replayed: 1 NOT identical")


def test_a_folder_that_is_no_run_is_one_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(HandLogError, match=r"not a run folder: it has neither hands.jsonl"):
        replay_run(tmp_path)


# -- mixed strategies and luck ---------------------------------------------------------------
# ``arena replay`` of reported mixed strategies (drawn again) and of stored luck estimates
# (computed again, bit for bit).


def _mixed_history(tmp_path: Path, hand_count: int = 8) -> Path:
    play(
        [mixer(), min_raiser, calling_station],
        MatchConfig(hand_count=hand_count, seed=77),
        tmp_path,
    )
    return tmp_path / "hands.jsonl"


def _write_records(path: Path, records: list[Record]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _hands(records: list[Record]) -> list[Record]:
    return [record for record in records if record["type"] == "hand"]


def test_replay_draws_every_reported_strategy_again_and_finds_the_match_identical(
    tmp_path: Path,
) -> None:
    path = _mixed_history(tmp_path)
    mixed = [
        d
        for hand in _hands(read_records(path))
        for d in hand["decisions"]
        if d["by"] == "bot" and "distribution" in d["replies"][-1]
    ]
    assert len(mixed) >= 8
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_recorded_action_other_than_the_draw_is_a_mismatch(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path)
    records = read_records(path)
    # The first mixed decision whose distribution offers another legal move than the drawn one.
    for hand in _hands(records):
        for decision in hand["decisions"]:
            reply = decision["replies"][-1] if decision.get("replies") else {}
            others = [
                {k: v for k, v in entry.items() if k != "probability"}
                for entry in reply.get("distribution", [])
                if entry["action"] not in (decision["action"]["action"], "CHECK")
            ]
            if decision["by"] == "bot" and others:
                decision["action"] = others[0]
                _write_records(path, records)
                report = replay_file(path)
                assert not report.is_ok
                [check] = [c for c in report.checks if not c.is_ok][:1]
                assert check.hand_number == hand["hand_number"], report.format()
                return
    raise AssertionError("no mixed decision with another move")  # pragma: no cover


def _with_luck(path: Path) -> list[Record]:
    records = read_records(path)
    hands = _hands(records)
    for hand, leans in zip(hands, match_leans(hands), strict=True):
        hand["luck"] = luck_record(estimate_hand(hand, None, leans))
    _write_records(path, records)
    return records


def test_replay_computes_each_hands_luck_again_and_finds_it_identical(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path, hand_count=3)
    _with_luck(path)
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_stored_luck_estimate_off_by_one_bit_is_a_mismatch_naming_hand_and_seat(
    tmp_path: Path,
) -> None:
    path = _mixed_history(tmp_path, hand_count=3)
    records = _with_luck(path)
    adjusted = _hands(records)[1]["luck"]["adjusted"]
    adjusted[2] = math.nextafter(adjusted[2], math.inf)
    _write_records(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert check.hand_number == 2
    assert check.reason.startswith("luck of seat 2: recorded adjusted"), check.reason


def test_a_luck_estimate_by_another_estimator_is_a_mismatch_naming_both(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path, hand_count=2)
    records = _with_luck(path)
    _hands(records)[0]["luck"]["estimator"] = "chance-equity/0#old"
    _write_records(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert check.hand_number == 1 and "'chance-equity/0#old'" in check.reason


def test_a_match_run_with_luck_and_mixed_strategies_replays_bit_for_bit(tmp_path: Path) -> None:
    config = MatchConfig(hand_count=3, seed=77, luck=True)
    play([mixer(), min_raiser, calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    assert all("luck" in hand for hand in _hands(read_records(path)))
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_match_run_with_fitted_betting_weights_estimates_and_replays_with_them(
    tmp_path: Path,
) -> None:
    # The weights ride in the match's config: the hands name the estimator with them, and
    # the replay estimates with the recorded config's weights (bit for bit).
    fitted = LuckValue({0: {"raised": 3.0, "to_call": -1.0}, 5: {"last_raised": 2.0}})
    config = MatchConfig(hand_count=3, seed=77, luck=True, luck_value=fitted)
    play([mixer(), min_raiser, calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    hands = _hands(read_records(path))
    assert {hand["luck"]["estimator"] for hand in hands} == {estimator_name(fitted)}
    assert estimator_name(fitted) != ESTIMATOR
    stored = [tuple(hand["luck"]["adjusted"]) for hand in hands]
    assert stored == [
        estimate_hand(hand, fitted, leans).adjusted
        for hand, leans in zip(hands, match_leans(hands), strict=True)
    ]
    assert stored != [estimate_hand(hand).adjusted for hand in hands]
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_stored_luck_of_the_wrong_length_is_a_mismatch(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path, hand_count=1)
    records = _with_luck(path)
    _hands(records)[0]["luck"]["adjusted"].pop()
    _write_records(path, records)
    [check] = replay_file(path).checks
    assert not check.is_ok and check.reason.startswith("luck: recorded adjusted [")


def test_a_luck_estimate_that_cannot_be_computed_again_is_a_mismatch_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _mixed_history(tmp_path, hand_count=1)
    _with_luck(path)

    def broken(record: Any, luck_value: Any = None, leans: Any = None) -> Any:
        raise LuckError("bad distribution entry 7")

    monkeypatch.setattr(replay, "estimate_hand", broken)
    [check] = replay_file(path).checks
    assert not check.is_ok
    assert check.reason == "the luck estimate cannot be computed again: bad distribution entry 7"


def test_a_five_card_draw_match_with_mixed_strategies_replays_identical(tmp_path: Path) -> None:
    # Draw decisions count in a hand's decision index as betting ones do.
    config = MatchConfig(
        game=GameConfig(variant=Variant.FIVE_CARD_DRAW), hand_count=5, seed=9, luck=True
    )
    play([chooser(4), mixer(), calling_station], config, tmp_path)
    path = tmp_path / "hands.jsonl"
    decisions = [d for hand in _hands(read_records(path)) for d in hand["decisions"]]
    assert any(d["action"]["action"] == "DISCARD" for d in decisions)
    report = replay_file(path)
    assert report.is_ok, report.format()


def test_a_recorded_distribution_other_than_the_replys_is_a_mismatch(tmp_path: Path) -> None:
    path = _mixed_history(tmp_path, hand_count=2)
    records = read_records(path)
    decision = next(d for hand in _hands(records) for d in hand["decisions"] if "distribution" in d)
    decision["distribution"][0]["probability"] += 0.001
    _write_records(path, records)
    report = replay_file(path)
    [check] = [c for c in report.checks if not c.is_ok]
    assert "/distribution/0/probability" in check.reason, check.reason
