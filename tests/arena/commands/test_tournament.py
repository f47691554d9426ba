"""``arena tournament`` end to end, with real bot processes of known strength."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from arena.bots.sandbox import select
from arena.bots.sandbox.select import Probe
from arena.commands import tournament as tournament_command
from arena.tournament.display import LiveDisplay, PlainDisplay
from tests.arena.tournament.helpers import FOLDER, HAND_STRENGTH, STATION, run_tournament, standings

# One pool worker where a test names no concurrency (tests/conftest.py): the tests that
# pass --concurrency 2 play matches side by side.
pytestmark = [pytest.mark.allow_error_logs, pytest.mark.usefixtures("one_pool_worker")]


def test_folder_loses_to_calling_station_with_an_interval_below_zero(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, "--deals", "30", "--block-deals", "10", "--seed", "5",
        "--out", out, "--sandbox", "none", "--concurrency", "2", "--no-progress",
    )  # fmt: skip
    assert code == 0, text
    result = standings(out)
    rows = {row["bot"]: row for row in result["leaderboard"]["rows"]}
    folder, station = rows["folder"], rows["python calling station"]
    assert folder["rank"] == 2 and station["rank"] == 1
    assert folder["mbb_per_hand"]["high"] < 0 < station["mbb_per_hand"]["low"]
    assert folder["chips_won"] == -station["chips_won"] < 0
    # Three blocks of ten deals, each deal played with the seats both ways.
    assert folder["mbb_per_hand"]["n"] == 30 and result["matches_counted"] == 6
    cells = {(cell["row"], cell["column"]): cell for cell in result["crosstable"]["cells"]}
    assert cells[("folder", "python calling station")]["mark"] == "--"
    assert "folder" in text and "crosstable" in text and "results database:" in text


def test_bot_against_its_copy_duplicate_deals_cancel_the_cards_exactly(tmp_path: Path) -> None:
    # Two copies of a deterministic bot: with the seats swapped over the same deals each
    # copy gets the other's cards, so every duplicate deal nets exactly zero.
    config = tmp_path / "copy.toml"
    config.write_text(
        f"""
