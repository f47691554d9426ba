"""Reading a bot's reply to one request: the rules the watchdog and ``check-bot`` share.

A line is a *reply* when it carries a ``seq`` or is of the type the request expects
(``action`` for ``act``, ``discard`` for ``draw``, ``ready`` for ``hello``). Any other
line (a chat or log line, often written for an earlier notification and read only now)
is no reply: it is passed to the caller's ``on_stray`` and skipped, and costs the bot no
attempt. A reply is then parsed against the legal actions of the decision; what the
caller does with a stale ``seq`` or a bad reply is its own policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arena.bots.transport import Transport
from arena.session.faults import FaultKind
from engine.actions import Action, LegalActions
from engine.cards import Card
from engine.config import DrawLimit
from engine.errors import IllegalActionError
from engine.events import Event
from protocol.codec import decode
from protocol.errors import BotFaultError, BotReplyError, ErrorCode
from protocol.replies import known_fields, parse_action_reply, parse_discard, reply_seq
from protocol.strategy import MixedStrategy

__all__ = [
    "MAX_DRAINED_LINES",
    "apply_reply",
    "drain_stray_lines",
    "expected_reply_type",
    "parse_decision",
    "read_reply",
]

#: Most stray lines read (and recorded) before one request: a bot that writes without end
#: must not keep the arena draining forever.
MAX_DRAINED_LINES = 10_000

#: ``on_dropped(kind, code, detail, seq)``: a line that was read and dropped.
OnDropped = Callable[[FaultKind, str, str, int | None], None]


def expected_reply_type(legal: LegalActions) -> str:
    """The reply type a decision expects: ``discard`` in a draw, else ``action``."""
    return "discard" if legal.can_draw else "action"


def read_reply(
    transport: Transport,
    deadline: float,
    expected_type: str,
    on_stray: Callable[[bytes], None],
) -> dict[str, Any] | None:
    """The next reply, decoded, with only the fields the arena reads in an
    ``expected_type`` reply (:func:`protocol.replies.known_fields`: a bot's own fields are
    neither used nor kept); None when the deadline passes first.

    Raises :class:`~arena.bots.transport.TransportClosedError` when the bot is gone and
    :class:`~protocol.errors.BotFaultError` for a line that is too long or not a JSON
    object (a reply the bot got wrong).
    """
    while True:
        line = transport.read_line(deadline)
        if line is None:
            return None
        obj = decode(line)
        if "seq" not in obj and obj.get("type") != expected_type:
            on_stray(line)
            continue
        return known_fields(obj, expected_type)


def parse_decision(
    obj: dict[str, Any],
    seq: int,
    legal: LegalActions,
    hole_cards: Sequence[Card],
    *,
    draw_limit: DrawLimit = DrawLimit.ANY,
) -> Action | MixedStrategy:
    """The action a reply asks for: a discard in a draw, else a betting action, or the
    mixed strategy to draw the betting action from (:mod:`arena.session.draws`).

    Raises :class:`~protocol.errors.StaleReplyError` for an older ``seq`` and
    :class:`~protocol.errors.BotFaultError` for anything else the protocol rejects.
    """
    if legal.can_draw:
        return parse_discard(obj, seq, legal, hole_cards, draw_limit=draw_limit)
    return parse_action_reply(obj, seq, legal)


def drain_stray_lines(
    transport: Transport, now: float, last_seq: int, on_dropped: OnDropped
) -> None:
    """Read and drop what the bot wrote while nothing was asked, before a new request.

    A line whose ``seq`` is a positive integer of at most ``last_seq`` is a late reply to
    an earlier request (stale). A line with a ``seq`` that is not a positive integer
    (0, -5, null, ``"3"``) was no reply to anything the arena sent: it is unsolicited,
    with the code ``bad_seq``. Anything else is unsolicited. At most
    :data:`MAX_DRAINED_LINES` are read. Raises
    :class:`~arena.bots.transport.TransportClosedError` when the bot is gone.
    """
    for _ in range(MAX_DRAINED_LINES):
        try:
            line = transport.read_line(now)
        except BotFaultError as exc:
            on_dropped(FaultKind.UNSOLICITED_LINE, exc.code, str(exc), None)
            continue
        if line is None:
            return
        has_seq, seq = _seq_of(line)
        if seq is not None and seq <= last_seq:
            detail = f"late reply to request {seq}: {line[:200]!r}"
            on_dropped(FaultKind.STALE_REPLY, ErrorCode.STALE_SEQ.value, detail, seq)
        elif has_seq and seq is None:
            detail = f"seq is not a positive integer, and nothing was asked: {line[:200]!r}"
            on_dropped(FaultKind.UNSOLICITED_LINE, ErrorCode.BAD_SEQ.value, detail, None)
        else:
            detail = f"nothing was asked: {line[:200]!r}"
            on_dropped(FaultKind.UNSOLICITED_LINE, "unsolicited", detail, None)


def _seq_of(line: bytes) -> tuple[bool, int | None]:
    """Whether a line is a JSON object with a ``seq``, and that seq if it is a positive
    integer (see :func:`protocol.replies.reply_seq`)."""
    try:
        obj = decode(line)
    except BotFaultError:
        return False, None
    return "seq" in obj, reply_seq(obj)


def apply_reply(
    apply: Callable[[Action], list[Event] | None], action: Action, legal: LegalActions
) -> list[Event] | None:
    """Apply a reply's ``action`` with the engine; its rejection is the bot's invalid reply."""
    try:
        return apply(action)
    except IllegalActionError as exc:
        # The protocol's own checks should have caught it (they mirror the engine's rules);
        # whatever slips through is still the bot's reply, never an action for the match.
        raise BotReplyError(exc.code, exc.message, "/cards" if legal.can_draw else None) from exc
