"""The validation's rules from the site: the competition file's game, limits and sandbox
(strict when it names none), the site's hands, faults, house bot and upload limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.sandbox.select import SandboxLevel
from arena.server.competition import SiteRules
from arena.server.validation.report import InfrastructureError
from arena.server.validation.rules import DEFAULT_HOUSE_BOT, rules_for_site

SITE = SiteRules(
    validation_hands=30,
    validation_allowed_faults=1,
    validation_house_bot=None,
    upload_archive_bytes=1000,
    upload_unpacked_bytes=5000,
    upload_file_count=7,
)


def test_without_a_competition_file_the_rules_are_strict_with_the_sites_limits() -> None:
    rules = rules_for_site(None, SITE)
    assert rules.sandbox is SandboxLevel.STRICT
    assert rules.house_bot == DEFAULT_HOUSE_BOT and DEFAULT_HOUSE_BOT.is_file()
    assert (rules.hand_count, rules.allowed_faults) == (30, 1)
    assert rules.archive.max_archive_bytes == 1000
    assert (rules.archive.max_unpacked_bytes, rules.archive.max_entry_count) == (5000, 7)


def test_the_competition_file_gives_the_game_time_limits_and_resource_limits(
    tmp_path: Path,
) -> None:
    file = tmp_path / "competition.toml"
    file.write_text(
        '[game]\nsmall_blind = 2\nbig_blind = 4\n[limits]\ndecision_timeout = "2s"\n'
        'time_bank = "3s"\nmemory_bytes = "256MiB"\n'
    )
    rules = rules_for_site(file, SITE)
    assert rules.match.game.big_blind == 4
    # The time limits arrive whole, the time bank too (check-bot and the match get them).
    assert (rules.match.time_limits.decision_s, rules.match.time_limits.time_bank_s) == (2.0, 3.0)
    assert rules.resource_limits["memory_bytes"] == 256 * 1024 * 1024
    assert rules.sandbox is SandboxLevel.STRICT


def test_a_competition_file_that_cannot_be_read_is_not_the_uploads_fault(
    tmp_path: Path,
) -> None:
    file = tmp_path / "competition.toml"
    file.write_text("[game]\nbig_blind = -1\n")
    with pytest.raises(InfrastructureError, match="the competition file cannot be read"):
        rules_for_site(file, SITE)
