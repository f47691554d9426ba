"""The sentence on whether #1 is significantly ahead of #2 (:mod:`arena.stats.lead`), in the
score that ranks."""

from __future__ import annotations

from arena.stats.lead import lead_sentence
from arena.stats.ratings import Rating
from arena.stats.tables import crosstable, leaderboard


def test_without_a_head_to_head_cell_the_intervals_decide() -> None:
    apart = leaderboard([{"ann": 100.0 + k, "bob": -100.0 - k} for k in range(4)], {}, {})
    assert lead_sentence(apart, None, "hands") == (
        "#1 ann against #2 bob: significantly ahead (raw: their 95% intervals do not overlap)."
    )
    close = leaderboard([{"ann": 10.0, "bob": -5.0}, {"ann": -8.0, "bob": 9.0}], {}, {})
    assert lead_sentence(close, None, "hands").endswith("their 95% intervals overlap).")


def test_the_adjusted_score_judges_when_it_ranks() -> None:
    raw = [
        {"ann": 300.0, "bob": -300.0},
        {"ann": -250.0, "bob": 250.0},
        {"ann": 10.0, "bob": -10.0},
    ]
    adjusted = [
        {"ann": 20.0, "bob": -20.0},
        {"ann": 22.0, "bob": -22.0},
        {"ann": 21.0, "bob": -21.0},
    ]
    board = leaderboard(raw, {}, {}, adjusted_units=adjusted, score="adjusted")
    pairs = {("ann", "bob"): [unit["ann"] for unit in raw]}
    adjusted_pairs = {("ann", "bob"): [unit["ann"] for unit in adjusted]}
    table = crosstable(pairs, adjusted_pair_units=adjusted_pairs, score="adjusted")
    sentence = lead_sentence(board, table, "deals")
    assert "significantly ahead, head to head +21.0 ±2.5 mbb/hand over 3 deals" in sentence
    assert "(adjusted; the 95% interval excludes 0)" in sentence
    raw_board = leaderboard(raw, {}, {}, adjusted_units=adjusted)
    raw_table = crosstable(pairs, adjusted_pair_units=adjusted_pairs)
    assert "not significantly ahead" in lead_sentence(raw_board, raw_table, "deals")


def test_a_shared_first_place_and_a_lone_bot_are_said_plainly() -> None:
    tied = leaderboard([{"ann": 5.0, "bob": 5.0}], {}, {})
    assert lead_sentence(tied, None, "deals") == (
        "The first place is shared: the leaders' results are equal."
    )
    assert lead_sentence(leaderboard([{"ann": 5.0}], {}, {}), None, "deals") == ""


def test_freezeouts_ranked_by_rating_say_so() -> None:
    ratings = {"ann": Rating(30.0, 2.0, 4), "bob": Rating(20.0, 2.0, 4)}
    board = leaderboard([], {}, {}, ratings, order_by="rating")
    assert lead_sentence(board, None, "deals") == (
        "#1 ann against #2 bob: ranked by rating; no interval tells them apart here."
    )
    unrated = leaderboard([], {"ann": 1, "bob": 0}, {})
    assert lead_sentence(unrated, None, "deals") == ""
