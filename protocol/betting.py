"""A wire action name and amount checked against the engine's ``LegalActions``: the
legality rules that a one-action reply and each entry of a mixed strategy
(:mod:`protocol.strategy`) share.

>>> from engine.actions import LegalActions
>>> legal = LegalActions(
...     seat_index=1, stack=98, current_bet=2, committed=2, can_fold=True, can_check=True,
...     can_call=False, call_amount=0, can_raise=True, min_raise_to=4, max_raise_to=100,
... )
>>> action_from_reply("CALL", None, legal)
Check()
"""

from __future__ import annotations

from engine.actions import Action, AllIn, Call, Check, Fold, LegalActions, RaiseTo
from protocol.errors import ArenaBugError, BotReplyError, ErrorCode
from protocol.legal import all_in_is_legal, legal_action_names

__all__ = ["action_from_reply", "json_integer", "shown_value"]

_MAX_SHOWN = 60  # characters of a bad value quoted in a message


def action_from_reply(name: str, amount: int | None, legal: LegalActions) -> Action:
    """Map a wire action name and amount to an engine action, or reject it (legality only).

    RAISE's amount is the raise-to total for this round. CALL's amount, if given, must be
    ``current_bet``; a CALL with nothing to call is a CHECK (bots may say either). FOLD and
    CHECK ignore the amount; ALL_IN's amount, if given, must not exceed the stack.
    """
    if legal.can_draw:
        raise ArenaBugError(f"seat {legal.seat_index} is to draw; parse_action misused")
    seat = f"(seat {legal.seat_index})"
    if name == "CHECK":
        if legal.can_check:
            return Check()
        raise BotReplyError(
            ErrorCode.CANNOT_CHECK,
            f"cannot check: {legal.call_amount} to call, current bet {legal.current_bet} {seat}",
            "/action",
        )
    if name == "CALL":
        if amount is not None and amount != legal.current_bet:
            raise BotReplyError(
                ErrorCode.CALL_AMOUNT_MISMATCH,
                f"CALL amount {amount} must equal current_bet {legal.current_bet} "
                f"(the round total; to_call is {legal.call_amount}) or be left out {seat}",
                "/amount",
            )
        if legal.can_call and legal.call_amount > 0:
            return Call()
        if legal.can_check:  # a call with nothing to call is a check, not an error
            return Check()
        raise BotReplyError(ErrorCode.CANNOT_CALL, f"cannot call now {seat}", "/action")
    if name == "FOLD":
        if legal.can_fold:
            return Fold()
        raise BotReplyError(ErrorCode.CANNOT_FOLD, f"cannot fold now {seat}", "/action")
    if name == "RAISE":
        return RaiseTo(_checked_raise_to(amount, legal, seat))
    if name == "ALL_IN":
        return _checked_all_in(amount, legal, seat)
    raise BotReplyError(
        ErrorCode.UNKNOWN_ACTION,
        f"unknown action {shown_value(name)}; expected one of CHECK, CALL, FOLD, RAISE, ALL_IN",
        "/action",
    )


def _checked_raise_to(amount: int | None, legal: LegalActions, seat: str) -> int:
    if amount is None:  # the schema requires it; keep the engine safe anyway
        raise BotReplyError(ErrorCode.SCHEMA_VIOLATION, "RAISE needs an amount", "/amount")
    if not legal.can_raise:
        raise BotReplyError(
            ErrorCode.RAISING_NOT_ALLOWED,
            f"raise to {amount} not allowed: raising is closed now, legal actions are "
            f"{', '.join(legal_action_names(legal))} {seat}",
            "/action",
        )
    if amount > legal.all_in_to:
        raise BotReplyError(
            ErrorCode.AMOUNT_ABOVE_STACK,
            f"raise to {amount} needs {amount - legal.committed} chips, stack is "
            f"{legal.stack} (all-in is raise to {legal.all_in_to}) {seat}",
            "/amount",
        )
    if amount > legal.max_raise_to:
        raise BotReplyError(
            ErrorCode.RAISE_ABOVE_MAXIMUM,
            f"raise to {amount} above maximum {legal.max_raise_to} {seat}",
            "/amount",
        )
    if amount < legal.min_raise_to:
        raise BotReplyError(
            ErrorCode.RAISE_BELOW_MINIMUM,
            f"raise to {amount} below minimum {legal.min_raise_to} {seat}",
            "/amount",
        )
    return amount


def _checked_all_in(amount: int | None, legal: LegalActions, seat: str) -> AllIn:
    if amount is not None and amount > legal.stack:
        raise BotReplyError(
            ErrorCode.AMOUNT_ABOVE_STACK,
            f"ALL_IN amount {amount} is above the stack {legal.stack} {seat}",
            "/amount",
        )
    if all_in_is_legal(legal):
        return AllIn()
    total = legal.all_in_to
    if legal.can_raise and total > legal.max_raise_to:
        raise BotReplyError(
            ErrorCode.RAISE_ABOVE_MAXIMUM,
            f"all-in would raise to {total}, above maximum {legal.max_raise_to} {seat}",
            "/action",
        )
    if legal.can_raise:  # below the minimum: cannot happen with the engine's LegalActions
        raise BotReplyError(
            ErrorCode.RAISE_BELOW_MINIMUM,
            f"all-in would raise to {total}, below minimum {legal.min_raise_to} {seat}",
            "/action",
        )
    raise BotReplyError(
        ErrorCode.RAISING_NOT_ALLOWED,
        f"all-in would raise to {total} but raising is closed now, legal actions are "
        f"{', '.join(legal_action_names(legal))} {seat}",
        "/action",
    )


def json_integer(value: object) -> int | None:
    """The value if it is a JSON Schema ``integer`` (an int, or a float with no fraction)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def shown_value(value: object) -> str:
    """The value's ``repr``, cut to a length a message can quote."""
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."
