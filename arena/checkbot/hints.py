"""What to fix: a hint for each rejected reply, written for the mistakes bots make most.

The arena's error code (:class:`protocol.errors.ErrorCode`) says what it rejected; the hint
says what the bot most likely did and what the protocol wants instead, with the numbers of
the request the bot answered when they are known. ``arena check-bot`` shows it under a
failed step and under the first fault of each kind in its quick hands.

>>> reply_hint("call_amount_mismatch", {"current_bet": 6, "to_call": 4})
"CALL's amount, when given, is current_bet (6), the round total your bet is brought to, \
not to_call (4); or leave the amount out"
>>> reply_hint("unknown_action")
'action names are upper case: CHECK, CALL, FOLD, RAISE, ALL_IN (a bet is a RAISE too)'
>>> reply_hint("schema_violation")
''
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["NOTIFICATION_HINT", "NO_REPLY_HINT", "reply_hint"]

#: The usual reasons a reply never arrives although the bot wrote one.
NO_REPLY_HINT = (
    "end each reply with a newline and flush standard output right after writing it: "
    "most runtimes buffer standard output when it is a pipe, and an unflushed reply never "
    "arrives"
)

#: For a bot that writes when nothing was asked (most often: it answers notifications).
NOTIFICATION_HINT = (
    "answer only the messages that carry a seq (hello, act, draw); hand_start, hand_end, "
    "error and match_end get no reply"
)

_ONE_OBJECT_PER_LINE = (
    "write one JSON object per line and nothing else on standard output (log to standard error)"
)


def reply_hint(code: str, request: Mapping[str, Any] | None = None) -> str:
    """The hint for a reply rejected with ``code`` (``""`` when the code says it all).

    ``request`` is the ``act`` or ``draw`` the reply answered; its numbers are quoted.
    """
    request = request or {}

    def value(key: str) -> str:
        return f" ({request[key]})" if request.get(key) is not None else ""

    choose = f"choose from legal_actions{value('legal_actions')}"
    raise_to = (
        f"RAISE's amount is the raise-to total of the round, from min_raise_to"
        f"{value('min_raise_to')} to max_raise_to{value('max_raise_to')}, not the increment"
    )
    seq = f"the request's seq{value('seq')}"
    hints = {
        "call_amount_mismatch": (
            f"CALL's amount, when given, is current_bet{value('current_bet')}, the round "
            f"total your bet is brought to, not to_call{value('to_call')}; "
            "or leave the amount out"
        ),
        "raise_below_minimum": raise_to,
        "raise_above_maximum": raise_to,
        "amount_above_stack": (
            f"you have player_stack{value('player_stack')} chips behind; {raise_to}"
        ),
        "unknown_action": (
            "action names are upper case: CHECK, CALL, FOLD, RAISE, ALL_IN (a bet is a RAISE too)"
        ),
        "cannot_check": f"CHECK is legal only when to_call is 0; {choose}",
        "cannot_call": choose,
        "cannot_fold": choose,
        "raising_not_allowed": choose,
        "bad_seq": (
            f"echo {seq} as a JSON integer; a line without seq may also be an answer to a "
            "notification (hand_start, hand_end, error, match_end), which gets none"
        ),
        "unknown_seq": f"echo {seq}; do not count requests yourself",
        "stale_seq": (f"answer {seq}: after an error the decision is asked again with a new seq"),
        "invalid_json": _ONE_OBJECT_PER_LINE,
        "not_an_object": _ONE_OBJECT_PER_LINE,
        "invalid_utf8": _ONE_OBJECT_PER_LINE,
        "too_deep": (
            "a reply is a flat object (a discard's cards nest 3 levels deep); arrays and "
            "objects may nest at most 32 levels"
        ),
        "line_too_long": f"a reply line may be at most max_line_bytes long; {_ONE_OBJECT_PER_LINE}",
        "too_many_discards": (
            f"discard at most max_discards{value('max_discards')} cards you hold, each once"
        ),
        "duplicate_discard": "name each card to throw away once",
        "card_not_in_hand": (
            'discard only cards of hole_cards, as objects: {"rank": "K", "suit": "spades"}'
        ),
        "timeout": NO_REPLY_HINT,
        "duplicate_action": (
            "in a distribution, name each move once: CALL and ALL_IN for a short stack, or "
            "RAISE to your whole stack and ALL_IN, are the same move; add up their "
            "probabilities in one entry"
        ),
        "probability_sum": (
            "a distribution's probabilities must add up to 1 (within 0.000001): divide each "
            "by their sum before sending"
        ),
    }
    return hints.get(code, "")
