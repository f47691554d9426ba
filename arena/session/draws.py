"""The arena's draws from reported mixed strategies: which action a distribution gives.

Theory of operation. A bot may answer ``act`` with a distribution over legal actions
(:mod:`protocol.strategy`; protocol/PROTOCOL.md, "Mixed strategies"); the arena draws the
action from the match's secret seed, so no seat can predict it, under a key of its own
(:data:`STRATEGY_DOMAIN`, beside :data:`engine.seeds.DECK_DOMAIN`), so the draws share
nothing with the cards and the luck estimate's action term stays unbiased. The key holds
only what ``arena replay`` knows again: decision ``i`` of hand ``n`` draws ``u``, the
first 53-bit float of SHAKE-256 of::

    b"poker-arena strategy v1|" + seed + b"|" + n + b"|" + i

(decimal text, as :func:`engine.seeds.hand_key`; then ``b"|"`` and the match's id when
another match deals from the same seed, so the seatings of a duplicate block draw apart),
and takes the entry whose share of [0, 1) holds it
(:meth:`protocol.strategy.MixedStrategy.draw`). Once the seed is revealed, anyone can check
every draw with ``hashlib`` alone.

>>> draws = StrategyDraws(42)
>>> draws.uniform(3, 0) == StreamRandom(b"poker-arena strategy v1|42|3|0").random()
True"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action
from engine.events import ActionTaken, CardsDrawn
from engine.hand import Hand
from engine.seeds import StreamRandom
from protocol.strategy import MixedStrategy

__all__ = ["STRATEGY_DOMAIN", "StrategyDraws", "decision_index", "strategy_key"]

#: The first bytes of every strategy key (a purpose and a version, as the deck's domain).
STRATEGY_DOMAIN = b"poker-arena strategy v1|"


def strategy_key(
    match_seed: int, hand_number: int, index: int, match_key: str | None = None
) -> bytes:
    """The key of the draw for decision ``index`` of hand ``hand_number``; a ``match_key``
    (the match's id, where another match shares the seed) comes last.

    >>> strategy_key(42, 3, 0), strategy_key(42, 3, 0, "b1-swap")
    (b'poker-arena strategy v1|42|3|0', b'poker-arena strategy v1|42|3|0|b1-swap')
    """
    tail = "" if match_key is None else f"|{match_key}"
    return STRATEGY_DOMAIN + f"{match_seed}|{hand_number}|{index}{tail}".encode()


def decision_index(hand: Hand) -> int:
    """The place of the decision now to be made in its hand, from 0: the decisions already
    made (each one leaves one ``action_taken`` or ``cards_drawn`` event, whoever chose it),
    which is the decision's index in the hand record's ``decisions``."""
    return sum(1 for event in hand.events if isinstance(event, ActionTaken | CardsDrawn))


@dataclass(frozen=True, slots=True)
class StrategyDraws:
    """The draws of one match, keyed by its secret seed and, where another match deals from
    the same seed (a duplicate block's seatings), by ``match_key``, the match's id: the
    halves of a block then draw apart, and what one half showed of its draws says nothing
    of the other's. Its ``repr`` hides the seed (it may end up in a log while the match is
    played)."""

    match_seed: int
    match_key: str | None = None

    def __repr__(self) -> str:
        return "StrategyDraws(match_seed=...)"

    def uniform(self, hand_number: int, index: int) -> float:
        """The number in [0, 1) drawn for decision ``index`` of hand ``hand_number``."""
        key = strategy_key(self.match_seed, hand_number, index, self.match_key)
        return StreamRandom(key).random()

    def action(self, strategy: MixedStrategy, hand: Hand) -> Action:
        """The action ``strategy`` gives for the decision ``hand`` waits for now."""
        return strategy.draw(self.uniform(hand.hand_number, decision_index(hand)))
