"""Encoding our messages and decoding whatever a bot writes."""

from __future__ import annotations

import contextlib
import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Card
from protocol import codec
from protocol.codec import decode, encode, json_text, scalar_text
from protocol.errors import ArenaBugError, BotFaultError, DecodeError, ErrorCode, ProtocolError
from protocol.replies import parse_action_reply
from tests.protocol.situations import FACING_BET

_FACING_BET = replace(FACING_BET, seat_index=0)


def test_encode_is_compact_utf8_json_with_one_newline() -> None:
    line = encode({"type": "ready", "seq": 1, "name": "Zoë"})
    assert line == '{"type":"ready","seq":1,"name":"Zoë"}\n'.encode()
    assert line.count(b"\n") == 1


def test_encoded_newlines_inside_strings_are_escaped() -> None:
    line = encode({"type": "error", "message": "two\nlines"})
    assert line.count(b"\n") == 1
    assert decode(line)["message"] == "two\nlines"


def test_encode_of_something_not_json_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="'act' message"):
        encode({"type": "act", "when": object()})


def test_encode_refuses_nan_as_our_bug() -> None:
    with pytest.raises(ArenaBugError):
        encode({"type": "act", "pot_total": float("nan")})


def test_encode_of_a_lone_surrogate_is_our_bug() -> None:
    with pytest.raises(ArenaBugError):
        encode({"type": "ready", "name": "\ud800"})


def test_encode_of_a_non_mapping_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="list"):
        encode([1, 2])  # type: ignore[arg-type]


def test_strict_encode_validates_against_the_schema() -> None:
    good = {"type": "match_end", "hands_played": 3, "standings": []}
    assert encode(good, strict=True) == encode(good)
    with pytest.raises(ArenaBugError, match="hands_played"):
        encode({"type": "match_end", "standings": []}, strict=True)


def test_strict_encode_catches_a_raw_card_sneaking_in_as_a_number() -> None:
    # Card is an int subclass: json would silently send 51 instead of a card object.
    message = {"type": "match_end", "hands_played": 1, "standings": [], "card": Card.parse("As")}
    with pytest.raises(ArenaBugError):
        encode(message, strict=True)


def test_decode_returns_the_object_and_tolerates_the_terminator() -> None:
    assert decode(b'{"type":"action","seq":2}\r\n') == {"type": "action", "seq": 2}
    assert decode(bytearray(b'{"a": [1, 2.5, null]}')) == {"a": [1, 2.5, None]}


@pytest.mark.parametrize(
    ("line", "code"),
    [
        (b"", ErrorCode.INVALID_JSON),
        (b"hello", ErrorCode.INVALID_JSON),
        (b'{"type": "action",}', ErrorCode.INVALID_JSON),
        (b'{"a": NaN}', ErrorCode.INVALID_JSON),
        (b'{"a": Infinity}', ErrorCode.INVALID_JSON),
        (b'{"a": -Infinity}', ErrorCode.INVALID_JSON),
        (b"\xff\xfe{}", ErrorCode.INVALID_UTF8),
        (b'{"name": "\xc3"}', ErrorCode.INVALID_UTF8),
        (b"[]", ErrorCode.NOT_AN_OBJECT),
        (b"42", ErrorCode.NOT_AN_OBJECT),
        (b'"text"', ErrorCode.NOT_AN_OBJECT),
        (b"null", ErrorCode.NOT_AN_OBJECT),
        (b"true", ErrorCode.NOT_AN_OBJECT),
        (b"[" * 60_000, ErrorCode.TOO_DEEP),
        (b"[" * 100_000, ErrorCode.LINE_TOO_LONG),
        (b'{"n": ' + b"9" * 5000 + b"}", ErrorCode.INVALID_JSON),
    ],
)
def test_decode_of_garbage_is_a_bot_fault_with_a_stable_code(line: bytes, code: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode(line)
    assert isinstance(info.value, BotFaultError)
    assert info.value.code == code


def test_fault_text_names_code_path_and_message() -> None:
    assert str(BotFaultError("invalid_json", "oops")) == "invalid_json: oops"
    assert (
        str(BotFaultError("duplicate_discard", "twice", "/cards/1"))
        == "duplicate_discard at /cards/1: twice"
    )


def test_decode_error_quotes_the_bad_line_briefly() -> None:
    with pytest.raises(DecodeError) as info:
        decode(b"not json " * 100)
    assert "b'not json not json" in info.value.message
    assert info.value.message.endswith("...")
    assert len(info.value.message) < 200


def test_decode_of_deeply_nested_arrays_is_too_deep_not_a_crash() -> None:
    deep = b"[" * 5000 + b"]" * 5000
    with pytest.raises(DecodeError) as info:
        decode(deep)
    assert info.value.code == ErrorCode.TOO_DEEP and "nested 5000 deep" in info.value.message


def test_decode_of_something_not_bytes_is_our_bug() -> None:
    with pytest.raises(ArenaBugError, match="not int"):
        decode(12)  # type: ignore[arg-type]


@given(st.binary(max_size=300))
def test_decode_of_random_bytes_raises_only_protocol_errors(data: bytes) -> None:
    try:
        result = decode(data)
    except ProtocolError as error:
        assert isinstance(error, BotFaultError)
        assert error.code in {"invalid_utf8", "invalid_json", "not_an_object", "too_deep"}
    else:
        assert isinstance(result, dict)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _JSON, max_size=5))
