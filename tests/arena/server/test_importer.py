"""``import-tournament``: a tournament's standings become a leaderboard, its matches the
site's matches with each seat's result; a bot named like a team is that team's."""

from __future__ import annotations

from pathlib import Path

import pytest

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
