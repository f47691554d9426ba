"""Replies a hostile bot can send, through a whole match and back through the readers.

An in-memory bot answers with values chosen to break something downstream (a reply
nested almost to the interpreter's recursion limit, numbers out of range, lone
surrogates, line separators in strings). The match must complete, every such reply must
be an ``invalid_reply`` fault (re-prompted as usual) or an accepted action, and the
history must stay readable: ``arena replay`` finds every hand identical.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import BotOutput
from arena.match.config import MatchConfig
from arena.match.results import MatchResult
from arena.session.faults import FaultKind
from arena.tools.replay import replay_file
from protocol.codec import MAX_DEPTH
from tests.arena.scripted import calling_station, play, read_records

CONFIG = MatchConfig(hand_count=4, seed=7, decision_timeout_s=1.0)


def nested(depth: int) -> bytes:
    """A JSON array ``depth`` levels deep."""
    return b"[" * depth + b"]" * depth


def answering(reply: bytes) -> Any:
    """A bot that answers every ``act`` with ``reply`` (its ``{seq}`` filled in)."""

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "act":
            return reply.replace(b"{seq}", str(message["seq"]).encode()) + b"\n"
        return calling_station(message)

    return bot


def fault_codes(result: MatchResult, seat_index: int) -> set[str]:
    """The codes of the seat's ``invalid_reply`` faults."""
    faults = result.players[seat_index].faults["faults"]
    return {fault["code"] for fault in faults if fault["kind"] == FaultKind.INVALID_REPLY}


@pytest.mark.parametrize("depth", [975, 980, 985, 5000])
def test_a_reply_nested_near_the_recursion_limit_is_too_deep_and_the_match_completes(
    tmp_path: Path, depth: int
) -> None:
    # Once accepted: storing the hand then exhausted the stack (RecursionError in the
    # store), or replay of the history did.
    reply = b'{"type":"action","seq":{seq},"action":"CALL","x":' + nested(depth) + b"}"
    result = play([answering(reply), calling_station], CONFIG, tmp_path)
    assert fault_codes(result, 0) == {"too_deep"}
    assert result.hands_played == CONFIG.hand_count
    assert replay_file(tmp_path / "hands.jsonl").is_ok


def test_a_reply_nested_exactly_to_the_limit_is_read_and_its_extra_field_not_kept(
    tmp_path: Path,
) -> None:
    # The reply object is one level: the extra field may nest MAX_DEPTH - 1 more.
    reply = b'{"type":"action","seq":{seq},"note":' + nested(MAX_DEPTH - 1) + b',"action":"CALL"}'
    result = play([answering(reply), calling_station], CONFIG, tmp_path)
    assert fault_codes(result, 0) == set()
    replies = [
        reply
        for record in read_records(tmp_path / "hands.jsonl")
        for decision in record.get("decisions", [])
        if decision["seat_index"] == 0
        for reply in decision.get("replies") or []
    ]
    assert replies and all(list(reply) == ["type", "seq", "action"] for reply in replies)


@pytest.mark.parametrize(
    ("reply", "code"),
    [
        (b'{"type":"action","seq":{seq},"action":"RAISE","amount":1e400}', "invalid_json"),
        (b'{"type":"action","seq":{seq},"action":"\\ud800"}', "invalid_json"),
        (b'{"type":"action","seq":{seq},"action":"CALL","x":"\\udfff"}', "invalid_json"),
        (b'{"type":"action","seq":{seq},"action":"X\xe2\x80\xa8Y\xc2\x85"}', "unknown_action"),
    ],
)
def test_values_no_history_could_hold_are_refused_and_the_history_replays(
    tmp_path: Path, reply: bytes, code: str
) -> None:
    result = play([answering(reply), calling_station], CONFIG, tmp_path)
    assert fault_codes(result, 0) == {code}
    assert replay_file(tmp_path / "hands.jsonl").is_ok
    # Every line of the history is one JSON document, split on "\n" only.
    for line in (tmp_path / "hands.jsonl").read_bytes().split(b"\n")[:-1]:
        json.loads(line)
