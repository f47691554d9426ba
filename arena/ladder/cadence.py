"""How often the ladder's ratings are fitted again: as often as the fit's own cost allows.

Theory of operation. Matchmaking decides on the last fit, so every game chosen between two
fits is chosen on the same information: the fewer games between fits, the sooner a game's
result steers the next ones (a game that settles a pair stops that pair drawing more).
A fit costs time, though, in the worker that runs it, and that time grows with the
versions (about ``n³``): a fixed interval is either too long for a small ladder or too
costly for a large one. So the interval follows the last fit's duration: the fit may take
at most ``fit_share`` of the time (``interval = fit_s / fit_share``), never less often
than every ``max_interval_s`` (what a page's ratings may lag behind) nor more often than
every ``min_interval_s`` (a fit that cost nothing measurable does not run after every
game of many workers). On the server a fit follows a stored game, so the games between
two fits are the workers' games of one interval (:meth:`FitCadence.games_between_fits`),
what ``bench/bench_ladder.py`` models.

>>> cadence = FitCadence()
>>> cadence.interval_s(0.05), cadence.interval_s(0.3), cadence.interval_s(0.001)
(2.5, 5.0, 0.5)
>>> cadence.games_between_fits(0.05, workers=1, game_s=1.0)
3
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["FitCadence"]


@dataclass(frozen=True, slots=True)
class FitCadence:
    """The rule of when the ratings are fitted again (module docstring). A bad value raises
    ``ValueError`` naming it."""

    #: The most of the time a fit may take: 2% of the worker that runs it.
    fit_share: float = 0.02
    #: The shortest interval between two fits, in seconds.
    min_interval_s: float = 0.5
    #: The longest interval between two fits, in seconds (while games are stored).
    max_interval_s: float = 5.0

    def __post_init__(self) -> None:
        if not (isinstance(self.fit_share, int | float) and 0.0 < self.fit_share <= 1.0):
            raise ValueError(f"fit_share must be above 0 and at most 1, got {self.fit_share!r}")
        for name in ("min_interval_s", "max_interval_s"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0.0 <= value < math.inf):
                raise ValueError(f"{name} must be a number of seconds, 0 or more, got {value!r}")
        if self.min_interval_s > self.max_interval_s:
            raise ValueError(
                f"min_interval_s ({self.min_interval_s!r}) must not exceed max_interval_s "
                f"({self.max_interval_s!r})"
            )

    def interval_s(self, last_fit_s: float) -> float:
        """The least time from one fit to the next after a fit that took ``last_fit_s``
        seconds (a bad duration, negative or not a number, is taken as the longest)."""
        if not (isinstance(last_fit_s, int | float) and 0.0 <= last_fit_s < math.inf):
            return self.max_interval_s
        return min(self.max_interval_s, max(self.min_interval_s, last_fit_s / self.fit_share))

    def games_between_fits(self, last_fit_s: float, *, workers: int, game_s: float) -> int:
        """The games ``workers`` workers finish between two fits, each game taking
        ``game_s`` seconds: a fit follows the first game stored once the interval is over,
        so a worker's games of one interval, rounded up, and at least one."""
        if not (isinstance(workers, int) and workers >= 1):
            raise ValueError(f"workers must be 1 or more, got {workers!r}")
        if not (isinstance(game_s, int | float) and 0.0 < game_s < math.inf):
            raise ValueError(f"game_s must be a positive number of seconds, got {game_s!r}")
        return max(1, math.ceil(workers * self.interval_s(last_fit_s) / game_s - 1e-9))
