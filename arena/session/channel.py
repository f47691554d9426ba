"""The lines going to one bot: held notifications and the seat's request encoder.

A :class:`Channel` turns what the session says into the bytes of one write, and does no I/O
itself (the session writes what :meth:`Channel.take` returns). A held notification goes out
in front of the next line to the same bot: the same lines in the same order, one wake-up
instead of two. The request encoder (:class:`protocol.messages.RequestEncoder`) keeps the
text of the hand so far, so each request encodes only what changed, and can encode ahead
(:meth:`Channel.prepare`, :meth:`Channel.prepare_hand_start`) while another bot thinks; a
line encoded ahead is used only if it is the same view and hand id, so the bytes are the
same either way."""

from __future__ import annotations

from dataclasses import dataclass

from engine.view import SeatView
from protocol.request_encoder import EventTextCache, RequestEncoder

__all__ = ["Channel"]


@dataclass(frozen=True, slots=True)
class _PreparedStart:
    """A ``hand_start`` line encoded ahead, with the encoder that made it (its caches
    hold that hand's text, which the hand's requests reuse)."""

    view: SeatView
    hand_id: str
    encoder: RequestEncoder
    line: bytes


class Channel:
    """Held lines and the request encoder of one seat (see the module docstring).

    ``event_texts`` is the table's cache of event texts, shared by its seats' channels
    (see :class:`protocol.request_encoder.EventTextCache`); None: a cache of its own.
    """

    def __init__(self, event_texts: EventTextCache | None = None) -> None:
        self._held: list[bytes] = []
        # One cache for the seats of a table: a public event is encoded once for them all.
        self._event_texts = EventTextCache() if event_texts is None else event_texts
        self._requests = RequestEncoder(self._event_texts)
        self._prepared_start: _PreparedStart | None = None

    @property
    def has_held_lines(self) -> bool:
        """True when lines wait for the next write."""
        return bool(self._held)

    def hold(self, line: bytes) -> None:
        """Keep ``line`` for the next write to this bot."""
        self._held.append(line)

    def take(self, line: bytes = b"") -> bytes:
        """The bytes of the next write: the held lines, then ``line``."""
        if not self._held:
            return line
        self._held.append(line)
        data = b"".join(self._held)
        self._held.clear()
        return data

    def clear(self) -> None:
        """Forget what is held and encoded ahead (the bot is gone)."""
        self._held.clear()
        self._prepared_start = None

    def hand_start(self, view: SeatView, *, hand_id: str) -> bytes:
        """The ``hand_start`` line for ``view``; the requests of the hand reuse its text."""
        prepared, self._prepared_start = self._prepared_start, None
        # The line is a function of the view and the hand id: equal ones, equal bytes.
        if prepared is not None and prepared.hand_id == hand_id and prepared.view == view:
            self._requests = prepared.encoder
            return prepared.line
        return self._requests.hand_start(view, hand_id=hand_id)

    def prepare_hand_start(self, view: SeatView, *, hand_id: str) -> None:
        """Encode ahead the ``hand_start`` of a hand dealt early, and what of ``view`` its
        first request will reuse."""
        encoder = RequestEncoder(self._event_texts)
        line = encoder.hand_start(view, hand_id=hand_id)
        encoder.prepare(view)
        self._prepared_start = _PreparedStart(view, hand_id, encoder, line)

    def prepare(self, view: SeatView) -> None:
        """Encode ahead what of ``view`` the next request will reuse."""
        self._requests.prepare(view)

    def request(
        self,
        view: SeatView,
        *,
        seq: int,
        hand_id: str,
        time_limit_ms: int,
        attempt: int,
        max_attempts: int,
    ) -> bytes:
        """The ``act`` or ``draw`` line asking for the decision ``view`` shows."""
        return self._requests.request(
            view,
            seq=seq,
            hand_id=hand_id,
            time_limit_ms=time_limit_ms,
            attempt=attempt,
            max_attempts=max_attempts,
        )
