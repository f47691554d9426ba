"""Multiplayer ratings with uncertainty (openskill's Plackett-Luce model) and average places.

A game is a list of ``(bot, place)`` pairs, place 1 the best; bots that share a place tied
(two bots busted in the same hand with the same chips both finish "4th"). The games are
rated one after another in the order given, so the same games in the same order always give
the same ratings. A rating is a belief about the bot's skill: ``mu`` its centre, ``sigma``
its uncertainty, and ``ordinal = mu - 3 * sigma`` a conservative value to rank by (a bot
that played few games is not ranked high on luck).

>>> ratings = rate([[("ann", 1), ("bob", 2)], [("ann", 1), ("bob", 2)]])
>>> ratings["ann"].ordinal > ratings["bob"].ordinal, ratings["ann"].games
(True, 2)
>>> average_places([[("ann", 1), ("bob", 2)], [("bob", 1), ("ann", 2)]])
{'ann': 1.5, 'bob': 1.5}
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from arena.stats._values import is_real

__all__ = ["Game", "Rating", "average_places", "rate"]

#: One game's finishing places: ``(bot, place)`` pairs, place 1 the best, ties allowed.
Game = Sequence[tuple[str, float]]


@dataclass(frozen=True, slots=True)
class Rating:
    """A bot's rating after ``games`` games.

    >>> Rating(mu=30.0, sigma=2.0, games=12).ordinal
    24.0
    """

    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        """The conservative skill to rank by: ``mu - 3 * sigma``."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal, "games": self.games}


def rate(games: Sequence[Game]) -> dict[str, Rating]:
    """Every bot's rating after ``games``, rated in the order given (bots in the order they
    first appear). A game needs two or more distinct bots, each with a finite place of 1 or
    more; a bad game raises ``ValueError`` naming it."""
    model = PlackettLuce()
    current: dict[str, Any] = {}
    played: dict[str, int] = {}
    for game in _checked_games(games):
        bots = [bot for bot, _ in game]
        for bot in bots:
            if bot not in current:
                current[bot] = model.rating()
        teams = model.rate([[current[bot]] for bot in bots], ranks=[place for _, place in game])
        for bot, team in zip(bots, teams, strict=True):
            current[bot] = team[0]
            played[bot] = played.get(bot, 0) + 1
    return {
        bot: Rating(mu=float(rating.mu), sigma=float(rating.sigma), games=played[bot])
        for bot, rating in current.items()
    }


def average_places(games: Sequence[Game]) -> dict[str, float]:
    """Each bot's mean finishing place over the games it played (bots in the order they
    first appear); a bad game raises ``ValueError`` as in :func:`rate`."""
    places: dict[str, list[float]] = {}
    for game in _checked_games(games):
        for bot, place in game:
            places.setdefault(bot, []).append(float(place))
    return {bot: math.fsum(values) / len(values) for bot, values in places.items()}


def _checked_games(games: Sequence[Game]) -> list[list[tuple[str, float]]]:
    if isinstance(games, str) or not isinstance(games, Sequence):
        raise ValueError(f"games must be a sequence of games, got {games!r}")
    checked = []
    for index, game in enumerate(games):
        if isinstance(game, str) or not isinstance(game, Sequence) or len(game) < 2:
            raise ValueError(f"game {index} needs two or more (bot, place) pairs, got {game!r}")
        entries: list[tuple[str, float]] = []
        for entry in game:
            if not isinstance(entry, tuple) or len(entry) != 2:
                raise ValueError(f"game {index}: {entry!r} is not a (bot, place) pair")
            bot, place = entry
            if not isinstance(bot, str) or not bot:
                raise ValueError(f"game {index}: bot {bot!r} is not a name")
            if not is_real(place) or not 1 <= place < math.inf:
                raise ValueError(f"game {index}: place {place!r} of {bot!r} is not 1 or more")
            if any(bot == seen for seen, _ in entries):
                raise ValueError(f"game {index}: bot {bot!r} is placed twice")
            entries.append((bot, float(place)))
        checked.append(entries)
    return checked
