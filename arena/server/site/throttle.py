"""The rate limits of :mod:`arena.server.site.ratelimit` over the database: :func:`note` keeps
an event, :func:`is_over` asks the rule about the events still in the window. The views
call these; the rule itself stays a pure function."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from arena.server.site.models import RateEvent
from arena.server.site.ratelimit import Limit, is_limited

__all__ = ["is_over", "note"]


def is_over(limit: Limit, key: str) -> bool:
    """Whether ``key`` has used up ``limit`` (a further event would pass it)."""
    now = timezone.now()
    times = RateEvent.objects.filter(
        kind=limit.kind, key=key[:200], at__gte=now - timedelta(seconds=limit.window)
    ).values_list("at", flat=True)
    return is_limited((at.timestamp() for at in times), now=now.timestamp(),
                      limit=limit.count, window=limit.window)  # fmt: skip


def note(limit: Limit, key: str) -> None:
    """Keep one event of ``limit``'s kind for ``key`` (and forget that kind's events older
    than its window, so that the table stays small)."""
    now = timezone.now()
    RateEvent.objects.filter(kind=limit.kind, at__lt=now - timedelta(seconds=limit.window)).delete()
    RateEvent.objects.create(kind=limit.kind, key=key[:200], at=now)
