"""The results table printed at the end of a match (a rich table, as the tournament's).

>>> from arena.match.console import table_text
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
>>> print(table_text(results_table(result)))
match seed7: 100 hands, seed 7, stacks reset every hand
┏━━━━━━━┳━━━━━━━━┳━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━┓
┃ place ┃ bot    ┃ seat ┃ chips won ┃ raw bb/100 ┃ faults    ┃ p50 ms ┃ p99 ms ┃
┡━━━━━━━╇━━━━━━━━╇━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━┩
│     1 │ raiser │    1 │       +40 │      20.00 │ timeout 2 │    1.2 │ 5000.0 │
│     2 │ caller │    0 │       -40 │     -20.00 │ -         │      - │      - │
└───────┴────────┴──────┴───────────┴────────────┴───────────┴────────┴────────┘
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import JustifyMethod
from rich.table import Table
from rich.text import Text

from arena.match.config import DEFAULT_MATCH_ID
from arena.match.results import MatchResult
from protocol.inert import inert_text

__all__ = [
    "crash_stderr_lines",
    "fault_summary",
    "latency_ms",
    "results_table",
]

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


def _ms_text(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def results_table(result: MatchResult) -> Table:
    """The results as a rich table: a title line and one row per bot, best first; bot
    names shown inert (a name is the bot author's text)."""
    mode = _MODE_TEXT.get(result.mode, result.mode)
    # A single match keeps the default id "match": not "match match".
    named = "" if result.match_id == DEFAULT_MATCH_ID else f" {inert_text(result.match_id)}"
    table = Table(
        title=Text(f"match{named}: {result.hands_played} hands, seed {result.seed}, {mode}"),
        title_justify="left",
    )
    with_stack = result.mode != "hands"
    for column, justify in _columns(with_stack):
        table.add_column(column, justify=justify)
    for player in result.ranked():
        name = inert_text(player.name) + (" (sitting out)" if player.is_sitting_out else "")
        row = [
            "-" if player.place is None else str(player.place),
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
        table.add_row(*(Text(cell) for cell in row))
    return table


def _columns(with_stack: bool) -> list[tuple[str, JustifyMethod]]:
    columns: list[tuple[str, JustifyMethod]] = [
        ("place", "right"),
        ("bot", "left"),
        ("seat", "right"),
        ("chips won", "right"),
        # Raw: the chips won, per 100 hands (the luck-adjusted rate is in the score
        # table under this one, headed as such).
        ("raw bb/100", "right"),
    ]
    if with_stack:
        columns.append(("stack", "right"))
    return [*columns, ("faults", "left"), ("p50 ms", "right"), ("p99 ms", "right")]


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
        name = inert_text(player.name)
        lines.append(f"stderr of {name} (seat {player.seat_index}, {', '.join(deaths)}): {path}")
    return lines
