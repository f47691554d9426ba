"""bench/bots/trivial/trivial_bot.py's random mode: the tournament benchmark's random bot,
which must draw exactly as the starter random bot drew its own at f5af95d
(``sample_bots/python_random/bot.py 1``), so that compare_revisions.py plays the same
matches in a tree from before that bot reported its mixed strategy and in this one."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests import REPO_ROOT

BOT = REPO_ROOT / "bench" / "bots" / "trivial" / "trivial_bot.py"
LEGAL_SETS = (
    ["FOLD", "CHECK", "RAISE", "ALL_IN"],
    ["FOLD", "CALL", "RAISE", "ALL_IN"],
    ["FOLD", "CALL", "ALL_IN"],
    ["CHECK", "RAISE"],
)
#: The replies of the f5af95d starter bot (``bot.py 1``) to :func:`requests`, recorded
#: from that tree: (action, amount).
F5AF95D_REPLIES = [
    ("CHECK", None), ("CALL", None), ("CALL", None), ("RAISE", 7), ("CHECK", None),
    ("CALL", None), ("FOLD", None), ("RAISE", 10), ("CHECK", None), ("FOLD", None),
    ("FOLD", None), ("CHECK", None), ("ALL_IN", None), ("ALL_IN", None), ("CALL", None),
    ("CHECK", None), ("RAISE", 13), ("CALL", None), ("FOLD", None), ("RAISE", 10),
]  # fmt: skip


def requests() -> list[dict[str, Any]]:
    """``act`` requests cycling through the kinds of legal sets, with raise ranges that
    are sometimes narrower than three minimum raises (the cap then holds)."""
    return [
        {
            "type": "act",
            "seq": number + 2,
            "legal_actions": LEGAL_SETS[number % 4],
            "min_raise_to": 4 + 2 * (number % 3),
            "max_raise_to": 200 if number % 5 else 9,
        }
        for number in range(len(F5AF95D_REPLIES))
    ]


def play(*args: str) -> list[dict[str, Any]]:
    """The bot's replies to a hello, :func:`requests` and a match_end."""
    lines = [{"type": "hello", "seq": 1}, *requests(), {"type": "match_end"}]
    completed = subprocess.run(
        [sys.executable, str(BOT), *args],
        input="".join(json.dumps(line) + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return [json.loads(line) for line in completed.stdout.splitlines()]


def test_random_mode_draws_as_the_f5af95d_starter_bot() -> None:
    ready, *replies = play("random", "1")
    assert ready == {"type": "ready", "seq": 1, "name": "bench random"}
    assert [(reply["action"], reply.get("amount")) for reply in replies] == F5AF95D_REPLIES
    assert [reply["seq"] for reply in replies] == [request["seq"] for request in requests()]


def test_random_mode_plays_legal_actions_and_caps_raises_at_three_minimums() -> None:
    # Another seed: other draws, still legal, never a fold when checking is free.
    _ready, *replies = play("random", "7")
    assert [(r["action"], r.get("amount")) for r in replies] != F5AF95D_REPLIES
    for request, reply in zip(requests(), replies, strict=True):
        assert reply["action"] in request["legal_actions"]
        if "CHECK" in request["legal_actions"]:
            assert reply["action"] != "FOLD"
        if reply["action"] == "RAISE":
            low, high = request["min_raise_to"], request["max_raise_to"]
            assert low <= reply["amount"] <= max(low, min(high, 3 * low))
