"""The competition file: a tournament file's game keys plus the site's, one error line
naming the key and the value."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command

from arena.server.competition import (
    DEFAULT_VALIDATION_HANDS,
    SITE_KEYS,
    SignUp,
    SiteRules,
    Visibility,
    is_copied,
    read_competition,
    rules_attribute,
)
from arena.server.site.models import SiteSettings
from arena.server.validation.rules import ValidationRules
from arena.settings import SettingsError
from arena.uploads import ArchiveLimits


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


def test_the_site_rules_are_the_copied_keys_with_their_declared_defaults() -> None:
    # One declaration (SITE_KEYS): the dataclass's fields are its copied keys, its
    # defaults theirs; the database's columns are the dataclass's fields.
    declared = {rules_attribute(key): item.default for key, item in SITE_KEYS.items()
                if is_copied(key)}  # fmt: skip
    assert {item.name: item.default for item in fields(SiteRules)} == declared
    columns = {item.name for item in SiteSettings._meta.get_fields()} - {"id"}
    assert columns == set(declared)
    assert SiteSettings().rules() == SiteRules()  # a new row holds the declared defaults


def test_one_default_of_validation_hands_from_the_file_to_the_validation() -> None:
    house = Path("house.toml")
    assert SITE_KEYS["validation.hands"].default == ValidationRules(house_bot=house).hand_count
    assert SiteRules().validation_hands == DEFAULT_VALIDATION_HANDS


def test_the_deadline_is_live_and_kept_beside_the_rules(tmp_path: Path) -> None:
    competition = read_competition(
        _file(tmp_path, '[ladder]\ndeadline = "2026-12-01T18:00:00"\n[site]\nsignup = "open"\n')
    )
    assert competition.deadline == datetime(2026, 12, 1, 18, tzinfo=UTC)  # no zone: UTC
    assert not is_copied("ladder.deadline") and is_copied("site.signup")
    assert competition.rules == SiteRules(signup=SignUp.OPEN)


def test_rules_stored_and_read_back_are_the_same(tmp_path: Path) -> None:
    rules = SiteRules(
        signup=SignUp.INVITE,
        invite_code="blue-42",
        visibility=Visibility.NOTHING,
        upload_archive_bytes=1024,
        validation_house_bot=tmp_path / "house.toml",
    )
    stored = rules.to_stored()
    assert stored["signup"] == "invite" and stored["validation_house_bot"] == str(
        tmp_path / "house.toml"
    )
    assert SiteRules.from_stored(stored) == rules
    assert SiteRules.from_stored(SiteRules().to_stored()) == SiteRules()  # none is ""


def test_a_stored_value_no_rule_allows_names_its_key() -> None:
    with pytest.raises(SettingsError, match=r"upload.file_count = 0: must be at least 1"):
        SiteRules.from_stored({"upload_file_count": 0})


def test_the_archive_limits_are_the_upload_table() -> None:
    limits = SiteRules(upload_archive_bytes=1, upload_unpacked_bytes=2, upload_file_count=3)
    assert limits.archive_limits == ArchiveLimits(
        max_archive_bytes=1, max_unpacked_bytes=2, max_entry_count=3
    )


@pytest.mark.usefixtures("db")
def test_the_columns_defaults_from_the_declaration_need_no_migration() -> None:
    # A default changed in SITE_KEYS would change a column's: makemigrations would exit 1.
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
