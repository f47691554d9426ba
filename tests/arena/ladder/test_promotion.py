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
    profiled_llr,
    profiled_llr_of,
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
    # Three games close around H1's mean: the profiled ratio is past the upper bound.
    games = [GameResult("new", "old", m, m, 200) for m in (20.0, 21.0, 19.0)]
    early = PromotionTest("new", "old", min_games=4).state(games)
    assert early.result.status == "H1" and early.verdict is Verdict.CONTINUE
    assert PromotionTest("new", "old", min_games=3).state(games).verdict is Verdict.BETTER


def test_a_long_test_keeps_a_hundred_points_of_history_ending_with_the_last_game() -> None:
    state = PromotionTest("new", "old").state(_stream(5.0, 250, 3))
    counts = [count for count, _ in state.llr_history]
    assert len(counts) <= 100 and counts[0] == 3 and counts[-1] == 250
    assert PromotionTest("new", "old").state([]).llr_history == ()


def test_games_of_other_pairs_are_not_read() -> None:
    games = [GameResult("new", "cat", 500.0, 500.0, 200), *_stream(0.0, 4, 2)]
    assert len(PromotionTest("new", "old").scores(games)) == 4


def test_the_candidate_becomes_active_only_when_better_and_the_team_asked() -> None:
    games = [GameResult("new", "old", m, m, 200) for m in (21.0, 19.0, 20.0)]
    better = PromotionTest("new", "old", min_games=3).state(games)
    assert should_activate(better, auto_activate=True)
    assert not should_activate(better, auto_activate=False)
    worse = PromotionTest("new", "old", min_games=3).state(
        [GameResult("new", "old", m, m, 200) for m in (0.0, 0.0, 0.0)]
    )
    assert worse.verdict is Verdict.NOT_BETTER
    assert not should_activate(worse, auto_activate=True)
    # Games without spread, exactly on H0's mean, make the evidence certain: an infinite
    # ratio, written as text.
    assert worse.to_dict()["llr_history"][-1] == [3, "-inf"]


def test_the_profiled_ratio_is_the_likelihood_ratio_with_each_hypothesis_own_spread() -> None:
    # (n / 2) log(S0 / S1): the normal likelihoods at each mean with the spread that fits
    # best under it, computed here from the densities directly.
    scores = [35.0, -12.0, 60.0, 8.0, 22.0]

    def log_likelihood(mean: float) -> float:
        spread = statistics.fmean((x - mean) ** 2 for x in scores)
        return sum(
            -0.5 * math.log(2 * math.pi * spread) - (x - mean) ** 2 / (2 * spread) for x in scores
        )

    expected = log_likelihood(20.0) - log_likelihood(0.0)
    assert profiled_llr(scores, 0.0, 20.0) == pytest.approx(expected, rel=1e-12)
    # The running form (count, mean, spread) gives the same number.
    mean = statistics.fmean(scores)
    spread = statistics.fmean((x - mean) ** 2 for x in scores)
    assert profiled_llr_of(5, mean, spread, 0.0, 20.0) == pytest.approx(expected, rel=1e-12)


def test_the_profiled_ratio_is_bounded_where_the_plain_one_leaps() -> None:
    # Ten games that happen to agree closely around 11 mbb/hand, just past halfway between
    # the means: dividing by their small sample variance (the plain SPRT ratio) makes
    # "better" certain at once; the profiled ratio weighs how much better 11 fits 20 than
    # 0 with that spread, short of the bound.
    scores = [11.0 + d for d in (-3.0, 2.0, -1.0, 4.0, 0.0, -2.0, 1.0, 3.0, -4.0, 0.0)]
    test = PromotionTest("new", "old")
    assert test.sprt.llr(scores) > 10 * test.sprt.upper_bound
    assert 0.0 < profiled_llr(scores, 0.0, 20.0) < test.sprt.upper_bound
    assert profiled_llr([7.0], 0.0, 20.0) == 0.0 and profiled_llr_of(1, 7.0, 0.0, 0.0, 20.0) == 0.0
    assert profiled_llr([10.0, 10.0], 0.0, 20.0) == 0.0  # halfway, no spread: no evidence
    assert profiled_llr([20.0, 20.0], 0.0, 20.0) == math.inf


def test_a_bad_promotion_test_is_refused() -> None:
    with pytest.raises(ValueError, match="against itself"):
        PromotionTest("new", "new")
    with pytest.raises(ValueError, match="min_games must be an integer of 2 or more"):
        PromotionTest("new", "old", min_games=1)
