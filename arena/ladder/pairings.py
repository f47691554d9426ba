"""What matchmaking reads and what it answers (:mod:`arena.ladder.matchmaking` decides):
the kinds of game, the pairing chosen, the entrants and the teams' requests, the settings,
the candidate pairs a fit makes once, and the ladder's state that holds them all. Plain
values, no decision."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.ladder.games import MAX_SEATS
from arena.ladder.ratings import Standings

__all__ = [
    "Candidates",
    "Entrant",
    "GameKind",
    "GameRequest",
    "LadderState",
    "MatchmakingSettings",
    "Pairing",
]


class GameKind(StrEnum):
    """Why a game was scheduled (the tiers of the module docstring)."""

    VERSION_TEST = "version_test"
    TEST = "test"
    PLACEMENT = "placement"
    FLOOR = "floor"
    UNCERTAINTY = "uncertainty"

    @property
    def is_rated(self) -> bool:
        """True when the game's result moves the ladder."""
        return self in (GameKind.PLACEMENT, GameKind.FLOOR, GameKind.UNCERTAINTY)


@dataclass(frozen=True, slots=True)
class Pairing:
    """A game to play (or in flight): two bot versions, why, and a reason to show; at a
    ring table, ``others`` are the extra seats (after ``first`` and ``second``). A bot
    version seated twice raises ``ValueError`` naming the seats.

    >>> Pairing("ann-v1", "bob-v3", GameKind.PLACEMENT, "placement 2 of 5").is_rated
    True
    >>> Pairing("ann-v1", "bob-v3", GameKind.UNCERTAINTY, others=("cat-v1",)).bots
    ('ann-v1', 'bob-v3', 'cat-v1')
    """

    first: str
    second: str
    kind: GameKind
    reason: str = ""
    others: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bots = self.bots
        if len(set(bots)) != len(bots):
            raise ValueError(f"a game seats each bot version once, got {bots!r}")

    @property
    def bots(self) -> tuple[str, ...]:
        """Every bot at the table: ``first``, ``second``, then ``others``."""
        return (self.first, self.second, *self.others)

    @property
    def is_rated(self) -> bool:
        """True when the game's result moves the ladder."""
        return self.kind.is_rated

    @property
    def pair(self) -> tuple[str, str]:
        """The two names, sorted."""
        return (self.first, self.second) if self.first < self.second else (self.second, self.first)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "first": self.first,
            "second": self.second,
            "kind": str(self.kind),
            "reason": self.reason,
            "others": list(self.others),
        }


@dataclass(frozen=True, slots=True)
class Entrant:
    """An active bot version on the ladder: its team, its finished rated games and the
    ladder's game number when it last started one (None: never)."""

    bot: str
    team: str
    game_count: int = 0
    last_game_number: int | None = None


@dataclass(frozen=True, slots=True)
class GameRequest:
    """A team's pending request: a version test (``kind`` VERSION_TEST, ``bot`` the
    candidate, ``opponent`` the team's active version, played until decided) or unranked
    test games (``kind`` TEST, ``games_left`` still to start)."""

    team: str
    bot: str
    opponent: str
    kind: GameKind = GameKind.TEST
    games_left: int = 1

    def __post_init__(self) -> None:
        if self.kind not in (GameKind.VERSION_TEST, GameKind.TEST):
            raise ValueError(f"a request is a version test or a test game, got {self.kind!r}")
        if self.bot == self.opponent:
            raise ValueError(f"a request needs two bot versions, got {self.bot!r} twice")


