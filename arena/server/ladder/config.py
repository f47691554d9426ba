"""The ladder's knobs on a site: Django's ``ARENA_LADDER`` setting (a dict: the
environment's ``ARENA_LADDER``, a JSON object, as the site's settings read it) over the
defaults here, read again at every use so a test, a benchmark or an administrator can change
them. The lease of a claimed game is the site's one lease (``ARENA_LEASE_SECONDS``).

>>> LadderSettings().deals, LadderSettings().promotion_min_games
(100, 10)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from arena.ladder.matchmaking import MatchmakingSettings
from arena.ladder.promotion import PromotionTest
from arena.server.jobs.lease import DEFAULT_MAX_ATTEMPTS
from arena.stats.sprt import Sprt

__all__ = ["LadderSettings", "current"]

_MATCHMAKING = MatchmakingSettings()


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """``deals``: deals of one game (each played twice, seats swapped); ``max_attempts``:
    claims of a game before it is left out as the infrastructure's failure;
    ``promotion_*``: the sequential test (H1 "better by ``promotion_mbb1``" mbb/hand, at
    least ``promotion_min_games`` games);
    ``game_deadline_s``: how long a game's matches may run before the game is played
    again as the infrastructure's failure (an overloaded machine, a stuck process);
    ``test_games_per_request``: the most games one request may ask for;
    ``value_fit_games``: the luck estimator's betting weights are fitted again on the
    ladder's own games once that many more games are done, on the newest that many
    heads-up games (:mod:`arena.server.ladder.value_fits`), and never on fewer than
    ``value_fit_min_hands`` hands; the rest are matchmaking's (placement, floor, team cap,
    the test games' rate limit)."""

    deals: int = 100
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    game_deadline_s: float = 3600.0
    promotion_mbb1: float = 20.0
    promotion_min_games: int = 10
    test_games_per_request: int = 5
    value_fit_games: int = 200
    value_fit_min_hands: int = 10_000
    # The matchmaking's knobs default to the matchmaking's own defaults.
    placement_games: int = _MATCHMAKING.placement_games
    team_cap: int = _MATCHMAKING.team_cap
    test_games_per_window: int = _MATCHMAKING.test_games_per_window
    test_window_s: float = _MATCHMAKING.test_window_s

    def __post_init__(self) -> None:
        for name in ("value_fit_games", "value_fit_min_hands"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ARENA_LADDER: {name} must be a positive integer, got {value!r}")

    def matchmaking(self, table_size: int = 2) -> MatchmakingSettings:
        """The matchmaking's settings, a rated game seating ``table_size`` versions (the
        competition's: :attr:`arena.server.ladder.play.LadderRules.table_size`)."""
        return MatchmakingSettings(
            placement_games=self.placement_games,
            team_cap=self.team_cap,
            test_games_per_window=self.test_games_per_window,
            test_window_s=self.test_window_s,
            table_size=table_size,
        )

    def promotion(self, candidate: str, incumbent: str) -> PromotionTest:
        """The promotion test of ``candidate`` against ``incumbent``."""
        return PromotionTest(
            candidate,
            incumbent,
            sprt=Sprt(0.0, self.promotion_mbb1),
            min_games=self.promotion_min_games,
        )


def current() -> LadderSettings:
    """The defaults with Django's ``ARENA_LADDER`` over them; an unknown key raises
    ``ValueError`` naming it."""
    given: dict[str, Any] = dict(getattr(settings, "ARENA_LADDER", None) or {})
    known = {item.name for item in dataclasses.fields(LadderSettings)}
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"ARENA_LADDER: unknown keys {unknown}; known: {sorted(known)}")
    return LadderSettings(**given)
