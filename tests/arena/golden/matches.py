"""The golden matches: three matches whose files are kept in this folder, byte for byte.

Each match is in-memory bots (:mod:`tests.arena.scripted`) on a fake clock, so its
``hands.jsonl`` depends only on the code: ``tests/arena/match/test_golden.py`` plays them
again and compares. They cover stacks reset (with a garbage bot's faults), a freezeout
with a blind schedule and a bot that times out, and carried stacks in five-card draw.

Regenerate the files once, deliberately, and only when a change is meant to change every
deck or every record, e.g. a change of the shuffle (the fair-deck issue)::

    python -m tests.arena.golden.matches --write

and say so in the commit message, with the reason. Never regenerate to make a failing
test pass: a difference in these files is a change of behaviour.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from arena.match.config import MatchConfig, StackPolicy
from arena.match.results import MatchResult
from engine.config import GameConfig, Variant
from engine.schedule import BlindSchedule
from tests.arena.scripted import (
    Bot,
    calling_station,
    chooser,
    garbage,
    min_raiser,
    play,
    shover,
    sleeper,
)

__all__ = ["GOLDEN_DIR", "MATCHES", "GoldenMatch", "write_all"]

#: Where the golden files are kept: ``<GOLDEN_DIR>/<name>/{hands.jsonl,results.json}``.
GOLDEN_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class GoldenMatch:
    """One golden match: its bots (made anew for each run: some keep state) and config."""

    name: str
    make_bots: Callable[[], Sequence[Bot]]
    config: MatchConfig

    @property
    def folder(self) -> Path:
        """Where its golden files are."""
        return GOLDEN_DIR / self.name

    def play(self, out_dir: Path, *, prefetch: bool = True) -> MatchResult:
        """Play the match into ``out_dir`` (``prefetch`` switches the work done ahead)."""
        config = self.config if prefetch else _without_prefetch(self.config)
        return play(self.make_bots(), config, out_dir)


def _without_prefetch(config: MatchConfig) -> MatchConfig:
    return replace(config, prefetch=False)


MATCHES: tuple[GoldenMatch, ...] = (
    GoldenMatch(
        "reset_holdem",
        lambda: [chooser(1), min_raiser, garbage],
        MatchConfig(hand_count=20, seed=11, match_id="golden-reset"),
    ),
    GoldenMatch(
        "freezeout_holdem",
        lambda: [chooser(2), shover, sleeper(6.0), calling_station],
        MatchConfig(
            hand_count=None,
            seed=12,
            starting_stack=100,
            stack_policy=StackPolicy.FREEZEOUT,
            schedule=BlindSchedule.doubling(1, 2, every_hands=5),
            match_id="golden-freezeout",
        ),
    ),
    GoldenMatch(
        "carry_draw",
        lambda: [chooser(3), chooser(4), calling_station],
        MatchConfig(
            game=GameConfig(variant=Variant.FIVE_CARD_DRAW),
            hand_count=15,
            seed=13,
            stack_policy=StackPolicy.CARRY,
            match_id="golden-draw",
        ),
    ),
)


def write_all(golden_dir: Path = GOLDEN_DIR) -> list[Path]:
    """Play every golden match into ``golden_dir`` (overwriting); returns the folders."""
    folders = []
    for match in MATCHES:
        folder = golden_dir / match.name
        match.play(folder)
        folders.append(folder)
    return folders


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tests.arena.golden.matches --write``: regenerate the golden files."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.arena.golden.matches",
        description="Regenerate the golden match files (see the module docstring first).",
    )
    parser.add_argument(
        "--write", action="store_true", help="overwrite the golden files with a new recording"
    )
    args = parser.parse_args(argv)
    if not args.write:
        parser.error("nothing to do without --write (the files are regenerated deliberately)")
    for folder in write_all():
        print(f"wrote {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
