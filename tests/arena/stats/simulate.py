"""Play engine hands between plain policy functions and hand back real ``MatchOutcome`` values.

No processes: a policy is a function of the hand in progress (``engine.hand.Hand``) that
returns the actor's action. Every hand starts from the same stacks (reset each hand, so
hands are independent) and hand ``n`` is shuffled by ``hand_rng(seed, n)``, its button on
seat ``(n - 1) % seats`` whatever the seating. So the matches of a duplicate block, which
differ only in who sits where, deal every seat the same cards in every deal: the bot in
seat 0 of the (A, B) match gets the cards B gets in seat 0 of the (B, A) match.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from arena.store.outcome import HandSummary, MatchOutcome, SeatOutcome
from engine.actions import Action, Call, Check, Fold, LegalActions, RaiseTo
from engine.config import GameConfig
from engine.evaluator import HandCategory, evaluate
from engine.hand import Hand, SeatSetup
from engine.seeds import hand_rng
from tests.engine.policies import random_policy

__all__ = [
    "GAME",
    "STACK",
    "Policy",
    "always_fold",
    "calling_station",
    "duplicate_block",
    "play_hand",
    "play_match",
    "random_bot",
    "threshold_bot",
]

Policy = Callable[[Hand], Action]

GAME = GameConfig(small_blind=1, big_blind=2)
#: 100 big blinds, reset every hand.
STACK = 200


def always_fold(hand: Hand) -> Action:
    """Folds whenever there is something to call; checks when checking is free."""
    legal = hand.legal_actions()
    assert legal is not None
    return Fold() if legal.call_amount > 0 else Check()


def calling_station(hand: Hand) -> Action:
    """Always checks or calls, never folds or raises."""
    legal = hand.legal_actions()
    assert legal is not None
    return Call() if legal.call_amount > 0 else Check()


def threshold_bot(hand: Hand) -> Action:
    """A deterministic hand-strength bot: before the flop it raises a pair or two big cards
    to three big blinds, calls with an ace or a ten or better, folds the rest; after the
    flop it bets half the pot with a pair or better and otherwise checks or folds."""
    legal = hand.legal_actions()
    assert legal is not None
    hole = hand.hole_cards(legal.seat_index)
    if not hand.board:
        ranks = sorted((card.rank_index for card in hole), reverse=True)
        is_pair = ranks[0] == ranks[1]
        if is_pair or ranks[1] >= 9:  # 9 is the jack's rank index (deuce is 0)
            return _raise_to(legal.min_raise_to, 3 * GAME.big_blind, legal)
        if ranks[0] == 12 or ranks[1] >= 8:  # an ace, or both ten or better
            return Call() if legal.call_amount > 0 else Check()
        return Fold() if legal.call_amount > 0 else Check()
    made = evaluate([*hole, *hand.board]).category
    if made >= HandCategory.ONE_PAIR:
        return _raise_to(legal.min_raise_to, legal.current_bet + hand.pot_total // 2, legal)
    return Fold() if legal.call_amount > 0 else Check()


def _raise_to(minimum: int, wanted: int, legal: LegalActions) -> Action:
    """A raise to ``wanted`` kept within the legal range; a call or check when raising is
    not allowed (the betting was not reopened, or the stack only covers a call)."""
    if not legal.can_raise:
        return Call() if legal.call_amount > 0 else Check()
    return RaiseTo(min(legal.max_raise_to, max(minimum, wanted)))


def random_bot(seed: str) -> Policy:
    """The engine's random policy with its own generator (seeded by ``seed``)."""
    return random_policy(random.Random(seed))


def play_hand(
    seats: Sequence[tuple[str, Policy]], seed: int | str, hand_number: int
) -> HandSummary:
    """Deal hand ``hand_number`` of ``seed`` to ``seats`` (name, policy) and play it out."""
    setups = [SeatSetup(index, name, STACK) for index, (name, _) in enumerate(seats)]
    hand = Hand.start(
        GAME,
        setups,
        button_index=(hand_number - 1) % len(seats),
        rng=hand_rng(seed, hand_number),
        hand_number=hand_number,
    )
    while not hand.is_over:
        actor = hand.actor_index
        assert actor is not None
        hand.act(seats[actor][1](hand))
    result = hand.result
    assert result is not None
    nets = tuple(result.net_chips[index] for index in range(len(seats)))
    return HandSummary(
        hand_number=hand_number,
        big_blind=GAME.big_blind,
        nets=nets,
        went_to_showdown=result.ended_reason == "SHOWDOWN",
    )


def play_match(
    seats: Sequence[tuple[str, Policy]], seed: int | str, deals: int, match_id: str
) -> MatchOutcome:
    """Hands 1..``deals`` of ``seed`` with these seats, as the tournament's worker reports a
    match (chips won per seat, every hand's nets)."""
    hands = tuple(play_hand(seats, seed, number) for number in range(1, deals + 1))
    return MatchOutcome(
        match_id=match_id,
        seats=tuple(
            SeatOutcome(
                seat_index=index,
                bot=name,
                chips_won=sum(hand.nets[index] for hand in hands),
                place=0,
                hands_played=deals,
            )
            for index, (name, _) in enumerate(seats)
        ),
        hands=hands,
        ended_reason="hands_played",
        hands_path=None,
        duration_s=0.0,
    )


def duplicate_block(
    bots: Sequence[tuple[str, Policy]], seed: int | str, deals: int
) -> list[MatchOutcome]:
    """The duplicate block of ``bots``: one match per rotation of the seats (heads-up: the
    pair as given, then swapped), every match playing the same ``deals`` deals of ``seed``."""
    count = len(bots)
    return [
        play_match(
            [bots[(seat + shift) % count] for seat in range(count)],
            seed,
            deals,
            f"{seed}-rotation-{shift}",
        )
        for shift in range(count)
    ]
