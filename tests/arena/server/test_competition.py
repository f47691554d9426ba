"""The competition file: a tournament file's game keys plus the site's, one error line
naming the key and the value."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.server.competition import SignUp, Visibility, read_competition
from arena.settings import SettingsError


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "competition.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_site_keys_and_game_keys_are_read_together(tmp_path: Path) -> None:
    competition = read_competition(
        _file(
            tmp_path,
            '[game]\nbig_blind = 4\nsmall_blind = 2\n[limits]\ndecision_timeout = "250ms"\n'
            'memory_bytes = "256MiB"\n[site]\nsignup = "invite"\ninvite_code = "blue-42"\n'
            'visibility = "everything"\n[upload]\narchive_bytes = "1MiB"\nfile_count = 10\n'
            '[validation]\nhands = 50\nhouse_bot = "house/bot.toml"\n',
        )
    )
    rules = competition.rules
    assert (competition.game.big_blind, competition.time.decision_timeout_s) == (4, 0.25)
    assert competition.config.resource_limits == {"memory_bytes": 256 * 1024 * 1024}
    assert (rules.signup, rules.invite_code, rules.visibility) == (
        SignUp.INVITE,
        "blue-42",
        Visibility.EVERYTHING,
    )
    assert (rules.upload_archive_bytes, rules.upload_file_count) == (1024 * 1024, 10)
    assert rules.validation_house_bot == tmp_path / "house" / "bot.toml"


def test_every_tournament_table_of_the_file_reaches_the_competition_config(
    tmp_path: Path,
) -> None:
    # The ladder reads the ring's seats (its tables) and the finals every table: a key the
    # file accepts must not be dropped on the way to the config.
    competition = read_competition(
        _file(
            tmp_path,
            'format = "ring"\n[ring]\nseats = 3\n[sprt]\nalpha = 0.01\n[sit_and_go]\nseats = 4\n',
        )
    )
    config = competition.config
    assert (config.ring_seats, config.seats) == (3, 3)
    assert config.sprt.alpha == 0.01
    assert config.sit_and_go.seats == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[site]\nsignup = "everyone"\n', 'site.signup = "everyone": must be one of open'),
        ('[site]\nvisibilty = "nothing"\n', 'site.visibilty = "nothing": unknown key (did you'),
        ('[site]\nsignup = "invite"\n', "site.invite_code = null: is needed when"),
        ("[upload]\nfile_count = 0\n", "upload.file_count = 0: must be at least 1"),
        ("[game]\nsmall_blind = 5\n", "game.small_blind = 5: must not be larger than"),
        ('bots = ["a.toml"]\n', 'bots = ["a.toml"]: unknown key'),
        ('format = "gauntlet"\n', 'format = "gauntlet": the ladder plays round_robin'),
        ('format = "sit_and_go"\n', 'format = "sit_and_go": the ladder plays round_robin'),
    ],
)
def test_a_bad_key_is_one_line_naming_the_key_and_value(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        read_competition(_file(tmp_path, text))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)
    assert caught.value.exit_code == 2
