"""The collector during a match (arena.match.collector): the heap alive when the hands
begin is frozen for them and unfrozen after, and nothing recorded changes."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from arena.bots.in_memory import BotOutput
from arena.match import collector
from arena.match.config import MatchConfig
from tests.arena.scripted import calling_station, chooser, play


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    # Every test starts and ends with nothing frozen, whatever it did.
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


def test_the_objects_alive_at_the_start_are_frozen_for_the_block_and_unfrozen_after() -> None:
    alive = [object()]  # a list: tracked by the collector
    with collector.heap_frozen():
        assert gc.get_freeze_count() > 0
        assert not any(obj is alive for obj in gc.get_objects())  # frozen: not walked
        made_inside = [object()]
        assert any(obj is made_inside for obj in gc.get_objects())  # still collected
    assert gc.get_freeze_count() == 0
    assert any(obj is alive for obj in gc.get_objects())


def test_the_heap_is_unfrozen_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError, match="the match broke"), collector.heap_frozen():
        raise RuntimeError("the match broke")
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_already_stays_frozen_as_it_was() -> None:
    # A referee's zygote froze its heap before forking: a match must not undo that.
    gc.freeze()
    frozen = gc.get_freeze_count()
    with collector.heap_frozen():
        assert gc.get_freeze_count() == frozen
    assert gc.get_freeze_count() == frozen


def test_the_switch_off_leaves_the_collector_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(collector, "FREEZE_HEAP", False)
    with collector.heap_frozen():
        assert gc.get_freeze_count() == 0


def test_a_match_freezes_its_startup_heap_while_it_plays(tmp_path: Path) -> None:
    counts: list[int] = []

    def counting(message: dict[str, Any]) -> BotOutput:
        if message["type"] == "act":  # the bot is asked during the hands
            counts.append(gc.get_freeze_count())
        return calling_station(message)

    play([counting, calling_station], MatchConfig(hand_count=3, seed=5), tmp_path)
    assert counts and all(count > 0 for count in counts)
    assert gc.get_freeze_count() == 0


def test_a_match_records_the_same_bytes_with_the_heap_frozen_or_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("arena.match.fairness.new_salt", lambda: bytes(32))
    config = replace(MatchConfig(hand_count=6, seed=17, match_id="gc"), luck=True, score=None)
    play([chooser(3), calling_station], config, tmp_path / "frozen")
    monkeypatch.setattr(collector, "FREEZE_HEAP", False)
    play([chooser(3), calling_station], config, tmp_path / "plain")
    history = (tmp_path / "frozen" / "hands.jsonl").read_bytes()
    assert history == (tmp_path / "plain" / "hands.jsonl").read_bytes()
    assert history.count(b'"luck":{"estimator"') == 6
