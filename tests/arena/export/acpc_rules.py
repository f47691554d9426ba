"""A reader of ACPC ``STATE`` lines that checks them against the ACPC protocol's rules,
written from the protocol document (not from the exporter), for the tests.

The rules checked, as the protocol states them: players act in turn from the game's
first player of each round, skipping players who folded or are all-in; a fold is valid
only when the player owes chips; a no-limit raise is *to* a total for the whole hand,
raises by at least the big blind and the largest raise of the round (or puts the player
all-in), and is not allowed when no other player could call it; a limit raise adds the
round's bet; a round ends when every player who can act has called the last bet or made
it; with fewer than two players able to act, the game goes to its last round. Values
are the dealer's: every pot split evenly among its best hands (fractions allowed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from engine.cards import Card
from engine.evaluator import rank_class

__all__ = ["AcpcGame", "AcpcHand", "read_state_line"]

_LINE = re.compile(r"^STATE:(\d+):([^:]*):([^:]*):([^:]*):([^:]*)$")


@dataclass(frozen=True, slots=True)
class AcpcGame:
    """A game definition: stacks and blinds per position, limit bets per round."""

    stacks: tuple[int, ...]
    blinds: tuple[int, ...]
    limit_bets: tuple[int, int, int, int] | None = None  # None: no-limit

    @property
    def first_players(self) -> tuple[int, int, int, int]:
        # Heads-up reverse blinds: the button (position 1) first pre-flop; else position 2.
        return (1 if len(self.stacks) == 2 else 2, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class AcpcHand:
    """A line read and played by the rules."""

    hand_number: int
    betting: str
    holes: tuple[tuple[Card, ...], ...]
    boards: tuple[tuple[Card, ...], ...]
    values: tuple[Fraction, ...]  # the line's outcome
    players: tuple[str, ...]
    spent: tuple[int, ...]
    folded: tuple[bool, ...]
    rounds: int  # the last round reached (0: pre-flop)
    dealer_values: tuple[Fraction, ...]  # what the ACPC dealer pays


def _cards(text: str) -> tuple[Card, ...]:
    assert len(text) % 2 == 0, text
    return tuple(Card.parse(text[i : i + 2]) for i in range(0, len(text), 2))


class _Play:
    def __init__(self, game: AcpcGame) -> None:
        self.game = game
        self.count = len(game.stacks)
        self.spent = list(game.blinds)
        self.folded = [False] * self.count
        self.max_spent = max(game.blinds)
        self.big_blind = max(game.blinds)
        self.raise_by = self.big_blind  # the smallest raise-by now
        self.round = 0
        self.actions: list[list[tuple[int, str]]] = [[]]
        self.finished = False

    def active(self, player: int) -> bool:
        return not self.folded[player] and self.spent[player] < self.game.stacks[player]

    def actor(self) -> int:
        actions = self.actions[self.round]
        player = actions[-1][0] if actions else self.game.first_players[self.round] - 1
        for _ in range(self.count):
            player = (player + 1) % self.count
            if self.active(player):
                return player
        raise AssertionError("nobody can act")

    def act(self, kind: str, size: int | None) -> None:
        assert not self.finished, "an action after the end of the hand"
        player = self.actor()
        stack = self.game.stacks[player]
        if kind == "f":
            assert self.spent[player] < self.max_spent, f"position {player} folds owing nothing"
        elif kind == "c":
            assert size is None
            self.spent[player] = min(self.max_spent, stack)
        else:
            others = sum(self.active(p) for p in range(self.count) if p != player)
            assert others >= 1, "a raise nobody can call"
            if self.game.limit_bets is None:
                assert size is not None, "a no-limit raise without its size"
                assert self.max_spent < size <= stack, f"raise to {size} out of range"
                by = size - self.max_spent
                assert by >= self.raise_by or size == stack, f"raise to {size} too small"
                self.raise_by = max(self.raise_by, by)
            else:
                assert size is None, "a limit raise with a size"
                size = min(self.max_spent + self.game.limit_bets[self.round], stack)
            self.max_spent = self.spent[player] = size
        self.actions[self.round].append((player, kind))
        if kind == "f":
            self.folded[player] = True
        self._maybe_end_round()

    def _maybe_end_round(self) -> None:
        if sum(self.folded) == self.count - 1:
            self.finished = True
            return
        able = [p for p in range(self.count) if self.active(p)]
        done = 0
        for player, kind in reversed(self.actions[self.round]):
            if kind != "f" and self.active(player):
                done += 1
            if kind == "r":
                break
        if done < len(able):
            return
        if len(able) > 1 and self.round < 3:
            self.round += 1
            self.actions.append([])
            self.raise_by = self.big_blind
        else:
            self.finished = True
            self.round = 3
            while len(self.actions) < 4:
                self.actions.append([])


def _dealer_values(
    spent: list[int], folded: list[bool], strengths: list[int | None]
) -> tuple[Fraction, ...]:
    """Each player's value: a pot per distinct amount spent, split among its best hands."""
    count = len(spent)
    values = [Fraction(0)] * count
    if sum(folded) == count - 1:
        winner = folded.index(False)
        return tuple(
            Fraction(sum(spent) - spent[p]) if p == winner else Fraction(-spent[p])
            for p in range(count)
        )
    previous = 0
    for level in sorted(set(spent)):
        players = [p for p in range(count) if spent[p] >= level]
        pot = (level - previous) * len(players)
        live = [p for p in players if not folded[p]]
        best = max(strengths[p] for p in live)  # type: ignore[type-var]
        winners = [p for p in live if strengths[p] == best]
        for p in players:
            values[p] -= level - previous
        for p in winners:
            values[p] += Fraction(pot, len(winners))
        previous = level
    return tuple(values)


