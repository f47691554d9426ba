"""The golden matches (``tests/arena/golden``) come out byte for byte as recorded.

The files were recorded before the arena was split into packages; the same bots and
configs must still give the same ``hands.jsonl``, and the same ``results.json`` but for
where the history was written and how long the match took. When a change is meant to
change every deck (the fair-deck shuffle), regenerate them as the docstring of
:mod:`tests.arena.golden.matches` says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.match.results import MatchResult
from tests.arena.golden.matches import MATCHES, GoldenMatch, main, write_all

#: What ``results.json`` may change from run to run: where the history went, and timings.
UNSTABLE_KEYS = ("history_path", "duration_s", "hands_per_second")


def _stable(results: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in results.items() if key not in UNSTABLE_KEYS}


@pytest.mark.parametrize("match", MATCHES, ids=[match.name for match in MATCHES])
def test_a_golden_match_gives_the_recorded_hand_history_byte_for_byte(
    match: GoldenMatch, tmp_path: Path
) -> None:
    match.play(tmp_path)
    recorded = (match.folder / "hands.jsonl").read_bytes()
    assert (tmp_path / "hands.jsonl").read_bytes() == recorded


@pytest.mark.parametrize("match", MATCHES, ids=[match.name for match in MATCHES])
def test_a_golden_match_gives_the_recorded_results_but_for_path_and_timings(
    match: GoldenMatch, tmp_path: Path
) -> None:
    result = match.play(tmp_path)
    recorded = json.loads((match.folder / "results.json").read_text(encoding="utf-8"))
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert _stable(written) == _stable(recorded)
    assert written["history_path"] == str(tmp_path / "hands.jsonl")
    assert _stable(result.to_dict()) == _stable(recorded)


def test_the_golden_matches_cover_every_stack_format_and_both_variants() -> None:
    # The recorded files are the proof; this keeps the set from shrinking unnoticed.
    modes = set()
    variants = set()
    for match in MATCHES:
        recorded = MatchResult.read_json(match.folder / "results.json")
        modes.add(recorded.mode)
        variants.add(match.config.game.variant.value)
        assert recorded.config == match.config.to_dict()
    assert modes == {"hands", "carry", "freezeout"}
    assert variants == {"holdem", "five_card_draw"}


def test_the_golden_files_are_regenerated_only_with_write(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main([])
    assert info.value.code == 2
    assert "nothing to do without --write" in capsys.readouterr().err


def test_write_all_records_every_golden_match_in_the_folder_given(tmp_path: Path) -> None:
    folders = write_all(tmp_path)
    assert [folder.name for folder in folders] == [match.name for match in MATCHES]
    for match, folder in zip(MATCHES, folders, strict=True):
        assert (folder / "hands.jsonl").read_bytes() == (match.folder / "hands.jsonl").read_bytes()
        assert (folder / "results.json").is_file()
