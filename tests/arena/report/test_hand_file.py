"""Reading hands out of a hand history without reading it all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.report.hand_file import HandFileError, iter_hands, read_hands, read_header

HEADER = {"type": "match", "match_id": "m", "players": [{"player_id": "p0", "name": "a"}]}


def _file(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "hands.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _hand(number: int, *, compact: bool = True) -> str:
    record = {"type": "hand", "hand_number": number, "history": {"hand_number": number}}
    return json.dumps(record, separators=(",", ":") if compact else None)


def test_only_the_asked_hands_are_returned(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), *(_hand(n) for n in range(1, 50))])
    header, found = read_hands(path, [3, 40, 99])
    assert header["match_id"] == "m"
    assert sorted(found) == [3, 40]
    assert found[40]["history"] == {"hand_number": 40}


def test_the_reading_stops_once_every_hand_is_found(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1), _hand(2), "this is not JSON"])
    _header, found = read_hands(path, [2])
    assert list(found) == [2]  # the bad line after it was never read


def test_lines_of_another_encoder_are_parsed_to_find_their_number(tmp_path: Path) -> None:
    path = _file(
        tmp_path, [json.dumps(HEADER), _hand(1, compact=False), "", _hand(2, compact=False)]
    )
    assert sorted(read_hands(path, [1, 2])[1]) == [1, 2]


def test_every_hand_is_streamed_in_file_order(tmp_path: Path) -> None:
    end = json.dumps({"type": "match_end"})
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1), "", _hand(2), end])
    assert [record["hand_number"] for record in iter_hands(path)] == [1, 2]
    assert read_header(path)["players"] == HEADER["players"]


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(HandFileError, match=r"nope.jsonl: cannot read the hand history"):
        read_header(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("first", ["", "[1, 2]", '{"type": "hand"}', "{broken"])
def test_a_file_that_is_not_a_hand_history_is_an_error(tmp_path: Path, first: str) -> None:
    path = _file(tmp_path, [first, _hand(1)])
    with pytest.raises(HandFileError, match=r"hands\.jsonl"):
        read_hands(path, [1])


def test_a_bad_line_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1), "{oops"])
    with pytest.raises(HandFileError, match=r"hands.jsonl:3: not a JSON record"):
        list(iter_hands(path))
    with pytest.raises(HandFileError, match=r"hands.jsonl:3: not a JSON record"):
        read_hands(path, [5])


def test_a_hand_without_its_history_is_an_error(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), json.dumps({"type": "hand", "hand_number": 1})])
    with pytest.raises(HandFileError, match=r":2: a hand record without its history"):
        list(iter_hands(path))


def test_unwanted_lines_of_another_encoder_are_skipped(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1, compact=False), _hand(2, compact=False)])
    assert list(read_hands(path, [2])[1]) == [2]
