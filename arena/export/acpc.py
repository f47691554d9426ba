"""Export hands as the ACPC dealer's log lines, for the Annual Computer Poker Competition's
analysis tools.

The ACPC dealer (``project_acpc_server``) logs each finished hand as one line::

    STATE:<hand>:<betting>:<hole cards><board>:<outcome>:<players>

* positions are the ACPC player numbers: the first player left of the button first and the
  button last, except heads-up, where the ACPC plays "reverse blinds": position 0 is the big
  blind and position 1 the button, who posts the small blind (our dealing order in both
  cases, the order PHH uses too);
* ``<betting>``: ``f`` fold, ``c`` check or call, ``r`` a limit bet or raise, ``r<size>`` a
  no-limit bet or raise *to* ``size``, the chips the player has put in during the whole
  hand (blinds and earlier rounds included); rounds are separated by ``/``. When the
  betting ends with at most one player able to act, the dealer jumps to the last round, so
  an all-in before the river ends in ``/`` for each round left (``r200c///``);
* ``<hole cards>``: every player's cards in position order separated by ``|`` (the log
  shows all of them, folded hands too), then ``/`` and each round's board cards;
* ``<outcome>``: each player's chips won or lost in the hand, ``|``-separated;
* ``<players>``: the players' names, ``|``-separated.

The ACPC's betting rules differ from ours in two places, handled here:

* Its round ends only when every player who can still act has acted: a big blind left
  alone with chips when everyone else called all-in for no more than the blind must still
  "call" (check) - our dealer asks nothing then. Those free checks are written (``c``),
  as the ACPC dealer would have asked for them.
* It does not allow a fold when checking is free (``f`` is invalid then); we allow it (a
  bot's choice, or a timeout's default fold). Such a hand is refused.

Refused as well, with a reason (:class:`~arena.export.refusals.HandRefused`): five-card
draw and pot-limit (the ACPC games are limit or no-limit hold'em), antes (ACPC games have
only blinds), blinds not posted in full by the usual players (a dead or short blind), and
voided or unfinished hands. The outcome is our chips: where the ACPC dealer splits a pot's
odd chips in fractions (``0.5``), ours went whole to the first winners left of the button,
as the arena paid them.

A file starts with ``#`` comment lines (ACPC tools skip them), each match's hands follow a
``# match`` comment, and a ``SCORE`` line gives each player's total over the exported
hands, as the dealer's log ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TextIO

from arena.export.refusals import ExportSummary, HandRefused, Refusal, replay
from arena.export.sources import SourceHand
from engine.actions import ActionKind
from engine.cards import Card
from engine.config import BettingStructure, GameConfig, Variant
from engine.events import ActionTaken, BlindPosted, HandStarted, HoleCardsDealt, StreetDealt
from engine.hand import Hand
from engine.phases import Phase
from protocol.inert import control_characters, inert_text

__all__ = ["ACPC_LOG_SUFFIX", "acpc_name", "acpc_state_line", "write_acpc"]

#: A file name ending with this is one log; any other output is a folder of logs.
ACPC_LOG_SUFFIX = ".log"

_ROUNDS = (Phase.PRE_FLOP, Phase.FLOP, Phase.TURN, Phase.RIVER)
_ROUND_INDEX = {phase: index for index, phase in enumerate(_ROUNDS)}


def acpc_name(name: str) -> str:
    """A player name the log can hold: ``:`` and ``|`` separate fields, and a line break
    (``\\n``, NEL, U+2028, U+2029) or any other control character (C0, DEL, C1, bidi
    controls: :func:`protocol.inert.control_characters`) would end the line or disguise
    the name, so each becomes ``_``.

    >>> acpc_name("bot:v2|beta"), acpc_name("next\\x85line\\u2028bot\\u202e")
    ('bot_v2_beta', 'next_line_bot_')
    """
    return "".join("_" if char in ":|" or control_characters(char) else char for char in name)


class _Betting:
    """The ACPC dealer's betting state (its ``game.c``): who acts, and what an action does.

    Positions are ACPC player numbers; ``stacks`` are the chips each brought to the hand.
    """

    def __init__(
        self,
        stacks: Sequence[int],
        blinds: Sequence[int],
        big_blind: int,
        limit_sizes: Sequence[int] | None,
    ) -> None:
        self.count = len(stacks)
        self.stacks = list(stacks)
        self.spent = list(blinds)
        self.big_blind = big_blind
        # Limit: each round's bet (``raiseSize``); None for no-limit.
        self.limit_sizes = limit_sizes
        self.max_spent = max(blinds)
        # No-limit: the smallest raise-to; calling the big blind and raising by it.
        self.min_raise_to = 2 * self.max_spent
        self.folded = [False] * self.count
        self.round = 0
        self.rounds: list[list[tuple[int, str]]] = [[]]
        self.is_finished = False
        # The first player of each round: left of the big blind pre-flop (heads-up the
        # button), position 0 afterwards (heads-up the big blind).
        self.first = [1 if self.count == 2 else 2, 0, 0, 0]

    def _can_act(self, position: int) -> bool:
        return not self.folded[position] and self.spent[position] < self.stacks[position]

    def _acting_count(self) -> int:
        return sum(self._can_act(p) for p in range(self.count))

    def current(self) -> int:
        """The position the ACPC dealer asks next."""
        actions = self.rounds[self.round]
        position = actions[-1][0] if actions else self.first[self.round] - 1
        for _ in range(self.count):
            position = (position + 1) % self.count
            if self._can_act(position):
                return position
        raise AssertionError("no player can act in an unfinished ACPC hand")  # pragma: no cover

    def _called_count(self) -> int:
        """Players (not all-in) who called the current bet or made it (``numCalled``)."""
        count = 0
        for position, action in reversed(self.rounds[self.round]):
            is_acting = self.spent[position] < self.stacks[position]
            if action.startswith("r"):
                return count + is_acting
            if action == "c":
                count += is_acting
        return count

    def act(self, position: int, action: str, size: int = 0) -> None:
        """Apply ``action`` (``f``, ``c`` or ``r``; ``size`` the no-limit raise-to)."""
        if action == "f":
            self.folded[position] = True
        elif action == "c":
            self.spent[position] = min(self.max_spent, self.stacks[position])
        elif self.limit_sizes is not None:
            # A limit raise is one bet more, or the whole stack when that is less.
            size = min(self.max_spent + self.limit_sizes[self.round], self.stacks[position])
            self.max_spent = self.spent[position] = size
        else:
            # The next raise must raise by at least as much as this one did.
            self.min_raise_to = max(self.min_raise_to, 2 * size - self.max_spent)
            self.max_spent = self.spent[position] = size
            action = f"r{size}"
        self.rounds[self.round].append((position, action))
        self._end_round_if_over()

    def _end_round_if_over(self) -> None:
        if sum(self.folded) + 1 >= self.count:
            self.is_finished = True  # one player left: no showdown
            return
        acting = self._acting_count()
        if self._called_count() < acting:
            return
        if acting > 1 and self.round < len(_ROUNDS) - 1:
            self.round += 1
            self.rounds.append([])
            self.min_raise_to = self.max_spent + self.big_blind
            return
        self.is_finished = True
        # Not enough players left to bet: the dealer goes straight to the last round.
        while len(self.rounds) < len(_ROUNDS):
            self.rounds.append([])
        self.round = len(_ROUNDS) - 1

    def text(self) -> str:
        """The betting string, rounds up to the current one separated by ``/``."""
        return "/".join("".join(action for _, action in actions) for actions in self.rounds)


def _refuse_game(config: GameConfig) -> None:
    if config.variant is not Variant.HOLDEM:
        raise HandRefused(
            "unsupported_variant",
            "five-card draw has a draw, which the ACPC protocol cannot record (hold'em only)",
        )
    if config.structure is BettingStructure.POT_LIMIT:
        raise HandRefused(
            "unsupported_betting",
            "pot-limit: the ACPC protocol has limit and no-limit betting only",
        )
    if config.ante:
        raise HandRefused("antes", "the hand has antes, which ACPC games do not have")


def _blinds(hand: Hand, order: Sequence[int]) -> list[int]:
    """Each position's blind, refusing blinds an ACPC game cannot deal."""
    config = hand.config
    count = len(order)
    # ACPC games put the blinds on fixed positions: heads-up [big, small], else [small, big].
    expected = [config.big_blind, config.small_blind] if count == 2 else [0] * count
    if count > 2:
        expected[0], expected[1] = config.small_blind, config.big_blind
    posted = [0] * count
    for event in hand.events:
        if isinstance(event, BlindPosted):
            posted[order.index(event.seat_index)] += event.amount
    if posted != expected:
        raise HandRefused(
            "blinds",
            f"the blinds posted by position were {posted}, not {expected}: a dead or short "
            "blind, which an ACPC game (fixed blinds by position) cannot deal",
        )
    return posted


