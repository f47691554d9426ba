"""Hostile test bot: answers ``act`` with something invalid.

``garbage_bot.py MODE [once]``; MODE is ``text`` (not JSON), ``json_list`` (JSON, not an
object), ``no_seq``, ``unknown_action``, ``illegal`` (a raise to 1), ``bad_amount``
(an amount that is not a number), ``binary`` (not UTF-8), ``long`` (a 200 kB line),
``empty`` (an empty line), ``huge`` (a 100 MB line, written 1 MiB at a time),
``no_newline`` (a valid reply without its newline), ``deep`` (JSON arrays nested 100,000
deep; ``deep:N`` N deep), ``amount:TEXT`` (a raise whose amount is TEXT written as it
is: ``NaN``, ``1e309``, ``true``, ``"100"``...; ``2**100`` is written as that integer's
digits), ``seq:TEXT``
(a valid check or call whose ``seq`` is TEXT written as it is: ``0``, ``-5``, ``null``,
``1.5``, ``"3"``), ``separators`` (an unknown action whose text holds U+2028, U+2029 and
NEL as they are, which JSON allows in a string) or ``banner`` (a line of text on stdout
before ``ready``, then valid replies). With ``once`` only the first attempt of each
decision is bad and the re-asked request gets a valid check or call.
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


_MIB = 1024 * 1024
_HUGE_MIB = 100
_DEPTH = 100_000


def raw_value(text: str) -> str:
    """The JSON text of a value given on the command line (``2**100`` as its digits)."""
    return str(2**100) if text == "2**100" else text


def bad_reply(mode: str, seq: int, legal: list[str]) -> bytes:
    """The invalid line for ``mode``."""
    if mode in BAD_LINES:
        return BAD_LINES[mode]
    name, _, text = mode.partition(":")
    if name == "deep":
        depth = int(text) if text else _DEPTH
        return b"[" * depth + b"]" * depth
    if name == "amount":
        raise_to = raw_value(text)
        return f'{{"type":"action","seq":{seq},"action":"RAISE","amount":{raise_to}}}'.encode()
    if name == "seq":
        action = "CHECK" if "CHECK" in legal else "CALL"
        return f'{{"type":"action","seq":{raw_value(text)},"action":"{action}"}}'.encode()
    reply: dict[str, Any] = {"type": "action", "seq": seq, "action": "CALL"}
    if mode == "no_seq":
        del reply["seq"]
    elif mode == "unknown_action":
        reply["action"] = "BLUFF"
    elif mode == "illegal":
        reply.update(action="RAISE", amount=1)
    elif mode == "bad_amount":
        reply.update(action="RAISE", amount="lots")
    elif mode == "separators":
        reply["action"] = "CALL\u2028FOLD\u2029\x85"
    return json.dumps(reply, ensure_ascii=False).encode()


def write(data: bytes) -> None:
    """Write one line and flush it."""
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def write_huge() -> None:
    """A 100 MB line (of one JSON string), written a mebibyte at a time."""
    out = sys.stdout.buffer
    out.write(b'{"type":"action","pad":"')
    block = b"x" * _MIB
    for _ in range(_HUGE_MIB):
        try:
            out.write(block)
            out.flush()
        except BrokenPipeError:  # the arena stopped listening
            return
    out.write(b'"}\n')
    out.flush()


def main() -> None:
    """Answer hello properly and act badly."""
    mode = sys.argv[1] if len(sys.argv) > 1 else "text"
    is_once = len(sys.argv) > 2 and sys.argv[2] == "once"
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if mode == "banner":  # what a bot printing its version on stdout does
                write(b"garbage bot v2 starting...")
            ready = {"type": "ready", "seq": message["seq"], "name": f"garbage {mode}"}
            write(json.dumps(ready).encode())
        elif kind == "act":
            if (is_once and message.get("attempt", 1) > 1) or mode == "banner":
                legal = message["legal_actions"]
                action = "CHECK" if "CHECK" in legal else "CALL"
                write(
                    json.dumps({"type": "action", "seq": message["seq"], "action": action}).encode()
                )
            elif mode == "huge":
                write_huge()
            elif mode == "no_newline":
                action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
                reply = {"type": "action", "seq": message["seq"], "action": action}
                sys.stdout.buffer.write(json.dumps(reply).encode())
                sys.stdout.buffer.flush()
            else:
                write(bad_reply(mode, message["seq"], message["legal_actions"]))
        elif kind == "match_end":
            break


if __name__ == "__main__":
    main()
