"""A match's outcome as the results database's rows, and back.

:class:`OutcomeRows` turns a :class:`~arena.store.outcome.MatchOutcome` into the rows of
``match_seats``, ``hands``, ``faults`` and ``latency`` (made before the write transaction
starts); :func:`read_children` and :func:`outcome_from_rows` read them back exactly. The
tables are :mod:`arena.store.sqlite.schema`'s.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from arena.store.outcome import (
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)

__all__ = [
    "FaultRow",
    "HandRow",
    "LatencyRow",
    "OutcomeRows",
    "SeatRow",
    "adjusted_text",
    "bots_problem",
    "fault_rows",
    "hand_from_row",
    "hand_rows",
    "latency_rows",
    "outcome_from_rows",
    "outcome_problem",
    "parse_adjusted",
    "parse_nets",
    "read_children",
    "seat_from_rows",
    "seat_rows",
]


# -- a match's outcome as rows ------------------------------------------------------------

#: match_seats columns after match_row, in DDL order.
SeatRow = tuple[int, str, int, int, int, int | None, int | None, str | None, int]
#: hands columns after match_row.
HandRow = tuple[int, int, int, int, str, str | None]
#: faults columns after match_row.
FaultRow = tuple[int, str, int | None, int | None, int | None, str | None]
#: latency columns after match_row.
LatencyRow = tuple[int, int, float, float, float, float, str]


def seat_rows(outcome: MatchOutcome) -> list[SeatRow]:
    """One match_seats row per seat (without the match's row id)."""
    return [
        (
            seat.seat_index,
            seat.bot,
            seat.chips_won,
            seat.place,
            seat.hands_played,
            seat.final_stack,
            seat.eliminated_in_hand,
            seat.stderr_path,
            seat.stderr_bytes,
        )
        for seat in outcome.seats
    ]


def hand_rows(hands: Iterable[HandSummary]) -> list[HandRow]:
    """One hands row per hand. The nets are written by hand, not by ``json.dumps``: a list
    of integers is valid JSON joined with commas, and this runs a thousand times a match.
    The luck-adjusted results likewise (:func:`adjusted_text`), NULL without them.

    >>> hand_rows([HandSummary(3, 20, (-10, 10), pot=20, adjusted=(-2.5, 2.5))])
    [(3, 20, 20, 0, '[-10,10]', '[-2.5,2.5]')]
    """
    return [
        (
            hand.hand_number,
            hand.big_blind,
            hand.pot,
            1 if hand.went_to_showdown else 0,
            "[" + ",".join(map(str, map(int, hand.nets))) + "]",
            None if hand.adjusted is None else adjusted_text(hand),
        )
        for hand in hands
    ]


def adjusted_text(hand: HandSummary) -> str:
    """A hand's luck-adjusted results as a JSON array: each float's ``repr``, the shortest
    text that reads back as the same float, so the database gives back the exact numbers
    (finite ones: :func:`outcome_problem` refuses the others, JSON has no infinity).

    >>> adjusted_text(HandSummary(1, 2, (0, 0), adjusted=(0.1, -0.1)))
    '[0.1,-0.1]'
    """
    return "[" + ",".join(map(repr, map(float, hand.adjusted or ()))) + "]"


def fault_rows(seat: SeatOutcome) -> list[FaultRow]:
    """One faults row per kind the seat counted or has an example of.

    ``count`` is None for a kind with an example but no count, ``example_order`` None for
    a kind with a count but no example, so both of the seat's fault fields come back
    exactly.
    """
    examples = {example.kind: (order, example) for order, example in enumerate(seat.fault_examples)}
    rows: list[FaultRow] = []
    for kind in [*seat.fault_counts, *(k for k in examples if k not in seat.fault_counts)]:
        order, example = examples.get(kind, (None, None))
        rows.append(
            (
                seat.seat_index,
                kind,
                seat.fault_counts.get(kind),
                order,
                None if example is None else example.hand_number,
                None if example is None else example.message,
            )
        )
    return rows


def latency_rows(outcome: MatchOutcome) -> list[LatencyRow]:
    """One latency row per seat; the histogram as a JSON array of ``[bound, count]``."""
    return [
        (
            seat.seat_index,
            seat.latency.count,
            seat.latency.mean_ms,
            seat.latency.p50_ms,
            seat.latency.p99_ms,
            seat.latency.max_ms,
            json.dumps([[bound, count] for bound, count in seat.latency.histogram]),
        )
        for seat in outcome.seats
    ]


@dataclass(frozen=True, slots=True)
class OutcomeRows:
    """A match outcome's child rows, made before the write transaction starts."""

    seats: list[SeatRow]
    hands: list[HandRow]
    faults: list[FaultRow]
    latency: list[LatencyRow]

    @classmethod
    def of(cls, outcome: MatchOutcome) -> OutcomeRows:
        """The rows of ``outcome``."""
        return cls(
            seats=seat_rows(outcome),
            hands=hand_rows(outcome.hands),
            faults=[row for seat in outcome.seats for row in fault_rows(seat)],
            latency=latency_rows(outcome),
        )

    def insert(self, connection: sqlite3.Connection, match_row: int) -> None:
        """Insert every row for the match ``match_row`` (one prepared statement per table;
        seats first, as faults and latency refer to them)."""
        for table, rows in (
            ("match_seats", self.seats),
            ("hands", self.hands),
            ("faults", self.faults),
            ("latency", self.latency),
        ):
            if rows:
                marks = ", ".join("?" * (len(rows[0]) + 1))
                connection.executemany(
                    f"INSERT INTO {table} VALUES ({marks})", [(match_row, *row) for row in rows]
                )


#: The child tables and the order their rows are read back in.
_CHILD_ORDER = (
    ("match_seats", "c.seat_index"),
    ("hands", "c.hand_number"),
    ("faults", "c.rowid"),
    ("latency", "c.seat_index"),
)


def read_children(
    connection: sqlite3.Connection, where: str, parameters: Sequence[Any]
) -> dict[str, dict[int, list[tuple[Any, ...]]]]:
    """The child rows of the matches ``m`` that ``where`` selects, by table and match row
    id, each row without that id, in the order :func:`outcome_from_rows` wants."""
    children: dict[str, dict[int, list[tuple[Any, ...]]]] = {}
    for table, order in _CHILD_ORDER:
        grouped: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
        for row in connection.execute(
            f"SELECT c.* FROM {table} c JOIN matches m ON m.id = c.match_row"
            f" WHERE {where} ORDER BY c.match_row, {order}",
            parameters,
        ):
            grouped[row[0]].append(row[1:])
        children[table] = grouped
    return children


def parse_nets(text: str) -> tuple[int, ...]:
    """The nets as :func:`hand_rows` writes them, read without ``json.loads`` (twice as
    fast, and a report reads every hand of a tournament).

    >>> parse_nets("[-10,10]"), parse_nets("[]")
    ((-10, 10), ())
    """
    inner = text[1:-1]
    return tuple(map(int, inner.split(","))) if inner else ()


def parse_adjusted(text: str | None) -> tuple[float, ...] | None:
    """The luck-adjusted results as :func:`adjusted_text` writes them (None: NULL).

    >>> parse_adjusted("[0.1,-0.1]"), parse_adjusted(None)
    ((0.1, -0.1), None)
    """
    if text is None:
        return None
    inner = text[1:-1]
    return tuple(map(float, inner.split(","))) if inner else ()


def hand_from_row(row: Sequence[Any]) -> HandSummary:
    """A hand summary from ``(hand_number, big_blind, pot, went_to_showdown, nets_json,
    adjusted_json)`` (a version 1 file read as it is has no ``adjusted_json``)."""
    hand_number, big_blind, pot, went_to_showdown, nets_json = row[:5]
    return HandSummary(
        hand_number=hand_number,
        big_blind=big_blind,
        nets=parse_nets(nets_json),
        pot=pot,
        went_to_showdown=bool(went_to_showdown),
        adjusted=parse_adjusted(row[5]) if len(row) > 5 else None,
    )


def seat_from_rows(
    seat: Sequence[Any], faults: Sequence[Sequence[Any]], latency: Sequence[Any]
) -> SeatOutcome:
    """A seat's outcome from its match_seats row, its faults rows (in the order written)
    and its latency row, each without the match's row id (the column order of
    :func:`seat_rows`, :func:`fault_rows`, :func:`latency_rows`)."""
    fault_counts: dict[str, int] = {}
    examples: list[tuple[int, FaultExample]] = []
    for _, kind, count, order, hand_number, message in faults:
        if count is not None:
            fault_counts[kind] = count
        if order is not None:
            examples.append((order, FaultExample(kind, hand_number, message)))
    _, count, mean_ms, p50_ms, p99_ms, max_ms, histogram_json = latency
    summary = LatencySummary(
        count=count,
        mean_ms=mean_ms,
        p50_ms=p50_ms,
        p99_ms=p99_ms,
        max_ms=max_ms,
        histogram=tuple((bound, bucket) for bound, bucket in json.loads(histogram_json)),
    )
    index, bot, chips_won, place, hands_played, final_stack, eliminated, path, size = seat
    return SeatOutcome(
        seat_index=index,
        bot=bot,
        chips_won=chips_won,
        place=place,
        hands_played=hands_played,
        final_stack=final_stack,
        eliminated_in_hand=eliminated,
        fault_counts=fault_counts,
        fault_examples=tuple(example for _, example in sorted(examples, key=lambda e: e[0])),
        latency=summary,
        stderr_path=path,
        stderr_bytes=size,
    )


def outcome_from_rows(
    match: Sequence[Any], children: Mapping[str, Mapping[int, Sequence[Sequence[Any]]]]
) -> MatchOutcome:
    """A match's outcome from its matches row (``id, match_id, ended_reason, hands_path,
    duration_s, error, extra_json, estimator``) and, for each child table, its rows by match row id
    (each row without that id; seats and latency by seat, hands by number, faults in the
    order written)."""
    match_row, match_id, ended_reason, hands_path, duration_s, error, extra_json, estimator = match
    faults: dict[int, list[Sequence[Any]]] = defaultdict(list)
    for row in children["faults"].get(match_row, ()):
        faults[row[0]].append(row)
    latency = {row[0]: row for row in children["latency"].get(match_row, ())}
    return MatchOutcome(
        match_id=match_id,
        seats=tuple(
            seat_from_rows(seat, faults[seat[0]], latency[seat[0]])
            for seat in children["match_seats"].get(match_row, ())
        ),
        hands=tuple(hand_from_row(row) for row in children["hands"].get(match_row, ())),
        ended_reason=ended_reason,
        hands_path=hands_path,
        duration_s=duration_s,
        error=error,
        extra=json.loads(extra_json),
        estimator=estimator,
    )


def outcome_problem(outcome: MatchOutcome) -> str | None:
    """Why the outcome's rows would not come back as the outcome, or None.

    >>> outcome_problem(MatchOutcome("m", (), (HandSummary(2, 2, ()), HandSummary(1, 2, ())),
    ...     "hands", None, 1.0))
    'hand 1 follows hand 2: hands must be in order, no repeats'
    """
    seat_indexes = [seat.seat_index for seat in outcome.seats]
    if any(before >= after for before, after in pairwise(seat_indexes)):
        return f"seats are not in seat order without repeats: {seat_indexes}"
    numbers = [hand.hand_number for hand in outcome.hands]
    for before, after in pairwise(numbers):
        if before >= after:
            return f"hand {after} follows hand {before}: hands must be in order, no repeats"
    for hand in outcome.hands:
        adjusted = hand.adjusted
        if adjusted is not None and (
            len(adjusted) != len(hand.nets) or not all(map(math.isfinite, adjusted))
        ):
            return (
                f"hand {hand.hand_number}: adjusted results {list(adjusted)} are not one "
                f"finite number per seat (nets {list(hand.nets)})"
            )
    for seat in outcome.seats:
        kinds = [example.kind for example in seat.fault_examples]
        if len(set(kinds)) != len(kinds):
            return f"seat {seat.seat_index} has two fault examples of one kind: {kinds}"
    return None


def bots_problem(outcome: MatchOutcome, planned: Sequence[str]) -> str | None:
    """How the outcome's seats differ from the bots the plan put there, or None (a mix-up
    is our own bug).

    >>> bots_problem(MatchOutcome("m", (SeatOutcome(1, "b", 0, 1, 9),), (), "hands", None, 1.0),
    ...     ["a", "c"])
    "match 'm' has bot 'b' in seat 1; the plan seats 'c' there (plan: ['a', 'c'])"
    """
    for seat in outcome.seats:
        expected = planned[seat.seat_index] if 0 <= seat.seat_index < len(planned) else None
        if seat.bot != expected:
            return (
                f"match {outcome.match_id!r} has bot {seat.bot!r} in seat {seat.seat_index};"
                f" the plan seats {expected!r} there (plan: {list(planned)})"
            )
    return None
