"""Who chooses the actions of a match's seats: the :class:`Decider` seam and live bots.

The loop deals and applies; a :class:`Decider` gives every decision and hears what the
seats are told (``arena replay``'s reads the recorded replies: :mod:`arena.match.replay`).
:class:`LiveBots`, the decider of a real match, has one
:class:`~arena.session.watchdog.BotSession` per seat and the arena's seat policy:

* a dead bot is restarted between hands; until then its seat is folded without asking;
* a bot whose restart budget is spent sits out: it is still dealt in and posts its blinds
  (the table does not change because of a bot's fault), is folded whenever it must act
  and is told nothing;
* a timeout, crash or invalid reply is the session's to handle; here it is logged;
* a mixed strategy gives the action the match's secret draw picks
  (:mod:`arena.session.draws`); the record keeps the distribution, no seat is told it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.match.fairness import DeckCommitment
from arena.match.log import GameLog
from arena.match.records import StandingEntry, action_to_dict
from arena.session.draws import StrategyDraws
from arena.session.policy import default_action
from arena.session.watchdog import BotSession
from engine.actions import Action, LegalActions
from engine.config import GameConfig
from engine.events import Event
from engine.hand import Hand
from protocol import messages
from protocol.codec import encode
from protocol.strategy import MixedStrategy

__all__ = ["Decider", "Decision", "Distribution", "HelloInfo", "LiveBots", "distribution_of"]

#: A reported mixed strategy as the hand record keeps it: ``({"action": ..., "amount": ...},
#: probability)`` pairs in the bot's order (:class:`arena.match.records.DecisionRecord`).
Distribution = tuple[tuple[dict[str, Any], float], ...]


def distribution_of(strategy: MixedStrategy | None) -> Distribution | None:
    """The record form of a reported strategy (None for none).

    >>> from engine.actions import Call, RaiseTo
    >>> distribution_of(MixedStrategy(((Call(), 0.75), (RaiseTo(8), 0.25))))
    (({'action': 'CALL'}, 0.75), ({'action': 'RAISE', 'amount': 8}, 0.25))
    """
    if strategy is None:
        return None
    return tuple((action_to_dict(action), probability) for action, probability in strategy.entries)


@dataclass(frozen=True, slots=True)
class Decision:
    """One seat's action and how it was chosen.

    ``by`` is who chose (``bot``, ``policy``, ``sitting_out``, ``dead``); ``replies`` the
    bot's decoded replies when it was asked (None when not); ``fault`` why the policy
    chose. ``events`` are the engine's events when the decider already applied the
    action (a session applies a bot's action as it accepts it); None: the loop applies it.
    ``distribution`` is the mixed strategy the bot reported and ``action`` was drawn from,
    in the record's form (:func:`distribution_of`); None when it sent one action.
    """

    action: Action
    by: str
    replies: tuple[dict[str, Any], ...] | None = None
    fault: str | None = None
    events: list[Event] | None = None
    distribution: Distribution | None = None


@dataclass(frozen=True, slots=True)
class HelloInfo:
    """What every bot is told about the match in ``hello``.

    ``deck`` is the secret seed with the salt of its commitment: ``hello`` carries the
    commitment alone, ``match_end`` reveals the seed and the salt (see
    :mod:`arena.match.fairness`). ``draw_key`` is what, beside the seed, keys the arena's
    draws from mixed strategies (:class:`~arena.session.draws.StrategyDraws`).
    """

    game: GameConfig
    seat_count: int
    starting_stack: int
    hand_count: int | None
    time_limits: messages.TimeLimits
    max_attempts: int
    deck: DeckCommitment
    draw_key: str | None = None


class Decider(Protocol):
    """Chooses every seat's actions and hears what the seats are told."""

    def start(self, hello: HelloInfo) -> dict[int, str]:
        """Before the first hand; returns the names the deciders gave the seats."""
        ...

    def prepare_hand(self, hand_number: int, seats_left: Sequence[int]) -> list[int]:
        """Between hands; returns the seats (of ``seats_left``, those still in the match)
        that sit this hand out."""
        ...

    def hand_started(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """The hand is dealt (``hand_start`` for every playing seat)."""
        ...

    def decide(
        self,
        hand: Hand,
        hand_id: str,
        seat_index: int,
        legal: LegalActions,
        while_waiting: Callable[[], bool] | None,
    ) -> Decision:
        """The action of ``seat_index``, the seat to act; ``while_waiting`` is work to do
        while a bot thinks (see :mod:`arena.match.prefetch`)."""
        ...

    def hand_ended(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """The hand is over (``hand_end`` for every playing seat)."""
        ...

    def finish(self, standings: Sequence[StandingEntry], hands_played: int) -> None:
        """The match is over (``match_end``); the bots exit."""
        ...

    def close(self) -> None:
        """Stop everything still running (idempotent; after :meth:`finish`, a no-op)."""
        ...

    def seat_summary(self, seat_index: int) -> tuple[bool, dict[str, Any]]:
        """For the results: whether the seat sits out, and its fault ledger."""
        ...


class LiveBots:
    """The decider of a real match: one session per seat (see the module docstring).

    ``hold_notifications``: hold each ``hand_start``/``hand_end`` in the seat's channel
    until the next line to that bot (a request, or a flush while another bot thinks), so
    each bot gets one write instead of two; the bytes and their order are the same.
    """

    def __init__(
        self,
        sessions: Sequence[BotSession | None],
        player_ids: Sequence[str],
        log: GameLog,
        *,
        hold_notifications: bool = False,
    ) -> None:
        self._sessions = list(sessions)
        self._player_ids = list(player_ids)
        self._log = log
        self._hold = hold_notifications
        self._sitting_out: set[int] = set()
        self._dead: set[int] = set()  # seats whose bot died during this hand
        self._deck: DeckCommitment | None = None  # what match_end reveals, from start
        self._draws: StrategyDraws | None = None  # from start: the seed is the deck's

    def session(self, seat_index: int) -> BotSession | None:
        """The seat's session when its bot runs and plays this hand, else None."""
        session = self._sessions[seat_index]
        if session is None or session.transport is None or seat_index in self._sitting_out:
            return None
        return session

    def flush(self, *, except_seat: int | None = None) -> None:
        """Send every held line now (but ``except_seat``'s, which goes with its request)."""
        for seat_index, session in enumerate(self._sessions):
            if session is not None and seat_index != except_seat:
                session.flush()

    # -- Decider -------------------------------------------------------------------------

    def start(self, hello: HelloInfo) -> dict[int, str]:
        """Send ``hello`` (with the deck commitment) to every bot and wait for its
        ``ready`` (failures are faults)."""
        self._deck = hello.deck
        self._draws = StrategyDraws(hello.deck.seed, match_key=hello.draw_key)
        names: dict[int, str] = {}
        for seat_index, session in enumerate(self._sessions):
            if session is None:
                continue
            message = messages.hello(
                seq=0,  # the session numbers its requests
                player_id=self._player_ids[seat_index],
                seat_index=seat_index,
                config=hello.game,
                seat_count=hello.seat_count,
                starting_stack=hello.starting_stack,
                hand_count=hello.hand_count,
                time_limits=hello.time_limits,
                max_attempts=hello.max_attempts,
                deck_commitment=hello.deck.commitment,
            )
            ready = session.start(message)
            if ready is None:
                self._log.error(
                    None, self._player_ids[seat_index], "startup_failure", _last_fault(session)
                )
            else:
                names[seat_index] = ready.name
        return names

    def prepare_hand(self, hand_number: int, seats_left: Sequence[int]) -> list[int]:
        """Restart the bots that are down; returns the seats that sit out this hand."""
        self._dead.clear()
        self._sitting_out.clear()
        for seat_index in seats_left:
            session = self._sessions[seat_index]
            if session is None:
                continue
            if not session.is_sitting_out and not session.is_alive:
                is_restarted = session.restart()
                detail = "restarted" if is_restarted else f"restart failed: {_last_fault(session)}"
                self._log.error(hand_number, self._player_ids[seat_index], "restart", detail)
            if session.is_sitting_out:
                self._sitting_out.add(seat_index)
        return sorted(self._sitting_out)

    def hand_started(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """``hand_start`` to every running bot of the hand, each with its own view."""
        for setup in hand.seats:
            session = self.session(setup.seat_index)
            if session is not None:
                session.hand_start(hand.view(setup.seat_index), hand_id=hand_id, hold=self._hold)

    def decide(
        self,
        hand: Hand,
        hand_id: str,
        seat_index: int,
        legal: LegalActions,
        while_waiting: Callable[[], bool] | None,
    ) -> Decision:
        """Ask the seat's bot through its session, or fold a seat that cannot be asked."""
        session = self._sessions[seat_index]
        if seat_index in self._sitting_out:
            return Decision(default_action(legal), "sitting_out")
        if seat_index in self._dead or session is None or session.transport is None:
            # It died since the hand began (or never started): the rest of this hand is
            # played for it without asking; it is restarted before the next hand. (The
            # transport, not is_alive, is looked at: a session drops it when it records
            # a crash, and a bot that died unnoticed is found when asked.)
            self._dead.add(seat_index)
            return Decision(default_action(legal), "dead")
        draws = self._draws  # None only before start(): no match, nothing to draw with
        outcome = session.decide(
            hand.view(seat_index),
            hand_id=hand_id,
            apply=hand.act,
            draw_limit=hand.config.draw_limit,
            while_waiting=while_waiting,
            draw=None if draws is None else lambda strategy: draws.action(strategy, hand),
        )
        if outcome.fault is not None:
            player_id = self._player_ids[seat_index]
            self._log.error(hand.hand_number, player_id, outcome.fault, _last_fault(session))
        return Decision(
            outcome.action,
            "bot" if outcome.fault is None else "policy",
            tuple(outcome.replies),
            outcome.fault,
            outcome.events,
            distribution_of(outcome.strategy),
        )

    def hand_ended(self, hand: Hand, hand_id: str, sitting_out: Sequence[int]) -> None:
        """``hand_end`` to every running bot of the hand: one message, encoded once."""
        result = hand.result
        assert result is not None  # the loop checked it
        player_ids = {setup.seat_index: setup.player_id for setup in hand.seats}
        message = messages.hand_end(result, hand_id=hand_id, player_ids=player_ids)
        data: bytes | None = None
        for setup in hand.seats:
            session = self.session(setup.seat_index)
            if session is not None:
                data = data or encode(message)
                session.notify(message, data=data, hold=self._hold)

    def finish(self, standings: Sequence[StandingEntry], hands_played: int) -> None:
        """Send ``match_end`` with the standings and the deck's seed and salt (the match is
        over: the seed is no longer a secret, unless another match still deals from it) to
        every bot and let it exit."""
        # A withheld seed (another match still deals from it) is not told at all.
        revealed = None if self._deck is None else self._deck.revealed
        message = messages.match_end(
            standings,
            hands_played=hands_played,
            deck_seed=None if revealed is None else revealed[0],
            deck_salt=None if revealed is None else revealed[1],
        )
        for session in self._sessions:
            if session is not None:
                session.finish(message)

    def close(self) -> None:
        """Kill every bot that is still running."""
        for session in self._sessions:
            if session is not None:
                session.close()

    def seat_summary(self, seat_index: int) -> tuple[bool, dict[str, Any]]:
        """Whether the seat's bot sits out, and its fault ledger."""
        session = self._sessions[seat_index]
        if session is None:
            return False, {}
        return session.is_sitting_out, session.ledger.to_dict()


def _last_fault(session: BotSession) -> str:
    """The detail of the seat's latest recorded fault, for the log line."""
    faults = session.ledger.faults
    if not faults:
        return ""
    last = faults[-1]
    return last.detail or last.code
