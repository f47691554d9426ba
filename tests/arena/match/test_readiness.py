"""Whether every bot is ready when a match begins (:mod:`arena.match.readiness`): who is
absent is read from the deciders' ledgers, and the error is one readable line."""

from __future__ import annotations

from typing import Any

from arena.match.readiness import AbsentBot, BotsNotReadyError, SeatName, absent_bots

SEATS = [SeatName(0, "p0", "alice"), SeatName(1, "p1", ""), SeatName(2, "p2", "carol")]


def ledgers(faults: dict[int, list[dict[str, Any]]]) -> Any:
    """A decider's ``seat_summary`` over these faults per seat (none: no ledger at all)."""

    def seat_summary(seat_index: int) -> tuple[bool, dict[str, Any]]:
        return False, {"faults": faults[seat_index]} if seat_index in faults else {}

    return seat_summary


def test_a_seat_is_absent_when_it_is_not_ready_and_its_ledger_says_why() -> None:
    summary = ledgers(
        {
            1: [
                {"kind": "unsolicited_line", "code": "not_ready"},
                {"kind": "startup_failure", "code": "exited", "detail": "exit code 2"},
            ],
            2: [{"kind": "startup_failure", "code": "cannot_start", "detail": "no such file"}],
        }
    )
    absent = absent_bots(SEATS, {0: "alice", 2: "carol"}, summary)
    # Seat 2 said ready after all (a restart would do that): only seat 1 is absent, and a
    # seat with no name is named by its player id.
    assert absent == [AbsentBot(1, "p1", "p1", "exited", "exit code 2")]


def test_a_decider_that_starts_nobody_has_no_absent_bots() -> None:
    # A replay reports no names of its own and keeps no ledger: nothing to stop for.
    assert absent_bots(SEATS, {}, ledgers({})) == []


def test_the_error_is_one_line_naming_each_bot_with_its_reason_cut_short() -> None:
    noisy = AbsentBot(0, "p0", "alice", "exited", "Traceback:\n  line 1\n" + "x" * 1500)
    quiet = AbsentBot(2, "p2", "carol", "startup_timeout", "no ready within 100 ms")
    error = BotsNotReadyError([noisy, quiet])
    text = str(error)
    assert "\n" not in text and error.code == "bots_not_ready"
    assert text.startswith("2 bots not ready at the start of the match: 'alice' (seat 0): exited")
    assert "Traceback: line 1 xxx" in text and "...; 'carol' (seat 2): startup_timeout" in text
    assert len(noisy.describe()) < 1060  # the reason is cut to 1000 characters
    assert error.absent == (noisy, quiet)
