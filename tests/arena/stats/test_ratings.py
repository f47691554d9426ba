"""Multiplayer ratings and average places (:mod:`arena.stats.ratings`)."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from arena.stats.ratings import Rating, average_places, rate


def _freezeouts(count: int, seed: int) -> list[list[tuple[str, float]]]:
    """Four-bot games: "shark" always wins, the others finish in a random order."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        others = ["fish", "crab", "eel"]
        rng.shuffle(others)
        games.append(
            [("shark", 1.0)] + [(bot, float(place)) for place, bot in enumerate(others, 2)]
        )
    return games


def test_a_bot_that_always_wins_ends_with_the_highest_ordinal() -> None:
    ratings = rate(_freezeouts(30, seed=1))
    best = max(ratings, key=lambda bot: ratings[bot].ordinal)
    assert best == "shark"
    assert all(ratings["shark"].mu > ratings[bot].mu for bot in ("fish", "crab", "eel"))
    assert all(rating.games == 30 for rating in ratings.values())


def test_same_games_same_ratings() -> None:
    games = _freezeouts(20, seed=2)
    assert rate(games) == rate(games)
    assert rate(games) == rate([list(game) for game in games])


def test_the_order_of_games_matters_and_is_kept() -> None:
    games = [[("a", 1), ("b", 2)], [("b", 1), ("a", 2)]]
    forward, backward = rate(games), rate(list(reversed(games)))
    # The later game weighs more: whoever won last is rated higher.
    assert forward["b"].mu > forward["a"].mu
    assert backward["a"].mu > backward["b"].mu


def test_uncertainty_shrinks_with_games() -> None:
    few = rate(_freezeouts(2, seed=3))
    many = rate(_freezeouts(40, seed=3))
    assert many["fish"].sigma < few["fish"].sigma
    assert few["fish"].sigma < 25 / 3  # openskill's starting uncertainty


def test_tied_bots_are_rated_alike() -> None:
    ratings = rate([[("a", 1), ("b", 2), ("c", 2)]])
    assert ratings["b"] == Rating(ratings["c"].mu, ratings["c"].sigma, 1)
    assert ratings["a"].mu > ratings["b"].mu


def test_ordinal_is_mu_minus_three_sigma() -> None:
    rating = rate([[("a", 1), ("b", 2)]])["a"]
    assert rating.ordinal == pytest.approx(rating.mu - 3 * rating.sigma)
    assert rating.to_dict() == {
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "games": 1,
    }


def test_bots_that_skip_games_count_only_their_own() -> None:
    ratings = rate([[("a", 1), ("b", 2)], [("a", 1), ("c", 2)], [("c", 1), ("a", 2)]])
    assert (ratings["a"].games, ratings["b"].games, ratings["c"].games) == (3, 1, 2)
    assert list(ratings) == ["a", "b", "c"]


def test_no_games_no_ratings() -> None:
    assert rate([]) == {}
    assert average_places([]) == {}


def test_average_places_over_the_games_each_bot_played() -> None:
    games = [[("a", 1), ("b", 2), ("c", 3)], [("c", 1), ("a", 2)], [("a", 2), ("b", 2)]]
    assert average_places(games) == {"a": 5 / 3, "b": 2.0, "c": 2.0}


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ("ab", "games must be a sequence of games, got 'ab'"),
        ([[("a", 1)]], "game 0 needs two or more (bot, place) pairs, got [('a', 1)]"),
        ([[("a", 1), ("b", 2)], "ab"], "game 1 needs two or more (bot, place) pairs, got 'ab'"),
        ([[("a", 1), ["b", 2]]], "game 0: ['b', 2] is not a (bot, place) pair"),
        ([[("a", 1), ("b", 2, 3)]], "game 0: ('b', 2, 3) is not a (bot, place) pair"),
        ([[("a", 1), ("", 2)]], "game 0: bot '' is not a name"),
        ([[("a", 1), (7, 2)]], "game 0: bot 7 is not a name"),
        ([[("a", 0), ("b", 2)]], "game 0: place 0 of 'a' is not 1 or more"),
        ([[("a", 1), ("b", float("inf"))]], "game 0: place inf of 'b' is not 1 or more"),
        ([[("a", 1), ("b", "2")]], "game 0: place '2' of 'b' is not 1 or more"),
        ([[("a", 1), ("a", 2)]], "game 0: bot 'a' is placed twice"),
    ],
)
def test_bad_games_are_named(games: Any, message: str) -> None:
    for function in (rate, average_places):
        with pytest.raises(ValueError, match=re.escape(message)):
            function(games)
