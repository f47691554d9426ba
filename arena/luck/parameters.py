"""What fixes the luck value function's numbers: :data:`PARAMETERS` (hashed into the
estimator's name), the betting term's shipped weights and features, and
:class:`LuckValue`, the betting weights as one value carried whole to the estimator (the
shipped ones, :data:`SHIPPED_VALUE`, or a ladder's fit on its own earlier games). The value
function itself is :mod:`arena.luck.value`.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "BETTING_FEATURES",
    "BETTING_WEIGHTS",
    "PARAMETERS",
    "SHIPPED_VALUE",
    "STREETS",
    "VALUE_TERMS",
    "LuckValue",
    "weight_vector",
]

#: Everything that fixes the value function's numbers (hashed into the estimator's name).
PARAMETERS: dict[str, Any] = {
    "value": "showdown-equity-times-pot-minus-committed",
    # Board completions sampled per big blind in the pot, with a floor and a ceiling; a
    # board is enumerated instead when it has no more completions than that (the turn's
    # 44-odd always, the flop's 990-odd from a pot above 64 big blinds).
    "samples_per_unit": 8,  # then rounded up to a power of two
    # The pot that sets a street's sample: the one its betting ended with as played, for
    # every state valued on that street (the actions a bot might have taken included).
    "sample_pot": "the street's pot when its betting ended, as played",
    "samples_min": 32,
    "samples_max": 1024,
    # Hold'em before the flop with only two hands dealt: the exact equity over every
    # board, from the table of arena/luck/preflop_equities.bin, whose SHA-256 begins so.
    "heads_up_preflop": "exact, every board: arena.luck.preflop's table",
    "heads_up_preflop_sha256": "cc267ca670897e29",
    "draw_exact_limit": 2000,  # enumerate a draw's replacements up to this many
    "stream": "shake256 'poker-arena luck v1|' + purpose + hand seed or deck",
    "sampling": "one shuffle of the unseen cards per board, read through a fixed design",
    "betting": "(equity - 1/live) * sum of w[board size][feature] * betting_features",
    "betting_features": {
        "raised": "min(behind, pot - 2 big blinds)",
        "to_call": "the most a live seat still has to put in to call",
        "last_raised": "min(behind, what the last completed round raised beyond 2 big blinds)",
    },
    # The made-hand term (version 6): a player that bets its made hands more than its
    # other hands will likely bet this one too (arena.luck.made_hands).
    "made_hand": "lean * w[board size]['made_hand'] * min(pot, behind) when the seat's own"
    " cards make two pair or better above the board's category, shared out by the live seats",
    # Flops sampled for the chance of a made hand on the flop, by a board sampler keyed
    # 'made|' + the board (the equities' samplers are keyed by the board alone).
    "made_hand_flops": 64,
    "made_hand_sampler": "BoardSampler(key + '|made|' + board, unseen, 3).first(64)",
    "lean": "max(0, share of made-hand streets the player bet or raised on - share of the"
    " other streets), from its earlier hands of the match, once it had 2 of each",
    # Fitted by `bench/fit_luck_value.py --tournaments 4` (the starter bots' round robin,
    # 4 tournaments of 1,000 duplicate deals per pair from seeds no benchmark uses: 24,000
    # hands), each match's hands with the leans the match had, every pair's variance
    # weighed alike (--strength-weight 1), then frozen.
    "betting_weights": {
        "0": {"raised": 1.4751, "to_call": 1.3598, "last_raised": 0.0, "made_hand": 0.0},
        "3": {"raised": -2.1741, "to_call": 1.1094, "last_raised": 3.2057, "made_hand": 4.3069},
        "4": {"raised": 0.6032, "to_call": 1.5787, "last_raised": 3.4557, "made_hand": 1.5066},
        "5": {"raised": 0.2265, "to_call": 1.7114, "last_raised": 2.2189, "made_hand": 0.7989},
    },
}
#: The betting term's weights by board size (0, 3, 4, 5 cards), then by feature name
#: (:func:`betting_features`).
BETTING_WEIGHTS: dict[int, dict[str, float]] = {
    int(size): {name: float(weight) for name, weight in weights.items()}
    for size, weights in PARAMETERS["betting_weights"].items()
}
#: The betting term's features (:func:`betting_features`), in the order
#: :func:`_feature_values` counts them.
BETTING_FEATURES: tuple[str, ...] = tuple(PARAMETERS["betting_features"])
#: Every weight a street has: the betting features', then the made-hand term's
#: (:mod:`arena.luck.made_hands`).
VALUE_TERMS: tuple[str, ...] = (*BETTING_FEATURES, "made_hand")
#: The board sizes the betting term has a weight set for (before the flop, flop, turn,
#: river).
STREETS: tuple[int, ...] = (0, 3, 4, 5)


class LuckValue:
    """The betting term's weights as one value, carried whole from where they are made (the
    shipped fit, or the ladder's fit on its own earlier games) to the estimator: a weight
    per street (:data:`STREETS`) and feature (:data:`BETTING_FEATURES`; a weight not given
    is 0), with ``digest``, a hash of the weights that tells two values apart (the
    estimator's name hashes them with everything else:
    :func:`arena.luck.estimator.estimator_name`). Immutable; equal when their weights are.
    A bad weight (a street or feature the term does not have, a value that is not a finite
    number) raises ``ValueError`` naming it.

    >>> value = LuckValue({0: {"raised": 1.5}})
    >>> value.weights[0], value.weights[5]["to_call"]
    ({'raised': 1.5, 'to_call': 0.0, 'last_raised': 0.0, 'made_hand': 0.0}, 0.0)
    >>> LuckValue.from_dict(value.to_dict()) == value
    True
    """

    __slots__ = ("digest", "made", "vectors", "weights")

    weights: dict[int, dict[str, float]]
    vectors: dict[int, tuple[float, ...]]
    made: dict[int, float]
    digest: str

    def __init__(self, weights: Mapping[int, Mapping[str, float]]) -> None:
        if not isinstance(weights, Mapping):
            raise ValueError(f"betting weights must be a mapping by street, got {weights!r}")
        unknown = [street for street in weights if street not in STREETS]
        if unknown:
            raise ValueError(f"not streets (board sizes): {unknown!r} (they are {STREETS})")
        vectors, made = {}, {}
        for street in STREETS:
            given = weights.get(street, {})
            if not isinstance(given, Mapping):
                raise ValueError(f"street {street}'s weights must be a mapping, got {given!r}")
            for name, weight in given.items():
                if (
                    not isinstance(weight, int | float)
                    or isinstance(weight, bool)
                    or not math.isfinite(weight)
                ):
                    raise ValueError(
                        f"street {street}'s {name!r} weight is not a number: {weight!r}"
                    )
            vectors[street] = weight_vector(given)
            made[street] = float(given.get("made_hand", 0.0))
        object.__setattr__(self, "vectors", vectors)
        object.__setattr__(self, "made", made)
        object.__setattr__(
            self,
            "weights",
            {
                street: {
                    **dict(zip(BETTING_FEATURES, vector, strict=True)),
                    "made_hand": made[street],
                }
                for street, vector in vectors.items()
            },
        )
        text = json.dumps(self.to_dict(), sort_keys=True)
        object.__setattr__(self, "digest", hashlib.sha256(text.encode()).hexdigest()[:8])

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a LuckValue is immutable: cannot set {name}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LuckValue) and other.weights == self.weights

    def __hash__(self) -> int:
        return hash(self.digest)

    def __repr__(self) -> str:
        return f"LuckValue(#{self.digest})"

    def __reduce__(self) -> tuple[type[LuckValue], tuple[dict[int, dict[str, float]]]]:
        return LuckValue, (self.weights,)  # (pickled to a match's process)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The weights as JSON keeps them (streets as strings), the form of
        :data:`PARAMETERS`' ``betting_weights``."""
        return {str(street): dict(weights) for street, weights in self.weights.items()}

    @classmethod
    def from_dict(cls, data: object) -> LuckValue:
        """Inverse of :meth:`to_dict`; a street that is not a board size is an error
        naming it."""
        if not isinstance(data, Mapping):
            raise ValueError(f"betting weights must be an object by street, got {data!r}")
        weights = {}
        for street, given in data.items():
            if not isinstance(street, str) or not street.isdigit():
                raise ValueError(f"not a street (a board size): {street!r}")
            weights[int(street)] = given
        return cls(weights)


def weight_vector(weights: Mapping[str, float]) -> tuple[float, ...]:
    """The betting features' weights of ``weights`` in :data:`BETTING_FEATURES` order (its
    made-hand weight is not one of them); a name that is not in :data:`VALUE_TERMS` is an
    error naming it."""
    unknown = set(weights) - set(VALUE_TERMS)
    if unknown:
        raise ValueError(f"not value weights: {sorted(unknown)} (they are {VALUE_TERMS})")
    return tuple(float(weights.get(name, 0.0)) for name in BETTING_FEATURES)


#: The shipped weights (:data:`BETTING_WEIGHTS`, frozen in :data:`PARAMETERS`).
SHIPPED_VALUE = LuckValue(BETTING_WEIGHTS)
