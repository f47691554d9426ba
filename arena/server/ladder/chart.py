"""The promotion test's chart: the log-likelihood ratio after each game, climbing towards
its bounds, as an inline SVG (no script: the site's policy allows none inline). Only
numbers go into it, so it needs no escaping.

>>> svg = llr_chart([(1, 0.5), (2, 1.5), (3, 3.1)], lower=-2.94, upper=2.94)
>>> svg.startswith("<svg") and "polyline" in svg and svg.count("<line") == 3
True
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["llr_chart"]

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
