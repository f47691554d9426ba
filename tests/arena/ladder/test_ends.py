"""Re-run or result: how a ladder game ended (:mod:`arena.ladder.ends`)."""

from __future__ import annotations

import pytest

from arena.ladder.ends import EndAction, EndCause, classify_end, forfeit


def test_a_game_played_to_its_end_is_a_result_whatever_the_bots_did_in_it() -> None:
    decision = classify_end(EndCause.PLAYED, attempt=1)
    assert decision.action is EndAction.RESULT and decision.at_fault == ()


@pytest.mark.parametrize(
    "cause",
    [EndCause.WORKER_LOST, EndCause.DEADLINE, EndCause.SANDBOX_UNAVAILABLE, EndCause.ARENA_ERROR],
)
def test_an_infrastructure_failure_is_played_again_and_never_a_bots_loss(cause: EndCause) -> None:
    assert cause.is_infrastructure
    decision = classify_end(cause, attempt=1, max_attempts=3)
    assert decision.action is EndAction.RERUN and decision.at_fault == ()
    assert "played again" in decision.reason


def test_after_its_last_attempt_an_infrastructure_failure_is_left_out_with_its_reason() -> None:
    decision = classify_end(EndCause.WORKER_LOST, attempt=3, max_attempts=3, detail="host w2")
    assert decision.action is EndAction.VOID and decision.at_fault == ()
    assert (
        decision.reason == "the worker playing it stopped on each of 3 attempts: left out (host w2)"
    )


def test_a_bot_that_did_not_start_forfeits_and_is_named() -> None:
    decision = classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=["bob"])
    assert decision.action is EndAction.FORFEIT and decision.at_fault == ("bob",)
    assert not EndCause.BOT_NOT_READY.is_infrastructure


def test_when_neither_bot_started_there_is_no_result_but_both_faults_show() -> None:
    decision = classify_end(EndCause.BOT_NOT_READY, attempt=1, at_fault=("ann", "bob"))
    assert decision.action is EndAction.VOID and decision.at_fault == ("ann", "bob")


def test_a_forfeit_scores_the_faulty_bot_as_folding_every_hand() -> None:
    assert forfeit("ann", "bob", "ann", hand_count=200).score_for("ann") == -750.0
    game = forfeit("ann", "bob", "bob", hand_count=100, forfeit_mbb=1000.0)
    assert game.score_for("bob") == -1000.0 and game.raw_for("bob") == -1000.0 and game.is_rated
    with pytest.raises(ValueError, match="'cat' did not play"):
        forfeit("ann", "bob", "cat", hand_count=100)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"attempt": 0}, "attempt must be an integer of 1 or more"),
        ({"attempt": 1, "max_attempts": 0}, "max_attempts must be an integer of 1 or more"),
        ({"attempt": 1, "at_fault": ()}, "must be named"),
    ],
)
def test_a_bad_classification_request_is_refused(arguments: dict[str, object], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        classify_end(EndCause.BOT_NOT_READY, **arguments)  # type: ignore[arg-type]
