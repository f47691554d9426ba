"""The ladder's charts as inline SVG (no script: the site's policy allows none inline): the
promotion test's log-likelihood ratio after each game, climbing towards its bounds, and a
version's rating history (its rating over time inside its interval). Only numbers go into
them, so they need no escaping.

>>> svg = llr_chart([(1, 0.5), (2, 1.5), (3, 3.1)], lower=-2.94, upper=2.94)
>>> svg.startswith("<svg") and "polyline" in svg and svg.count("<line") == 3
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence

__all__ = ["llr_chart", "rating_chart"]

_WIDTH, _HEIGHT, _PAD = 480, 200, 24


def llr_chart(history: Sequence[Sequence[float]], *, lower: float, upper: float) -> str:
    """The chart of ``history`` (``(games, ratio)`` pairs) between ``lower`` and
    ``upper`` (the bounds, drawn dashed; zero drawn thin)."""
    points = [(float(count), float(value)) for count, value in history]
    top = max([upper * 1.2, *(value for _count, value in points)])
    bottom = min([lower * 1.2, *(value for _count, value in points)])
    top, bottom = min(top, upper * 3), max(bottom, lower * 3)
    games = max([1.0, *(count for count, _value in points)])
    span = (top - bottom) or 1.0

    def x(count: float) -> float:
        return _PAD + (_WIDTH - 2 * _PAD) * count / games

    def y(value: float) -> float:
        clamped = min(max(value, bottom), top)
        return _PAD + (_HEIGHT - 2 * _PAD) * (top - clamped) / span

    def line(value: float, dash: str, label: str) -> str:
        at = y(value)
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        return (
            f'<line x1="{_PAD}" y1="{at:.1f}" x2="{_WIDTH - _PAD}" y2="{at:.1f}" '
            f'stroke="#888"{dashes}/><text x="{_WIDTH - _PAD + 2}" y="{at + 4:.1f}" '
            f'font-size="10">{label}</text>'
        )

    trail = " ".join(f"{x(count):.1f},{y(value):.1f}" for count, value in [(0.0, 0.0), *points])
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH + 40}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH + 40} {_HEIGHT}" role="img" '
        f'aria-label="log-likelihood ratio after each game">'
        + line(upper, "6 3", f"better {upper:.2f}")
        + line(0.0, "", "0")
        + line(lower, "6 3", f"not {lower:.2f}")
        + f'<polyline fill="none" stroke="#2a6" stroke-width="2" points="{trail}"/>'
        + f'<text x="{_PAD}" y="{_HEIGHT - 4}" font-size="10">games: {int(games)}</text>'
        + "</svg>"
    )


def rating_chart(points: Sequence[tuple[float, float, float, float]]) -> str:
    """The chart of a rating history: ``(time in seconds, rating, low, high)`` points in
    time order, the rating a line inside its interval (shaded), zero drawn thin, the first
    and last time's dates under it. No point: an empty string.

    >>> svg = rating_chart([(0.0, 10.0, -50.0, 70.0), (60.0, 20.0, -10.0, 50.0)])
    >>> svg.count("<polygon") == 1 and svg.count("<polyline") == 1 and svg.count("<circle") == 2
    True
    """
    if not points:
        return ""
    start, end = points[0][0], points[-1][0]
    top = max(high for _at, _rating, _low, high in points)
    bottom = min(low for _at, _rating, low, _high in points)
    top, bottom = max(top, 0.0), min(bottom, 0.0)
    span, duration = (top - bottom) or 1.0, (end - start) or 1.0

    def x(at: float) -> float:
        return _PAD + (_WIDTH - 2 * _PAD) * (at - start) / duration

    def y(value: float) -> float:
        return _PAD + (_HEIGHT - 2 * _PAD) * (top - value) / span

    upper = [f"{x(at):.1f},{y(high):.1f}" for at, _rating, _low, high in points]
    lower = [f"{x(at):.1f},{y(low):.1f}" for at, _rating, low, _high in reversed(points)]
    line = " ".join(f"{x(at):.1f},{y(rating):.1f}" for at, rating, _low, _high in points)
    # Each fit's point, and its interval as a bar: one fit alone (or fits at one instant)
    # draws no area and no line, yet must show its rating.
    dots = "".join(
        f'<line x1="{x(at):.1f}" y1="{y(low):.1f}" x2="{x(at):.1f}" y2="{y(high):.1f}" '
        f'stroke="#8ab"/><circle cx="{x(at):.1f}" cy="{y(rating):.1f}" r="3" fill="#26a"/>'
        for at, rating, low, high in points
    )
    first, last = (time.strftime("%Y-%m-%d %H:%M", time.gmtime(at)) for at in (start, end))
    zero = y(0.0)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH + 40}" height="{_HEIGHT}" '
        f'viewBox="0 0 {_WIDTH + 40} {_HEIGHT}" role="img" '
        f'aria-label="rating over time with its 95% interval">'
        f'<polygon fill="#cde" stroke="none" points="{" ".join(upper + lower)}"/>'
        f'<line x1="{_PAD}" y1="{zero:.1f}" x2="{_WIDTH - _PAD}" y2="{zero:.1f}" stroke="#888"/>'
        f'<text x="{_WIDTH - _PAD + 2}" y="{zero + 4:.1f}" font-size="10">0</text>'
        f'<text x="{_WIDTH - _PAD + 2}" y="{_PAD + 4}" font-size="10">{top:.0f}</text>'
        f'<text x="{_WIDTH - _PAD + 2}" y="{_HEIGHT - _PAD + 4}" font-size="10">{bottom:.0f}</text>'
        f'<polyline fill="none" stroke="#26a" stroke-width="2" points="{line}"/>{dots}'
        f'<text x="{_PAD}" y="{_HEIGHT - 4}" font-size="10">{first} UTC</text>'
        f'<text x="{_WIDTH - _PAD}" y="{_HEIGHT - 4}" font-size="10" text-anchor="end">'
        f"{last} UTC</text>"
        "</svg>"
    )
