"""Encode messages to lines and decode lines to objects: compact JSON, UTF-8, one per line.

``decode`` is fed whatever a bot wrote, so it raises nothing but a
:class:`~protocol.errors.BotFaultError`, whatever the bytes. It also bounds what it accepts,
so that nothing a bot sends can break a later reader of the hand history: at most
:data:`MAX_DEPTH` levels of nesting (every JSON library, ours included, recurses once per
level, and a reply nested ~980 deep once exhausted the interpreter's stack when its hand was
stored), at most ``max_bytes`` bytes, finite numbers only (``1e400`` would be read as
infinity, which JSON cannot write back) and no lone surrogate in a string (``"\\ud800"``
cannot be written as UTF-8). ``encode`` is fed our own
messages, so a message that cannot be encoded is an :class:`ArenaBugError`. Validating an
outgoing message against its JSON Schema costs about a millisecond, so it is done only with
``strict=True`` (tests, debugging), not on the hot path.

>>> encode({"type": "match_end", "standings": []})
b'{"type":"match_end","standings":[]}\\n'
>>> decode(b'{"type": "action", "seq": 3, "action": "CHECK"}\\r\\n')
{'type': 'action', 'seq': 3, 'action': 'CHECK'}
>>> decode(b'[1, 2]')
Traceback (most recent call last):
...
protocol.errors.DecodeError: not_an_object at : expected a JSON object, got a list
"""

from __future__ import annotations

import json
import json.encoder
import math
import re
from collections.abc import Callable, Iterable, Mapping
from itertools import accumulate
from typing import Any

from protocol.errors import ArenaBugError, DecodeError, ErrorCode
from protocol.framing import DEFAULT_MAX_LINE_BYTES

__all__ = [
    "MAX_DEPTH",
    "decode",
    "encode",
    "json_text",
    "nesting_depth",
    "scalar_text",
]

#: The deepest nesting of arrays and objects a decoded line may have. A reply needs 3 (a
#: discard: the object, its ``cards`` list, a card); the limit leaves room for a bot's own
#: extra fields while keeping every recursive reader of the history (encoders, replay, the
#: report's browser) far from its stack limit.
MAX_DEPTH = 32

# check_circular=False: our messages are trees; a cycle (our bug) still fails, as a
# RecursionError, and skipping the cycle bookkeeping makes every encode ~10% cheaper.
_encoder = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, check_circular=False, separators=(",", ":")
)


def _reused_iterencode(make_c_encoder: Any) -> Callable[[Any, int], Iterable[str]]:
    """``_encoder.iterencode(value, _one_shot=True)`` as ``f(value, 0)``, made once.

    ``JSONEncoder.encode`` makes a new C encoder for every call, a fixed cost of about 1 us
    (a small value takes 2.5 us in all). Without circular-check markers the C encoder keeps
    no state between calls, so one made with ``_encoder``'s settings is reused: it writes
    what ``_encoder.encode`` writes. Without a C encoder (``make_c_encoder`` is ``None``, as
    on interpreters without ``_json``) ``_encoder`` itself is used.
    """
    if make_c_encoder is None:
        return lambda value, _level: _encoder.iterencode(value, _one_shot=True)
    return make_c_encoder(  # type: ignore[no-any-return]
        None,  # markers: check_circular=False
        _encoder.default,
        json.encoder.encode_basestring,  # ensure_ascii=False
        None,  # indent
        _encoder.key_separator,
        _encoder.item_separator,
        _encoder.sort_keys,
        _encoder.skipkeys,
        _encoder.allow_nan,
    )


_iterencode = _reused_iterencode(getattr(json.encoder, "c_make_encoder", None))
_MAX_SHOWN = 80  # characters of a bad line quoted in an error message
# The memo of scalar_text: the JSON texts of short strings (bounded: emptied when full).
_STRING_TEXTS: dict[str, str] = {}
_MAX_MEMO_LENGTH = 64
_MAX_MEMO_COUNT = 1024


def encode(message: Mapping[str, Any], *, strict: bool = False) -> bytes:
    """The line for ``message``: compact JSON in UTF-8 plus ``b"\\n"``.

    With ``strict=True`` the message is first validated against the schema of its
    ``type`` (see :func:`protocol.schema.validate_outgoing`).
    """
    if not isinstance(message, Mapping):
        raise ArenaBugError(f"a message must be a mapping, not {_describe(message)}")
    if strict:
        from protocol.schema import validate_outgoing

        validate_outgoing(message)
    try:
        # A lone surrogate in a string cannot be UTF-8: UnicodeEncodeError, a ValueError.
        return "".join(_iterencode(message, 0)).encode("utf-8") + b"\n"
    except (TypeError, ValueError, RecursionError) as exc:
        raise ArenaBugError(f"cannot encode {_describe(message)} as JSON: {exc}") from exc


def json_text(value: Any) -> str:
    """``value`` as the compact JSON text :func:`encode` writes for it (no newline).

    >>> json_text({"rank": "10", "suit": "hearts"})
    '{"rank":"10","suit":"hearts"}'
    """
    try:
        return "".join(_iterencode(value, 0))
    except (TypeError, ValueError, RecursionError) as exc:
        raise ArenaBugError(f"cannot encode {_describe(value)} as JSON: {exc}") from exc