def read_state_line(line: str, game: AcpcGame) -> AcpcHand:
    """Read ``line``, play its betting by the ACPC rules (an ``AssertionError`` names a
    broken rule) and compute the dealer's values."""
    match = _LINE.match(line)
    assert match is not None, f"not a STATE line: {line!r}"
    number, betting, cards, outcome, names = match.groups()
    play = _Play(game)
    tokens = re.findall(r"/|f|c|r\d*", betting)
    assert "".join(tokens) == betting, f"bad betting {betting!r}"
    rounds = 0
    for token in tokens:
        if token == "/":
            rounds += 1
            assert rounds <= play.round, f"a '/' before the round ended in {betting!r}"
            continue
        assert rounds == play.round, f"a missing '/' in {betting!r}"
        size = int(token[1:]) if len(token) > 1 else None
        play.act(token[0], size)
    assert play.finished, f"the betting {betting!r} does not end the hand"
    # One '/' per round reached (all of them when the betting ended with an all-in).
    assert rounds == play.round, (betting, play.round)
    hole_text, *board_texts = cards.split("/")
    holes = tuple(_cards(text) for text in hole_text.split("|"))
    boards = tuple(_cards(text) for text in board_texts)
    assert len(holes) == play.count and all(len(hole) == 2 for hole in holes), cards
    assert [len(board) for board in boards] == [3, 1, 1][: play.round], cards
    board = [card for cards_of_round in boards for card in cards_of_round]
    strengths: list[int | None] = [
        None if play.folded[p] or len(board) < 5 else -rank_class([*holes[p], *board])
        for p in range(play.count)
    ]
    if sum(play.folded) < play.count - 1:
        assert len(board) == 5, "a showdown without the whole board"
    dealer = _dealer_values(play.spent, play.folded, strengths)
    values = tuple(Fraction(text) for text in outcome.split("|"))
    players = tuple(names.split("|"))
    assert len(values) == len(players) == play.count
    return AcpcHand(
        int(number),
        betting,
        holes,
        boards,
        values,
        players,
        tuple(play.spent),
        tuple(play.folded),
        play.round,
        dealer,
    )