@dataclass(frozen=True, slots=True)
class MatchmakingSettings:
    """The rule's knobs (module docstring). A bad value raises ``ValueError`` naming it."""

    placement_games: int = 2
    floor_share: float = 0.25
    team_cap: int = 4
    test_games_per_window: int = 10
    test_window_s: float = 3600.0
    #: The exponent of the importance below the focus places (module docstring).
    place_weight: float = 6.0
    #: The places at the top that weigh alike (the prizes' places): the importance of a
    #: place is ``(place / focus_places) ** -place_weight``, 1 within them.
    focus_places: int = 3
    #: Seats at a rated game's table: 2 heads-up, up to 10 at a ring table.
    table_size: int = 2

    def __post_init__(self) -> None:
        for name in ("placement_games", "team_cap", "test_games_per_window", "focus_places"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"{name} must be an integer of 0 or more, got {value!r}")
        size = self.table_size
        if not isinstance(size, int) or isinstance(size, bool) or not 2 <= size <= MAX_SEATS:
            raise ValueError(f"table_size must be an integer from 2 to {MAX_SEATS}, got {size!r}")
        if self.focus_places < 1:
            raise ValueError(f"focus_places must be 1 or more, got {self.focus_places!r}")
        if self.team_cap < 1:
            raise ValueError(f"team_cap must be 1 or more, got {self.team_cap!r}")
        if not 0.0 < self.floor_share <= 1.0:
            raise ValueError(f"floor_share must be in (0, 1], got {self.floor_share!r}")
        if not 0.0 <= self.place_weight < math.inf:
            raise ValueError(f"place_weight must be 0 or more, got {self.place_weight!r}")
        if not 0.0 < self.test_window_s < math.inf:
            raise ValueError(f"test_window_s must be a positive number, got {self.test_window_s!r}")

    def floor_interval(self, entrant_count: int) -> int:
        """The games after which a version that started none is owed one.

        >>> MatchmakingSettings(floor_share=0.25).floor_interval(50)
        100
        """
        return max(1, math.ceil(entrant_count / (2.0 * self.floor_share)))

    def test_games_started(self, starts: Iterable[float], now_s: float) -> int:
        """Of one team's test games started at ``starts`` (seconds), those within the
        window before ``now_s`` (strictly: one started a whole window ago has left it).

        >>> MatchmakingSettings(test_window_s=60.0).test_games_started([30.0, 31.0, 90.0], 90.0)
        2
        """
        since = now_s - self.test_window_s
        return sum(1 for start in starts if start > since)

    def may_start_test_games(self, starts: Iterable[float], now_s: float, count: int = 1) -> bool:
        """Whether a team whose test games started at ``starts`` may start ``count`` more
        at ``now_s``: at most ``test_games_per_window`` in any window (the request form
        asks this of what it would add, matchmaking of each game it starts).

        >>> rule = MatchmakingSettings(test_games_per_window=3, test_window_s=60.0)
        >>> starts = [10.0, 20.0]
        >>> rule.may_start_test_games(starts, 30.0), rule.may_start_test_games(starts, 30.0, 2)
        (True, False)
        """
        return self.test_games_started(starts, now_s) + count <= self.test_games_per_window


@dataclass(frozen=True, slots=True)
class Candidates:
    """The candidate pairs of tier 5 (the module docstring) with what their priority needs
    but the games in flight: as columns, in the order matchmaking makes them (neighbours
    down the standings, then the challenges), each pair by its two bots' positions in
    ``bots``, its place's ``importance``, the chance ``wrong`` that its order is wrong and
    the ``variance`` of its difference. They follow from the standings and the placed
    entrants alone (:func:`candidate_pairs`), so a server makes them once per fit and
    matchmaking reads them instead of asking the standings about every pair. ``teams``:
    each bot's team, in ``bots``' order (empty: the entrants name them)."""

    bots: tuple[str, ...]
    first: npt.NDArray[np.int64]
    second: npt.NDArray[np.int64]
    importance: npt.NDArray[np.float64]
    wrong: npt.NDArray[np.float64]
    variance: npt.NDArray[np.float64]
    teams: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.first)

    def pair(self, k: int) -> tuple[str, str]:
        """The ``k``-th candidate's two bots."""
        return self.bots[int(self.first[k])], self.bots[int(self.second[k])]


@dataclass(frozen=True, slots=True)
class LadderState:
    """What matchmaking reads: the active versions, the last fit, the games in flight, the
    pending requests, the games started so far, the time (seconds, any epoch) and each
    team's start times of its recent unranked test games; and the candidate pairs made
    for these standings and entrants (:func:`candidate_pairs`), or None to make them here.

    A partial state (``entrant_total`` set: how many versions are active) is a server's
    shortcut when every active version is placed: ``entrants`` then holds only those the
    floor may owe a game (the rest started one within the floor's interval), the
    ``candidates`` (with their teams) are given, and the ``standings`` need only their
    spread of one game. Matchmaking decides on it as on the whole state; it refuses
    (``ValueError``) a partial state without candidates, with an entrant owed placement
    games, or for a ring table (those read every entrant's place).
    """

    entrants: tuple[Entrant, ...]
    standings: Standings
    in_flight: tuple[Pairing, ...] = ()
    requests: tuple[GameRequest, ...] = ()
    game_number: int = 0
    now_s: float = 0.0
    recent_test_starts: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    candidates: Candidates | None = None
    entrant_total: int | None = None

    @property
    def entrant_count(self) -> int:
        """How many versions are active (all of them, in a partial state too)."""
        return len(self.entrants) if self.entrant_total is None else self.entrant_total

    @property
    def is_partial(self) -> bool:
        """True for a server's partial state (the class docstring)."""
        return self.entrant_total is not None
