"""The finals: refused before the deadline (unless asked for now); at it, activations
freeze and each team's active version plays the final round robin through the tournament
runner, whose standings, crosstable and report the site publishes."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client, override_settings
from django.utils import timezone

from arena.server.current import competition_deadline, is_frozen_now
from arena.server.ladder.models import FinalsRun
from arena.server.site.models import LeaderboardRow, VersionStatus
from tests.arena.server.ladder.conftest import team_with


def _competition(tmp_path: Path, deadline: str | None) -> Path:
    path = tmp_path / "competition.toml"
    text = "deals = 4\nblock_deals = 4\n"
    if deadline is not None:
        text += f"[ladder]\ndeadline = {deadline}\n"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_finals_wait_for_the_deadline(small_ladder: None, tmp_path: Path) -> None:
    with override_settings(
        ARENA_COMPETITION_FILE=str(_competition(tmp_path, "2999-01-01T00:00:00Z"))
    ):
        assert competition_deadline() is not None and not is_frozen_now()
        with pytest.raises(CommandError, match="the deadline has not come"):
            call_command("ladder_finals")
    with override_settings(ARENA_COMPETITION_FILE=None):
        assert competition_deadline() is None and not is_frozen_now()


def test_at_the_deadline_the_finals_are_played_and_published(
    small_ladder: None, tmp_path: Path
) -> None:
    team_with("ants", "station")
    team_with("bees", "folder")
    with override_settings(
        ARENA_COMPETITION_FILE=str(_competition(tmp_path, "2020-01-01T00:00:00Z"))
    ):
        assert is_frozen_now()
        call_command("ladder_finals")
    run = FinalsRun.objects.get()
    assert run.status == "done" and sorted(run.entrants) == ["ants-v1", "bees-v1"]
    rows = run.standings["leaderboard"]["rows"]
    assert [row["bot"] for row in rows] == ["ants-v1", "bees-v1"]  # the station beats the folder
    assert set(run.standings["crosstable"]["bots"]) == {"ants-v1", "bees-v1"}
    assert list(LeaderboardRow.objects.filter(board="finals").values_list("name", flat=True)) == [
        "ants-v1",
        "bees-v1",
    ]
    page = Client().get("/ladder/finals/").content.decode()
    assert "crosstable" in page and "ants-v1" in page
    report = Client().get("/ladder/finals/report/")
    assert report.status_code == 200 and b"<html" in report.content[:200].lower()
    assert "script-src" in report.headers["Content-Security-Policy"]


def test_from_the_deadline_no_upload_and_no_change_of_version_counts(
    small_ladder: None, tmp_path: Path
) -> None:
    # The finals play the versions active at the deadline: a later upload or activation
    # would change who plays after the fact.
    from arena.server.site.versions import UploadRefused, activate, store_upload
    from tests.arena.server.factories import make_version

    team, active = team_with("ants", "station")
    newer = make_version(team, status=VersionStatus.ACCEPTED)
    with override_settings(
        ARENA_COMPETITION_FILE=str(_competition(tmp_path, "2020-01-01T00:00:00Z"))
    ):
        with pytest.raises(UploadRefused, match="the deadline has passed"):
            store_upload(team, b"any archive")
        with pytest.raises(UploadRefused, match="the deadline has passed"):
            activate(team, newer)
    team.refresh_from_db()
    assert team.active_version_id == active.pk
    assert team.versions.count() == 2


def test_the_public_finals_report_is_drawn_from_redacted_data(
    small_ladder: None, tmp_path: Path
) -> None:
    # The organiser's report holds every hole card, the secret seed and the server's paths
    # (the report module writes it 0600); a visitor reads a copy drawn without them.
    import re

    from django.contrib.auth.models import User

    team_with("ants", "station")
    team_with("bees", "folder")
    with override_settings(
        ARENA_COMPETITION_FILE=str(_competition(tmp_path, "2020-01-01T00:00:00Z"))
    ):
        call_command("ladder_finals")
    run = FinalsRun.objects.get()
    public = Client().get("/ladder/finals/report/").content.decode()
    User.objects.create_user("org", password="an organiser's password", is_staff=True)
    organiser = Client()
    assert organiser.login(username="org", password="an organiser's password")
    whole = organiser.get("/ladder/finals/report/").content.decode()
    seed = re.search(r'\["seed", ?"(\d+)"\]', whole)
    assert seed is not None and seed.group(1) not in public
    work = str(Path(run.report_file).parent)
    assert work in whole and work not in public
    # The folder folds its small blinds: those hands' cards are hidden to a visitor.
    assert '"??"' in public and '"??"' not in whole
    assert "ants-v1" in public and "crosstable" in public
    # Under visibility "nothing" a visitor sees no hand of the finals at all.
    from arena.server.competition import Visibility
    from arena.server.ladder.finals import write_public_report

    hidden = tmp_path / "nothing.html"
    write_public_report(Path(run.report_file).parent / "finals", hidden, Visibility.NOTHING)
    assert '"hands":[]' in hidden.read_text(encoding="utf-8").replace(" ", "")
    assert '"hands":[]' not in public.replace(" ", "")


@pytest.mark.usefixtures("db")
def test_the_finals_page_shows_the_score_that_ranks_and_names_it() -> None:
    # Issue 32: raw numbers were shown in the luck-adjusted order with no label.
    def estimate(mean: float) -> dict[str, float]:
        return {"mean": mean, "half_width": 5.0}

    rows = [
        {"rank": 1, "bot": "ants-v1", "hands": 10, "mbb_per_hand": estimate(-397.3),
         "adjusted_mbb_per_hand": estimate(120.0)},
        {"rank": 2, "bot": "bees-v1", "hands": 10, "mbb_per_hand": estimate(397.3),
         "adjusted_mbb_per_hand": estimate(-120.0)},
    ]  # fmt: skip
    cells = [{"row": "ants-v1", "column": "bees-v1", "mbb_per_hand": estimate(-397.3),
              "adjusted_mbb_per_hand": estimate(120.0)}]  # fmt: skip
    standings = {"leaderboard": {"score": "adjusted", "rows": rows},
                 "crosstable": {"score": "adjusted", "bots": ["ants-v1", "bees-v1"],
                                "cells": cells}}  # fmt: skip
    FinalsRun.objects.create(status="done", entrants=["ants-v1", "bees-v1"],
                             standings=standings, finished=timezone.now())  # fmt: skip
    page = Client().get("/ladder/finals/").content.decode()
    assert "<th>luck-adjusted mbb/hand</th>" in page and "luck-adjusted mbb/hand)</h2>" in page
    assert "<td>120.0</td>" in page and "-397.3" not in page
    standings["leaderboard"]["score"] = standings["crosstable"]["score"] = "raw"
    FinalsRun.objects.update(standings=standings)
    page = Client().get("/ladder/finals/").content.decode()
    assert "<th>raw mbb/hand</th>" in page and "<td>-397.3</td>" in page
