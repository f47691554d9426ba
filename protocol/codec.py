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
from collections.abc import Mapping
from typing import Any

from protocol.errors import ArenaBugError, DecodeError, ErrorCode

__all__ = ["decode", "encode"]

_encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))
_MAX_SHOWN = 80  # characters of a bad line quoted in an error message


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
        return _encoder.encode(message).encode("utf-8") + b"\n"
    except (TypeError, ValueError, RecursionError) as exc:
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
        obj = json.loads(text, parse_constant=_reject_constant)
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
