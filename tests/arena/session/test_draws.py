"""The arena's draws from reported mixed strategies: keyed by the match's secret seed, the
hand and the decision's place in it, independent of the deck, and the same on replay."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.match.config import MatchConfig
from arena.session.draws import STRATEGY_DOMAIN, StrategyDraws, decision_index, strategy_key
from arena.session.faults import FaultKind
from engine.actions import Call, Check, Discard, Fold, RaiseTo
from engine.config import GameConfig, Variant
from engine.hand import Hand, SeatSetup
from engine.seeds import DECK_DOMAIN, hand_key
from protocol.errors import ArenaBugError
from protocol.replies import parse_action_reply
from protocol.request_decoder import legal_from_request
from protocol.strategy import MixedStrategy
from tests.arena.scripted import calling_station, chooser, hand_records, play
from tests.arena.session.harness import Harness, facing_bet_view, mixed_reply, mixer, script

STRATEGY = MixedStrategy(((Call(), 0.5), (RaiseTo(8), 0.3), (Fold(), 0.2)))


@pytest.mark.parametrize("variant", list(Variant))
def test_decision_index_counts_the_decisions_already_made_in_the_hand(variant: Variant) -> None:
    rng = random.Random(5)
    for number in range(1, 41):
        seats = [SeatSetup(i, f"p{i}", rng.choice([3, 40, 200])) for i in range(rng.randint(2, 6))]
        hand = Hand.start(GameConfig(variant=variant), seats, button_index=0, rng=rng)
        made = 0
        while not hand.is_over:
            assert decision_index(hand) == made
            legal = hand.legal_actions()
            assert legal is not None
            if legal.can_draw:
                hand.act(Discard(()))
            else:
                hand.act(rng.choice([Fold(), Call() if legal.can_call else Check()]))
            made += 1
        assert decision_index(hand) == made, number


def test_the_draw_is_keyed_by_seed_hand_and_decision_and_never_by_the_decks_key() -> None:
    draws = StrategyDraws(7)
    assert draws.uniform(3, 2) == StrategyDraws(7).uniform(3, 2)  # the same, every time
    values = {draws.uniform(h, i) for h in (1, 2) for i in (0, 1)}
    values.add(StrategyDraws(8).uniform(1, 0))
    assert len(values) == 5 and all(0 <= value < 1 for value in values)
    assert strategy_key(7, 3, 2) == STRATEGY_DOMAIN + b"7|3|2"
    assert not strategy_key(7, 3, 2).startswith(DECK_DOMAIN)
    assert hand_key(7, 3) != strategy_key(7, 3, 0)


def test_the_draws_repr_never_shows_the_secret_seed() -> None:
    assert "123456789" not in repr(StrategyDraws(123456789))


def test_draws_over_many_decisions_follow_the_reported_probabilities() -> None:
    draws = StrategyDraws(11)
    counts = Counter(STRATEGY.draw(draws.uniform(hand, 0)) for hand in range(1, 4001))
    for action, probability in STRATEGY.entries:
        # 4000 draws: a standard deviation of at most 0.8 percentage points.
        assert abs(counts[action] / 4000 - probability) < 0.03, counts


def test_a_session_draws_a_reported_strategy_with_the_draw_it_is_given() -> None:
    harness = Harness(script(mixed_reply))
    session = harness.start()
    drawn: list[MixedStrategy] = []

    def draw(strategy: MixedStrategy) -> RaiseTo:
        drawn.append(strategy)
        return RaiseTo(4)

    outcome = session.decide(facing_bet_view(), hand_id="h1", draw=draw)
    assert outcome.action == RaiseTo(4) and outcome.fault is None
    assert outcome.strategy == drawn[0]
    assert [action for action, _ in drawn[0].entries] == [Fold(), Call(), RaiseTo(4)]
    assert session.distribution_count == 1 and not harness.kinds()


def test_an_invalid_distribution_is_an_invalid_reply_asked_again() -> None:
    replies = iter([{"distribution": [{"action": "CALL", "probability": 0.5}]}, None])

    def on_act(message: dict[str, Any]) -> dict[str, Any]:
        bad = next(replies)
        return (
            mixed_reply(message)
            if bad is None
            else {"type": "action", "seq": message["seq"], **bad}
        )

    harness = Harness(script(on_act))
    outcome = harness.start().decide(facing_bet_view(), hand_id="h1", draw=lambda s: s.draw(0.0))
    assert outcome.fault is None and outcome.attempt_count == 2 and outcome.action == Fold()
    [fault] = harness.session.ledger.of_kind(FaultKind.INVALID_REPLY)
    assert fault.code == "probability_sum" and "sum to 0.5" in fault.detail
    [error] = harness.sent_of("error")
    assert error["code"] == "probability_sum" and error["path"] == "/distribution"


def test_a_session_without_a_draw_cannot_take_a_strategy_and_says_it_is_our_bug() -> None:
    harness = Harness(script(mixed_reply))
    with pytest.raises(ArenaBugError, match="no draw"):
        harness.start().decide(facing_bet_view(), hand_id="h1")


def test_a_match_applies_the_draw_of_the_seed_hand_and_decision_and_tells_no_seat(
    tmp_path: Path,
) -> None:
    received: list[dict[str, Any]] = []
    spied: list[dict[str, Any]] = []
    config = MatchConfig(hand_count=12, seed=2024)
    spy = chooser(3)

    def spying(message: dict[str, Any]) -> Any:
        spied.append(message)
        return spy(message)

    play([mixer(received), spying, calling_station], config, tmp_path)
    # No seat, the reporting bot included, is ever sent a distribution or a probability.
    # (hello names the feature: that a bot may report one, not what anyone reported).
    for message in received + spied:
        text = json.dumps({k: v for k, v in message.items() if k != "features"})
        assert "distribution" not in text and "probability" not in text, text
    assert {m["type"] for m in spied} >= {"hello", "hand_start", "act", "hand_end"}
    draws = StrategyDraws(config.seed)
    mixed = 0
    requests = {m["seq"]: m for m in received if m["type"] == "act"}
    for record in hand_records(tmp_path):
        for index, decision in enumerate(record["decisions"]):
            if decision["seat_index"] != 0 or decision["by"] != "bot":
                continue
            reply = decision["replies"][-1]
            legal = legal_from_request(requests[reply["seq"]])
            strategy = parse_action_reply(reply, reply["seq"], legal)
            assert isinstance(strategy, MixedStrategy)
            expected = strategy.draw(draws.uniform(record["hand_number"], index))
            assert _as_record(expected) == decision["action"]
            mixed += 1
    assert mixed >= 12


def _as_record(action: Any) -> dict[str, Any]:
    from arena.match.records import action_to_dict

    return action_to_dict(action)


def test_the_hand_record_keeps_the_normalised_distribution_the_action_was_drawn_from(
    tmp_path: Path,
) -> None:
    play([mixer(), calling_station], MatchConfig(hand_count=3, seed=5), tmp_path)
    decisions = [d for r in hand_records(tmp_path) for d in r["decisions"] if d["seat_index"] == 0]
    mixed = [d for d in decisions if d["by"] == "bot"]
    assert mixed and all("distribution" in d for d in mixed)
    for decision in mixed:
        entries = decision["distribution"]
        assert sum(entry["probability"] for entry in entries) == pytest.approx(1.0)
        assert decision["action"] in [entry["action"] for entry in entries]