def _cards(cards: Iterable[Card]) -> str:
    return "".join(str(card) for card in cards)


def acpc_state_line(hand: Hand, names: Mapping[str, str] | None = None) -> str:
    """The ``STATE`` line of the finished ``hand``; ``names`` maps player ids to names
    (default: the player ids). Raises ``HandRefused`` for a hand ACPC cannot express."""
    config = hand.config
    _refuse_game(config)
    result = hand.result
    if result is None or result.ended_reason == "VOID":
        raise HandRefused("unfinished_hand", f"hand {hand.hand_number} was voided or not finished")
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    order = [seat_index for seat_index, _, _ in started.seats]
    position = {seat_index: index for index, seat_index in enumerate(order)}
    stacks = [stack for _, _, stack in started.seats]
    small, big = config.small_bet, config.big_bet
    is_limit = config.structure is BettingStructure.FIXED_LIMIT
    betting = _Betting(
        stacks,
        _blinds(hand, order),
        config.big_blind,
        (small, small, big, big) if is_limit else None,
    )
    hole: list[str] = [""] * len(order)
    board: list[str] = []
    for event in hand.events:
        if isinstance(event, HoleCardsDealt):
            hole[position[event.seat_index]] = _cards(event.cards)
        elif isinstance(event, ActionTaken):
            _act(betting, position[event.seat_index], event)
        elif isinstance(event, StreetDealt):
            round_index = _ROUND_INDEX[event.phase]
            while not betting.is_finished and betting.round < round_index:
                _free_check(betting, f"the {event.phase.lower()} was dealt")
            board.append(_cards(event.cards))
    if not betting.is_finished:  # pragma: no cover - a difference not foreseen: never guess
        raise HandRefused("not_acpc", "the ACPC dealer's hand would go on where ours ended")
    net = result.net_chips
    outcome = "|".join(str(net[seat_index]) for seat_index in order)
    players = "|".join(
        acpc_name((names or {}).get(player_id, player_id)) for _, player_id, _ in started.seats
    )
    cards = "|".join(hole) + "".join("/" + cards for cards in board[: betting.round])
    return f"STATE:{hand.hand_number}:{betting.text()}:{cards}:{outcome}:{players}"


