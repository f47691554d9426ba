"""The results table printed at the end of a match (plain text, fixed-width columns).

>>> from arena.match.results import MatchResult, PlayerResult
>>> result = MatchResult(
...     match_id="seed7", seed=7, mode="hands", hands_played=100,
...     players=(
...         PlayerResult("p0", "caller", 0, 100, -40, -20.0, place=2),
...         PlayerResult("p1", "raiser", 1, 100, 40, 20.0, place=1,
...                      faults={"counts": {"timeout": 2},
...                              "latency": {"count": 9, "p50_ms": 1.25, "p99_ms": 5000.0}}),
...     ),
... )
>>> print(format_results_table(result))
match seed7: 100 hands, seed 7, stacks reset every hand
place  bot     seat  chips won  bb/100  faults     p50 ms  p99 ms
    1  raiser     1        +40   20.00  timeout 2     1.2  5000.0
    2  caller     0        -40  -20.00  -               -       -
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.match.results import MatchResult, PlayerResult

__all__ = ["crash_stderr_lines", "fault_summary", "format_results_table", "latency_ms"]

_MODE_TEXT = {
    "hands": "stacks reset every hand",
    "carry": "stacks carried over",
    "freezeout": "freezeout",
}


def fault_summary(faults: Mapping[str, Any]) -> str:
    """``"timeout 2, crash 1"`` from a fault ledger dict (``"-"`` when clean)."""
    counts = faults.get("counts")
    if not isinstance(counts, Mapping):
        return "-"
    parts = [f"{kind} {count}" for kind, count in sorted(counts.items()) if count]
    return ", ".join(parts) if parts else "-"


def latency_ms(faults: Mapping[str, Any], key: str) -> float | None:
    """The latency statistic ``key`` (``"p50"``, ``"p99"``, ``"max"``) in ms, if recorded.

    Reads the ``latency`` summary of :meth:`arena.session.faults.FaultLedger.to_dict`; None when
    the bot never replied (no samples).
    """
    latency = faults.get("latency")
    if not isinstance(latency, Mapping) or not latency.get("count"):
        return None
    value = latency.get(f"{key}_ms")
    return float(value) if isinstance(value, int | float) else None


def _format_row(cells: Sequence[str], widths: Sequence[int], right: Sequence[bool]) -> str:
    parts = [
        cell.rjust(width) if is_right else cell.ljust(width)
        for cell, width, is_right in zip(cells, widths, right, strict=True)
    ]
    return "  ".join(parts).rstrip()


def _place_text(player: PlayerResult) -> str:
    return str(player.place) if player.place is not None else "-"


def _ms_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def format_results_table(result: MatchResult) -> str:
    """A header line and one row per bot, best first."""
    mode = _MODE_TEXT.get(result.mode, result.mode)
    header = f"match {result.match_id}: {result.hands_played} hands, seed {result.seed}, {mode}"
    with_stack = result.mode != "hands"
    columns = ["place", "bot", "seat", "chips won", "bb/100"]
    right = [True, False, True, True, True]
    if with_stack:
        columns.append("stack")
        right.append(True)
    columns += ["faults", "p50 ms", "p99 ms"]
    right += [False, True, True]
    rows: list[list[str]] = []
    for player in result.ranked():
        name = player.name + (" (sitting out)" if player.is_sitting_out else "")
        row = [
            _place_text(player),
            name,
            str(player.seat_index),
            f"{player.chips_won:+d}",
            f"{player.big_blinds_per_100:.2f}",
        ]
        if with_stack:
            row.append("-" if player.final_stack is None else str(player.final_stack))
        row += [
            fault_summary(player.faults),
            _ms_text(latency_ms(player.faults, "p50")),
            _ms_text(latency_ms(player.faults, "p99")),
        ]
        rows.append(row)
    widths = [max(len(columns[i]), *(len(row[i]) for row in rows)) for i in range(len(columns))]
    lines = [header, _format_row(columns, widths, right)]
    lines += [_format_row(row, widths, right) for row in rows]
    return "\n".join(lines)


#: The fault kinds after which a bot's stderr is worth reading: it died, or never started.
_DEATH_KINDS = ("crash", "startup_failure")


def crash_stderr_lines(result: MatchResult, out_dir: Path | None = None) -> list[str]:
    """A line naming the stderr file of each seat that crashed or failed to start (seat
    order), the path under ``out_dir`` when given; nothing for seats without a file.

    >>> from arena.match.results import MatchResult, PlayerResult
    >>> crasher = PlayerResult("p1", "crasher", 1, 10, -5, -2.5,
    ...                        faults={"counts": {"crash": 2, "restart": 2}},
    ...                        stderr_log="stderr/1-crasher.log", stderr_bytes=120)
    >>> clean = PlayerResult("p0", "caller", 0, 10, 5, 2.5, stderr_log="stderr/0-caller.log")
    >>> result = MatchResult("m", 1, "hands", 10, (clean, crasher))
    >>> crash_stderr_lines(result, Path("runs/m"))
    ['stderr of crasher (seat 1, crash 2): runs/m/stderr/1-crasher.log']
    """
    lines = []
    for player in sorted(result.players, key=lambda p: p.seat_index):
        counts = player.faults.get("counts")
        if player.stderr_log is None or not isinstance(counts, Mapping):
            continue
        deaths = [f"{kind} {counts[kind]}" for kind in _DEATH_KINDS if counts.get(kind)]
        if not deaths:
            continue
        path = player.stderr_log if out_dir is None else str(out_dir / player.stderr_log)
        lines.append(
            f"stderr of {player.name} (seat {player.seat_index}, {', '.join(deaths)}): {path}"
        )
    return lines
