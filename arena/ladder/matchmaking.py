"""Matchmaking: which game the ladder plays next, as a pure function of its state.

Theory of operation. A worker that is free asks :func:`next_game` for a pairing; the state
it passes holds the active bot versions (with their teams and game counts), the last
fitted :class:`~arena.ladder.ratings.Standings`, the games in flight and the teams'
pending requests. The first tier that has an eligible game wins:

1. **Version tests**: a team's "is my new version better?" test plays its candidate
   against the team's active version until the sequential test decides.
2. **Unranked test games** a team asked for against a chosen opponent, at most
   ``test_games_per_window`` started per team in any ``test_window_s`` seconds.
3. **Placement**: a version with fewer than ``placement_games`` rated games plays a spread
   of opponents (the middle of the ladder first, then the quartiles, then the eighths...),
   so one placement game already places it roughly and a few give a first rating; the
   version with the fewest placement games (finished or in flight) goes first, so versions
   arriving together (a ladder's start) are placed side by side, and while more versions
   are placing than placed they play each other, so a game places two.
4. **Floor**: a version that has not started a game for ``floor_interval`` games (an even
   share of games would be one in ``n / 2``; the floor is ``floor_share`` of that) plays
   on, its opponents spread over the ladder as its placement games' are (the fractions
   carry on from its game count), so every active bot keeps playing. Spread, not chosen
   by the fit: tier 5 plays a pair while its order looks in doubt and drops it once a
   game makes the gap look wide, so the gaps it measures come out too wide (the top
   rated too high, the bottom too low, and their intervals cover less than they say);
   the floor's games, chosen without looking at any gap, tie every bot to the whole
   field and keep the intervals honest with few placement games (docs/ladder.md measures
   both).
5. **Uncertainty**: of the candidate pairs, the one where one more game does the most
   for the ranking. The candidates are the pairs of neighbours in the standings and the
   challenges: each version below the neighbour of the last focus place against that
   place (a version with few games and a wide interval may belong in the top; only its
   neighbours below would never tell). The priority is the chance that the pair's order
   is wrong times the share of the variance of their difference that one more game removes,
   ``P(wrong) * w V / (1 + w V)`` (``V`` the variance of the difference, ``w`` the
   inverse of one game's variance; the second factor is the exact rank-one update of the
   fit's information, large for a pair that played little, small for one that played a
   lot), times the importance of the place: 1 for the ``focus_places`` places at the top
   (the prizes' places: a wrong third place costs as much as a wrong first) and for a
   challenge, then ``(place / focus_places) ** -place_weight`` (the order at the top is
   what prizes, the finals' seeding and every reader of the leaderboard look at; the
   floor keeps the rest of the ladder playing). A steep weight (6: the 4th place's pair
   weighs 0.18, the 6th's 0.016) keeps the pairs just below the top, close and so always
   in doubt, from drawing the games the top's own order needs; docs/ladder.md quotes
   what it gains. Games in flight count as already played in ``V``, so ten workers
   asking at once spread over the pairs instead of piling onto one.

Every tier respects the cap: a team has at most ``team_cap`` games in flight (a game counts
once for each team at it), so a team with many versions or requests cannot starve the
others. Ties are broken by the ``random.Random`` passed in; nothing else is random, so the
same state and seed give the same pairing. What it reads and answers are the plain values
of :mod:`arena.ladder.pairings` (named here too).

Ring tables (``table_size`` 3 to 10; 2, the default, is heads-up). A rated tier's pair
(placement, floor, uncertainty) is the table's first two seats; the rest are filled with
other entrants, placed ones (any while nobody is placed yet), each of a team not yet at the
table (one version per team: two versions of one team at a ring table could play for each
other) and under the cap, those with the fewest games in flight first, then the nearest in
the standings to the pair (the comparisons a table adds are then between neighbours, where
the order is in doubt), ties by the ``random.Random``. With fewer eligible the table is
smaller, never below the pair. Version tests and unranked test games stay heads-up: they
answer a question about two versions. A game in flight counts for every team at it (once
each), every pair of its bots and every bot.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

import numpy as np

from arena.ladder.pairings import (
    Candidates,
    Entrant,
    GameKind,
    GameRequest,
    LadderState,
    MatchmakingSettings,
    Pairing,
)
from arena.ladder.ratings import Standings

__all__ = [
    "Candidates",
    "Entrant",
    "GameKind",
    "GameRequest",
    "LadderState",
    "MatchmakingSettings",
    "Pairing",
    "candidate_pairs",
    "next_game",
    "placement_fractions",
]

#: Priorities this close (relatively) tie: equal pairs must not be told apart by rounding.
_TIE = 1e-9
#: The candidates :meth:`_Matchmaker._contenders` keeps below the best (a thousand ties).
_NEAR = 1e-6


def next_game(
    state: LadderState, settings: MatchmakingSettings, rng: random.Random
) -> Pairing | None:
    """The next game to play, or None when every possible game is held by the cap."""
    return _Matchmaker(state, settings, rng).choose()


def candidate_pairs(
    entrants: Iterable[Entrant], standings: Standings, settings: MatchmakingSettings
) -> Candidates:
    """Tier 5's candidate pairs (the module docstring): each pair of neighbours among the
    placed entrants in the standings, then each version below the neighbour of the last
    focus place challenging that place; pairs of one team and pairs without doubt (a
    difference with no variance) are left out. Their priority with no game in flight is
    ``importance * wrong * w V / (1 + w V)``."""
    placed = [entrant for entrant in entrants if entrant.game_count >= settings.placement_games]
    team = {entrant.bot: entrant.team for entrant in placed}
    order = [bot for bot in standings.order if bot in team]
    focus, place_weight = settings.focus_places, settings.place_weight
    pairs: list[tuple[float, str, str]] = []
    for place, (first, second) in enumerate(itertools.pairwise(order), start=1):
        pairs.append((1.0 if place <= focus else (place / focus) ** -place_weight, first, second))
    if len(order) > focus + 1:
        # A version further down that may belong in the top: its chance of being above
        # the last focus place weighs as the focus places' own order does.
        last = order[focus - 1]
        pairs += [(1.0, last, challenger) for challenger in order[focus + 1 :]]
    index = {bot: position for position, bot in enumerate(order)}
    standings.prime_gaps([(first, second) for _importance, first, second in pairs])
    rows: list[tuple[int, int, float, float, float]] = []
    for importance, first, second in pairs:
        if team[first] == team[second]:
            continue
        difference, variance = standings.gap(first, second)
        if variance <= 0.0:
            continue
        # P(order wrong) = Phi(-|gap| / sd), by erfc (NormalDist.cdf's own formula).
        wrong = 0.5 * math.erfc(abs(difference) / math.sqrt(2.0 * variance))
        rows.append((index[first], index[second], importance, wrong, variance))
    columns = list(zip(*rows, strict=True)) or [(), (), (), (), ()]
    return Candidates(
        tuple(order),
        np.array(columns[0], dtype=np.int64),
        np.array(columns[1], dtype=np.int64),
        np.array(columns[2], dtype=np.float64),
        np.array(columns[3], dtype=np.float64),
        np.array(columns[4], dtype=np.float64),
        teams=tuple(team[bot] for bot in order),
    )


def placement_fractions() -> Iterator[float]:
    """Where on the ladder (0 the top, 1 the bottom) the placement games' opponents sit,
    in order: the middle, then the quartiles, the eighths...

    >>> import itertools
    >>> list(itertools.islice(placement_fractions(), 7))
    [0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875]
    """
    denominator = 2
    while True:
        for numerator in range(1, denominator, 2):
            yield numerator / denominator
        denominator *= 2


class _Matchmaker:
    """One decision: the state indexed once, then the tiers in order."""

    def __init__(self, state: LadderState, settings: MatchmakingSettings, rng: random.Random):
        self.state = state
        self.settings = settings
        self.rng = rng
        if state.is_partial:
            if state.candidates is None:
                raise ValueError("a partial ladder state must bring its candidate pairs")
            if settings.table_size > 2:
                raise ValueError("a ring table reads every entrant: a partial state cannot seat it")
        self.team = {entrant.bot: entrant.team for entrant in state.entrants}
        for request in state.requests:
            self.team.setdefault(request.bot, request.team)
            self.team.setdefault(request.opponent, request.team)
        if state.candidates is not None:  # a partial state's other bots (the same teams)
            for bot, team in zip(state.candidates.bots, state.candidates.teams, strict=False):
                self.team.setdefault(bot, team)
        self._made: Candidates | None = None
        self.busy: Counter[str] = Counter()
        self.pair_in_flight: Counter[tuple[str, str]] = Counter()
        self.bot_in_flight: Counter[str] = Counter()
        for game in state.in_flight:
            bots = game.bots
            for team in {self.team.get(bot, bot) for bot in bots}:
                self.busy[team] += 1
            if game.others:
                for pair in itertools.combinations(sorted(bots), 2):
                    self.pair_in_flight[pair] += 1
            else:
                self.pair_in_flight[game.pair] += 1
            if game.is_rated:
                for bot in bots:
                    self.bot_in_flight[bot] += 1

    def choose(self) -> Pairing | None:
        for tier in (self._requested, self._placement, self._floor, self._uncertainty):
            pairing = tier()
            if pairing is not None:
                if pairing.is_rated and self.settings.table_size > 2:
                    return self._fill(pairing)
                return pairing
        return None

    def _fill(self, pairing: Pairing) -> Pairing:
        """``pairing`` with its table filled (the module docstring's ring tables).

        The candidates are met walking the standings outwards from the pair, a distance at
        a time; the walk stops once enough of them, of distinct teams, have no game in
        flight (nobody farther can come before them), so a big ladder costs a few places
        rather than a pass over every bot."""
        state, settings = self.state, self.settings
        standings, order = state.standings, state.standings.order
        needed = settings.placement_games
        counts = {entrant.bot: entrant.game_count for entrant in state.entrants}
        bootstrapping = all(count < needed for count in counts.values())
        anchors = [
            place - 1
            for place in (standings.place_of(pairing.first), standings.place_of(pairing.second))
            if place is not None
        ] or [0]  # neither fitted (cannot happen on a rated tier): start at the top
        seated = {self.team[pairing.first], self.team[pairing.second]}
        busy, cap, in_flight = self.busy, settings.team_cap, self.bot_in_flight
        seats = settings.table_size - 2
        candidates: list[tuple[int, int, float, str]] = []
        idle_teams: set[str] = set()
        seen: set[int] = set()
        for distance in range(len(order)):
            for anchor in anchors:
                for index in (anchor - distance, anchor + distance):
                    if not 0 <= index < len(order) or index in seen:
                        continue
                    seen.add(index)
                    bot = order[index]
                    count = counts.get(bot)
                    team = self.team.get(bot)
                    if (
                        count is None  # fitted but no longer an entrant
                        or team is None
                        or team in seated
                        or (count < needed and not bootstrapping)
                        or busy.get(team, 0) >= cap
                    ):
                        continue
                    flights = in_flight.get(bot, 0)
                    candidates.append((flights, distance, self.rng.random(), bot))
                    if flights == 0:
                        idle_teams.add(team)
            if len(idle_teams) >= seats:
                break
        candidates.sort()
        others: list[str] = []
        for *_, bot in candidates:
            if len(others) == seats:
                break
            team = self.team[bot]
            if team not in seated:  # one version per team at the table
                others.append(bot)
                seated.add(team)
        return replace(pairing, others=tuple(others))

    def _free(self, first: str, second: str) -> bool:
        """True when both teams are under the cap (one team counted once)."""
        busy, cap = self.busy, self.settings.team_cap
        return busy.get(self.team[first], 0) < cap and busy.get(self.team[second], 0) < cap

    # -- tiers ---------------------------------------------------------------------------------

    def _requested(self) -> Pairing | None:
        for kind in (GameKind.VERSION_TEST, GameKind.TEST):
            for request in self.state.requests:
                if request.kind is not kind or not self._free(request.bot, request.opponent):
                    continue
                if kind is GameKind.TEST and not self._test_allowed(request):
                    continue
                reason = (
                    f"is {request.bot} better than {request.opponent}?"
                    if kind is GameKind.VERSION_TEST
                    else f"test game asked by {request.team}"
                )
                return Pairing(request.bot, request.opponent, kind, reason)
        return None

    def _test_allowed(self, request: GameRequest) -> bool:
        if request.games_left <= 0:
            return False
        starts = self.state.recent_test_starts.get(request.team, ())
        return self.settings.may_start_test_games(starts, self.state.now_s)

    def _played(self, entrant: Entrant) -> int:
        """Rated games finished or in flight."""
        return entrant.game_count + self.bot_in_flight.get(entrant.bot, 0)

    def _placement(self) -> Pairing | None:
        needed = self.settings.placement_games
        # The version with the fewest placement games (finished or in flight) first, in
        # the entrants' order among equals: when many versions arrive at once (a ladder's
        # start) a batch of games spreads over all of them instead of giving the first one
        # all its placement games before the next has any.
        placing = sorted(
            (entrant for entrant in self.state.entrants if self._played(entrant) < needed),
            key=self._played,
        )
        if not placing:  # the usual case: nobody reads the whole ladder's order
            return None
        if self.state.is_partial:
            raise ValueError(
                f"a partial ladder state holds a version owed placement games: {placing[0].bot}"
            )
        placed = {e.bot for e in self.state.entrants if e.game_count >= needed}
        ladder = [bot for bot in self.state.standings.order if bot in placed]
        # A ladder's start (more versions owed placement games, finished or in flight,
        # than placed): they place against each other, so each game places two of them
        # rather than one (a start then costs n * placement_games / 2 games, not up to
        # half as many again), and the first versions placed do not draw every game.
        owed = {entrant.bot for entrant in placing}
        entrants = {entrant.bot for entrant in self.state.entrants}
        everyone = [bot for bot in self.state.standings.order if bot in entrants]
        starting = len(owed) > len(ladder)
        for entrant in placing:
            count = self._played(entrant)
            others = [bot for bot in everyone if bot in owed] if starting else ladder
            others = [bot for bot in others if self.team[bot] != entrant.team]
            if not others:  # nobody placing or placed of another team: any other version
                others = [bot for bot in everyone if self.team[bot] != entrant.team]
            if entrant.bot not in self.state.standings:
                continue  # not fitted yet (a version activated since the fit)
            opponent = self._placement_opponent(entrant.bot, others, count)
            if opponent is not None:
                reason = f"placement {count + 1} of {needed}"
                return Pairing(entrant.bot, opponent, GameKind.PLACEMENT, reason)
        return None

    def _placement_opponent(self, bot: str, ladder: Sequence[str], count: int) -> str | None:
        """The opponent at the ``count``-th placement fraction of ``ladder``, or the nearest
        free one (None when none is)."""
        if not ladder:
            return None
        fraction = next(itertools.islice(placement_fractions(), count, None))
        target = round(fraction * (len(ladder) - 1))
        by_distance = sorted(range(len(ladder)), key=lambda index: (abs(index - target), index))
        for index in by_distance:
            opponent = ladder[index]
            if self.pair_in_flight.get(_sorted(bot, opponent), 0) == 0 and self._free(
                bot, opponent
            ):
                return opponent
        return None

    def _floor(self) -> Pairing | None:
        interval = self.settings.floor_interval(self.state.entrant_count)
        overdue = []
        for entrant in self.state.entrants:
            if self.bot_in_flight.get(entrant.bot, 0) or entrant.last_game_number is None:
                continue  # playing now, or still placing (placement comes first)
            waited = self.state.game_number - entrant.last_game_number
            if waited >= interval:
                overdue.append((-waited, entrant.bot, entrant.game_count))
        if not overdue:
            return None
        # The placed versions in the standings' order: the candidates' (a partial state's
        # standings carry no order, its candidates do).
        order = self._candidates().bots
        for waited, bot, count in sorted(overdue):
            others = [other for other in order if self.team.get(other) != self.team[bot]]
            opponent = self._placement_opponent(bot, others, count)
            if opponent is not None:
                return Pairing(
                    bot,
                    opponent,
                    GameKind.FLOOR,
                    f"floor: {bot} started no game in the last {-waited}",
                )
        return None

    def _uncertainty(self) -> Pairing | None:
        best: list[tuple[str, str]] = []
        best_priority = -1.0
        for priority, first, second in self._contenders():
            if not self._free(first, second) or priority < best_priority * (1.0 - _TIE):
                continue
            if priority > best_priority * (1.0 + _TIE):
                best, best_priority = [], priority
            best.append((first, second))
        if not best:
            return None
        first, second = best[self.rng.randrange(len(best))] if len(best) > 1 else best[0]
        reason = f"order uncertain (priority {best_priority:.3g})"
        return Pairing(first, second, GameKind.UNCERTAINTY, reason)

    def _candidates(self) -> Candidates:
        """The state's candidate pairs, made here when it brings none."""
        if self._made is None:
            state = self.state
            self._made = state.candidates
            if self._made is None:
                self._made = candidate_pairs(state.entrants, state.standings, self.settings)
        return self._made

    def _priority(self, k: int) -> float:
        """Candidate ``k``'s priority, ``importance * P(order wrong) * w V / (1 + w V)``
        with the games in flight counted as played in ``V`` (the module docstring)."""
        candidates = self._candidates()
        variance = float(candidates.variance[k])
        weight = 1.0 / self.state.standings.game_sd**2
        pending = self.pair_in_flight.get(_sorted(*candidates.pair(k)), 0)
        effective = variance / (1.0 + pending * weight * variance)
        gain = weight * effective / (1.0 + weight * effective)
        return float(candidates.importance[k]) * float(candidates.wrong[k]) * gain

    def _contenders(self) -> list[tuple[float, str, str]]:
        """The free candidates whose priority may be the best, in the candidates' order:
        read best first by their priority with no game in flight (a game in flight only
        lowers it), so a ladder of a thousand looks at a handful. Every pair within
        ``_NEAR`` of the best priority is kept: the tie rule (:meth:`_uncertainty`) then
        sees the same pairs, in the same order, as over every candidate (near ties come
        from rounding, a thousandth of ``_NEAR`` apart)."""
        candidates = self._candidates()
        weight = 1.0 / self.state.standings.game_sd**2
        gain = weight * candidates.variance / (1.0 + weight * candidates.variance)
        unhurried = candidates.importance * candidates.wrong * gain
        found: list[tuple[int, float]] = []
        best = -1.0
        for k in np.argsort(-unhurried, kind="stable").tolist():
            if unhurried[k] < best * (1.0 - _NEAR):
                break
            first, second = candidates.pair(k)
            if not self._free(first, second):
                continue
            priority = self._priority(k)
            best = max(best, priority)
            found.append((k, priority))
        found.sort()
        return [(priority, *candidates.pair(k)) for k, priority in found
                if priority >= best * (1.0 - _NEAR)]  # fmt: skip


def _sorted(first: str, second: str) -> tuple[str, str]:
    return (first, second) if first < second else (second, first)
