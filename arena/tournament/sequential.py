"""Which duplicate blocks of a head-to-head pair count: the sequential test's stopping rule.

A heads-up pair plays its deals in blocks (each block: the same deals with the seats one way,
then swapped). With ``--sprt`` the pair stops as soon as the test decides, after a whole
block. Blocks run in parallel and finish in any order, so the test only ever looks at the
unbroken run of finished blocks from the first one: the decision (and so which blocks count)
is the same whatever the order in which matches finished, and the same after a resume.
Blocks beyond the deciding one may already have been played; they are kept in the results
database but not counted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.stats.sprt import Sprt, SprtResult
from arena.stats.units import duplicate_units
from arena.tournament.outcome import MatchOutcome
from arena.tournament.plan import MatchSpec

__all__ = ["PairTest", "SequentialTests"]


@dataclass
class PairTest:
    """The blocks of one pair and the test's state."""

    pair: tuple[str, str]
    block_sizes: dict[int, int] = field(default_factory=dict)  # block index -> matches in it
    finished: dict[int, list[MatchOutcome]] = field(default_factory=lambda: defaultdict(list))
    decided_at: int | None = None  # the block index after which the test decided
    result: SprtResult | None = None

    def is_block_complete(self, block_index: int) -> bool:
        """True when every match of the block has finished."""
        return len(self.finished.get(block_index, ())) == self.block_sizes[block_index]

    def counts(self, block_index: int) -> bool:
        """True when the block's results count (it is not after the deciding block)."""
        return self.decided_at is None or block_index <= self.decided_at


class SequentialTests:
    """The sequential test of every heads-up pair of a plan (no test: every block counts)."""

    def __init__(self, sprt: Sprt | None, specs: Iterable[MatchSpec]) -> None:
        self._sprt = sprt
        self._pairs: dict[tuple[str, ...], PairTest] = {}
        for spec in specs:
            if spec.group is None or len(spec.group) != 2:
                continue
            pair = self._pairs.setdefault(spec.group, PairTest((spec.group[0], spec.group[1])))
            pair.block_sizes[spec.block_index] = pair.block_sizes.get(spec.block_index, 0) + 1

    @property
    def pairs(self) -> Sequence[PairTest]:
        """Every pair, in plan order."""
        return list(self._pairs.values())

    def is_needed(self, spec: MatchSpec) -> bool:
        """False when the spec's pair was decided before its block (skip the match)."""
        pair = self._pair(spec)
        return pair is None or pair.counts(spec.block_index)

    def add(self, spec: MatchSpec, outcome: MatchOutcome) -> None:
        """A finished match of the plan; may decide its pair."""
        pair = self._pair(spec)
        if pair is None or not outcome.is_counted:
            return
        pair.finished[spec.block_index].append(outcome)
        if self._sprt is None or pair.decided_at is not None:
            return
        values: list[float] = []
        for block_index in sorted(pair.block_sizes):
            if not pair.is_block_complete(block_index):
                break
            block = sorted(pair.finished[block_index], key=lambda o: o.match_id)
            values.extend(unit[pair.pair[0]] for unit in duplicate_units(block))
            result = self._sprt.decide(values)
            pair.result = result
            if result.status != "continue":
                pair.decided_at = block_index
                break

    def _pair(self, spec: MatchSpec) -> PairTest | None:
        return None if spec.group is None else self._pairs.get(spec.group)
