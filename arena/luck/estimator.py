"""The luck-adjusted result of one hand: raw chips minus zero-mean corrections.

For each seat ``i``::

    adjusted_i = raw_i
        - sum over chance events c at state h of  [v_i(h.c) - E_c'[v_i(h.c')]]
        - sum over decisions with a reported distribution s of
              [v_i(h.a) - sum_a' s(a') v_i(h.a')]

where ``c'`` ranges over the cards the dealer could have dealt (its true remaining deck:
every hand dealt is known to it) and ``v`` is the frozen value function
(``arena.luck.value``). Each bracket averages to zero over the cards (or the arena's draw
from the distribution), whatever the bots do, so ``adjusted`` has the expectation of
``raw``. How each expectation is had:

* the deal: by symmetry every live seat has an equal share of every pot it may win;
* a board street: the equity over uniformly dealt cards is a martingale and dealing puts no
  chips in, so the chips' part of the expectation is their value just before the cards,
  and the betting part, linear in the equity with coefficients the cards do not change,
  is its value then with the new street's weights
  (:meth:`~arena.luck.value.ValueFunction.street_expectation`);
* a draw: the replacements are enumerated (or sampled) from the cards nobody has seen;
* a decision: the reported distribution over the actions, each applied to the state.

``v`` sums to zero over the seats, so the adjusted results sum to the raw ones.

Where ``v`` is sampled (flop equities, and pre-flop ones with more than two hands dealt:
two hands' are exact, from a table) the sample is unbiased whatever its
size, and its size is set by the pot the street ended with as played (the same for every
state of the street, hypothetical actions included), never by the sampled boards: each
term then averages to zero over the cards, the draws and the sampler's stream together.
A street's value after its cards that the next street's expectation cancels exactly
(:meth:`~arena.luck.value.ValueFunction.carries_over`) is computed neither time.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.luck.parameters import PARAMETERS, SHIPPED_VALUE, LuckValue
from arena.luck.timeline import (
    ChanceStep,
    DecisionStep,
    LuckError,
    TableState,
    walk_history,
    with_action,
)
from arena.luck.value import ValueFunction
from engine.speed.dataclass_init import fast_init

__all__ = [
    "ESTIMATOR",
    "NAME",
    "VERSION",
    "HandLuck",
    "estimate_hand",
    "estimate_steps",
    "estimator_name",
    "luck_record",
]

NAME = "chance-equity"
VERSION = 6


@functools.lru_cache(maxsize=64)  # a match asks once per hand; a worker sees few values
def estimator_name(value: LuckValue | None = None) -> str:
    """The estimator's name, version and the hash of everything that fixes its numbers,
    the betting term's weights those of ``value`` (None: the shipped ones): another value
    is another name.

    >>> estimator_name() == ESTIMATOR
    True
    """
    parameters = {**PARAMETERS, "betting_weights": (value or SHIPPED_VALUE).to_dict()}
    text = json.dumps({"name": NAME, "version": VERSION, **parameters}, sort_keys=True)
    return f"{NAME}/{VERSION}#{hashlib.sha256(text.encode()).hexdigest()[:8]}"


#: The estimator's name, version and the hash of its frozen parameters (the shipped
#: weights).
ESTIMATOR = estimator_name()


@dataclass(frozen=True, slots=True)
class HandLuck:
    """Each seat's raw and luck-adjusted result of one hand (seat order of the history).

    >>> luck = HandLuck(raw=(5, -5), adjusted=(1.5, -1.5), estimator="x")
    >>> luck.luck
    (3.5, -3.5)
    """

    raw: tuple[int, ...]
    adjusted: tuple[float, ...]
    estimator: str

    @property
    def luck(self) -> tuple[float, ...]:
        """How much of each seat's result was luck: raw minus adjusted."""
        return tuple(r - a for r, a in zip(self.raw, self.adjusted, strict=True))


fast_init(HandLuck)  # one per hand


def luck_record(luck: HandLuck) -> dict[str, Any]:
    """What a hand record stores under ``luck``.

    >>> luck_record(HandLuck(raw=(5, -5), adjusted=(1.5, -1.5), estimator="x"))
    {'estimator': 'x', 'adjusted': [1.5, -1.5]}
    """
    return {"estimator": luck.estimator, "adjusted": list(luck.adjusted)}


