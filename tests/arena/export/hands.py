"""Random hands for the export tests, played by the engine and recorded as the arena
records them (history documents), so the exporters read them as they read a real run.

No-limit hands are drawn to reach the rules that matter for an export: 2 to 9 seats,
uneven and odd stacks (side pots), odd blinds and antes, multi-way showdowns, and split
pots with odd chips (a third of the decks put a royal flush on the board, so every player
still in splits every pot).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from arena.export.sources import SourceHand
from engine.actions import Action, AllIn, Call, Check, Fold, RaiseTo
from engine.cards import FULL_DECK, Card
from engine.config import AnteMode, BettingStructure, GameConfig
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history

__all__ = [
    "calling_policy",
    "play",
    "random_config",
    "random_hand",
    "source_of",
    "stacked_deck",
]

Policy = Callable[[Hand], Action]

_ROYAL = [Card.parse(text) for text in ("As", "Ks", "Qs", "Js", "Ts")]


def calling_policy(rng: random.Random) -> Policy:
    """Mostly calls (multi-way showdowns), sometimes raises or goes all-in, folds only
    when facing a bet (never a free fold)."""

    def policy(hand: Hand) -> Action:
        legal = hand.legal_actions()
        assert legal is not None
        roll = rng.random()
        if roll < 0.1 and legal.call_amount > 0:
            return Fold()
        if roll < 0.8 or not legal.can_raise:
            return Call() if legal.call_amount > 0 else Check()
        if roll < 0.87:
            return AllIn() if legal.all_in_to <= legal.max_raise_to else RaiseTo(legal.max_raise_to)
        low, high = legal.min_raise_to, legal.max_raise_to
        return RaiseTo(min(high, low + int((high - low) * rng.random() ** 3)))

    return policy


def _deck(rng: random.Random, count: int) -> Deck:
    """A shuffled deck; a third of the time with a royal flush as the board."""
    if rng.random() >= 1 / 3:
        cards = list(FULL_DECK)
        rng.shuffle(cards)
        return Deck(cards)
    rest = [card for card in FULL_DECK if card not in _ROYAL]
    rng.shuffle(rest)
    holes = rest[: 2 * count]
    burns = rest[2 * count : 2 * count + 3]
    top = [*holes, burns[0], *_ROYAL[:3], burns[1], _ROYAL[3], burns[2], _ROYAL[4]]
    return Deck.stacked(top)


def random_config(rng: random.Random, structure: BettingStructure) -> GameConfig:
    """Blinds (odd ones too), sometimes antes (every player or the big blind's)."""
    big_blind = rng.choice([2, 3, 4, 10])
    return GameConfig(
        small_blind=big_blind // 2,
        big_blind=big_blind,
        ante=rng.choice([0, 0, 0, 1, 2]),
        ante_mode=rng.choice([AnteMode.EVERY_PLAYER, AnteMode.BIG_BLIND]),
        structure=structure,
    )


def play(hand: Hand, policy: Policy) -> Hand:
    """Play ``hand`` to its end with ``policy``."""
    while not hand.is_over:
        hand.act(policy(hand))
    return hand


def random_hand(
    seed: int,
    structure: BettingStructure = BettingStructure.NO_LIMIT,
    *,
    config: GameConfig | None = None,
    seat_counts: Sequence[int] = range(2, 10),
    stacks: tuple[int, int] = (1, 301),
) -> Hand:
    """A finished random hand (the same for the same ``seed``)."""
    rng = random.Random(seed)
    count = rng.choice(list(seat_counts))
    game = config if config is not None else random_config(rng, structure)
    seat_indexes = sorted(rng.sample(range(10), count))
    # Stacks at least a big blind and the ante: a shorter one posts all-in for less, which
    # is a rule of its own (tested apart).
    low = max(stacks[0], game.big_blind + game.ante + 1)
    seats = [SeatSetup(s, f"player {s}", rng.randint(low, stacks[1])) for s in seat_indexes]
    hand = Hand.start(
        game,
        seats,
        button_index=rng.choice(seat_indexes),
        deck=_deck(rng, count),
        hand_number=seed + 1,
    )
    return play(hand, calling_policy(rng))


def source_of(hand: Hand, match_id: str = "m") -> SourceHand:
    """``hand`` as the exporters read it from a run (names: ``Name <seat>``)."""
    history = hand_to_history(hand)
    names = {seat.player_id: f"Name {seat.seat_index}" for seat in hand.seats}
    return SourceHand(match_id, hand.hand_number, history, names)


def stacked_deck(holes: Sequence[str], board: str) -> Deck:
    """A deck dealing ``holes`` (two cards per player in dealing order, from the left of
    the button; dealt one card at a time round the table) and ``board`` (five cards, a
    burn card before each street)."""
    count = len(holes)
    top = [holes[k % count][2 * (k // count) : 2 * (k // count) + 2] for k in range(2 * count)]
    cards = [board[i : i + 2] for i in range(0, 10, 2)]
    used = {Card.parse(text) for text in top + cards}
    burns = [str(card) for card in FULL_DECK if card not in used][:3]
    return Deck.stacked([*top, burns[0], *cards[:3], burns[1], cards[3], burns[2], cards[4]])
