"""The phases a hand may move between, as a table (the model is h11's ``_state.py``).

Theory of operation
-------------------
A :class:`~engine.hand.Hand` is one deal (its state is kept by ``engine.hand_state``, its
ending is paid out by ``engine.settlement``). It is created in ``WAITING_FOR_PLAYERS`` and
``Hand.start`` moves it at once to ``GAME_STARTED`` (``HandStarted``), posts antes and
blinds (``BLINDS_POSTED``), deals hole cards and then follows the variant's *plan*
(``engine.variants``): a tuple of steps such as "betting round PRE_FLOP", "deal the flop",
"draw round". A step that needs a decision stops the machine with ``actor_index`` set;
``Hand.act`` validates the decision against ``legal_actions()`` (check first, then
change), applies it and runs the machine on until the next decision or the end. Nothing
else moves a hand, so the phase changes below are the only ones that can happen.

Streets are entered in plan order and never skipped: when no more betting is possible
(everyone but at most one player is all-in) the remaining streets are still entered one by
one, just without betting, which deals the rest of the board at once. Five-card draw's
``DRAW`` is played even then: it stops the machine once for each player still in the hand,
all-in players included (a ``Discard`` each; the rules are in ``engine.draw``); nobody
folds in it, so it always leads to ``POST_DRAW_BET``. A hand leaves the betting streets in
one of three ways: everyone else folded (``POT_DISTRIBUTION`` straight away, no showdown),
the last betting round ended (``SHOWDOWN``, then ``POT_DISTRIBUTION``), or an invariant
failed (``HAND_COMPLETE`` with a ``HandVoided`` event: the hand is called off and every
contribution refunded). ``HAND_COMPLETE`` is final: the next hand is a new ``Hand`` object
(going from one hand's ``HAND_COMPLETE`` to the next hand's ``BLINDS_POSTED`` is the table
starting the next hand).

Any change not in :data:`TRANSITIONS` is a dealer bug and raises ``InvariantError``.
"""

from __future__ import annotations

from engine.errors import InvariantError
from engine.phases import Phase

__all__ = ["TRANSITIONS", "check_transition"]

_P = Phase

#: Allowed phase changes. Every phase may also jump to HAND_COMPLETE when the hand is voided.
TRANSITIONS: dict[Phase, frozenset[Phase]] = {
    _P.WAITING_FOR_PLAYERS: frozenset({_P.GAME_STARTED}),
    _P.GAME_STARTED: frozenset({_P.BLINDS_POSTED}),
    # Hold'em goes to PRE_FLOP, five-card draw to PRE_DRAW_BET.
    _P.BLINDS_POSTED: frozenset({_P.PRE_FLOP, _P.PRE_DRAW_BET}),
    _P.PRE_FLOP: frozenset({_P.FLOP, _P.POT_DISTRIBUTION}),
    _P.FLOP: frozenset({_P.TURN, _P.POT_DISTRIBUTION}),
    _P.TURN: frozenset({_P.RIVER, _P.POT_DISTRIBUTION}),
    _P.RIVER: frozenset({_P.SHOWDOWN, _P.POT_DISTRIBUTION}),
    _P.PRE_DRAW_BET: frozenset({_P.DRAW, _P.POT_DISTRIBUTION}),
    _P.DRAW: frozenset({_P.POST_DRAW_BET, _P.POT_DISTRIBUTION}),
    _P.POST_DRAW_BET: frozenset({_P.SHOWDOWN, _P.POT_DISTRIBUTION}),
    _P.SHOWDOWN: frozenset({_P.POT_DISTRIBUTION}),
    _P.POT_DISTRIBUTION: frozenset({_P.HAND_COMPLETE}),
    _P.HAND_COMPLETE: frozenset(),
}


def check_transition(current: Phase, target: Phase) -> None:
    """Raise ``InvariantError`` unless ``current -> target`` is in the table (or a void).

    >>> check_transition(Phase.FLOP, Phase.TURN)
    >>> check_transition(Phase.FLOP, Phase.RIVER)
    Traceback (most recent call last):
    ...
    engine.errors.InvariantError: illegal phase change FLOP -> RIVER
    """
    if target in TRANSITIONS[current]:
        return
    if target is Phase.HAND_COMPLETE and current is not Phase.HAND_COMPLETE:
        return  # a void may end the hand from any phase
    raise InvariantError("illegal_transition", f"illegal phase change {current} -> {target}")
