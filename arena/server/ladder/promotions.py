"""The promotion tests advanced after a result: each running test's games read again, its
ratio's history and verdict stored, and a candidate found better made active when its
team asked (:mod:`arena.ladder.promotion` decides; this module reads and writes rows)."""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from arena.ladder.matchmaking import GameKind
from arena.ladder.promotion import Verdict, should_activate
from arena.server.jobs.round_trip import Statement
from arena.server.ladder.config import LadderSettings
from arena.server.ladder.models import (
    LLR_CAP,
    Game,
    LadderTeamSettings,
    PromotionStatus,
    PromotionTest,
    version_label,
)
from arena.server.ladder.state import game_results, with_seats
from arena.server.site.versions import activate

__all__ = ["advance_promotions", "any_running"]


def _finite(value: float) -> float:
    return max(-LLR_CAP, min(LLR_CAP, value))


def any_running() -> Statement:
    """The statement that asks whether a promotion test is running (a row: one is), plain
    SQL and no model: a store sends it with its writes, in their round trip."""
    sql = f"SELECT 1 FROM {PromotionTest._meta.db_table} WHERE status = %s LIMIT 1"
    return Statement(sql, [PromotionStatus.RUNNING.value])


def advance_promotions(settings: LadderSettings, *, running: bool, is_frozen: bool = False) -> None:
    """Read each running promotion test's games again: its ratio's history, its verdict,
    and the candidate made active when it is better and its team asked (not after the
    deadline: activations are frozen then). ``running``: whether one is, as
    :func:`any_running` just answered."""
    if not running:  # the usual case
        return
    tests = PromotionTest.objects.filter(status=PromotionStatus.RUNNING).select_related(
        "team", "candidate__team", "incumbent__team"
    )
    for test in tests:
        pair = Q(first=test.candidate, second=test.incumbent) | Q(
            first=test.incumbent, second=test.candidate
        )
        games = with_seats(Game.objects.filter(pair, kind=GameKind.VERSION_TEST))
        candidate, incumbent = version_label(test.candidate), version_label(test.incumbent)
        state = settings.promotion(candidate, incumbent).state(game_results(games.order_by("pk")))
        test.game_count = state.game_count
        test.llr = _finite(state.result.llr)
        test.lower_bound, test.upper_bound = state.lower_bound, state.upper_bound
        test.llr_history = [[count, _finite(value)] for count, value in state.llr_history]
        if state.verdict is not Verdict.CONTINUE:
            test.status = (
                PromotionStatus.BETTER
                if state.verdict is Verdict.BETTER
                else PromotionStatus.NOT_BETTER
            )
            test.decided = timezone.now()
            auto = LadderTeamSettings.of(test.team).auto_activate
            if should_activate(state, auto_activate=auto) and not is_frozen:
                activate(test.team, test.candidate)
                test.activated = True
        test.save()
