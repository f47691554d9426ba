"""Protocol errors, split by whose fault they are (the model is h11's Local/RemoteProtocolError).

* :class:`BotFaultError` - the bot sent something wrong: a line too long, bytes that are not
  JSON, a reply that breaks the schema or asks for an illegal action. It carries a stable
  machine ``code`` (an :class:`ErrorCode` value), a readable ``message`` that names the bad
  value, and for schema errors the JSON pointer ``path`` of the bad field. The arena records
  it as a fault and, for a bad reply, tells the bot with an ``error`` message.
* :class:`ArenaBugError` - a message *we* built is wrong. That is a bug in the arena or the
  protocol and must stop the run loudly; it is never a bot's fault.

Both derive from :class:`ProtocolError`, the only exception that ``codec.decode`` raises.

>>> fault = BotReplyError(ErrorCode.RAISE_BELOW_MINIMUM, "raise to 3 below minimum 4", "/amount")
>>> fault.code, fault.path
('raise_below_minimum', '/amount')
>>> str(fault)
'raise_below_minimum at /amount: raise to 3 below minimum 4'
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = [
    "ArenaBugError",
    "BotFaultError",
    "BotReplyError",
    "DecodeError",
    "ErrorCode",
    "LineTooLongError",
    "ProtocolError",
    "StaleReplyError",
]


class ErrorCode(StrEnum):
    """The stable codes of bot faults, as sent in ``error`` messages (PROTOCOL.md's table)."""

    # Framing and decoding: the line itself is unusable.
    LINE_TOO_LONG = "line_too_long"
    INVALID_UTF8 = "invalid_utf8"
    INVALID_JSON = "invalid_json"
    NOT_AN_OBJECT = "not_an_object"
    TOO_DEEP = "too_deep"  # arrays and objects nested deeper than the codec allows
    # Shape of the reply (JSON Schema) and its sequence number.
    SCHEMA_VIOLATION = "schema_violation"
    UNKNOWN_ACTION = "unknown_action"
    BAD_SEQ = "bad_seq"
    STALE_SEQ = "stale_seq"
    UNKNOWN_SEQ = "unknown_seq"
    UNSUPPORTED_VERSION = "unsupported_version"
    # Betting legality (the engine's codes for the same rules).
    CANNOT_FOLD = "cannot_fold"
    CANNOT_CHECK = "cannot_check"
    CANNOT_CALL = "cannot_call"
    CALL_AMOUNT_MISMATCH = "call_amount_mismatch"
    RAISING_NOT_ALLOWED = "raising_not_allowed"
    RAISE_BELOW_MINIMUM = "raise_below_minimum"
    RAISE_ABOVE_MAXIMUM = "raise_above_maximum"
    AMOUNT_ABOVE_STACK = "amount_above_stack"
    # A mixed strategy (a reply's distribution; its entries' legality uses the codes above).
    DUPLICATE_ACTION = "duplicate_action"
    PROBABILITY_SUM = "probability_sum"
    # Five-card draw (the engine's codes for the same rules).
    TOO_MANY_DISCARDS = "too_many_discards"
    DUPLICATE_DISCARD = "duplicate_discard"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    # Sent by the arena, not raised here: the decision ran out of time.
    TIMEOUT = "timeout"


class ProtocolError(Exception):
    """Root of every error raised by the ``protocol`` package."""


class BotFaultError(ProtocolError):
    """The bot broke the protocol; ``code`` is stable, ``message`` names the bad value.

    ``path`` is a JSON pointer (``"/amount"``, ``""`` for the whole object) when the fault
    is about one field of a decoded reply, else ``None``.
    """

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(code, message, path)
        self.code = str(code)
        self.message = message
        self.path = path

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path is not None else ""
        return f"{self.code}{where}: {self.message}"


class DecodeError(BotFaultError):
    """A line that is not one JSON object in UTF-8."""


class LineTooLongError(BotFaultError):
    """A line longer than the configured maximum: the bot's fault, never a reason to grow.

    ``lines`` holds the complete, acceptable lines that preceded the long one in the same
    ``LineReader.feed`` call, so that nothing the bot sent before it is lost.
    """

    def __init__(self, limit: int, *, lines: Sequence[bytes] = ()) -> None:
        super().__init__(
            ErrorCode.LINE_TOO_LONG,
            f"line longer than the limit of {limit} bytes",
        )
        self.limit = limit
        self.lines: list[bytes] = list(lines)


class BotReplyError(BotFaultError):
    """A decoded reply that is rejected: bad shape, bad seq or an illegal action."""


class StaleReplyError(BotReplyError):
    """A reply whose ``seq`` is older than the request outstanding: a late answer.

    The arena drops it (and logs it); it is never applied to a later request and does not
    use up an attempt.
    """

    def __init__(self, seq: int, expected_seq: int) -> None:
        super().__init__(
            ErrorCode.STALE_SEQ,
            f"seq {seq} is older than the outstanding request {expected_seq}; reply dropped",
            "/seq",
        )
        self.seq = seq
        self.expected_seq = expected_seq


class ArenaBugError(ProtocolError):
    """A message built by the arena is invalid: our bug, which must stop the run."""
