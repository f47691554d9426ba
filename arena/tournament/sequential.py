"""Which duplicate blocks of a head-to-head pair count: the sequential test's stopping rule.

A heads-up pair plays its deals in blocks (each block: the same deals with the seats one way,
then swapped). With ``--sprt`` the pair stops as soon as the test decides, after a whole
block. Blocks run in parallel and finish in any order, so the test only ever looks at the
unbroken run of finished blocks from the first one: the decision (and so which blocks count)
is the same whatever the order in which matches finished, and the same after a resume.
Blocks beyond the deciding one may already have been played; they are kept in the results
database but not counted.

The test reads the pair's duplicate units of the tournament's score
(:mod:`arena.stats.scores`): luck-adjusted by default, so it decides in fewer deals; a block
whose hands carry no adjusted result (a match played without the estimator) is read raw,
which estimates the same win rate.

Memory stays small over any tournament: without a test nothing is kept; with one, a block's
outcomes are kept only until the block is complete, then turned into its duplicate units
(one number per deal).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.stats.scores import check_score, counts_adjusted
from arena.stats.sprt import Sprt, SprtResult
from arena.stats.units import duplicate_units
from arena.store.outcome import MatchOutcome
from arena.tournament.plan import MatchSpec

__all__ = ["PairTest", "SequentialTests"]


@dataclass
class PairTest:
    """The blocks of one pair and the test's state."""

    pair: tuple[str, str]
    block_sizes: dict[int, int] = field(default_factory=dict)  # block index -> matches in it
    #: Outcomes of blocks not complete yet (a complete block becomes units and leaves).
    waiting: dict[int, list[MatchOutcome]] = field(default_factory=dict)
    #: The first bot's mbb/hand per deal of each complete block.
    units: dict[int, list[float]] = field(default_factory=dict)
    tested_blocks: int = 0  # blocks 0 .. tested_blocks - 1 are in the test
    values: list[float] = field(default_factory=list)  # their units, in block order
    decided_at: int | None = None  # the block index after which the test decided
    result: SprtResult | None = None

    def counts(self, block_index: int) -> bool:
        """True when the block's results count (it is not after the deciding block)."""
        return self.decided_at is None or block_index <= self.decided_at

    def matches_after_decision(self) -> int:
        """How many planned matches the decision made unneeded."""
        if self.decided_at is None:
            return 0
        return sum(size for index, size in self.block_sizes.items() if index > self.decided_at)


class SequentialTests:
    """The sequential test of every heads-up pair of a plan (no test: every block counts),
    on the units of ``score``."""

    def __init__(
        self, sprt: Sprt | None, specs: Iterable[MatchSpec], *, score: str = "raw"
    ) -> None:
        self._sprt = sprt
        self._score = check_score(score)
        self._pairs: dict[tuple[str, ...], PairTest] = {}
        for spec in specs:
            if spec.group is None or len(spec.group) != 2:
                continue
            pair = self._pairs.setdefault(spec.group, PairTest((spec.group[0], spec.group[1])))
            pair.block_sizes[spec.block_index] = pair.block_sizes.get(spec.block_index, 0) + 1
        self.unneeded_matches = 0  # planned matches that decisions made unneeded

    @property
    def pairs(self) -> Sequence[PairTest]:
        """Every pair, in plan order."""
        return list(self._pairs.values())

    def is_needed(self, spec: MatchSpec) -> bool:
        """False when the spec's pair was decided before its block (skip the match)."""
        return spec.group is None or self.is_needed_block(spec.group, spec.block_index)

    def is_needed_block(self, group: tuple[str, ...], block_index: int) -> bool:
        """:meth:`is_needed` for a block of ``group``."""
        pair = self._pairs.get(group)
        return pair is None or pair.counts(block_index)

    def add(self, spec: MatchSpec, outcome: MatchOutcome) -> bool:
        """A finished match of the plan; returns True when it decided its pair."""
        pair = self._pair(spec)
        if self._sprt is None or pair is None or not outcome.is_counted:
            return False
        if pair.decided_at is not None:
            return False
        block = pair.waiting.setdefault(spec.block_index, [])
        block.append(outcome)
        if len(block) < pair.block_sizes[spec.block_index]:
            return False
        del pair.waiting[spec.block_index]
        ordered = sorted(block, key=lambda o: o.match_id)
        score = self._score if counts_adjusted(ordered) else "raw"
        units = duplicate_units(ordered, score=score)
        pair.units[spec.block_index] = [unit[pair.pair[0]] for unit in units]
        # Test block after block while the unbroken run from the first one grows.
        while pair.tested_blocks in pair.units and pair.decided_at is None:
            index = pair.tested_blocks
            pair.values.extend(pair.units.pop(index))
            pair.tested_blocks += 1
            pair.result = self._sprt.decide(pair.values)
            if pair.result.is_decided:
                pair.decided_at = index
                pair.units.clear()
                pair.waiting.clear()
                self.unneeded_matches += pair.matches_after_decision()
                return True
        return False

    def _pair(self, spec: MatchSpec) -> PairTest | None:
        return None if spec.group is None else self._pairs.get(spec.group)
