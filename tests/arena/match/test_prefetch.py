"""PLACEHOLDER"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import Delayed
from arena.match.config import MatchConfig
from arena.match.formats import ResetStacks
from engine.config import GameConfig, Variant
from tests.arena.scripted import (
    calling_station,
    min_raiser,
    play,
    shover,
)


@pytest.mark.parametrize("variant", [Variant.HOLDEM, Variant.FIVE_CARD_DRAW])
def test_hands_dealt_ahead_change_nothing_in_the_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: Variant
) -> None:
    # With stacks reset, the match deals hand n+1 while a bot thinks in hand n. The hand
    # history must be byte for byte what dealing each hand when it is due gives.
    from engine.table import Table

    config = MatchConfig(hand_count=30, seed=11, game=GameConfig(variant=variant))

    def thinking(bot: Any) -> Any:
        # Replies 1 ms after each request (fake clock): the match works while it waits.
        return lambda m: Delayed(0.001, bot(m)) if m["type"] in ("act", "draw") else bot(m)

    bots = [thinking(calling_station), thinking(min_raiser), thinking(shover)]
    adopted: list[bool] = []
    start_hand = Table.start_hand

    def spy(table: Table, *args: Any, **kwargs: Any) -> Any:
        adopted.append(kwargs.get("dealt") is not None)
        return start_hand(table, *args, **kwargs)

    monkeypatch.setattr(Table, "start_hand", spy)
    play(bots, config, tmp_path / "ahead")
    assert len(adopted) == 30 and sum(adopted) == 29  # each but the first hand
    monkeypatch.setattr(ResetStacks, "deal_ahead", lambda self, *, after: None)
    play(bots, config, tmp_path / "plain")
    monkeypatch.undo()
    monkeypatch.setattr(Table, "is_next_hand", lambda self, hand: False)  # always stale
    play(bots, config, tmp_path / "stale")
    expected = (tmp_path / "plain" / "hands.jsonl").read_bytes()
    assert (tmp_path / "ahead" / "hands.jsonl").read_bytes() == expected
    assert (tmp_path / "stale" / "hands.jsonl").read_bytes() == expected