def test_encode_then_decode_round_trips_any_json_object(obj: dict[str, object]) -> None:
    assert decode(encode(obj)) == json.loads(json.dumps(obj))


@given(st.dictionaries(st.text(), _JSON, max_size=5), st.binary(max_size=8))
def test_decode_of_mangled_valid_lines_raises_only_protocol_errors(
    obj: dict[str, object],
    junk: bytes,
) -> None:
    line = encode(obj)
    mangled = line[: len(line) // 2] + junk + line[len(line) // 2 :]
    with contextlib.suppress(ProtocolError):
        decode(mangled)


_ENTRY = st.dictionaries(
    st.sampled_from(["action", "amount", "probability", "x"]),
    _JSON | st.sampled_from(["CALL", "RAISE", "FOLD"]) | st.floats(0, 1),
    max_size=4,
)


@given(st.lists(_ENTRY | _JSON, max_size=5), st.binary(max_size=8), st.integers(0, 200))
def test_decoding_and_parsing_any_distribution_line_raises_only_protocol_errors(
    distribution: list[object], junk: bytes, cut: int
) -> None:
    # A bot's line with a mixed strategy, whole or mangled: decode() and the reply's parse
    # raise nothing but the protocol's own error (the bot's fault).
    line = encode({"type": "action", "seq": 3, "distribution": distribution})
    for data in (line, line[:cut] + junk + line[cut:]):
        with contextlib.suppress(ProtocolError):
            parse_action_reply(decode(data), 3, _FACING_BET)


def test_a_byte_order_mark_is_invalid_json_as_json_loads_says() -> None:
    with pytest.raises(DecodeError, match="BOM") as caught:
        decode(b'\xef\xbb\xbf{"type":"action"}')
    assert caught.value.code == ErrorCode.INVALID_JSON


def test_json_text_is_the_encoded_line_without_its_newline() -> None:
    message = {"type": "ready", "name": "Zoë", "n": [1, 2.5, None, True]}
    assert json_text(message).encode() + b"\n" == encode(message)
    with pytest.raises(ArenaBugError, match="'act' message"):
        json_text({"type": "act", "when": object()})


@given(_JSON)
def test_json_text_is_what_json_dumps_writes_with_the_wire_settings(value: object) -> None:
    expected = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    assert json_text(value) == expected
    assert scalar_text(value) == expected


def test_without_a_c_encoder_the_python_encoder_writes_the_same_text() -> None:
    python_iterencode = codec._reused_iterencode(None)
    message = {"type": "ready", "name": "Zoë\n", "n": [1, 2.5, None, True], "x": {"y": -3}}
    assert "".join(python_iterencode(message, 0)) == json_text(message)


def test_scalar_text_writes_ints_bools_null_and_strings_as_json_text_does() -> None:
    values = [0, -7, 2**70, Card.parse("As"), True, False, None, "ALL_IN", "Zoë\t", "x" * 500]
    assert [scalar_text(value) for value in values] == [json_text(value) for value in values]
    with pytest.raises(ArenaBugError):
        scalar_text(float("nan"))


def test_scalar_text_keeps_its_string_memo_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(codec, "_MAX_MEMO_COUNT", 3)
    monkeypatch.setattr(codec, "_STRING_TEXTS", {})
    assert [scalar_text(f"value{index}") for index in range(10)][-1] == '"value9"'
    assert len(codec._STRING_TEXTS) <= 3


def test_a_line_nested_to_the_depth_limit_is_read_and_one_deeper_is_too_deep() -> None:
    deepest = b'{"x":' + b"[" * (codec.MAX_DEPTH - 1) + b"]" * (codec.MAX_DEPTH - 1) + b"}"
    expected: list[object] = []
    for _ in range(codec.MAX_DEPTH - 2):
        expected = [expected]
    assert decode(deepest) == {"x": expected}
    deeper = b'{"x":' + b"[" * codec.MAX_DEPTH + b"]" * codec.MAX_DEPTH + b"}"
    with pytest.raises(DecodeError) as info:
        decode(deeper)
    assert info.value.code == ErrorCode.TOO_DEEP
    assert f"nested {codec.MAX_DEPTH + 1} deep" in info.value.message


def test_brackets_inside_strings_do_not_count_towards_the_depth() -> None:
    line = b'{"x": "' + b"[{" * 100 + b'\\"]", "y": [1]}'
    assert decode(line)["y"] == [1]
    assert codec.nesting_depth(line) == 2


def test_nesting_depth_counts_without_recursion_and_an_open_string_runs_to_the_end() -> None:
    assert codec.nesting_depth(b"[" * 60_000) == 60_000
    assert codec.nesting_depth(b'[["' + b"[" * 100) == 2
    assert codec.nesting_depth(b'"\\' + b"[" * 100) == 0  # a backslash escapes one byte
    assert codec.nesting_depth(b'"' + b'\\"' * 30_000 + b"[[") == 0  # one pass, no backtracking
    assert codec.nesting_depth(b"") == 0


def test_a_line_longer_than_max_bytes_is_too_long_without_counting_its_terminator() -> None:
    line = b'{"a":"' + b"x" * 10 + b'"}'  # 18 bytes
    assert decode(line + b"\r\n", max_bytes=18) == {"a": "x" * 10}
    with pytest.raises(DecodeError) as info:
        decode(line, max_bytes=17)
    assert info.value.code == ErrorCode.LINE_TOO_LONG and "17 bytes" in info.value.message


@pytest.mark.parametrize("number", [b"1e400", b"-1e400", b"1.5e99999"])
def test_a_number_too_large_for_a_double_is_invalid_json_not_infinity(number: bytes) -> None:
    with pytest.raises(DecodeError, match="out of range") as info:
        decode(b'{"amount": ' + number + b"}")
    assert info.value.code == ErrorCode.INVALID_JSON


def test_large_finite_numbers_are_read_as_they_are() -> None:
    assert decode(b'{"a": 1e308, "b": 99999999999999999999}') == {"a": 1e308, "b": 10**20 - 1}


@pytest.mark.parametrize(
    "line",
    [
        b'{"action": "\\ud800"}',
        b'{"action": "ok \\uDFFF"}',
        b'{"\\udbff": 1}',
        b'{"a": ["\\ud83d x"]}',
    ],
)
def test_a_string_holding_a_lone_surrogate_is_invalid_json(line: bytes) -> None:
    with pytest.raises(DecodeError, match="lone surrogate") as info:
        decode(line)
    assert info.value.code == ErrorCode.INVALID_JSON


def test_a_surrogate_pair_and_an_escaped_backslash_before_u_are_text() -> None:
    assert decode(b'{"a": "\\ud83d\\ude00"}') == {"a": "\U0001f600"}
    assert decode(b'{"a": "\\\\ud800"}') == {"a": "\\ud800"}


_HOSTILE_LINES = st.one_of(
    st.binary(max_size=300),
    st.builds(
        lambda depth, junk: b"[" * depth + junk + b"]" * depth,
        st.integers(0, 3000),
        st.binary(max_size=20),
    ),
    st.builds(
        lambda text: json.dumps({"a": text}, ensure_ascii=False).encode("utf-8", "surrogatepass"),
        st.text(),
    ),
)


@given(_HOSTILE_LINES)
def test_whatever_decode_accepts_can_be_encoded_again(line: bytes) -> None:
    # What a bot sends ends up in the hand history: it must be writable as it was read.
    try:
        obj = decode(line)
    except BotFaultError:
        return
    assert decode(encode(obj)) == obj
