"""The records of the hand history (:mod:`arena.match.records`): keys in the written order, one
encoder."""

from __future__ import annotations

from arena.match.records import action_to_dict
from engine.actions import Discard


def test_action_to_dict_records_discards() -> None:
    from engine.cards import parse_cards

    discard = Discard(tuple(parse_cards("As 7d")))
    assert action_to_dict(discard) == {"action": "DISCARD", "cards": ["As", "7d"]}
