"""``import-tournament``: a tournament's standings become a leaderboard, its matches the
site's matches with each seat's result; a bot named like a team is that team's."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from arena.server.site.importer import read_tournament, save_tournament
from arena.server.site.models import LeaderboardRow, Match
from arena.settings import UsageError
from tests.arena.report.runs import write_tournament
from tests.arena.server.factories import make_team


@pytest.mark.usefixtures("db")
def test_a_tournament_becomes_a_leaderboard_and_matches(tmp_path: Path) -> None:
    folder = write_tournament(tmp_path / "run", bots=("ann", "bob"), deals=4, block_deals=2)
    ann = make_team("ann")
    results = read_tournament(folder)
    summary = save_tournament(results)
    again = save_tournament(results)  # importing twice updates in place
    assert summary == again and summary.rows == 2 and summary.matches == 4
    rows = list(LeaderboardRow.objects.filter(board=results.name))
    assert sorted(row.name for row in rows) == ["ann", "bob"]
    assert [row.team for row in rows if row.name == "ann"] == [ann]
    assert Match.objects.count() == 4
    match = Match.objects.first()
    assert match is not None and Path(match.hands_file).is_file()
    seats = list(match.seats.all())
    assert sum(seat.chips_won for seat in seats) == 0


def test_a_folder_without_results_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot read the results database"):
        read_tournament(tmp_path)


def _shown_in_order(board: str) -> list[float]:
    values = LeaderboardRow.objects.filter(board=board).order_by("position")
    return [row.mbb_per_hand for row in values if row.mbb_per_hand is not None]


@pytest.mark.usefixtures("db")
@pytest.mark.parametrize(("luck", "kind"), [(True, "adjusted"), (False, "raw")])
def test_a_boards_rows_hold_the_number_that_ranks_them_and_name_its_kind(
    tmp_path: Path, luck: bool, kind: str
) -> None:
    # Issue 32: an imported tournament showed raw numbers in the adjusted order, unlabelled.
    folder = write_tournament(tmp_path / "run", bots=("ann", "bob", "cat"), deals=4,
                              block_deals=2, luck=luck)  # fmt: skip
    results = read_tournament(folder)
    save_tournament(results)
    board = results.standings.leaderboard
    assert board.score == kind
    assert {row.kind for row in LeaderboardRow.objects.filter(board=results.name)} == {kind}
    shown = _shown_in_order(results.name)
    assert len(shown) == 3 and shown == sorted(shown, reverse=True)
    assert shown == [row.scored.mean for row in board.rows]
    label = {"adjusted": "luck-adjusted mbb/hand", "raw": "raw mbb/hand"}[kind]
    page = Client().get("/").content.decode()
    assert f"<th>{label}</th>" in page


@pytest.mark.usefixtures("db")
def test_a_freezeouts_board_shows_the_rating_it_is_ranked_by(tmp_path: Path) -> None:
    folder = write_tournament(tmp_path / "run", bots=("ann", "bob", "cat"), fmt="sit_and_go",
                              deals=4, block_deals=2)  # fmt: skip
    results = read_tournament(folder)
    save_tournament(results)
    rows = LeaderboardRow.objects.filter(board=results.name)
    assert {row.kind for row in rows} == {"skill"}
    shown = _shown_in_order(results.name)
    assert len(shown) == 3 and shown == sorted(shown, reverse=True)
    assert all(row.half_width is None for row in rows)
