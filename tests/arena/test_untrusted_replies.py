"""Replies a hostile bot can send, through a whole match and back through the readers.

An in-memory bot answers with values chosen to break something downstream (a reply
nested almost to the interpreter's recursion limit, numbers out of range, lone
surrogates, line separators in strings). The match must complete, every such reply must
be an ``invalid_reply`` fault (re-prompted as usual) or an accepted action, and the
history must stay readable: ``arena replay`` finds every hand identical.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from arena.bots.in_memory import BotOutput
from arena.export.acpc import write_acpc
from arena.export.phh import write_phh
from arena.export.sources import open_source
from arena.match.config import MatchConfig
from arena.match.replay import replay_file
from arena.match.results import MatchResult
from arena.report.build import write_report
from arena.session.faults import FaultKind
from arena.session.policy import TimeLimits
from engine.config import Variant
from protocol.codec import MAX_DEPTH
from tests.arena.scripted import calling_station, play, read_records

CONFIG = MatchConfig(hand_count=4, seed=7, time_limits=TimeLimits(decision_s=1.0))


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


# -- the property: any reply a bot can send, through the whole pipeline -------------------

_BOM = "\ufeff".encode()
# Strings a bot controls: escapes of controls, lone surrogates, raw separators, a BOM.
_STRINGS = st.sampled_from(
    [
        b'"CALL"',
        b'"RAISE"',
        b'"ALL_IN"',
        b'[{"rank":"A","suit":"spades"},{"rank":"A","suit":"spades"}]',
        b'[{"rank":"\\u0000","suit":"\\ud800"}]',
        b'"\\u0000\\u001b[2J\\u0007"',
        b'"\\ud800"',
        b'"\\udc00x\\ud83d"',
        b'"\\ud83d\\ude00"',
        '"a\u2028b\u2029c\u0085d"'.encode(),
        '"\u202eevil\u200f"'.encode(),
        b'"\\u2028"',
        b'"' + _BOM + b'CALL"',
        b'"\x1b[2J\x07"',  # raw controls: not JSON
        b'"\x9b31m\x85"',  # not UTF-8
        '"\x9b\x85"'.encode(),  # C1 controls, raw (JSON allows them)
    ]
)
_NUMBERS = st.one_of(
    st.sampled_from(
        [
            *(b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400"),  # not JSON, or no double
            *(b"4.0", b"4e0", b"1e2", b"-0.0", b"3.0000000000000001", b"1e308"),  # round to ints
            *(b"0.5", b"-7", b"true", b"null", b'"4"'),
        ]
    ),
    st.integers(1, 5000).map(lambda digits: b"9" * digits),
    st.integers(min_value=-(10**30), max_value=10**30).map(lambda n: str(n).encode()),
)
_NESTED = st.one_of(
    st.integers(1, 40).map(lambda depth: b"[" * depth + b"]" * depth),
    st.sampled_from([975, 980, 985, 990, 5000]).map(lambda depth: b"[" * depth + b"]" * depth),
    st.integers(1, 40).map(lambda depth: b'{"a":' * depth + b"1" + b"}" * depth),
)
_VALUES = st.one_of(_STRINGS, _NUMBERS, _NESTED)
_FIELDS = ("type", "seq", "action", "amount", "cards", "extra")


@st.composite
def hostile_replies(draw: st.DrawFn) -> bytes:
    """One reply line with ``{seq}`` for the request's seq: sane fields, some replaced or
    repeated (a duplicate key) by hostile values, maybe a BOM in front."""
    sane = {
        "type": b'"action"',
        "seq": b"{seq}",
        "action": b'"CALL"',
        "cards": b"[]",
    }
    chosen = draw(st.dictionaries(st.sampled_from(_FIELDS), _VALUES, max_size=3))
    pairs = [(key, chosen.get(key, value)) for key, value in sane.items()]
    pairs += [(key, value) for key, value in chosen.items() if key not in sane]
    if draw(st.booleans()):  # a duplicate key: the last one counts
        key = draw(st.sampled_from(_FIELDS))
        pairs.insert(0, (key, draw(_VALUES)))
    body = b",".join(b'"' + key.encode() + b'":' + value for key, value in pairs)
    return (_BOM if draw(st.booleans()) else b"") + b"{" + body + b"}"


def hostile_bot(replies: list[bytes]) -> Any:
    """Answers ``act`` and ``draw`` with the replies in turn (a draw's type is fixed up
    when the reply says ``action``), then like a calling station."""
    queue = list(replies)

    def bot(message: dict[str, Any]) -> BotOutput:
        if message["type"] in ("act", "draw") and queue:
            line = queue.pop(0).replace(b"{seq}", str(message["seq"]).encode())
            if message["type"] == "draw":
                line = line.replace(b'"type":"action"', b'"type":"discard"')
            return line + b"\n"
        return calling_station(message)

    return bot


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@example(  # accepted: the last of two keys counts, and a float with no fraction is an integer
    replies=[b'{"type":"action","seq":0,"seq":{seq}.0,"action":"\\u0000","action":"CALL"}'],
    variant="holdem",
)
@given(
    replies=st.lists(hostile_replies(), min_size=1, max_size=12),
    variant=st.sampled_from(["holdem", "five_card_draw"]),
)
def test_no_reply_a_bot_can_send_breaks_the_match_replay_report_or_export(
    replies: list[bytes], variant: str
) -> None:
    config = replace(CONFIG, game=replace(CONFIG.game, variant=Variant(variant)))
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        result = play([hostile_bot(replies), calling_station], config, out / "run")
        assert result.hands_played == config.hand_count
        kinds = {fault["kind"] for fault in result.players[0].faults["faults"]}
        assert kinds <= {"invalid_reply", "stale_reply", "unsolicited_line", "timeout"}
        history = out / "run" / "hands.jsonl"
        for line in history.read_bytes().split(b"\n")[:-1]:
            json.loads(line)
        replay = replay_file(history)
        assert replay.is_ok, replay.format(verbose=True)
        write_report(out / "run", out / "report.html")
        write_phh(open_source(out / "run").hands(), out / "hands.phhs")
        write_acpc(open_source(out / "run").hands(), out / "hands.acpc.log")
