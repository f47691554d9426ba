"""The luck estimator's process: hands in on one pipe, one estimate out per hand, in order.

Forked by :mod:`arena.match.luck_process` from the match's process (:func:`run_child`), so
it starts with the estimator imported and the evaluator's tables filled, at no CPU cost
of its own. Both ways a message is a frame: its length (4 bytes, little-endian), then a
:mod:`marshal` dump (no text to parse: the very Python values, floats included, as
they were). Each hand is what the estimate reads of a hand record
(:func:`arena.match.luck_process.estimate_input`: the players' leans travel with it,
the match counts them, :func:`estimate`); each answer is the tuple
``(estimator, raw, adjusted)``, or a string naming the error when the estimator refused
the hand (the match then estimates that hand itself, so that it meets the same error).

It reads what has come in, estimates every whole frame of it and writes all their
answers at once (one write per batch, not per hand), and ends at the end of its input:
when the match closes the pipe, or dies (the kernel closes it then), so it never
outlives the match that forked it.
"""

from __future__ import annotations

import gc
import marshal
import os
import signal
from collections.abc import Iterator
from typing import Any, NoReturn

from arena.luck import HandLuck, LuckValue, estimate_hand

__all__ = ["answer", "estimate", "frame", "frames", "run_child", "serve"]

#: Bytes read at a time (many hands at once when the match is ahead).
_CHUNK = 1 << 16
_SIZE = 4


def frame(dump: bytes) -> bytes:
    """A :mod:`marshal` dump as one frame: its length, then the dump.

    >>> frame(b"abc")
    b'\\x03\\x00\\x00\\x00abc'
    """
    return len(dump).to_bytes(_SIZE, "little") + dump


def frames(buffer: bytes) -> Iterator[tuple[bytes, int]]:
    """Each whole frame's dump in ``buffer`` with the offset after it (what follows the
    last is the start of a frame still coming).

    >>> list(frames(frame(b"ab") + frame(b"c") + b"\\x05\\x00"))
    [(b'ab', 6), (b'c', 11)]
    """
    start = 0
    while len(buffer) - start >= _SIZE:
        end = start + _SIZE + int.from_bytes(buffer[start : start + _SIZE], "little")
        if end > len(buffer):
            return
        yield buffer[start + _SIZE : end], end
        start = end


def estimate(hand: Any, luck_value: LuckValue | None = None) -> HandLuck:
    """The estimate of one hand as the match sends it
    (:func:`arena.match.luck_process.estimate_input`), with the leans it carries under
    ``leans`` (none: every player leans 0) and ``luck_value``'s betting weights (None: the
    shipped ones). What is not a hand meets the estimator's own error.

    >>> estimate({"history": 1})
    Traceback (most recent call last):
    ...
    arena.luck.timeline.LuckError: hand record without a history: 1
    """
    leans = hand.get("leans") if isinstance(hand, dict) else None
    return estimate_hand(hand, luck_value, leans)


def answer(dump: bytes, luck_value: LuckValue | None = None) -> bytes:
    """The answer frame to one hand's dump, estimated with ``luck_value`` (None: the
    shipped betting weights).

    >>> marshal.loads(answer(marshal.dumps({"history": 1}))[4:])
    'LuckError: hand record without a history: 1'
    """
    reply: str | tuple[str, tuple[int, ...], tuple[float, ...]]
    try:
        luck = estimate(marshal.loads(dump), luck_value)
    except Exception as exc:  # any refusal is reported: the match decides what it means
        reply = f"{type(exc).__name__}: {exc}"
    else:
        reply = (luck.estimator, luck.raw, luck.adjusted)
    return frame(marshal.dumps(reply))


def serve(read_fd: int, write_fd: int, luck_value: LuckValue | None = None) -> None:
    """Answer every hand read from ``read_fd`` on ``write_fd`` until its end, estimated
    with ``luck_value``."""
    pending = b""
    while chunk := os.read(read_fd, _CHUNK):
        pending += chunk
        replies = []
        used = 0
        for dump, end in frames(pending):
            replies.append(answer(dump, luck_value))
            used = end
        pending = pending[used:]
        out = b"".join(replies)
        while out:
            out = out[os.write(write_fd, out) :]


def run_child(  # pragma: no cover - the child
    read_fd: int, write_fd: int, luck_value: LuckValue | None
) -> NoReturn:
    """The forked child's whole life: serve ``read_fd`` to ``write_fd`` (estimates with
    ``luck_value``), then exit.

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
        serve(read_fd, write_fd, luck_value)
        code = 0
    except BrokenPipeError:  # the match is gone: nobody to answer
        code = 0
    finally:
        os._exit(code)
