"""Line framing: lines come out the same however the byte stream is chunked."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.errors import BotFaultError, ErrorCode
from protocol.framing import DEFAULT_MAX_LINE_BYTES, LineReader, LineTooLongError, split_lines

TOO_LONG = b"<too long>"


def _feed_all(reader: LineReader, chunk: bytes) -> list[bytes]:
    """Feed one chunk; record each over-long line as TOO_LONG, in stream order."""
    out: list[bytes] = []
    data = chunk
    while True:
        try:
            out.extend(reader.feed(data))
            return out
        except LineTooLongError as error:
            out.extend(error.lines)
            out.append(TOO_LONG)
            data = b""


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(data[start:point])
        start = point
    pieces.append(data[start:])
    return pieces


def test_lines_are_split_on_newline_without_the_terminator() -> None:
    reader = LineReader()
    assert reader.feed(b'{"a":1}\n{"b":2}\n') == [b'{"a":1}', b'{"b":2}']


def test_carriage_return_before_newline_is_tolerated() -> None:
    reader = LineReader()
    assert reader.feed(b"one\r\ntwo\n") == [b"one", b"two"]


def test_a_lone_carriage_return_inside_a_line_is_kept() -> None:
    assert LineReader().feed(b"a\rb\n") == [b"a\rb"]


def test_partial_line_waits_for_its_newline() -> None:
    reader = LineReader()
    assert reader.feed(b'{"type":') == []
    assert reader.buffered_byte_count == 8
    assert reader.feed(b'"ready"}\n') == [b'{"type":"ready"}']
    assert reader.buffered_byte_count == 0


def test_empty_lines_are_returned_as_empty() -> None:
    assert LineReader().feed(b"\n\r\n") == [b"", b""]


def test_default_cap_is_64_kib() -> None:
    assert LineReader().max_line_bytes == DEFAULT_MAX_LINE_BYTES == 65536


def test_cap_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineReader(0)


def test_line_exactly_at_the_cap_is_accepted_with_or_without_carriage_return() -> None:
    reader = LineReader(max_line_bytes=4)
    assert reader.feed(b"abcd\nabcd\r\n") == [b"abcd", b"abcd"]


def test_complete_over_long_line_is_a_bot_fault_and_later_lines_survive() -> None:
    reader = LineReader(max_line_bytes=4)
    with pytest.raises(LineTooLongError) as info:
        reader.feed(b"ok\nabcde\nnext\n")
    error = info.value
    assert isinstance(error, BotFaultError)
    assert error.code == "line_too_long" == ErrorCode.LINE_TOO_LONG.value
    assert error.limit == 4
    assert "4 bytes" in error.message
    assert error.lines == [b"ok"]
    assert reader.feed(b"") == [b"next"]


def test_partial_over_long_line_raises_at_once_and_its_tail_is_skipped() -> None:
    reader = LineReader(max_line_bytes=4)
    # Five bytes may still be four and a tolerated "\r": the cap is certain only at six.
    assert reader.feed(b"abcde") == []
    with pytest.raises(LineTooLongError) as info:
        reader.feed(b"f")
    assert info.value.lines == []
    assert reader.buffered_byte_count == 0  # the buffer never grows past the cap
    assert reader.feed(b"more tail without end") == []
    assert reader.feed(b"still tail\nok\n") == [b"ok"]


def test_over_long_line_is_reported_once_however_long_it_is() -> None:
    reader = LineReader(max_line_bytes=8)
    faults = 0
    for _ in range(100):
        try:
            reader.feed(b"x" * 1000)
        except LineTooLongError:
            faults += 1
    assert faults == 1
    assert reader.feed(b"\nfine\n") == [b"fine"]


def test_buffer_stays_bounded_by_the_cap() -> None:
    reader = LineReader(max_line_bytes=16)
    for _ in range(50):
        with contextlib.suppress(LineTooLongError):
            reader.feed(b"y" * 7)
        assert reader.buffered_byte_count <= 17


_LINE = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"."))


@given(
    lines=st.lists(_LINE, max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=10),
    use_crlf=st.booleans(),
)
def test_any_chunking_of_lines_yields_the_same_lines(
    lines: list[bytes],
    cuts: list[int],
    use_crlf: bool,
) -> None:
    terminator = b"\r\n" if use_crlf else b"\n"
    data = b"".join(line + terminator for line in lines)
    reader = LineReader(max_line_bytes=64)
    out: list[bytes] = []
    for chunk in _chunks(data, cuts):
        out.extend(_feed_all(reader, chunk))
    expected = [line[:-1] if not use_crlf and line.endswith(b"\r") else line for line in lines]
    assert out == expected
    assert reader.buffered_byte_count == 0


@given(
    lines=st.lists(st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"~")), max_size=10),
    cuts=st.lists(st.integers(min_value=0, max_value=250), max_size=12),
)
def test_over_long_lines_are_flagged_in_place_under_any_chunking(
    lines: list[bytes],
    cuts: list[int],
) -> None:
    limit = 8
    data = b"".join(line + b"\n" for line in lines)
    reader = LineReader(max_line_bytes=limit)
    out: list[bytes] = []
    for chunk in _chunks(data, cuts):
        out.extend(_feed_all(reader, chunk))
    expected = []
    for line in lines:
        content = line[:-1] if line.endswith(b"\r") else line
        expected.append(TOO_LONG if len(content) > limit else content)
    assert out == expected


_TEXT = st.text(
    st.one_of(
        st.sampled_from("\u2028\u2029\x85\r\x0b\x0c\x1c"), st.characters(exclude_categories=["Cs"])
    )
)


@given(st.lists(_TEXT, max_size=5))
def test_split_lines_never_splits_inside_a_json_string(texts: list[str]) -> None:
    # U+2028, U+2029 and NEL are line breaks to str.splitlines() but legal raw inside a JSON
    # string; only "\n" ends a line of the protocol.
    data = b"".join(json.dumps({"text": t}, ensure_ascii=False).encode() + b"\n" for t in texts)
    assert [json.loads(line)["text"] for line in split_lines(data)] == texts