def _distribution(decision: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], float]] | None:
    """The reported distribution the arena drew this decision's action from, or None."""
    raw = decision.get("distribution")
    if raw is None or decision.get("by") != "bot":
        return None  # one action, or the arena chose (the bot's report was not used)
    if not isinstance(raw, list) or not raw:
        raise LuckError(f"a distribution must be a non-empty list, got {raw!r}")
    pairs: list[tuple[Mapping[str, Any], float]] = []
    for entry in raw:
        action = entry.get("action") if isinstance(entry, dict) else None
        probability = entry.get("probability") if isinstance(entry, dict) else None
        if (
            not isinstance(action, dict)
            or not isinstance(probability, int | float)
            or isinstance(probability, bool)
            or not probability >= 0
        ):
            raise LuckError(f"bad distribution entry {entry!r}")
        pairs.append((action, float(probability)))
    total = sum(p for _, p in pairs)
    if not total > 0:
        raise LuckError(f"a distribution's probabilities sum to {total!r}: {raw!r}")
    return [(action, p / total) for action, p in pairs]


def _add(target: list[float], values: Sequence[float], scale: float = 1.0) -> None:
    for position, value in enumerate(values):
        target[position] += scale * value


def _action_term(
    value: ValueFunction,
    before: TableState,
    position: int,
    taken: Mapping[str, Any],
    distribution: Sequence[tuple[Mapping[str, Any], float]],
) -> Generator[None, None, list[float]]:
    """The action term, one value at a time (it yields after each). The action taken is
    one of the distribution's as the arena records it, so its value is computed once and
    used twice (an action written otherwise is valued on its own)."""
    values: dict[int, list[float]] = {}
    same = next((index for index, (action, _) in enumerate(distribution) if action == taken), None)
    if same is None:
        term = value.value(with_action(before, position, taken))
    else:
        values[same] = value.value(with_action(before, position, taken))
        term = list(values[same])
    for index, (action, probability) in enumerate(distribution):
        yield
        after = values.get(index)
        if after is None:
            after = value.value(with_action(before, position, action))
        _add(term, after, -probability)
    return term


def _position_leans(
    history: Mapping[str, Any], leans: Mapping[str, float] | None
) -> list[float] | None:
    """``leans`` by position (the history's seats, which the walk has read)."""
    if not leans:
        return None
    return [float(leans.get(seat.get("player_id"), 0.0)) for seat in history["seats"]]


def _decisions(record: Mapping[str, Any]) -> Sequence[Any]:
    decisions = record.get("decisions", [])
    if not isinstance(decisions, list):
        raise LuckError(f"decisions must be a list, got {decisions!r}")
    return decisions


def _termed(decisions: Sequence[Any]) -> set[int]:
    """The decisions that may get an action term: those a bot reported a distribution for
    (and any that is not an object, so that the walk reports it and it is refused)."""
    return {
        index
        for index, decision in enumerate(decisions)
        if not isinstance(decision, dict)
        or (decision.get("distribution") is not None and decision.get("by") == "bot")
    }


def _cancelling_streets(
    value: ValueFunction, steps: Sequence[ChanceStep | DecisionStep]
) -> tuple[set[int], set[int]]:
    """The street steps whose value after the cards cancels the next street's
    expectation exactly (:meth:`~arena.luck.value.ValueFunction.carries_over`: nothing
    changed between them), so that the estimate computes neither: the numbers of the
    steps whose value after is left out, and of those whose expectation is."""
    chance = [(number, step) for number, step in enumerate(steps) if isinstance(step, ChanceStep)]
    no_value: set[int] = set()
    no_expectation: set[int] = set()
    for (number, step), (following_number, following) in itertools.pairwise(chance):
        if (
            step.kind == "street"
            and following.kind == "street"
            and value.carries_over(step.after, following.before, len(following.after.board))
        ):
            no_value.add(number)
            no_expectation.add(following_number)
    return no_value, no_expectation


