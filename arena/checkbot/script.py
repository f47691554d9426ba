"""The scripted conversation of ``arena check-bot``: the steps after ``start``, in the
order of :data:`arena.checkbot.STEP_NAMES` (the table and the reasons for the order are
in that module's docstring).

The bot sits in seat 0 of a heads-up hand dealt by the real engine against a scripted
opponent on the button; every request and notification is built by the real message
builders and every reply read by the watchdog's rules (:mod:`arena.checkbot.wire`).
A reply that reports a mixed strategy (:mod:`protocol.strategy`) is checked like any
reply and its action drawn as a match would, from a fixed seed here (no match is played):
:attr:`Checker.strategies` keeps each one for the report.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.checkbot.hints import NOTIFICATION_HINT, reply_hint
from arena.checkbot.report import CheckStep
from arena.checkbot.wire import BotGoneError, Conversation, StepFailedError
from arena.session.draws import StrategyDraws
from arena.session.reading import expected_reply_type, parse_decision
from engine.actions import Action, AllIn, Call, Check, Discard, RaiseTo
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from protocol.errors import BotReplyError
from protocol.messages import (
    Standing,
    act_request,
    draw_request,
    error_message,
    hand_end,
    hand_start,
    hello,
    match_end,
)
from protocol.replies import parse_ready
from protocol.strategy import MixedStrategy

__all__ = ["DEFAULT_NOTIFICATION_WAIT_S", "Checker", "match_end_step"]

_BOT, _SCRIPT = 0, 1  # seat indexes: the bot, and the scripted opponent on the button
_PLAYER_IDS = {_BOT: "bot", _SCRIPT: "checker"}
_STACK = 200
_MAX_DECISIONS = 40  # a hand of heads-up check/call has far fewer bot decisions
_OPENING_RAISE_BLINDS = 3  # the opponent's raise before the bot's first decision

# The script's draws from a reported mixed strategy: no match is played, so the seed is a
# fixed one (a match draws with its own secret seed, arena.session.draws).
_CHECK_DRAWS = StrategyDraws(2024)

#: How long the check waits for an (unwanted) answer to ``hand_start``. A bot that answers
#: notifications does so as it reads them; a later answer is caught by ``quiet``.
DEFAULT_NOTIFICATION_WAIT_S = 0.25


@dataclass
class Checker(Conversation):
    """The scripted conversation: the steps after ``start``, in order."""

    config: GameConfig
    notification_wait_s: float = DEFAULT_NOTIFICATION_WAIT_S
    manifest_name: str = ""
    steps: list[CheckStep] = field(default_factory=list, init=False)
    latencies_ms: list[float] = field(default_factory=list, init=False)
    strategies: list[MixedStrategy] = field(default_factory=list, init=False)
    #: The decisions (by seq) answered with a distribution, and the action drawn.
    drawn: dict[int, Action] = field(default_factory=dict, init=False)

    def passed(self, name: str, reason: str) -> None:
        self.steps.append(CheckStep(name, True, reason))

    def failed(self, name: str, reason: str, hint: str = "") -> None:
        self.steps.append(CheckStep(name, False, reason, hint))

    # -- one decision ----------------------------------------------------------------------

    def ask(
        self,
        hand: Hand,
        hand_id: str,
        *,
        attempt: int = 1,
        is_drained: bool = True,
    ) -> tuple[Action, int, float]:
        """Send the bot its decision; return its (legal) action, the seq and the latency."""
        if is_drained:
            self.drain()
        view = hand.view(_BOT)
        legal = view.legal_actions
        assert legal is not None
        seq = self.next_seq()
        build = draw_request if legal.can_draw else act_request
        time_limit_ms = round(self.limits.decision_s * 1000)
        request = build(
            view, seq=seq, hand_id=hand_id, time_limit_ms=time_limit_ms, attempt=attempt
        )
        self.send(request)
        what = expected_reply_type(legal)
        obj, latency_ms = self.reply(
            self.limits.decision_s, f"{what} for request {seq}", what, request
        )
        try:
            parsed = parse_decision(obj, seq, legal, view.hole_cards)
        except BotReplyError as exc:
            hint = reply_hint(exc.code, request)
            raise StepFailedError(f"reply to request {seq} rejected: {exc}", hint) from exc
        self.latencies_ms.append(latency_ms)
        if isinstance(parsed, MixedStrategy):
            self.strategies.append(parsed)
            self.drawn[seq] = _CHECK_DRAWS.action(parsed, hand)
            return self.drawn[seq], seq, latency_ms
        return parsed, seq, latency_ms

    def answer(self, seq: int, action: Action) -> str:
        """How request ``seq`` was answered, for a step's reason."""
        return f"a distribution ({action} drawn)" if seq in self.drawn else str(action)

    def play_script(self, hand: Hand) -> None:
        """The scripted opponent's turns: stand pat, check, or call."""
        while not hand.is_over and hand.actor_index == _SCRIPT:
            legal = hand.legal_actions()
            assert legal is not None
            hand.act(Discard(()) if legal.can_draw else Check() if legal.can_check else Call())

    # -- the script ------------------------------------------------------------------------

    def run(self) -> None:
        self.handshake()
        rng = random.Random(2024)
        hand_id = "check-1"
        hand = self.new_hand(1, rng)
        self.hand_start_step(hand, hand_id)
        first: list[tuple[Action, int, float]] = []
        self.run_step("first_decision", lambda: self.first_decision(hand, hand_id, first))
        self.run_step("error_reprompt", lambda: self.error_reprompt(hand, hand_id, first[0][1]))
        self.run_step("play_hand", lambda: self.play_hand(hand, hand_id))
        self.run_step("hand_end", lambda: self.notify_end(hand, hand_id))
        self.run_step("facing_all_in", lambda: self.facing_all_in(rng))
        self.drain()
        if self.stray_lines:
            shown = "; ".join(self.stray_lines[:3])
            self.failed(
                "quiet",
                f"{len(self.stray_lines)} line(s) written while nothing was asked: {shown}",
            )
        else:
            self.passed("quiet", "nothing was written while nothing was asked")

    def run_step(self, name: str, body: Callable[[], str]) -> None:
        try:
            reason = body()
        except StepFailedError as exc:
            self.failed(name, str(exc), exc.hint)
            raise
        self.passed(name, reason)

    def handshake(self) -> None:
        seq = self.next_seq()
        self.send(
            hello(
                seq=seq,
                player_id=_PLAYER_IDS[_BOT],
                seat_index=_BOT,
                config=self.config,
                seat_count=2,
                starting_stack=_STACK,
                hand_count=2,
                time_limits=self.limits.to_wire(),
            ),
        )
        try:
            obj, latency_ms = self.reply(self.limits.startup_s, f"ready for hello {seq}", "ready")
            ready = parse_ready(obj, seq)
        except StepFailedError as exc:
            self.failed("handshake", str(exc), exc.hint)
            raise
        except BotReplyError as exc:
            self.failed("handshake", str(exc), reply_hint(exc.code, {"seq": seq}))
            raise StepFailedError(str(exc)) from exc
        version = f" {ready.version}" if ready.version else ""
        # Results name a bot by its manifest, whatever it calls itself: say so when they differ.
        shown = self.manifest_name
        results = f"; results show the manifest's name {shown!r}" if ready.name != shown else ""
        self.passed(
            "handshake",
            f"ready as {ready.name!r}{version} (protocol {ready.protocol_version}) "
            f"in {latency_ms:.0f} ms{results}",
        )

    def new_hand(self, number: int, rng: random.Random) -> Hand:
        seats = [SeatSetup(_BOT, _PLAYER_IDS[_BOT], _STACK), SeatSetup(1, _PLAYER_IDS[1], _STACK)]
        # The opponent has the button: heads-up it posts the small blind and acts first
        # before the flop, so the bot acts first on every later round.
        return Hand.start(
            self.config,
            seats,
            button_index=_SCRIPT,
            deck=Deck.shuffled(rng),
            hand_number=number,
        )

    def notify_start(self, hand: Hand, hand_id: str) -> None:
        self.send(hand_start(hand.view(_BOT), hand_id=hand_id))

    def hand_start_step(self, hand: Hand, hand_id: str) -> None:
        """Send ``hand_start`` and wait a moment: an answer fails the step (the bot
        answers notifications), but the conversation goes on."""
        self.notify_start(hand, hand_id)
        answers = self.lines_within(self.notification_wait_s)
        if not answers:
            waited = f"{self.notification_wait_s * 1000:.0f} ms"
            self.passed("hand_start", f"hand_start taken without an answer (waited {waited})")
            return
        more = f" and {len(answers) - 1} more line(s)" if len(answers) > 1 else ""
        self.failed(
            "hand_start",
            f"answered the hand_start notification with {answers[0]}{more}",
            NOTIFICATION_HINT,
        )

    def notify_end(self, hand: Hand, hand_id: str) -> str:
        result = hand.result
        assert result is not None
        self.send(hand_end(result, hand_id=hand_id, player_ids=_PLAYER_IDS))
        return f"hand_end sent ({result.ended_reason})"

    def first_decision(self, hand: Hand, hand_id: str, out: list[tuple[Action, int, float]]) -> str:
        self.opponent_raises(hand)
        view = hand.view(_BOT)
        legal = view.legal_actions
        assert legal is not None
        decision = self.ask(hand, hand_id)
        out.append(decision)
        action, seq, latency_ms = decision
        return (
            f"facing a raise to {legal.current_bet} (to_call {legal.call_amount}), answered "
            f"request {seq} with {self.answer(seq, action)} in {latency_ms:.0f} ms"
        )

    def opponent_raises(self, hand: Hand) -> None:
        """The opponent, first to act before the flop, raises to three big blinds: the
        bot's first decision faces a bet, where a ``CALL``'s amount (``current_bet``)
        differs from ``to_call`` and a raise's amount must be a round total."""
        legal = hand.legal_actions()
        assert legal is not None and legal.can_raise and hand.actor_index == _SCRIPT
        target = _OPENING_RAISE_BLINDS * self.config.big_blind
        hand.act(RaiseTo(min(max(target, legal.min_raise_to), legal.max_raise_to)))

    def error_reprompt(self, hand: Hand, hand_id: str, rejected_seq: int) -> str:
        # Reject a valid reply on purpose: the bot must take the error and answer the
        # new request (a new seq), not repeat its answer to the old one.
        notice = BotReplyError(
            "check_bot_retry",
            "check-bot rejects this reply on purpose; answer the next request",
        )
        self.send(error_message(notice, in_reply_to=rejected_seq, attempts_left=2))
        try:
            # Not drained first: a repeated answer to the old request must be seen here.
            action, seq, _latency = self.ask(hand, hand_id, attempt=2, is_drained=False)
        except StepFailedError as exc:
            text = str(exc)
            if f"seq {rejected_seq} is older" in text:
                text = f"answered the rejected request {rejected_seq} again instead of the new one"
            raise StepFailedError(text, exc.hint) from exc
        hand.act(action)
        return f"after the error, answered the new request {seq} with {self.answer(seq, action)}"

    def play_hand(self, hand: Hand, hand_id: str) -> str:
        count = 0
        for _ in range(_MAX_DECISIONS):
            self.play_script(hand)
            if hand.is_over:
                break
            action, _seq, _latency = self.ask(hand, hand_id)
            hand.act(action)
            count += 1
        else:  # pragma: no cover - the engine ends every hand long before this
            raise StepFailedError(f"the hand did not end after {_MAX_DECISIONS} decisions")
        slowest = max(self.latencies_ms)
        return f"{count} more decision(s) answered; slowest reply {slowest:.0f} ms"

    def facing_all_in(self, rng: random.Random) -> str:
        hand_id = "check-2"
        hand = self.new_hand(2, rng)
        self.notify_start(hand, hand_id)
        legal = hand.legal_actions()
        assert legal is not None and hand.actor_index == _SCRIPT
        hand.act(AllIn())
        action, seq, _latency = self.ask(hand, hand_id)
        hand.act(action)
        while not hand.is_over:  # all-in and called: the rest is dealt out, or draws remain
            self.play_script(hand)
            if not hand.is_over:
                next_action, _seq, _lat = self.ask(hand, hand_id)
                hand.act(next_action)
        self.notify_end(hand, hand_id)
        return f"facing an all-in, answered request {seq} with {self.answer(seq, action)}"


def match_end_step(checker: Checker) -> None:
    """The last step: ``match_end``, then the bot must exit by itself with code 0."""
    transport = checker.transport
    standings = [
        Standing(_PLAYER_IDS[_BOT], "bot", _STACK, 0, 1),
        Standing(_PLAYER_IDS[_SCRIPT], "checker", _STACK, 0, 2),
    ]
    try:
        checker.send(match_end(standings, hands_played=2))
    except BotGoneError as exc:
        checker.failed("match_end_exit", f"the bot was gone before match_end: {exc}")
        return
    info = transport.close(checker.limits.match_end_grace_s)
    grace = f"{checker.limits.match_end_grace_s:g} s"
    if info.is_killed:
        checker.failed("match_end_exit", f"still running {grace} after match_end; killed")
    elif info.exit_code != 0:
        checker.failed("match_end_exit", f"exited after match_end with {info.describe()}")
    else:
        checker.passed("match_end_exit", "exited with code 0 after match_end")
