"""The luck estimator's process: hand lines in on one pipe, one estimate line out per hand.

Forked by :mod:`arena.match.luck_process` from the match's process (:func:`run_child`), so
it starts with the estimator imported and the evaluator's tables filled, at no CPU cost
of its own. Each line it reads is a hand record as the hand history writes it (without
its ``luck``); for each it writes, in the same order, one line:
``{"estimator": ..., "raw": [...], "adjusted": [...]}``, or ``{"error": "..."}`` when
the estimator refused the hand (the match then estimates that hand itself, so that it
meets the same error). Floats go as JSON writes them (the shortest text that reads back
as the same float), so the match gets the very numbers the estimator computed.

It reads what has come in, estimates every whole line of it and writes all their
answers at once (one write per batch, not per hand), and ends at the end of its input:
when the match closes the pipe, or dies (the kernel closes it then), so it never
outlives the match that forked it.
"""

from __future__ import annotations

import gc
import json
import os
import signal
from typing import Any, NoReturn

from arena.luck import estimate_hand

__all__ = ["answer", "run_child", "serve"]

#: Bytes read at a time (many hand lines at once when the match is ahead).
_CHUNK = 1 << 16


def answer(line: bytes) -> bytes:
    """The answer line (newline included) to one hand line.

    >>> answer(b'{"history": 1}')
    b'{"error": "LuckError: hand record without a history: 1"}\\n'
    """
    reply: dict[str, Any]
    try:
        luck = estimate_hand(json.loads(line))
    except Exception as exc:  # any refusal is reported: the match decides what it means
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    else:
        reply = {"estimator": luck.estimator, "raw": luck.raw, "adjusted": luck.adjusted}
    return (json.dumps(reply) + "\n").encode()


def serve(read_fd: int, write_fd: int) -> None:
    """Answer every hand line read from ``read_fd`` on ``write_fd`` until its end."""
    pending = b""
    while chunk := os.read(read_fd, _CHUNK):
        *lines, pending = (pending + chunk).split(b"\n")
        if lines:
            replies = b"".join(answer(line) for line in lines)
            while replies:
                replies = replies[os.write(write_fd, replies) :]


def run_child(read_fd: int, write_fd: int) -> NoReturn:  # pragma: no cover - the child
    """The forked child's whole life: serve ``read_fd`` to ``write_fd``, then exit.

    It keeps no other file of the match open (a bot's pipe held here would keep that bot
    from seeing its end), takes no Ctrl-C (the match stops it), leaves what it inherited
    to the collector's permanent generation (never walked again: the match's whole heap)
    and leaves with ``os._exit``, running none of the match's exit handlers.
    """
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        low = 3
        for fd in sorted((read_fd, write_fd)):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, os.sysconf("SC_OPEN_MAX"))
        gc.freeze()
        serve(read_fd, write_fd)
        code = 0
    except BrokenPipeError:  # the match is gone: nobody to answer
        code = 0
    finally:
        os._exit(code)