name = "copies"
deals = 20
block_deals = 10
seed = 11
sandbox = "none"
concurrency = 2
[[bots]]
name = "a"
manifest = "{HAND_STRENGTH}"
[[bots]]
name = "b"
manifest = "{HAND_STRENGTH}"
""",
        encoding="utf-8",
    )
    code, text = run_tournament("--config", config, "--out", tmp_path / "run", "--no-progress")
    assert code == 0, text
    rows = standings(tmp_path / "run")["leaderboard"]["rows"]
    for row in rows:
        assert row["mbb_per_hand"]["mean"] == 0.0
        assert row["mbb_per_hand"]["low"] <= 0.0 <= row["mbb_per_hand"]["high"]
        assert row["chips_won"] == 0
    assert {row["bot"] for row in rows} == {"a", "b"}


def test_sprt_stops_a_decided_pair_after_its_first_block(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, "--deals", "100", "--block-deals", "10", "--seed", "5", "--sprt",
        "--out", out, "--sandbox", "none", "--concurrency", "1", "--no-progress",
    )  # fmt: skip
    assert code == 0, text
    result = standings(out)
    (test,) = result["sprt"]
    assert test["status"] in ("H0", "H1") and test["n"] == 10
    assert result["matches_counted"] == 2  # one block of two matches, not ten blocks
    assert "SPRT" in text and "[-2.94, 2.94]" in text
    with sqlite3.connect(out / "results.sqlite") as db:
        played = db.execute("SELECT count(*) FROM matches WHERE status = 'finished'").fetchone()
    assert played[0] < 20


def test_sit_and_go_ranks_by_rating_with_finishing_places(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, HAND_STRENGTH, "--format", "sit_and_go", "--games", "3",
        "--stack", "40", "--double-every", "5", "--seed", "2",
        "--out", out, "--sandbox", "none", "--concurrency", "2", "--no-progress",
    )  # fmt: skip
    assert code == 0, text
    result = standings(out)
    rows = result["leaderboard"]["rows"]
    assert result["leaderboard"]["order_by"] == "rating"
    assert all(row["rating"]["games"] == 3 for row in rows)
    places = {row["bot"]: row["average_place"] for row in rows}
    # Three bots, three places a game, no ties in chips at a bust: the places add up to 6.
    assert sum(places.values()) == pytest.approx(6.0)
    ordinals = [row["rating"]["ordinal"] for row in rows]
    assert ordinals == sorted(ordinals, reverse=True)
    assert result["crosstable"] is None
    # The printed title names the number that orders the rows: the rating, not chips.
    assert "ranked by rating (mu - 3 sigma)" in text


def test_ring_game_every_bot_in_every_seat(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, HAND_STRENGTH, "--format", "ring", "--deals", "10",
        "--seed", "4", "--out", out, "--sandbox", "none", "--no-progress",
    )  # fmt: skip
    assert code == 0, text
    with sqlite3.connect(out / "results.sqlite") as db:
        seats = db.execute(
            "SELECT bot, seat_index FROM match_seats JOIN matches ON matches.id = match_row"
        ).fetchall()
    for bot in ("folder", "python calling station", "python hand strength"):
        assert sorted(seat for name, seat in seats if name == bot) == [0, 1, 2]
    rows = standings(out)["leaderboard"]["rows"]
    assert sum(row["chips_won"] for row in rows) == 0
    # One block: ten deals, each played in the three rotations, is ten duplicate units.
    assert all(row["mbb_per_hand"]["n"] == 10 and row["rating"]["games"] == 3 for row in rows)


def test_bad_setting_is_an_error_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _text = run_tournament(FOLDER, STATION, "--deals", "many", "--out", tmp_path / "x")
    assert code == 2
    error = capsys.readouterr().err
    assert 'arena tournament: error: command line: deals = "many": must be a whole' in error
    assert not (tmp_path / "x").exists()


def test_another_tournament_in_the_run_folder_is_refused_naming_the_setting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    common = ("--seed", "5", "--out", out, "--sandbox", "none", "--no-progress")
    assert run_tournament(FOLDER, STATION, "--deals", "4", *common)[0] == 0
    capsys.readouterr()
    code, _text = run_tournament(FOLDER, STATION, "--deals", "6", *common)
    assert code == 2
    error = capsys.readouterr().err
    assert "holds another tournament ('tournament', other settings: deals = 4, now 6)" in error


def test_the_same_manifest_twice_plays_as_two_bots_named_apart(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        STATION, STATION, "--deals", "2", "--seed", "1", "--out", out, "--sandbox", "none",
        "--no-progress", "--no-report",
    )  # fmt: skip
    assert code == 0, text
    names = {row["bot"] for row in standings(out)["leaderboard"]["rows"]}
    assert names == {"python calling station", "python calling station-2"}


def test_ctrl_c_while_the_standings_print_is_the_interrupted_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(tournament_command, "print_standings", interrupted)
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, "--deals", "2", "--seed", "1", "--out", out, "--sandbox", "none",
        "--no-progress", "--no-report",
    )  # fmt: skip
    assert code == 130
    assert "interrupted: finished matches are stored in" in text and "Traceback" not in text


def test_a_finished_tournament_run_again_plays_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    common = (FOLDER, STATION, "--deals", "4", "--seed", "5", "--out", out)
    assert run_tournament(*common, "--sandbox", "none", "--no-progress")[0] == 0
    first = standings(out)
    code, text = run_tournament(*common, "--sandbox", "none", "--no-progress")
    assert code == 0
    assert "resumed: 2 matches were already finished" in text
    assert standings(out) == first


def test_a_bot_that_cannot_start_fails_its_matches_and_the_run_says_so(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text(
        'name = "broken"\ncommand = ["/nonexistent/program"]\n', encoding="utf-8"
    )
    out = tmp_path / "run"
    code, text = run_tournament(
        broken / "bot.toml", STATION, "--deals", "4", "--seed", "5", "--out", out,
        "--sandbox", "none", "--no-progress", "--concurrency", "1",
    )  # fmt: skip
    assert code == 1
    assert "FAILED" in text and "broken" in text
    assert "run the same command again" in text


def test_a_bot_with_a_build_step_plays_from_its_build_under_the_sandbox(tmp_path: Path) -> None:
    # The sandbox builds in a private copy; every match must start from that build (kept in
    # the run folder), never from the bot's own folder, where nothing was built.
    built = Path(__file__).resolve().parents[2] / "bots" / "built"
    assert not (built / "out").exists()
    out = tmp_path / "run"
    code, text = run_tournament(
        built / "bot.toml", FOLDER, "--deals", "4", "--seed", "5", "--out", out,
        "--sandbox", "limits", "--concurrency", "1", "--no-progress", "--no-report",
    )  # fmt: skip
    assert code == 0, text
    assert (out / "builds" / "built" / "out" / "station.py").is_file()
    assert not (built / "out").exists()
    rows = {row["bot"]: row for row in standings(out)["leaderboard"]["rows"]}
    assert rows["built"]["chips_won"] > 0 and rows["built"]["hands"] == 8


@pytest.mark.parametrize(
    ("variant", "betting"),
    [("five_card_draw", "pot_limit"), ("holdem", "fixed_limit"), ("five_card_draw", "no_limit")],
)
def test_every_variant_and_betting_structure_plays_a_duplicate_round_robin(
    tmp_path: Path, variant: str, betting: str
) -> None:
    out = tmp_path / "run"
    code, text = run_tournament(
        FOLDER, STATION, "--deals", "4", "--seed", "3", "--variant", variant,
        "--betting", betting, "--out", out, "--sandbox", "none", "--no-progress", "--no-report",
    )  # fmt: skip
    assert code == 0, text
    result = standings(out)
    assert result["matches_counted"] == 2 and result["hands"] == 8
    header = (out / "matches").glob("*/hands.jsonl").__next__().read_text().splitlines()[0]
    assert f'"variant":"{variant}"' in header.replace(" ", "")
    assert f'"structure":"{betting}"' in header.replace(" ", "")


def test_a_bot_whose_build_fails_stops_the_tournament_before_a_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken" / "bot.toml"
    broken.parent.mkdir()
    script = "import sys; print('bot.c:3: error: expected ;'); sys.exit(1)"
    broken.write_text(
        f'name = "broken"\ncommand = ["./bot"]\nbuild = ["{{python}}", "-c", "{script}"]\n'
    )
    code, _text = run_tournament(STATION, broken, "--out", tmp_path / "run", "--sandbox", "none")
    assert code == 2
    error = capsys.readouterr().err
    assert f"building 'broken' ({broken}) failed: build " in error
    # The compiler's error, which says what to fix, not only the exit code.
    assert "failed (exit code 1); its output ends with:\n  | bot.c:3: error: expected ;" in error


def test_a_run_folder_that_cannot_be_made_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("mine")
    out = a_file / "run"
    code, _text = run_tournament(FOLDER, STATION, "--out", out, "--sandbox", "none")
    assert code == 2
    first, _hint = capsys.readouterr().err.splitlines()
    assert first == (
        f"arena tournament: error: cannot use the run folder {str(out)!r}: Not a directory"
    )


def test_a_sandbox_that_does_not_work_here_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = Probe("'bwrap' (bubblewrap) is not installed", None, "x")
    monkeypatch.setattr(select, "probe", lambda: missing)
    code, _text = run_tournament(FOLDER, STATION, "--out", tmp_path / "run", "--sandbox", "strict")
    assert code == 2
    assert "sandbox strict is not available here" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_live_display_is_used_on_a_terminal_and_plain_lines_elsewhere() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert isinstance(tournament_command._display(Terminal(), True), LiveDisplay)
    assert isinstance(tournament_command._display(Terminal(), False), PlainDisplay)
    assert isinstance(tournament_command._display(io.StringIO(), True), PlainDisplay)


NOISY_BOT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        print("warming up", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready", "seq": message["seq"], "name": "noisy"}), flush=True)
    elif kind == "act":
        print("thinking...", file=sys.stderr, flush=True)
        action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
        print(json.dumps({"type": "action", "seq": message["seq"], "action": action}), flush=True)
    elif kind == "match_end":
        break
"""


def test_the_summary_says_which_bots_wrote_to_stderr_and_where(tmp_path: Path) -> None:
    bot = tmp_path / "noisy"
    bot.mkdir()
    (bot / "bot.py").write_text(NOISY_BOT)
    (bot / "bot.toml").write_text('name = "noisy"\ncommand = ["{python}", "bot.py"]\n')
    out = tmp_path / "run"
    code, text = run_tournament(
        bot / "bot.toml", STATION, "--deals", "4", "--block-deals", "2", "--seed", "3",
        "--out", out, "--sandbox", "none", "--concurrency", "1", "--no-progress",
        "--no-report",
    )  # fmt: skip
    assert code == 0, text
    (line,) = [line for line in text.splitlines() if line.startswith("stderr: ")]
    assert line.startswith("stderr: noisy wrote ") and " in 4 of 4 matches; most in " in line
    largest = Path(line.rpartition(" most in ")[2])
    assert largest.is_relative_to(out) and "thinking..." in largest.read_text()
