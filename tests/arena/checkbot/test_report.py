"""``arena check-bot`` shows what the bot controls inert, and tells a passing bot that it
wrote to stderr."""

from __future__ import annotations

import json
from pathlib import Path

from arena.checkbot import CheckReport, CheckStep, check_bot
from arena.session.policy import TimeLimits

LIMITS = TimeLimits(decision_s=0.5, startup_s=5.0, match_end_grace_s=0.5)
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\u202e\x85"

# A calling station that says its version with escape sequences and writes a line to stderr
# on every message, the last one holding the same escapes.
STATION = """
import json, sys
VERSION = {version}
for line in sys.stdin:
    message = json.loads(line)
    print("got", message["type"], file=sys.stderr, flush=True)
    kind = message["type"]
    if kind == "hello":
        reply = {{"type": "ready", "seq": message["seq"], "name": "x", "version": VERSION}}
    elif kind == "act":
        action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
        reply = {{"type": "action", "seq": message["seq"], "action": action}}
    elif kind == "match_end":
        print("bye" + VERSION, file=sys.stderr, flush=True)
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def station(tmp_path: Path, version: str) -> Path:
    (tmp_path / "bot.py").write_text(STATION.format(version=json.dumps(version)))
    manifest = tmp_path / "bot.toml"
    manifest.write_text('name = "x"\ncommand = ["{python}", "bot.py"]\n')
    return manifest


def test_the_ready_version_and_the_stderr_tail_are_shown_inert(tmp_path: Path) -> None:
    report = check_bot(station(tmp_path, ESCAPES), limits=LIMITS)
    assert report.passed, report.format()
    text = report.format()
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\x85" not in text
    (handshake,) = [line for line in text.split("\n") if "handshake" in line]
    assert "ready as 'x' \\x1b]0;pwned\\x07\\x1b[2J\\u202e\\x85 (protocol 1)" in handshake
    assert "bye\\x1b]0;pwned\\x07" in text  # the last line of stderr, quoted inert


def test_a_passing_bot_that_wrote_to_stderr_is_told_how_much_and_where_it_is_kept(
    tmp_path: Path,
) -> None:
    report = check_bot(station(tmp_path, "1.0"), limits=LIMITS)
    assert report.passed, report.format()
    assert report.stderr_line_count >= 8 and report.stderr_bytes > 0
    text = report.format()
    assert f"the bot wrote {report.stderr_line_count} line(s)" in text
    assert "stderr/<seat>-<name>.log" in text and "  | bye1.0" in text
    assert report.to_dict()["stderr_line_count"] == report.stderr_line_count


def test_the_stderr_note_counts_the_quick_hands_lines_too(tmp_path: Path) -> None:
    # The bot writes a line for every message, so most of its lines come during the
    # quick hands; the note counted only the scripted steps' lines.
    report = check_bot(station(tmp_path, "1.0"), limits=LIMITS, hand_count=10, seed=1)
    assert report.passed and report.hands is not None, report.format()
    hands = report.hands
    assert hands.stderr_line_count > 10 * 2 and hands.stderr_bytes > 0  # hand_start, hand_end...
    total = report.stderr_line_count + hands.stderr_line_count
    text = report.format()
    assert f"the bot wrote {total} line(s)" in text and "and the 10 quick hands" in text
    assert f"({report.stderr_bytes + hands.stderr_bytes} bytes)" in text
    assert hands.to_dict()["stderr_line_count"] == hands.stderr_line_count


def test_a_bot_name_and_a_multi_line_reason_are_shown_inert_line_by_line() -> None:
    report = CheckReport(
        "bot.toml",
        "evil\x1b[2J",
        (CheckStep("build", False, "exit code 1: bot.c:1: error\r\nbot.c:2: \x1b[31merror"),),
        stderr_tail="one\u2028two\nthree\x1b[0m\n",
    )
    lines = report.format().split("\n")
    assert lines[0] == "check-bot evil\\x1b[2J (bot.toml)"
    assert lines[1] == "  FAIL  build: exit code 1: bot.c:1: error"
    assert lines[2] == "        bot.c:2: \\x1b[31merror"
    assert lines[-2:] == ["  | one\\u2028two", "  | three\\x1b[0m"]


def test_a_passing_bot_that_wrote_nothing_to_stderr_gets_no_note() -> None:
    report = CheckReport("bot.toml", "x", (CheckStep("manifest", True, "'x': ./bot"),))
    assert "stderr" not in report.format()
