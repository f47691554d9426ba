"""Each player's *lean*: how much more often it bets its made hands than its other hands,
counted on its earlier hands of a match (the made-hand term's weight per seat,
:mod:`arena.luck.made_hands`).

For every street from the flop on where a player still in acted, the street counts as
*made* when the player's own cards made two pair or better above the board's category
(:func:`~arena.luck.made_hands.is_made`), and as a *bet* when the player bet or raised on
it (a raise, or an all-in). The lean is the share of made streets it bet on minus the
share of its other streets it bet on, 0 when that is negative and until it has had
:data:`MIN_STREETS` streets of each kind. A calling station never bets: its lean is 0,
and the term leaves its hands' value alone. A bot that bets when it hits leans towards 1.

The counts read every hand (the dealer's record: the host knows every card); a lean is
used for later hands only, never shown to anyone. Hands are counted in the order they are
given, so the same hands give the same leans. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from arena.luck.made_hands import is_made
from arena.luck.timeline import LuckError, event_cards
from engine.cards import Card

__all__ = ["MIN_STREETS", "BettingLeans", "match_leans"]

#: Streets of each kind (made, not made) a player has had before its lean counts.
MIN_STREETS = 2
#: The actions that put chips in beyond a call (an all-in may be a call: it counts too).
_AGGRESSIVE = frozenset({"RAISE", "ALL_IN"})


class BettingLeans:
    """Counts of each player's made and other streets and its bets on them, from the
    hands :meth:`observe` was given; :meth:`lean` reads them."""

    def __init__(self) -> None:
        # Per player id: [made streets, bets on them, other streets, bets on them].
        self._counts: dict[str, list[int]] = {}

    def lean(self, player_id: str) -> float:
        """The player's lean (0 for a player not seen, or not seen enough).

        >>> BettingLeans().lean("p0")
        0.0
        """
        counts = self._counts.get(player_id)
        if counts is None or counts[0] < MIN_STREETS or counts[2] < MIN_STREETS:
            return 0.0
        return max(0.0, counts[1] / counts[0] - counts[3] / counts[2])

    def leans(self, history: Mapping[str, Any]) -> dict[str, float]:
        """The leans of the players of ``history``'s seats, by player id (those above 0)."""
        seats = history.get("seats")
        if not isinstance(seats, list):
            raise LuckError(f"a history's seats must be a list, got {seats!r}")
        found = {}
        for seat in seats:
            player = seat.get("player_id") if isinstance(seat, dict) else None
            lean = self.lean(player) if isinstance(player, str) else 0.0
            if lean > 0:
                found[str(player)] = lean
        return found

    def take(self, history: Mapping[str, Any]) -> dict[str, float]:
        """The leans the hand of ``history`` is estimated with (:meth:`leans`: those of
        the hands counted so far), then the hand counted (:meth:`observe`) for the ones
        after it: in this order, so that no hand's own cards weigh its estimate."""
        leans = self.leans(history)
        self.observe(history)
        return leans

    def observe(self, history: Mapping[str, Any]) -> None:
        """Count the streets of one finished hand (a hand history as ``hands.jsonl``
        stores it). Five-card draw has no streets: nothing is counted. A history that
        cannot be read raises :class:`~arena.luck.timeline.LuckError` and counts nothing."""
        config = history.get("config")
        if isinstance(config, dict) and config.get("variant") == "five_card_draw":
            return
        try:
            streets = _streets(history)
        except (KeyError, TypeError, ValueError) as error:
            raise LuckError(f"cannot count a hand's streets: {error!r}") from error
        for player, made, bet in streets:
            counts = self._counts.setdefault(player, [0, 0, 0, 0])
            index = 0 if made else 2
            counts[index] += 1
            counts[index + 1] += bet


def _streets(history: Mapping[str, Any]) -> list[tuple[str, bool, bool]]:
    """Per player and street from the flop on where it acted: whether its cards made a
    made hand there and whether it bet or raised."""
    players = {seat["seat_index"]: str(seat["player_id"]) for seat in history["seats"]}
    holes: dict[int, tuple[Card, ...]] = {}
    board: tuple[Card, ...] = ()
    acted: dict[int, bool] = {}  # this street's actors: whether they bet
    found: list[tuple[str, bool, bool]] = []

    def close() -> None:
        for seat, bet in acted.items():
            found.append((players[seat], is_made(holes[seat], board), bet))
        acted.clear()

    for number, event in enumerate(history["events"]):
        kind = event["type"]
        if kind == "hole_cards_dealt":
            holes[event["seat_index"]] = event_cards(event["cards"], number)
        elif kind == "street_dealt":
            close()
            board = event_cards(event["board"], number)
        elif kind == "action_taken" and len(board) >= 3:
            seat = event["seat_index"]
            acted[seat] = acted.get(seat, False) or event["kind"] in _AGGRESSIVE
    close()
    return found


def match_leans(
    records: Iterable[Mapping[str, Any]],
) -> Iterator[tuple[Mapping[str, Any], dict[str, float]]]:
    """Each of one match's hand records (as ``hands.jsonl`` stores them), in the order
    given (the order played), with the players' leans the match estimated it with: those
    of the match's hands before it (:meth:`BettingLeans.take`; another match's hands,
    the other seating's included, never count). A history that cannot be counted raises
    :class:`~arena.luck.timeline.LuckError`."""
    leans = BettingLeans()
    for record in records:
        yield record, leans.take(record["history"])
