"""The "is my new version better?" test (:mod:`arena.ladder.promotion`)."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from arena.ladder.games import GameResult
from arena.ladder.promotion import (
    PromotionTest,
    Verdict,
    corrected_llr,
    corrected_llr_of,
    should_activate,
)
from arena.stats.sprt import Sprt


def _stream(true_mbb: float, count: int, seed: int) -> list[GameResult]:
    rng = random.Random(seed)
    games = []
    for index in range(count):
        score = rng.gauss(true_mbb, 150.0)
        # Seats alternate: the test reads the candidate's side either way.
        if index % 2:
            games.append(GameResult("old", "new", -score, -score, 200))
        else:
            games.append(GameResult("new", "old", score, score, 200))
    return games


def _first_decision(true_mbb: float, seed: int) -> tuple[Verdict, int]:
    test = PromotionTest("new", "old")
    games = _stream(true_mbb, 1500, seed)
    for count in range(test.min_games, len(games) + 1, 25):
        state = test.state(games[:count])
        if state.verdict is not Verdict.CONTINUE:
            return state.verdict, count
    return Verdict.CONTINUE, len(games)


def test_a_clearly_better_version_is_accepted_as_better() -> None:
    verdicts = [_first_decision(60.0, seed)[0] for seed in range(5)]
    assert verdicts.count(Verdict.BETTER) >= 4


def test_a_version_no_better_is_accepted_as_not_better() -> None:
    verdicts = [_first_decision(-20.0, seed)[0] for seed in range(5)]
    assert verdicts.count(Verdict.NOT_BETTER) >= 4


def test_the_state_keeps_the_ratio_after_every_game_and_its_bounds() -> None:
    test = PromotionTest("new", "old", sprt=Sprt(0.0, 20.0, alpha=0.05, beta=0.1))
    games = _stream(40.0, 30, 1)
    state = test.state(games)
    assert [count for count, _ in state.llr_history] == list(range(1, 31))
    assert state.game_count == 30 and state.llr_history[-1] == (30, state.result.llr)
    assert state.llr_history[0] == (1, 0.0)  # one game says nothing about the spread
    assert state.upper_bound == pytest.approx(math.log(0.9 / 0.05))
    assert state.lower_bound == pytest.approx(math.log(0.1 / 0.95))
    exported = state.to_dict()
    assert exported["verdict"] == str(state.verdict) and len(exported["llr_history"]) == 30


def test_no_verdict_before_the_minimum_games_even_past_a_bound() -> None:
    games = [GameResult("new", "old", m, m, 200) for m in (100.0, 101.0, 99.0, 100.0, 102.0)]
    early = PromotionTest("new", "old", min_games=6).state(games)
    assert early.result.status == "H1" and early.verdict is Verdict.CONTINUE
    assert PromotionTest("new", "old", min_games=5).state(games).verdict is Verdict.BETTER


def test_a_long_test_keeps_a_hundred_points_of_history_ending_with_the_last_game() -> None:
    state = PromotionTest("new", "old").state(_stream(5.0, 250, 3))
    counts = [count for count, _ in state.llr_history]
    assert len(counts) <= 100 and counts[0] == 3 and counts[-1] == 250
    assert PromotionTest("new", "old").state([]).llr_history == ()


def test_games_of_other_pairs_are_not_read() -> None:
    games = [GameResult("new", "cat", 500.0, 500.0, 200), *_stream(0.0, 4, 2)]
    assert len(PromotionTest("new", "old").scores(games)) == 4


def test_the_candidate_becomes_active_only_when_better_and_the_team_asked() -> None:
    games = [GameResult("new", "old", m, m, 200) for m in (80.0, 40.0, 60.0, 70.0, 50.0)]
    better = PromotionTest("new", "old", min_games=5).state(games)
    assert should_activate(better, auto_activate=True)
    assert not should_activate(better, auto_activate=False)
    worse = PromotionTest("new", "old", min_games=5).state(
        [GameResult("new", "old", m, m, 200) for m in (-80.0, -40.0, -60.0, -70.0, -50.0)]
    )
    assert worse.verdict is Verdict.NOT_BETTER
    assert not should_activate(worse, auto_activate=True)
    # Games without spread make the evidence certain: an infinite ratio, written as text.
    flat = PromotionTest("new", "old", min_games=5).state(
        [GameResult("new", "old", -30.0, -30.0, 200) for _ in range(5)]
    )
    assert flat.verdict is Verdict.NOT_BETTER
    assert flat.to_dict()["llr_history"][-1] == [5, "-inf"]


def test_the_ratio_is_the_sprts_times_n_minus_3_over_n_minus_1() -> None:
    # Dividing by the sample variance overstates the evidence by (n - 1) / (n - 3) on
    # average (E[1 / s^2] for normal scores): the test's ratio takes that back.
    scores = [35.0, -12.0, 60.0, 8.0, 22.0, -40.0]
    sprt = Sprt(0.0, 20.0)
    assert corrected_llr(scores, sprt) == pytest.approx(sprt.llr(scores) * 3 / 5, rel=1e-12)
    # The running form (count, mean, sample variance) gives the same number.
    mean, variance = statistics.fmean(scores), statistics.variance(scores)
    assert corrected_llr_of(6, mean, variance, sprt) == pytest.approx(
        corrected_llr(scores, sprt), rel=1e-12
    )
    # Fewer than four games: no evidence yet; no spread: certain, or none halfway.
    assert corrected_llr(scores[:3], sprt) == 0.0 == corrected_llr_of(3, 50.0, 9.0, sprt)
    assert corrected_llr_of(4, 20.0, 0.0, sprt) == math.inf
    assert corrected_llr_of(4, 10.0, 0.0, sprt) == 0.0
    assert corrected_llr([10.0] * 4, sprt) == 0.0


def test_a_bad_promotion_test_is_refused() -> None:
    with pytest.raises(ValueError, match="against itself"):
        PromotionTest("new", "new")
    with pytest.raises(ValueError, match="min_games must be an integer of 2 or more"):
        PromotionTest("new", "old", min_games=1)
