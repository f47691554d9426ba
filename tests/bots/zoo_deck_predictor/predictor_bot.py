"""Zoo cheater: predicts its opponent's hole cards from what it is told.

It imports nothing from the arena: it carries its own copy of the deal the arena used to
have (hand ``n`` of a match with seed ``S`` shuffled by ``random.Random(f"{S}:{n}")``: the
52 cards in index order 2c 2d 2h 2s 3c ... As, then a Fisher-Yates shuffle from the last
index down, each index drawn as ``getrandbits(bit_length(i + 1))`` until it is at most
``i``; the first cards dealt are the hole cards). At each ``hand_start`` it tries seeds it
can guess from what it was told (every number in the match id and the hand id, the ids
themselves, and 0 to 300) with the hand number and the one before, keeps those whose
first four cards hold its own two (heads-up), and predicts the other two as the
opponent's. At every showdown it compares. At ``match_end`` the verdict goes to stderr as
``CHEAT deck: success <n> of <m> showdowns predicted`` (more than half of them: a chance hit is not
a success) or ``CHEAT deck: failed <reason>``.
"""

from __future__ import annotations

import json
import random
import re
import sys
from typing import Any

_RANKS = "23456789TJQKA"
_SUITS = ("clubs", "diamonds", "hearts", "spades")
_SMALL_SEEDS = range(301)


def send(message: dict[str, Any]) -> None:
    """Write one line and flush it."""
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def card_index(card: dict[str, str]) -> int:
    """The old deck's index of a card of the wire (``{"rank": "A", "suit": "hearts"}``;
    a ten is ``"10"``)."""
    rank = "T" if card["rank"] == "10" else card["rank"]
    return _RANKS.index(rank) * 4 + _SUITS.index(card["suit"])


def old_deck(seed: object, hand_number: int) -> list[int]:
    """The deck the arena used to deal for ``seed`` and ``hand_number``."""
    rng = random.Random(f"{seed}:{hand_number}")
    cards = list(range(52))
    for i in range(51, 0, -1):
        bound = i + 1
        bits = bound.bit_length()
        j = rng.getrandbits(bits)
        while j >= bound:
            j = rng.getrandbits(bits)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def guesses(texts: list[str]) -> list[object]:
    """Seeds worth trying: the texts, every number in them, small integers."""
    found: list[object] = list(dict.fromkeys(texts))
    for text in texts:
        found += [int(number) for number in re.findall(r"\d+", text)]
    found += list(_SMALL_SEEDS)
    return list(dict.fromkeys(found))


def predict(own: set[int], hand_number: int, told: list[str]) -> set[frozenset[int]]:
    """The opponent's hole cards under every guess that fits our own cards."""
    predictions = set()
    for seed in guesses(told):
        for number in (hand_number, hand_number - 1):
            top = set(old_deck(seed, number)[:4])
            if own <= top:
                predictions.add(frozenset(top - own))
    return predictions


def main() -> None:
    """Check or call; predict at each hand, compare at each showdown."""
    told: list[str] = []
    seat = -1
    predictions: set[frozenset[int]] = set()
    hands_predicted = showdowns = hits = 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            seat = message.get("seat_index", -1)
            told += [str(message.get(key)) for key in ("match_id", "player_id") if key in message]
            send({"type": "ready", "seq": message["seq"], "name": "zoo deck predictor"})
        elif kind == "hand_start":
            own = {card_index(card) for card in message["hole_cards"]}
            hand_told = [*told, str(message.get("hand_id", ""))]
            predictions = predict(own, int(message.get("hand_number", 0)), hand_told)
            hands_predicted += bool(predictions)
        elif kind == "hand_end":
            for shown in message.get("shown_hands") or []:
                if shown.get("seat_index") == seat or not shown.get("cards"):
                    continue
                showdowns += 1
                hits += frozenset(card_index(card) for card in shown["cards"]) in predictions
        elif kind == "act":
            action = "CHECK" if "CHECK" in message["legal_actions"] else "CALL"
            send({"type": "action", "seq": message["seq"], "action": action})
        elif kind == "match_end":
            break
    summary = f"{hits} of {showdowns} showdowns predicted ({hands_predicted} hands had a guess)"
    # A guess that fits our own cards names some two other cards; now and then those are
    # the opponent's by chance (about one hand in 1,225 per guess). A deck that can really
    # be predicted is predicted at most showdowns, so chance hits are not a success.
    outcome = "success" if hits * 2 > showdowns else "failed"
    sys.stderr.write(f"CHEAT deck: {outcome} {summary}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    main()