def scalar_text(value: Any) -> str:
    """:func:`json_text` of ``value``, fast for an ``int``, ``None``, a ``bool`` or a short
    string (each string's text is kept in a bounded memo); anything else goes to
    :func:`json_text`.

    >>> [scalar_text(value) for value in (7, None, True, "ALL_IN", 0.5)]
    ['7', 'null', 'true', '"ALL_IN"', '0.5']
    """
    kind = type(value)
    if kind is int:
        return int.__repr__(value)  # what the JSON encoder writes (an int subclass too)
    if value is None:
        return "null"
    if kind is str and len(value) <= _MAX_MEMO_LENGTH:
        text = _STRING_TEXTS.get(value)
        if text is None:
            if len(_STRING_TEXTS) >= _MAX_MEMO_COUNT:
                _STRING_TEXTS.clear()
            text = _STRING_TEXTS[value] = json_text(value)
        return text
    if kind is bool:
        return "true" if value else "false"
    return json_text(value)


def decode(line: bytes | bytearray, *, max_bytes: int = DEFAULT_MAX_LINE_BYTES) -> dict[str, Any]:
    """The JSON object in ``line`` (a trailing ``\\n`` or ``\\r\\n`` is allowed).

    Raises :class:`DecodeError` with code ``line_too_long`` (longer than ``max_bytes``
    without its terminator), ``invalid_utf8``, ``too_deep`` (nested deeper than
    :data:`MAX_DEPTH`), ``invalid_json`` or ``not_an_object``, and nothing else (given
    something that is not bytes, our own mistake, it raises :class:`ArenaBugError`).
    """
    if not isinstance(line, bytes | bytearray):
        raise ArenaBugError(f"decode takes bytes, not {type(line).__name__}")
    if len(line) > max_bytes and len(line.rstrip(b"\r\n")) > max_bytes:
        # What the line reader says of such a line; here for lines that did not come
        # through one (an in-process seat).
        raise DecodeError(
            ErrorCode.LINE_TOO_LONG, f"line longer than the limit of {max_bytes} bytes"
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            ErrorCode.INVALID_UTF8,
            f"byte {exc.start} is not valid UTF-8 in {_quote(line)}",
        ) from None
    # Counted before parsing, as the parser itself recurses once per level; only when the
    # line has more opening brackets than the limit (a reply usually has one).
    if line.count(b"[") + line.count(b"{") > MAX_DEPTH:
        _reject_too_deep(line)
    try:
        if text.startswith("\ufeff"):  # what json.loads says of a byte order mark
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        obj = _decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise DecodeError(
            ErrorCode.INVALID_JSON,
            f"{exc.msg} at column {exc.colno} in {_quote(line)}",
        ) from None
    except (ValueError, RecursionError) as exc:
        # Non-standard constants (NaN), numbers out of range, integers too long to convert.
        raise DecodeError(ErrorCode.INVALID_JSON, f"{exc} in {_quote(line)}") from None
    if type(obj) is not dict:
        raise DecodeError(
            ErrorCode.NOT_AN_OBJECT,
            f"expected a JSON object, got {_json_type(obj)}",
            "",
        )
    if b"\\u" in line and _SURROGATE_ESCAPE.search(line) is not None:
        _reject_lone_surrogates(obj, line)
    return obj


def nesting_depth(line: bytes | bytearray) -> int:
    """How deep arrays and objects nest in the JSON text ``line``, counted without
    recursion (brackets inside strings do not count; an unterminated string runs to the
    end of the line).

    >>> nesting_depth(b'{"cards": [{"rank": "A", "suit": "spades"}], "x": "[[["}')
    3
    >>> nesting_depth(b"[[]][]"), nesting_depth(b"7")
    (2, 0)
    """
    brackets = _STRING.sub(b"", line).translate(None, _NOT_A_BRACKET)
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0)


# A JSON string (its closing quote optional, so that an unterminated one is taken whole in
# one pass: no backtracking, linear time). Bytes are enough: no byte of a multi-byte UTF-8
# character is a quote, a backslash or a bracket.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_A_BRACKET = bytes(sorted(set(range(256)) - set(b"[]{}")))
_DEPTH_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# The escape of a UTF-16 surrogate (U+D800-U+DFFF): only then can a string hold a lone one.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def _reject_too_deep(line: bytes | bytearray) -> None:
    depth = nesting_depth(line)
    if depth > MAX_DEPTH:
        raise DecodeError(
            ErrorCode.TOO_DEEP,
            f"arrays and objects nested {depth} deep, more than the limit of {MAX_DEPTH}, "
            f"in {_quote(line)}",
        )


def _reject_lone_surrogates(obj: dict[str, Any], line: bytes | bytearray) -> None:
    """Raise ``invalid_json`` when a string of ``obj`` (a key or a value) holds a
    surrogate that is not half of a pair: such a string is not text, and writing it to a
    UTF-8 file (the hand history) would fail."""
    try:
        "".join(_iterencode(obj, 0)).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = f"\\u{ord(exc.object[exc.start]):04x}"
        raise DecodeError(
            ErrorCode.INVALID_JSON,
            f"a string holds the lone surrogate {bad}, which is not text, in {_quote(line)}",
        ) from None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    # JSON has no infinity, but Python reads a number too large for a float (1e400) as one.
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


# Made once: json.loads given an option builds a new decoder for every line.
_decoder = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def _json_type(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def _quote(line: bytes | bytearray) -> str:
    shown = bytes(line[:_MAX_SHOWN])
    return repr(shown) + ("..." if len(line) > _MAX_SHOWN else "")


def _describe(message: object) -> str:
    if isinstance(message, Mapping):
        return f"{message.get('type', 'untyped')!r} message"
    return repr(type(message))
