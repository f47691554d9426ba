"""Match log lines: ``[TIMESTAMP] [GAME_ID] ACTION | DETAILS``, one event per line.

The five kinds of line and the logging level each one uses:

=============  ========  ====================================================
kind           level     when
=============  ========  ====================================================
HAND_START     INFO      a hand is dealt (players, blinds, button)
ACTION         DEBUG     a seat acted (bot decision or arena policy)
ERROR          WARNING   a bot fault (timeout, invalid reply, crash, restart)
POT_UPDATE     DEBUG     a betting round closed (main pot and side pots)
HAND_COMPLETE  INFO      the pots were awarded
=============  ========  ====================================================

A bot's fault is logged at WARNING, not ERROR, although its line says ``ERROR`` (the
line's kind, which tools that read the log look for): a misbehaving bot is an expected,
recorded event of a match, while the logging level ERROR is kept for our own bugs (the
test suite fails on any ERROR record).

>>> import io, logging
>>> stream = io.StringIO()
>>> remove = configure_logging("debug", stream=stream, timestamps=False)
>>> GameLog("GAME_001").action(7, "p3", 3, "RAISE", 50)
>>> remove()
>>> stream.getvalue()
'[GAME_001] ACTION | Hand: 7, Player: p3, Seat: 3, Action: RAISE, Amount: 50\\n'
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TextIO

from engine.events import ActionTaken, BettingRoundComplete, Event
from engine.hand import Hand
from engine.result import HandResult

__all__ = [
    "BOTS_LOGGER_NAME",
    "LOGGER_NAME",
    "LOG_LEVELS",
    "GameLog",
    "MatchLogFormatter",
    "configure_logging",
    "parse_level",
]

#: The logger every match line goes to; handlers are attached by :func:`configure_logging`.
LOGGER_NAME = "arena.game"

#: The watchdog's logger (:mod:`arena.session.watchdog`), routed with ours at debug level.
BOTS_LOGGER_NAME = "arena.bots"

#: Names accepted by ``--log-level``.
LOG_LEVELS = ("debug", "info", "warning", "error", "off")

_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    # Above CRITICAL: nothing gets through.
    "off": logging.CRITICAL + 10,
}


def parse_level(name: str) -> int:
    """The logging level for a ``--log-level`` name (case-insensitive).

    >>> parse_level("INFO") == logging.INFO
    True
    """
    try:
        return _LEVELS[name.lower()]
    except KeyError:
        raise ValueError(
            f"log level {name!r} is not one of: {', '.join(LOG_LEVELS)}",
        ) from None


class MatchLogFormatter(logging.Formatter):
    """Formats a record as ``[2026-02-20 15:30:45.123] [GAME_001] ACTION | DETAILS``.

    A record from another logger (the watchdog's ``arena.bots`` details, shown at debug
    level) has no game id and no kind: it gets ``default_game_id`` and the kind ``BOT``.
    """

    def __init__(self, *, timestamps: bool = True, default_game_id: str = "-") -> None:
        super().__init__()
        self._timestamps = timestamps
        self._default_game_id = default_game_id

    def format(self, record: logging.LogRecord) -> str:
        game_id = getattr(record, "game_id", None)
        if game_id is None:
            text = f"[{self._default_game_id}] BOT | {record.getMessage()}"
        else:
            text = f"[{game_id}] {record.getMessage()}"
        if not self._timestamps:
            return text
        # Local wall-clock time with milliseconds: 2026-01-01 12:00:00.123.
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(record.created))
        return f"[{stamp}.{int(record.msecs):03d}] {text}"


def configure_logging(
    level: str | int,
    *,
    log_file: Path | None = None,
    stream: TextIO | None = None,
    timestamps: bool = True,
    game_id: str = "-",
) -> Callable[[], None]:
    """Send match lines at ``level`` to ``log_file`` (if given) or else ``stream`` (stderr).

    The watchdog's own logger (``arena.bots``) goes to the same place at ``debug`` level
    only: at the other levels its warnings would repeat the ``ERROR`` lines in another
    format. Returns a function that removes the handlers again, so that an in-process
    caller (the tests, ``arena.cli.main``) leaves the logging configuration as it found it.
    """
    numeric = parse_level(level) if isinstance(level, str) else level
    handler: logging.Handler
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(log_file, encoding="utf-8")
    else:
        handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.setFormatter(MatchLogFormatter(timestamps=timestamps, default_game_id=game_id))
    handler.setLevel(numeric)
    bots_level = logging.DEBUG if numeric <= logging.DEBUG else _LEVELS["off"]
    loggers = [
        (logging.getLogger(LOGGER_NAME), numeric),
        (logging.getLogger(BOTS_LOGGER_NAME), bots_level),
    ]
    saved = [(logger, logger.level, logger.propagate) for logger, _ in loggers]
    for logger, logger_level in loggers:
        logger.addHandler(handler)
        logger.setLevel(logger_level)
        # The lines have their own format; propagating them to the root logger would
        # print them a second time, in whatever format the application chose.
        logger.propagate = False

    def remove() -> None:
        for logger, previous_level, previous_propagate in saved:
            logger.removeHandler(handler)
            logger.setLevel(previous_level)
            logger.propagate = previous_propagate
        handler.close()

    return remove


class GameLog:
    """Writes the log lines of one match (``game_id`` is the match id)."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self._logger = logging.getLogger(LOGGER_NAME)
        self._extra = {"game_id": game_id}

    def _emit(self, level: int, kind: str, details: str) -> None:
        # isEnabledFor first: a 10,000-hand match logs ~100,000 ACTION lines that are
        # usually filtered out, and building them is most of their cost.
        if self._logger.isEnabledFor(level):
            self._logger.log(level, "%s | %s", kind, details, extra=self._extra)

    def is_enabled(self, level: int) -> bool:
        """True when lines at ``level`` would be written (lets callers skip building them)."""
        return self._logger.isEnabledFor(level)

    def hand_start(
        self,
        hand_number: int,
        *,
        player_count: int,
        small_blind: int,
        big_blind: int,
        ante: int,
        button_seat: int,
    ) -> None:
        """``HAND_START | Hand: 12, Players: 8, Blinds: 10/20, Button: 3``."""
        ante_text = f", Ante: {ante}" if ante else ""
        self._emit(
            logging.INFO,
            "HAND_START",
            f"Hand: {hand_number}, Players: {player_count}, "
            f"Blinds: {small_blind}/{big_blind}{ante_text}, Button: {button_seat}",
        )

    def action(
        self,
        hand_number: int,
        player_id: str,
        seat_index: int,
        action: str,
        amount: int | None = None,
    ) -> None:
        """``ACTION | Hand: 12, Player: p3, Seat: 3, Action: RAISE, Amount: 50``."""
        if not self._logger.isEnabledFor(logging.DEBUG):
            return
        text = f"Hand: {hand_number}, Player: {player_id}, Seat: {seat_index}, Action: {action}"
        if amount is not None:
            text += f", Amount: {amount}"
        self._emit(logging.DEBUG, "ACTION", text)

    def error(self, hand_number: int | None, player_id: str, code: str, details: str) -> None:
        """``ERROR | Hand: 12, Player: p5, Error: TIMEOUT, Details: ...`` (a bot fault)."""
        hand_text = f"Hand: {hand_number}, " if hand_number is not None else ""
        self._emit(
            logging.WARNING,
            "ERROR",
            f"{hand_text}Player: {player_id}, Error: {code.upper()}, Details: {details}",
        )

    def pot_update(self, hand_number: int, pots: Sequence[int]) -> None:
        """``POT_UPDATE | Hand: 12, Main: 300, Side Pots: [150, 100]``."""
        main = pots[0] if pots else 0
        side = ", ".join(str(amount) for amount in pots[1:])
        self._emit(
            logging.DEBUG,
            "POT_UPDATE",
            f"Hand: {hand_number}, Main: {main}, Side Pots: [{side}]",
        )

    def hand_complete(
        self,
        hand_number: int,
        winnings: Sequence[tuple[str, int]],
        *,
        reason: str,
    ) -> None:
        """``HAND_COMPLETE | Hand: 12, Winner: p3, Amount: 550, Reason: SHOWDOWN``."""
        if len(winnings) == 1:
            player_id, amount = winnings[0]
            text = f"Winner: {player_id}, Amount: {amount}"
        else:
            shares = ", ".join(f"{player_id} {amount}" for player_id, amount in winnings)
            text = f"Winners: [{shares}]"
        self._emit(
            logging.INFO,
            "HAND_COMPLETE",
            f"Hand: {hand_number}, {text}, Reason: {reason}",
        )

    # -- the lines of a hand, from the engine's values --------------------------------

    def hand_dealt(self, hand: Hand) -> None:
        """The ``HAND_START`` line of ``hand``."""
        if self.is_enabled(logging.INFO):
            self.hand_start(
                hand.hand_number,
                player_count=len(hand.seats),
                small_blind=hand.config.small_blind,
                big_blind=hand.config.big_blind,
                ante=hand.config.ante,
                button_seat=hand.button_index,
            )

    def events(self, hand: Hand, events: Iterable[Event], player_ids: Sequence[str]) -> None:
        """``ACTION`` and ``POT_UPDATE`` lines for the engine's ``events``."""
        if not self.is_enabled(logging.DEBUG):
            return  # both kinds of line are DEBUG: usually nothing to build
        for event in events:
            if isinstance(event, ActionTaken):
                name = "ALL_IN" if event.is_all_in else str(event.kind)
                amount = event.total if event.kind == "RAISE" else event.amount or None
                player_id = player_ids[event.seat_index]
                self.action(hand.hand_number, player_id, event.seat_index, name, amount)
            elif isinstance(event, BettingRoundComplete):
                pots = [pot.amount for pot in hand.gathered_pots()] or [event.pot_total]
                self.pot_update(hand.hand_number, pots)

    def hand_settled(self, hand_number: int, result: HandResult, player_ids: Sequence[str]) -> None:
        """The ``HAND_COMPLETE`` line: who won how much, and why the hand ended."""
        if not self.is_enabled(logging.INFO):
            return
        winnings: dict[int, int] = {}
        for award in result.awards:
            for seat_index, amount in award.shares:
                winnings[seat_index] = winnings.get(seat_index, 0) + amount
        self.hand_complete(
            hand_number,
            [(player_ids[s], amount) for s, amount in sorted(winnings.items())],
            reason=result.ended_reason,
        )
