"""The build step of the ``built`` test bot: writes ``out/station.py``, a calling station.

Run in the bot's folder (or the sandbox's private copy of it); the bot cannot start before
its build has run, so a test that plays it proves matches start from the built copy.
"""

from __future__ import annotations

from pathlib import Path

PROGRAM = """
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        reply = {"type": "ready", "seq": message["seq"], "name": "built"}
    elif kind == "act":
        legal = message["legal_actions"]
        reply = {"type": "action", "seq": message["seq"],
                 "action": "CHECK" if "CHECK" in legal else "CALL"}
    elif kind == "draw":
        reply = {"type": "discard", "seq": message["seq"], "cards": []}
    elif kind == "match_end":
        break
    else:
        continue
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


def main() -> None:
    """Write the program (in the current folder: the build runs in the bot's copy)."""
    out = Path("out")
    out.mkdir(exist_ok=True)
    (out / "station.py").write_text(PROGRAM, encoding="utf-8")


if __name__ == "__main__":  # (test collection imports this file: it must not build then)
    main()