def _free_check(betting: _Betting, before: str) -> None:
    """A check the ACPC dealer asks for and ours does not: the player owes nothing (a big
    blind left alone with chips); ``before`` names what our hand did next."""
    player = betting.current()
    if betting.spent[player] != betting.max_spent:  # pragma: no cover - never guess
        raise HandRefused(
            "not_acpc", f"the ACPC dealer's betting differs from ours before {before}"
        )
    betting.act(player, "c")


def _act(betting: _Betting, player: int, event: ActionTaken) -> None:
    if (  # pragma: no cover - a difference of the rules not foreseen here: never guess
        betting.is_finished
        or betting.round != _ROUND_INDEX[event.phase]
        or betting.current() != player
    ):
        raise HandRefused(
            "not_acpc",
            f"the ACPC dealer would not ask position {player} on the {event.phase.lower()}",
        )
    if event.kind is ActionKind.FOLD:
        if betting.spent[player] >= betting.max_spent:
            raise HandRefused(
                "free_fold",
                f"a player folded on the {event.phase.lower().replace('_', '-')} when checking "
                "was free, which the ACPC protocol does not allow",
            )
        betting.act(player, "f")
    elif event.kind is ActionKind.RAISE:
        betting.act(player, "r", betting.spent[player] + event.amount)
    else:
        betting.act(player, "c")


def _write_match_comment(file: TextIO, source: SourceHand, config: GameConfig) -> None:
    structure = "limit" if config.structure is BettingStructure.FIXED_LIMIT else "nolimit"
    file.write(
        f"# match {inert_text(source.match_id)}: {structure} hold'em, blinds "
        f"{config.small_blind}/{config.big_blind}\n"
    )


class _LogFile:
    """One log being written: its comment header, lines and the closing SCORE line."""

    def __init__(self, path: Path, summary: ExportSummary) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("w", encoding="utf-8", newline="\n")
        self.file.write("# poker-arena hands as ACPC dealer log lines\n")
        self.file.write("# STATE:<hand>:<betting>:<cards>:<chips won>:<players>\n")
        self.totals: dict[str, int] = {}
        self.match_id: str | None = None
        summary.paths.append(path)

    def add(self, source: SourceHand, hand: Hand, line: str) -> None:
        if source.match_id != self.match_id:
            self.match_id = source.match_id
            _write_match_comment(self.file, source, hand.config)
        self.file.write(line + "\n")
        _, values, players = line.rsplit(":", 2)
        for name, value in zip(players.split("|"), values.split("|"), strict=True):
            self.totals[name] = self.totals.get(name, 0) + int(value)

    def close(self) -> None:
        # A log is opened for its first line: there is always a total.
        values = "|".join(str(value) for value in self.totals.values())
        self.file.write(f"SCORE:{values}:{'|'.join(self.totals)}\n")
        self.file.close()


def write_acpc(hands: Iterable[SourceHand], out: Path) -> ExportSummary:
    """Write ``hands`` as ACPC log lines: one file when ``out`` ends in ``.log``, else a
    folder with one ``<match id>.log`` per match. Refused hands are counted, not fatal."""
    summary = ExportSummary("acpc")
    logs: dict[str, _LogFile] = {}
    try:
        for source in hands:
            try:
                hand = replay(source)
                line = acpc_state_line(hand, source.names)
            except HandRefused as refused:
                summary.refuse(Refusal(source.label, refused.code, refused.message))
                continue
            key = "" if out.suffix == ACPC_LOG_SUFFIX else source.match_id
            if key not in logs:
                path = out if not key else out / f"{source.match_file_name}{ACPC_LOG_SUFFIX}"
                logs[key] = _LogFile(path, summary)
            logs[key].add(source, hand, line)
            summary.written += 1
    finally:
        for log in logs.values():
            log.close()
    return summary
