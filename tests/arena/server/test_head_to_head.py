"""The head-to-head grid of the ladder's versions: the report's crosstable over the ladder's
pair records, luck-adjusted with the raw result beside it, each number's kind named."""

from __future__ import annotations

import pytest
from django.template.loader import render_to_string

from arena.ladder.games import GameResult
from arena.ladder.sums import pair_sums
from arena.server.site.head_to_head import GRID_KIND, head_to_head

GAMES = [
    GameResult("ann-v1", "bob-v1", adjusted_mbb=30.0, raw_mbb=100.0, hand_count=200),
    GameResult("ann-v1", "bob-v1", adjusted_mbb=50.0, raw_mbb=-40.0, hand_count=200),
    GameResult("bob-v1", "cat-v1", adjusted_mbb=-10.0, raw_mbb=5.0, hand_count=200),
    GameResult("ann-v1", "old-v1", adjusted_mbb=10.0, raw_mbb=10.0, hand_count=200),
]


def test_a_cell_is_the_rows_result_against_the_column_adjusted_and_raw() -> None:
    grid = head_to_head(pair_sums(GAMES), ["ann-v1", "bob-v1", "cat-v1"])
    assert grid["kind"] == GRID_KIND and "luck-adjusted" in GRID_KIND and "raw" in GRID_KIND
    ann, bob, cat = grid["rows"]
    assert ann["cells"][0] is None  # the diagonal
    assert (ann["cells"][1]["adjusted"], ann["cells"][1]["raw"], ann["cells"][1]["games"]) == (
        40.0, 30.0, 2)  # fmt: skip
    # What one wins the other loses (heads-up).
    assert (bob["cells"][0]["adjusted"], bob["cells"][0]["raw"]) == (-40.0, -30.0)
    assert ann["cells"][1]["plus_minus"] is not None and ann["cells"][1]["plus_minus"] > 0
    # A single game: nothing is known of the spread, no interval and no mark.
    assert bob["cells"][2] == {"adjusted": -10.0, "plus_minus": None, "raw": 5.0, "mark": "",
                               "games": 1}  # fmt: skip
    assert ann["cells"][2] is None and cat["cells"][0] is None  # never played


def test_a_pair_with_a_version_off_the_grid_is_left_out() -> None:
    grid = head_to_head(pair_sums(GAMES), ["ann-v1", "bob-v1"])
    assert grid["bots"] == ["ann-v1", "bob-v1"]
    assert all(len(row["cells"]) == 2 for row in grid["rows"])


@pytest.mark.parametrize(
    ("games", "bots"),
    [(GAMES, []), (GAMES, ["ann-v1"]), (GAMES, ["ann-v1", "cat-v1"]), ([], ["ann-v1", "bob-v1"])],
)
def test_a_grid_without_a_result_is_not_drawn(games: list[GameResult], bots: list[str]) -> None:
    # Fewer than two versions, two that never met, or no game shown (visibility nothing).
    grid = head_to_head(pair_sums(games), bots)
    assert grid["played"] is False
    assert "head-to-head" not in render_to_string("arena/head_to_head.html", {"grid": grid})


def test_the_grid_names_its_numbers_kind_and_fits_in_its_box() -> None:
    grid = head_to_head(pair_sums(GAMES), ["ann-v1", "bob-v1", "cat-v1"])
    html = render_to_string("arena/head_to_head.html", {"grid": grid})
    assert GRID_KIND in html and 'class="scroll"' in html
    assert "40.0 ± " in html and "(-30.0)" in html and "(5.0)" in html
