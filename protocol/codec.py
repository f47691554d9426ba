"""Encode messages to lines and decode lines to objects: compact JSON, UTF-8, one per line.

``decode`` is fed whatever a bot wrote, so it raises nothing but :class:`DecodeError` (a
:class:`~protocol.errors.BotFaultError`), whatever the bytes. ``encode`` is fed our own
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
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from protocol.errors import ArenaBugError, DecodeError, ErrorCode

__all__ = ["RawJSON", "decode", "encode", "encode_with_raw", "json_text", "scalar_text"]

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
# The memos of encode_with_raw and scalar_text: the JSON texts of keys and of short strings
# (both bounded: emptied when full).
_KEY_TEXTS: dict[str, str] = {}
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


class RawJSON(str):
    """Text that is already JSON (from :func:`json_text`), written as it is by
    :func:`encode_with_raw`.

    >>> encode_with_raw({"type": "act", "history": RawJSON('[{"type":"x"}]'), "attempt": 1})
    b'{"type":"act","history":[{"type":"x"}],"attempt":1}\\n'
    """

    __slots__ = ()


def encode_with_raw(message: Mapping[str, Any]) -> bytes:
    """Like :func:`encode`, but a :class:`RawJSON` value is written as the text it holds.

    The line is byte for byte what :func:`encode` gives for the message with each
    ``RawJSON(json_text(value))`` replaced by ``value``. A value that changes little from one
    message to the next (a hand's history, a seat that did not act) can thus be turned into
    JSON once and reused. Integers, ``None`` and short strings, the bulk of the other
    fields, are written here without a call to the JSON encoder (each call has a fixed cost).
    """
    keys = _KEY_TEXTS
    parts = []
    for key, value in message.items():
        key_text = keys.get(key)
        if key_text is None:
            if type(key) is not str:
                raise ArenaBugError(f"key {key!r} of {_describe(message)} is not a string")
            if len(keys) >= _MAX_MEMO_COUNT:
                keys.clear()
            key_text = keys[key] = json_text(key) + ":"
        parts.append(key_text + (value if type(value) is RawJSON else scalar_text(value)))
    try:
        # A lone surrogate in a string cannot be UTF-8: UnicodeEncodeError.
        return ("{" + ",".join(parts) + "}\n").encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ArenaBugError(f"cannot encode {_describe(message)} as JSON: {exc}") from exc


def decode(line: bytes | bytearray) -> dict[str, Any]:
    """The JSON object in ``line`` (a trailing ``\\n`` or ``\\r\\n`` is allowed).

    Raises :class:`DecodeError` with code ``invalid_utf8``, ``invalid_json`` or
    ``not_an_object``, and nothing else (given something that is not bytes, our own
    mistake, it raises :class:`ArenaBugError`).
    """
    if not isinstance(line, bytes | bytearray):
        raise ArenaBugError(f"decode takes bytes, not {type(line).__name__}")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(
            ErrorCode.INVALID_UTF8,
            f"byte {exc.start} is not valid UTF-8 in {_quote(line)}",
        ) from None
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
        # Non-standard constants (NaN), integers too long to convert, absurd nesting.
        raise DecodeError(ErrorCode.INVALID_JSON, f"{exc} in {_quote(line)}") from None
    if type(obj) is not dict:
        raise DecodeError(
            ErrorCode.NOT_AN_OBJECT,
            f"expected a JSON object, got {_json_type(obj)}",
            "",
        )
    return obj


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


# Made once: json.loads given an option builds a new decoder for every line.
_decoder = json.JSONDecoder(parse_constant=_reject_constant)


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
