"""Hostile test bot: answers ``act`` with something invalid.

``garbage_bot.py MODE [once]``; MODE is ``text`` (not JSON), ``json_list`` (JSON, not an
object), ``no_seq``, ``unknown_action``, ``illegal`` (a raise to 1), ``bad_amount``
(an amount that is not a number), ``binary`` (not UTF-8), ``long`` (a 200 kB line) or
``empty`` (an empty line). With ``once`` only the first attempt of each decision is bad
and the re-asked request gets a valid check or call.
"""

from __future__ import annotations

import json
import sys
from typing import Any

BAD_LINES: dict[str, bytes] = {
    "text": b"I fold, I think?",
    "json_list": b"[1, 2, 3]",
    "binary": b"\xff\xfe\x00\x01garbage",
    "long": b'{"type":"action","pad":"' + b"x" * 200_000 + b'"}',
    "empty": b"",
}


def bad_reply(mode: str, seq: int) -> bytes:
    """The invalid line for ``mode``."""
    if mode in BAD_LINES:
        return BAD_LINES[mode]
    reply: dict[str, Any] = {"type": "action", "seq": seq, "action": "CALL"}
    if mode == "no_seq":
        del reply["seq"]
    elif mode == "unknown_action":
        reply["action"] = "BLUFF"
    elif mode == "illegal":
        reply.update(action="RAISE", amount=1)
    elif mode == "bad_amount":
        reply.update(action="RAISE", amount="lots")
    return json.dumps(reply).encode()


def write(data: bytes) -> None:
    """Write one line and flush it."""
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def main() -> None:
    """Answer hello properly and act badly."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "text"
    is_once = len(sys.argv) > 2 and sys.argv[2] == "once"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            ready = {"type": "ready", "seq": message["seq"], "name": f"garbage {mode}"}
            write(json.dumps(ready).encode())
        elif kind == "act":
            if is_once and message.get("attempt", 1) > 1:
                legal = message["legal_actions"]
                action = "CHECK" if "CHECK" in legal else "CALL"
                write(
                    json.dumps({"type": "action", "seq": message["seq"], "action": action}).encode()
                )
            else:
                write(bad_reply(mode, message["seq"]))
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
