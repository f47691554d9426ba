"""Export hands to the Poker Hand History format (PHH): one ``.phh`` file per hand, or
one ``.phhs`` collection.

Each hand is the TOML text of :mod:`engine.phh` (the variant, blinds, antes, stacks,
every card and action, the finishing stacks), with the players' names instead of their
seat ids, ``table`` the match id and ``hand`` the hand number. A ``.phhs`` file holds the
hands one after another as TOML tables ``[1]``, ``[2]``, ... (what pokerkit's
``HandHistory.load_all`` reads and ``dump_all`` writes); a folder gets
``<match id>/<hand number>.phh``.

What PHH cannot express is refused, hand by hand, with the reason:

* five-card draw, whatever its betting: "PHH has no five-card draw" (its draw games,
  ``N2L1D`` and ``F2L3D``, are deuce-to-seven lowball), the same reason for every hand of
  the match, checked before anything else about the hand;
* pot-limit hold'em: PHH has no variant code for it (``PO`` is pot-limit Omaha);
* fixed-limit hands with more than four bets and raises in one round. PHH's fixed-limit
  hold'em (``FT``) has no field for the cap, and its reader (pokerkit) allows four
  completions, bets or raises per round whatever the number of players. Our cap (one bet
  and three raises) is lifted when two players are left, so a heads-up raising war goes
  past it: play with ``cap_heads_up = true`` in the game to keep the cap and export those
  matches whole;
* voided or unfinished hands, and histories that do not replay as recorded.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from arena.export.refusals import ExportSummary, HandRefused, Refusal, replay
from arena.export.sources import SourceHand
from engine.actions import ActionKind
from engine.config import BettingStructure, Variant
from engine.events import ActionTaken
from engine.hand import Hand
from engine.phh import PhhError, dumps_phh, phh_fields

__all__ = [
    "NO_FIVE_CARD_DRAW",
    "PHHS_SUFFIX",
    "PHH_RAISE_LIMIT",
    "PHH_SUFFIX",
    "hand_phh_fields",
    "write_phh",
]

PHH_SUFFIX = ".phh"
#: A file name ending with this is one collection; any other output is a folder.
PHHS_SUFFIX = ".phhs"
#: Completions, bets and raises per round in PHH's fixed-limit hold'em, as pokerkit reads it.
PHH_RAISE_LIMIT = 4
#: Why a five-card draw hand is not exported (docs/export.md says the same).
NO_FIVE_CARD_DRAW = (
    "PHH has no five-card draw (its draw games, N2L1D and F2L3D, are deuce-to-seven "
    "lowball, another game)"
)


def _check_fixed_limit_raises(hand: Hand) -> None:
    """Refuse a fixed-limit hand with more bets and raises in a round than PHH allows."""
    raises: dict[str, int] = {}
    full: dict[str, int] = {}
    for event in hand.events:
        if isinstance(event, ActionTaken) and event.kind is ActionKind.RAISE:
            street = str(event.phase)
            raises[street] = raises.get(street, 0) + 1
            full[street] = full.get(street, 0) + event.is_full_raise
    for street, count in raises.items():
        if count <= PHH_RAISE_LIMIT:
            continue
        name = street.lower().replace("_", "-")
        # Our cap counts the big blind as the pre-flop bet, and only full raises.
        capped = full[street] + (street == "PRE_FLOP")
        if capped > hand.config.raise_cap:
            raise HandRefused(
                "raise_cap_lifted",
                f"{count} bets and raises on the {name} with two players left (the fixed-limit "
                f"cap is lifted heads-up); PHH's fixed-limit hold'em allows {PHH_RAISE_LIMIT} "
                "per round: set cap_heads_up = true in the game to keep the cap",
            )
        raise HandRefused(
            "too_many_raises",
            f"{count} bets and raises on the {name} (all-ins for less than half a bet do not "
            f"count towards our cap); PHH's fixed-limit hold'em allows {PHH_RAISE_LIMIT} "
            "per round",
        )


def hand_phh_fields(source: SourceHand, hand: Hand) -> dict[str, Any]:
    """The PHH fields of the replayed ``hand`` recorded as ``source``; raises
    ``HandRefused`` for a hand PHH cannot express."""
    if hand.config.variant is Variant.FIVE_CARD_DRAW:
        # First: a draw hand's betting (a fixed-limit raise count) is beside the point.
        raise HandRefused("unsupported_variant", NO_FIVE_CARD_DRAW)
    if hand.config.structure is BettingStructure.FIXED_LIMIT:
        _check_fixed_limit_raises(hand)
    seat_count = max(len(source.names), *(seat.seat_index + 1 for seat in hand.seats))
    try:
        fields = phh_fields(hand, seat_count=seat_count, table=source.match_id)
    except PhhError as error:
        raise HandRefused(error.code, str(error)) from None
    fields["players"] = [source.names.get(player, player) for player in fields["players"]]
    return fields


class _Writer:
    """Where the hands go: sections of one ``.phhs`` file, or a file per hand."""

    def __init__(self, out: Path, summary: ExportSummary) -> None:
        self.out = out
        self.summary = summary
        self.collection: TextIO | None = None

    def write(self, source: SourceHand, text: str) -> None:
        summary = self.summary
        summary.written += 1
        if self.out.suffix != PHHS_SUFFIX:
            path = self.out / source.match_file_name / f"{source.hand_number}{PHH_SUFFIX}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n", encoding="utf-8", newline="\n")
            summary.paths.append(path)
            return
        if self.collection is None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self.collection = self.out.open("w", encoding="utf-8", newline="\n")
            summary.paths.append(self.out)
        else:
            self.collection.write("\n")
        self.collection.write(f"[{summary.written}]\n{text}\n")

    def close(self) -> None:
        if self.collection is not None:
            self.collection.close()


def write_phh(hands: Iterable[SourceHand], out: Path) -> ExportSummary:
    """Write ``hands`` as PHH: one collection when ``out`` ends in ``.phhs``, else a folder
    of ``<match id>/<hand number>.phh`` files. Refused hands are counted, not fatal."""
    summary = ExportSummary("phh")
    writer = _Writer(out, summary)
    try:
        for source in hands:
            try:
                fields = hand_phh_fields(source, replay(source))
            except HandRefused as refused:
                summary.refuse(Refusal(source.label, refused.code, refused.message))
                continue
            writer.write(source, dumps_phh(fields))
    finally:
        writer.close()
    return summary
