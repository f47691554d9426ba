"""Benchmark the wire protocol: a typical ``act`` request and the bot's reply.

Builds a six-handed no-limit hold'em hand on the turn with the real engine, then times, per
message: building the ``act`` from the seat's view, encoding it (plain and strict), decoding
it on the bot's side, validating it with jsonschema; the arena's fast path, a seat's
``RequestEncoder`` (``request`` with the history already encoded, ``hand_start``, ``prepare``)
against the plain encoder (``encode`` of the builder); and for the reply: decoding it, the fast
shape check, the full parse (seq, shape, legality against ``LegalActions``), the slow
jsonschema path, and the rejection of an illegal raise. The figure that matters is reply
decode + validation + legality check, which should stay under 50 microseconds. A benchmark,
never a timed test.

    .venv/bin/python bench/bench_protocol.py [--repeat 5] [--min-seconds 0.2]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from engine.actions import Action, Call, Check, RaiseTo
from engine.config import GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from protocol.codec import decode, encode
from protocol.errors import BotReplyError
from protocol.messages import RequestEncoder, act_request
from protocol.replies import action_shape_is_valid, parse_action
from protocol.schema import find_issue, validator_for

TARGET_MICROSECONDS = 50.0


def per_call_microseconds(run: Callable[[], object], repeat: int, min_seconds: float) -> float:
    """Best-of-``repeat`` time of one call, in microseconds, with enough calls per run."""
    loops = 1
    while True:
        start = time.perf_counter()
        for _ in range(loops):
            run()
        if time.perf_counter() - start >= min_seconds / 4:
            break
        loops *= 2
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(loops):
            run()
        best = min(best, (time.perf_counter() - start) / loops)
    return best * 1e6


def typical_hand() -> Hand:
    """Six players: a raise called all round pre-flop, a bet called all round on the flop."""
    seats = [SeatSetup(index, f"p{index}", 1000) for index in range(6)]
    hand = Hand.start(
        GameConfig(small_blind=5, big_blind=10),
        seats,
        button_index=0,
        deck=Deck.shuffled(random.Random(2024)),
    )
    script: list[Action] = [RaiseTo(30), Call(), Call(), Call(), Call(), Call()]
    script += [Check(), Check(), RaiseTo(60), Call(), Call(), Call(), Call(), Call()]
    for action in script:
        if hand.phase.value == "TURN":
            break
        legal = hand.legal_actions()
        assert legal is not None
        hand.act(Check() if isinstance(action, Call) and legal.can_check else action)
    assert hand.phase.value == "TURN", hand.phase
    return hand


def main() -> None:
    """Time every step and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--min-seconds", type=float, default=0.2)
    args = parser.parse_args()

    hand = typical_hand()
    actor = hand.actor_index
    legal = hand.legal_actions()
    assert actor is not None and legal is not None
    view = hand.view(actor)
    seq = 42
    act = act_request(view, seq=seq, hand_id="m1-h7", time_limit_ms=5000)
    act_line = encode(act)
    amount = legal.min_raise_to + 20
    reply_line = encode({"type": "action", "seq": seq, "action": "RAISE", "amount": amount})
    reply = decode(reply_line)
    bad_reply = decode(encode({"type": "action", "seq": seq, "action": "RAISE", "amount": 1}))
    bad_shape = decode(encode({"type": "action", "seq": seq, "action": "RAISE"}))
    assert parse_action(reply, seq, legal) == RaiseTo(amount)
    assert find_issue(act) is None

    def rejected(obj: object) -> Callable[[], object]:
        def run() -> object:
            try:
                return parse_action(obj, seq, legal)
            except BotReplyError as error:
                return error

        return run

    action_validator = validator_for("action")
    fast = RequestEncoder()
    assert fast.request(view, seq=seq, hand_id="h", time_limit_ms=1) == encode(
        act_request(view, seq=seq, hand_id="h", time_limit_ms=1)
    )
    rows: list[tuple[str, Callable[[], object]]] = [
        (
            "act: build from SeatView",
            lambda: act_request(view, seq=seq, hand_id="h", time_limit_ms=1),
        ),
        ("act: encode", lambda: encode(act)),
        (
            "act: RequestEncoder.request  [hot path]",
            lambda: fast.request(view, seq=seq, hand_id="h", time_limit_ms=1),
        ),
        (
            "act: plain encoder (encode of the builder)",
            lambda: encode(act_request(view, seq=seq, hand_id="h", time_limit_ms=1)),
        ),
        ("hand_start: RequestEncoder.hand_start", lambda: fast.hand_start(view, hand_id="h")),
        ("prepare: RequestEncoder.prepare", lambda: fast.prepare(view)),
        ("act: encode strict (jsonschema)", lambda: encode(act, strict=True)),
        ("act: decode (bot side)", lambda: decode(act_line)),
        ("act: jsonschema validation", lambda: find_issue(act, "act")),
        ("reply: decode", lambda: decode(reply_line)),
        ("reply: fast shape check", lambda: action_shape_is_valid(reply)),
        ("reply: jsonschema is_valid", lambda: action_validator.is_valid(reply)),
        ("reply: parse_action (seq+shape+legality)", lambda: parse_action(reply, seq, legal)),
        (
            "reply: decode + parse_action  [target]",
            lambda: parse_action(decode(reply_line), seq, legal),
        ),
        ("reply: illegal raise rejected", rejected(bad_reply)),
        ("reply: bad shape rejected (jsonschema path)", rejected(bad_shape)),
    ]
    print(f"act line: {len(act_line)} bytes, {len(act['history'])} history events")
    print(f"reply line: {len(reply_line)} bytes: {reply_line.decode().strip()}")
    print(f"{'step':46} {'us/call':>10}")
    results = {}
    for name, run in rows:
        micros = per_call_microseconds(run, args.repeat, args.min_seconds)
        results[name] = micros
        print(f"{name:46} {micros:10.2f}")
    target = results["reply: decode + parse_action  [target]"]
    verdict = "OK" if target < TARGET_MICROSECONDS else "ABOVE TARGET"
    print(f"reply decode + validation + legality: {target:.2f} us (target < 50 us): {verdict}")


if __name__ == "__main__":
    main()
