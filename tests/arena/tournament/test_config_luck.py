"""The tournament's luck and score settings: read from the declarations (file and flags),
checked together, carried to every match, and kept out of an older run's fingerprint."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match.config import Score
from arena.settings.catalog import Luck
from arena.tournament.config import TournamentConfigError, build_config, difference, fingerprint
from arena.tournament.plan import plan
from tests.arena.tournament.test_config import manifest, write


def test_luck_is_on_and_the_adjusted_score_ranks_by_default(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, ""))
    assert config.luck is Luck.ON and config.score is None
    assert config.score_used is Score.ADJUSTED
    match = plan(config, 5)[0].match_config(config)
    assert match.luck is True and match.score is Score.ADJUSTED


def test_a_file_with_luck_off_scores_raw_and_its_matches_skip_the_estimator(
    tmp_path: Path,
) -> None:
    config = build_config(file=write(tmp_path, 'luck = "off"'))
    assert config.score_used is Score.RAW
    assert plan(config, 5)[0].match_config(config).luck is False
    assert config.to_dict()["luck"] == "off" and config.to_dict()["score"] is None


def test_a_flag_asks_for_the_raw_score_with_luck_on(tmp_path: Path) -> None:
    config = build_config(file=write(tmp_path, 'score = "adjusted"'), overrides={"score": "raw"})
    assert config.luck is Luck.ON and config.score_used is Score.RAW
    assert plan(config, 5)[0].match_config(config).score is Score.RAW


def test_the_adjusted_score_with_luck_off_is_refused_naming_both(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(file=write(tmp_path, 'luck = "off"\nscore = "adjusted"'))
    message = str(caught.value)
    assert 'score = "adjusted"' in message and "luck is off" in message


def test_a_bad_score_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(TournamentConfigError, match="score"):
        build_config(file=write(tmp_path, 'score = "lucky"'))


def test_a_run_stored_before_the_luck_setting_is_found_again_with_luck_off() -> None:
    bots = [str(manifest("alpha")), str(manifest("beta"))]
    off = build_config(overrides={"bots": bots, "luck": "off"})
    on = build_config(overrides={"bots": bots})
    stored = off.to_dict()
    del stored["luck"], stored["score"]  # as a run written before the settings existed
    assert difference(stored, off) == ""
    assert difference(stored, on) == 'luck = "off", now "on"'
    assert fingerprint(off) != fingerprint(on)
