"""A bot that answers every act with a distribution (a mixed strategy) instead of one action.

MODE (the first argument): ``valid`` (default) calls or checks 70%, raises to the minimum 20%
and folds 10% (what is legal of those, renormalised); ``bad_sum``: the probabilities add up
to 0.9; ``duplicate``: the call or check is named twice; ``illegal``: a raise below the
minimum, with probability 0.5. Stands pat in a draw; exits at match_end.
"""

import json
import sys
from typing import Any

MODE = sys.argv[1] if len(sys.argv) > 1 else "valid"


def distribution(message: dict[str, Any]) -> list[dict[str, Any]]:
    legal = message["legal_actions"]
    passive = "CHECK" if "CHECK" in legal else "CALL"
    weights: list[tuple[str, float, int | None]] = [(passive, 0.7, None)]
    if "RAISE" in legal:
        weights.append(("RAISE", 0.2, message["min_raise_to"]))
    if "FOLD" in legal:
        weights.append(("FOLD", 0.1, None))
    total = sum(weight for _, weight, _ in weights)
    entries = []
    for name, weight, amount in weights:
        entry: dict[str, Any] = {"action": name, "probability": weight / total}
        if amount is not None:
            entry["amount"] = amount
        entries.append(entry)
    if MODE == "bad_sum":
        entries = [dict(entry, probability=entry["probability"] * 0.9) for entry in entries]
    elif MODE == "duplicate":
        entries = [{"action": passive, "probability": 0.5}, {"action": passive, "probability": 0.5}]
    elif MODE == "illegal":
        low = max(message["min_raise_to"] - 1, 0)
        entries = [
            {"action": passive, "probability": 0.5},
            {"action": "RAISE", "amount": low, "probability": 0.5},
        ]
    return entries


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        kind, seq = message["type"], message.get("seq")
        if kind == "hello":
            reply = {"type": "ready", "seq": seq, "name": "mixed"}
        elif kind == "act":
            reply = {"type": "action", "seq": seq, "distribution": distribution(message)}
        elif kind == "draw":
            reply = {"type": "discard", "seq": seq, "cards": []}
        elif kind == "match_end":
            break
        else:
            continue
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