def estimate_hand(
    record: Mapping[str, Any],
    luck_value: LuckValue | None = None,
    leans: Mapping[str, float] | None = None,
) -> HandLuck:
    """Each seat's luck-adjusted result of one ``hand`` record of ``hands.jsonl``, the
    betting term weighted by ``luck_value`` (None: the shipped weights,
    :data:`~arena.luck.parameters.BETTING_WEIGHTS`), the made-hand term by the players'
    ``leans`` (by player id, :class:`~arena.luck.leans.BettingLeans` of their earlier
    hands; a player not in it, or None, leans 0).

    Deterministic: the same record gives bit-identical numbers. A record that cannot be
    read raises :class:`~arena.luck.timeline.LuckError` naming the bad value.
    """
    steps = estimate_steps(record, luck_value, leans)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            luck: HandLuck = done.value
            return luck


def estimate_steps(
    record: Mapping[str, Any],
    luck_value: LuckValue | None = None,
    leans: Mapping[str, float] | None = None,
) -> Generator[None, None, HandLuck]:
    """:func:`estimate_hand` in short steps: the generator yields after every value it
    computes (a few tens of microseconds each, a sample of 1,024 boards a few hundred)
    and returns the :class:`HandLuck`, so a match can do the work between a bot's
    replies instead of keeping a reply waiting for the whole hand's estimate. The same
    numbers, the same errors (raised by the step that meets them). ``luck_value`` and
    ``leans``: as :func:`estimate_hand`'s.
    """
    name = estimator_name(luck_value)
    if not isinstance(record, Mapping):
        raise LuckError(f"a hand record must be an object, got {type(record).__name__}")
    history = record.get("history")
    if not isinstance(history, dict):
        raise LuckError(f"hand record without a history: {history!r}")
    listed = record.get("decisions", [])
    timeline = walk_history(
        history, decisions=_termed(listed) if isinstance(listed, list) else None
    )
    raw = timeline.raw
    if timeline.is_voided:  # everyone got back what they put in: nothing to adjust
        return HandLuck(raw, tuple(float(r) for r in raw), name)
    decisions = _decisions(record)
    value = ValueFunction(
        variant=timeline.variant,
        unit=timeline.unit,
        key=timeline.key,
        betting="frozen" if luck_value is None else luck_value,
        street_pots=timeline.street_pots,
        leans=_position_leans(history, leans),
    )
    correction = [0.0] * len(raw)
    no_value, no_expectation = _cancelling_streets(value, timeline.steps)
    for number, step in enumerate(timeline.steps):
        yield
        if isinstance(step, DecisionStep):
            if step.index >= len(decisions):
                continue
            decision = decisions[step.index]
            if not isinstance(decision, dict):
                raise LuckError(f"decision {step.index} is not an object: {decision!r}")
            distribution = _distribution(decision)
            if distribution is None:
                continue
            if decision.get("seat_index") != timeline.seat_indexes[step.position]:
                raise LuckError(
                    f"decision {step.index} is by seat {decision.get('seat_index')!r} but the "
                    f"history's action {step.index} is by seat "
                    f"{timeline.seat_indexes[step.position]}"
                )
            taken = decision.get("action")
            if not isinstance(taken, dict):
                raise LuckError(f"decision {step.index} without an action: {decision!r}")
            term = yield from _action_term(value, step.before, step.position, taken, distribution)
            _add(correction, term)
        elif step.kind == "deal":
            _add(correction, value.value(step.after))
            _add(correction, value.dealt_expectation(step.after), -1.0)
        elif step.kind == "street":
            size = len(step.after.board)
            if number not in no_value:
                _add(correction, value.value(step.after))
                yield
            elif value.made is not None:  # the rest cancels the next street's expectation
                _add(correction, value.made_value(step.after))
            if number not in no_expectation:
                _add(correction, value.street_expectation(step.before, size), -1.0)
            elif value.made is not None:
                _add(correction, value.made_expectation(step.before, size), -1.0)
        elif not step.is_reshuffled:  # a draw from the stub the dealer was dealing from
            assert step.position is not None
            _add(correction, value.value(step.after))
            yield
            _add(
                correction,
                value.draw_expectation(step.before, step.after, step.position),
                -1.0,
            )
    adjusted = tuple(r - c for r, c in zip(raw, correction, strict=True))
    return HandLuck(raw, adjusted, name)
