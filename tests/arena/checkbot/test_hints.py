"""``arena check-bot`` finds the mistakes bot authors make most in its first steps, and says
what to fix.

Each bot here is the minimal bot with one mistake, written to ``tmp_path``: the step that
catches it must come no later than ``error_reprompt`` (the seventh), and its hint must name
the fix with the numbers of the request it answered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.checkbot import STEP_NAMES, check_bot
from arena.checkbot.hints import NO_REPLY_HINT, NOTIFICATION_HINT, reply_hint
from arena.session.policy import TimeLimits
from protocol.errors import ErrorCode

LIMITS = TimeLimits(decision_s=0.5, startup_s=1.0, match_end_grace_s=0.3)

TEMPLATE = """\
import json, sys
SETUP
count = 0
for line in sys.stdin:
    count += 1
    message = json.loads(line)
    kind, seq = message["type"], message.get("seq")
    legal = message.get("legal_actions", [])
    if kind == "hello":
        reply = READY
    elif kind in ACT_TYPES:
        reply = ACT
    elif kind == "match_end":
        break
    else:
        continue
    WRITE
"""

GOOD = {
    "SETUP": "pass",
    "READY": '{"type": "ready", "seq": seq, "name": "x"}',
    "ACT_TYPES": '("act",)',
    "ACT": '{"type": "action", "seq": seq, "action": "CHECK" if "CHECK" in legal else "CALL"}',
    "WRITE": "print(json.dumps(reply), flush=True)",
}


def write_bot(tmp_path: Path, **changes: str) -> Path:
    """The minimal bot with ``changes`` to its parts; returns its manifest."""
    source = TEMPLATE
    for part, text in {**GOOD, **changes}.items():
        source = source.replace(part, text)
    (tmp_path / "bot.py").write_text(source)
    manifest = tmp_path / "bot.toml"
    manifest.write_text(f'name = "x"\ncommand = {json.dumps(["{python}", "bot.py"])}\n')
    return manifest


@dataclass(frozen=True)
class Mistake:
    """A bot with one mistake: the step that must catch it, the reason and the hint.

    ``notification_wait_s``: how long the check waits for an answer to ``hand_start``; a
    long wait ends when the answer comes, so it is long only where an answer does come.
    """

    changes: dict[str, str]
    step: str
    reason: str
    hint: str
    notification_wait_s: float = 0.05


MISTAKES = {
    "reply_not_flushed": Mistake(
        # The arena runs Python unbuffered (PYTHONUNBUFFERED): this bot buffers on its own,
        # as C's stdio or Java's BufferedWriter do on a pipe.
        {
            "SETUP": 'out = open(1, "w", buffering=65536, closefd=False)',
            "WRITE": 'out.write(json.dumps(reply) + "\\n")',
        },
        "handshake",
        "no ready for hello 1 within 1000 ms",
        "flush standard output",
    ),
    "ready_without_seq": Mistake(
        {"READY": '{"type": "ready", "name": "x"}'}, "handshake", "bad_seq", "seq (1)"
    ),
    "answers_every_message": Mistake(
        {"ACT_TYPES": '("act", "hand_start", "hand_end", "error")'},
        "hand_start",
        "answered the hand_start notification",
        NOTIFICATION_HINT,
        notification_wait_s=30.0,
    ),
    "call_amount_is_to_call": Mistake(
        {
            "ACT": '{"type": "action", "seq": seq, "action": "CHECK"} if "CHECK" in legal '
            'else {"type": "action", "seq": seq, "action": "CALL", "amount": message["to_call"]}'
        },
        "first_decision",
        "call_amount_mismatch",
        "current_bet (6), the round total your bet is brought to, not to_call (4)",
    ),
    "raise_amount_is_the_increment": Mistake(
        {
            "ACT": '{"type": "action", "seq": seq, "action": "RAISE", '
            '"amount": message["min_raise_to"] - message["current_bet"]}'
        },
        "first_decision",
        "raise_below_minimum",
        "raise-to total of the round, from min_raise_to (10) to max_raise_to (200)",
    ),
    "action_names_in_lower_case": Mistake(
        {"ACT": '{"type": "action", "seq": seq, "action": "call"}'},
        "first_decision",
        "unknown_action",
        "upper case",
    ),
    "reply_without_seq": Mistake(
        {"ACT": '{"type": "action", "action": "CALL"}'},
        "first_decision",
        "bad_seq",
        "echo the request's seq (2)",
    ),
    "seq_counted_by_the_bot": Mistake(
        # Counting lines read (hello, hand_start, act) gives 3 where the request said 2.
        {"ACT": '{"type": "action", "seq": count, "action": "CALL"}'},
        "first_decision",
        "unknown_seq",
        "echo the request's seq (2)",
    ),
    "error_not_handled": Mistake(
        # It takes the error for a request: no legal actions there, it fails and exits.
        {"ACT_TYPES": '("act", "error")', "ACT": GOOD["ACT"].replace("legal", "legal[0]")},
        "error_reprompt",
        "the bot is gone",
        "",
    ),
}


@pytest.mark.parametrize("name", MISTAKES)
def test_the_common_mistakes_fail_one_of_the_first_steps_with_a_hint(
    tmp_path: Path, name: str
) -> None:
    mistake = MISTAKES[name]
    manifest = write_bot(tmp_path, **mistake.changes)
    report = check_bot(manifest, limits=LIMITS, notification_wait_s=mistake.notification_wait_s)
    step = report.first_failure
    assert step is not None, report.format()
    assert step.name == mistake.step, report.format()
    assert STEP_NAMES.index(step.name) <= STEP_NAMES.index("error_reprompt")
    assert mistake.reason in step.reason
    assert mistake.hint in step.hint
    if step.hint:
        assert f"hint: {step.hint}" in report.format()


def test_the_minimal_bot_of_these_tests_passes(tmp_path: Path) -> None:
    report = check_bot(write_bot(tmp_path), limits=LIMITS)
    assert report.passed, report.format()


def test_a_reply_without_its_newline_is_no_reply(tmp_path: Path) -> None:
    manifest = write_bot(tmp_path, WRITE="sys.stdout.write(json.dumps(reply)); sys.stdout.flush()")
    step = check_bot(manifest, limits=LIMITS).first_failure
    assert step is not None and step.name == "handshake" and step.hint == NO_REPLY_HINT


def test_every_error_code_of_a_reply_has_a_hint_unless_it_says_it_all() -> None:
    # The schema violation's path names the field; a version the arena does not speak, and
    # the arena's own timeout code, need no more words (a missing reply has NO_REPLY_HINT).
    self_explaining = {"schema_violation", "unsupported_version"}
    for code in ErrorCode:
        assert bool(reply_hint(code.value)) == (code.value not in self_explaining), code
    assert reply_hint("no_such_code") == ""


def test_a_hint_without_the_request_names_the_fields_alone() -> None:
    assert reply_hint("raise_below_minimum") == (
        "RAISE's amount is the raise-to total of the round, from min_raise_to to "
        "max_raise_to, not the increment"
    )
    request = {"min_raise_to": 10, "max_raise_to": 200, "player_stack": 194}
    assert reply_hint("amount_above_stack", request).startswith(
        "you have player_stack (194) chips behind; RAISE's amount"
    )
