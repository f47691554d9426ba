"""Reading a hand history (:mod:`arena.store.hand_log`): whole, or hands out of it without
reading it all."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from arena.store import hand_log
from arena.store.hand_log import HandLogError, iter_hands, read_hand_log, read_hands, read_header

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
    with pytest.raises(HandLogError, match=r"nope.jsonl: cannot read the hand history"):
        read_header(tmp_path / "nope.jsonl")


@pytest.mark.parametrize("first", ["", "[1, 2]", '{"type": "hand"}', "{broken"])
def test_a_file_that_is_not_a_hand_history_is_an_error(tmp_path: Path, first: str) -> None:
    path = _file(tmp_path, [first, _hand(1)])
    with pytest.raises(HandLogError, match=r"hands\.jsonl"):
        read_hands(path, [1])


def test_a_bad_line_is_an_error_naming_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1), "{oops"])
    with pytest.raises(HandLogError, match=r"hands.jsonl:3: not a JSON record"):
        list(iter_hands(path))
    with pytest.raises(HandLogError, match=r"hands.jsonl:3: not a JSON record"):
        read_hands(path, [5])


def test_a_hand_without_its_history_is_an_error(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), json.dumps({"type": "hand", "hand_number": 1})])
    with pytest.raises(HandLogError, match=r":2: a hand record without its history"):
        list(iter_hands(path))


def test_unwanted_lines_of_another_encoder_are_skipped(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), _hand(1, compact=False), _hand(2, compact=False)])
    assert list(read_hands(path, [2])[1]) == [2]


def test_lines_are_split_on_newline_only_so_unicode_line_separators_stay_in_their_record(
    tmp_path: Path,
) -> None:
    # A bot's invalid reply is written raw inside a JSON string: U+2028, U+2029 and NEL
    # are line breaks to str.splitlines() but not to the file's format.
    reply = "fold\u2028\u2029\x85call"
    header = {**HEADER, "format": 1}
    hand = {"type": "hand", "hand_number": 1, "history": {"reply": reply}}
    end = {"type": "match_end"}
    path = tmp_path / "hands.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in (header, hand, end)),
        encoding="utf-8",
    )
    log = read_hand_log(path)
    assert [record["history"]["reply"] for record in log.hands] == [reply]
    assert log.footer == end
    assert [record["history"]["reply"] for record in iter_hands(path)] == [reply]
    assert read_hands(path, [1])[1][1]["history"]["reply"] == reply


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"[" * 100_000 + b"]" * 100_000 + b"\n", "hands.jsonl:1: not a JSON record"),
        (b'{"type":"match","format":1,"players":[]}\n' + b"[" * 100_000 + b"\n", "hands.jsonl:2"),
        (b"\x00\x01\xfe\xff binary\n", "hands.jsonl:1: not UTF-8 text"),
        (b'{"type":"match","format":1,"players":[]}\n{"type":"hand"}\n\x9c\n', "hands.jsonl:3"),
        (b'{"type":"match","format":1,"players":[]}\n["a list"]\n', "unexpected record type"),
        (b'{"type":"match","format":[1],"players":[]}\n', "format list is not 1"),
    ],
)
def test_a_file_that_would_crash_a_decoder_is_one_error_naming_file_and_line(
    tmp_path: Path, content: bytes, named: str
) -> None:
    path = tmp_path / "hands.jsonl"
    path.write_bytes(content)
    with pytest.raises(HandLogError, match=named):
        read_hand_log(path)


def test_a_too_deep_line_is_an_error_of_the_streaming_readers_too(tmp_path: Path) -> None:
    path = _file(tmp_path, [json.dumps(HEADER), "[" * 100_000 + "]" * 100_000])
    with pytest.raises(HandLogError, match=r"hands.jsonl:2: not a JSON record \(nested too deep"):
        list(iter_hands(path))


def test_a_last_line_cut_inside_a_character_is_left_out_as_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "hands.jsonl"
    header = json.dumps({**HEADER, "format": 1}).encode()
    path.write_bytes(header + b'\n{"type":"hand","name":"caf\xc3')
    log = read_hand_log(path)
    assert log.hands == () and log.cut_tail_bytes == len(b'{"type":"hand","name":"caf\xc3')


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ('{"players": [], "mode": "reset"}\n', "this is a match's results file"),
        ('{\n  "players": [],\n  "mode": "reset"\n}\n', "this is a match's results file"),
        ('{\n  "type": "match"\n}\n', "a JSON document, not a hand history"),
    ],
)
def test_another_json_file_is_named_for_what_it_is(tmp_path: Path, text: str, named: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(HandLogError, match=named):
        read_hand_log(path)


class _Unreadable(io.BytesIO):
    def __init__(self, error: BaseException) -> None:
        super().__init__()
        self.error = error

    def read(self, size: int | None = -1) -> bytes:
        raise self.error


@pytest.mark.parametrize(
    ("error", "named"),
    [(OSError(5, "Input/output error"), "cannot read the hand history: Input/output error"),
     (MemoryError(), "too large to read whole")],
)  # fmt: skip
def test_a_file_that_cannot_be_read_whole_is_one_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException, named: str
) -> None:
    monkeypatch.setattr(hand_log, "_open", lambda path: _Unreadable(error))
    with pytest.raises(HandLogError, match=named):
        read_hand_log(tmp_path / "hands.jsonl")
