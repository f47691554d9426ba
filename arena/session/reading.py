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
from engine.actions import Action, LegalActions
from engine.cards import Card
from engine.config import DrawLimit
from protocol.codec import decode
from protocol.replies import parse_action, parse_discard

__all__ = ["expected_reply_type", "parse_decision", "read_reply"]


def expected_reply_type(legal: LegalActions) -> str:
    """The reply type a decision expects: ``discard`` in a draw, else ``action``."""
    return "discard" if legal.can_draw else "action"


def read_reply(
    transport: Transport,
    deadline: float,
    expected_type: str,
    on_stray: Callable[[bytes], None],
) -> dict[str, Any] | None:
    """The next reply, decoded; None when the deadline passes first.

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
        return obj


def parse_decision(
    obj: dict[str, Any],
    seq: int,
    legal: LegalActions,
    hole_cards: Sequence[Card],
    *,
    draw_limit: DrawLimit = DrawLimit.ANY,
) -> Action:
    """The action a reply asks for: a discard in a draw, else a betting action.

    Raises :class:`~protocol.errors.StaleReplyError` for an older ``seq`` and
    :class:`~protocol.errors.BotFaultError` for anything else the protocol rejects.
    """
    if legal.can_draw:
        return parse_discard(obj, seq, legal, hole_cards, draw_limit=draw_limit)
    return parse_action(obj, seq, legal)
