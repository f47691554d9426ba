"""ACPC ``STATE`` lines: hand-written examples following the ACPC protocol's rules, every
line of random hands read back by the rules (``acpc_rules``) and by pokerkit's ACPC
reader, and the hands the protocol cannot express refused with their reason."""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

import pytest
from pokerkit import FixedLimitTexasHoldem, HandHistory, NoLimitTexasHoldem

from arena.export.acpc import acpc_name, acpc_state_line
from arena.export.refusals import HandRefused
from engine.actions import Action, AllIn, Call, Check, Fold, RaiseTo
from engine.config import AnteMode, BettingStructure, GameConfig, Variant
from engine.events import HandStarted
from engine.hand import BlindSeats, Hand, SeatSetup
from tests.arena.export.acpc_rules import AcpcGame, AcpcHand, read_state_line
from tests.arena.export.hands import calling_policy, play, random_hand, stacked_deck
from tests.engine.policies import random_policy

NL = GameConfig(small_blind=50, big_blind=100)
LIMIT = GameConfig(small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT)


def _hand(
    config: GameConfig,
    players: Sequence[tuple[str, int]],
    holes: Sequence[str],
    board: str,
    actions: Sequence[Action],
    *,
    hand_number: int = 1,
) -> Hand:
    """Seats 0.. with ``players`` (name, stack), seat 0 on the button; ``holes`` in
    dealing order (left of the button first)."""
    seats = [SeatSetup(seat, name, stack) for seat, (name, stack) in enumerate(players)]
    hand = Hand.start(
        config, seats, button_index=0, deck=stacked_deck(holes, board), hand_number=hand_number
    )
    for action in actions:
        hand.act(action)
    assert hand.is_over
    return hand


def _game(hand: Hand) -> AcpcGame:
    """The ACPC game the hand was dealt in (stacks and blinds by ACPC position)."""
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    stacks = tuple(stack for _, _, stack in started.seats)
    config = hand.config
    count = len(stacks)
    blinds = [config.small_blind, config.big_blind] + [0] * (count - 2)
    if count == 2:
        blinds = [config.big_blind, config.small_blind]
    small, big = config.small_bet, config.big_bet
    is_limit = config.structure is BettingStructure.FIXED_LIMIT
    return AcpcGame(stacks, tuple(blinds), (small, small, big, big) if is_limit else None)


def _checked(hand: Hand, expected: str) -> AcpcHand:
    line = acpc_state_line(hand)
    assert line == expected
    read = read_state_line(line, _game(hand))
    assert read.values == read.dealer_values  # no odd chips in these examples
    return read


def test_heads_up_no_limit_raises_are_to_the_hands_total_and_the_big_blind_is_first() -> None:
    # Reverse blinds: position 0 is the big blind (bob), position 1 the button (ann), who
    # posts the small blind and acts first pre-flop. A raise is to the chips put in during
    # the whole hand: bob's flop bet of 900 over the 900 of pre-flop is r1800.
    hand = _hand(
        NL,
        [("ann", 20000), ("bob", 20000)],
        ["KsJs", "9h8h"],  # dealt to bob first (left of the button), then ann
        "2c5d7hTd3s",
        [
            *(RaiseTo(300), RaiseTo(900), Call()),
            *(RaiseTo(900), RaiseTo(2700), Call()),
            *(Check(), Check()),
            *(RaiseTo(1000), Fold()),
        ],
    )
    read = _checked(
        hand, "STATE:1:r300r900c/r1800r3600c/cc/r4600f:KsJs|9h8h/2c5d7h/Td/3s:3600|-3600:bob|ann"
    )
    assert read.folded == (False, True) and read.spent == (4600, 3600)


def test_heads_up_limit_showdown() -> None:
    # The protocol document's first limit hand: rrc/rc/crc/crc.
    hand = _hand(
        LIMIT,
        [("ann", 1000), ("bob", 1000)],
        ["AsAd", "2c7h"],
        "Kc9d4s8h3c",
        [
            *(RaiseTo(20), RaiseTo(30), Call()),
            *(RaiseTo(10), Call()),
            *(Check(), RaiseTo(20), Call()),
            *(Check(), RaiseTo(20), Call()),
        ],
        hand_number=2,
    )
    _checked(hand, "STATE:2:rrc/rc/crc/crc:AsAd|2c7h/Kc9d4s/8h/3c:80|-80:bob|ann")


def test_three_player_limit_fold_on_the_river() -> None:
    # Positions: 0 the small blind (seat 1), 1 the big blind (seat 2), 2 the button
    # (seat 0), who acts first pre-flop; the small blind first afterwards.
    hand = _hand(
        LIMIT,
        [("cat", 1000), ("ann", 1000), ("bob", 1000)],
        ["AhKh", "7c2d", "QsQd"],  # seats 1, 2, 0
        "4cJh8hKd8c",
        [
            *(RaiseTo(20), Call(), Call()),  # cat raises, ann and bob call
            *(RaiseTo(10), Fold(), Call()),  # flop: ann bets, bob folds, cat calls
            *(RaiseTo(20), Call()),  # turn
            *(RaiseTo(20), Fold()),  # river: cat folds
        ],
        hand_number=55,
    )
    _checked(hand, "STATE:55:rcc/rfc/rc/rf:AhKh|7c2d|QsQd/4cJh8h/Kd/8c:70|-20|-50:ann|bob|cat")


def test_all_in_before_the_flop_ends_with_a_slash_per_round_left() -> None:
    # With nobody left to bet the dealer goes to the last round: r1000c///.
    hand = _hand(
        GameConfig(small_blind=5, big_blind=10),
        [("ann", 1000), ("bob", 1000)],
        ["KdKc", "AhQh"],
        "2s7c9dJc3h",
        [AllIn(), Call()],
        hand_number=3,
    )
    read = _checked(hand, "STATE:3:r1000c///:KdKc|AhQh/2s7c9d/Jc/3h:1000|-1000:bob|ann")
    assert read.rounds == 3


def test_big_blind_left_alone_checks_as_the_acpc_dealer_asks() -> None:
    # The button calls all-in for the big blind and the small blind folds: our dealer asks
    # the big blind nothing, the ACPC dealer asks it to call (check): cfc///.
    hand = _hand(
        GameConfig(small_blind=5, big_blind=10),
        [("cat", 10), ("ann", 1000), ("bob", 1000)],
        ["7c2d", "AhAd", "KsKd"],  # seats 1, 2, 0
        "2s5c9dJc3h",
        [Call(), Fold()],
        hand_number=4,
    )
    _checked(hand, "STATE:4:cfc///:7c2d|AhAd|KsKd/2s5c9d/Jc/3h:-5|15|-10:ann|bob|cat")


def test_no_limit_side_pot_showdown_three_players() -> None:
    # The short button is all-in pre-flop; the blinds play on for a side pot.
    hand = _hand(
        GameConfig(small_blind=5, big_blind=10),
        [("cat", 100), ("ann", 1000), ("bob", 1000)],
        ["AhAd", "KsKd", "2c7h"],  # seats 1, 2, 0
        "3s5c9dJc4h",
        [AllIn(), Call(), Call(), *(RaiseTo(50), Call()), Check(), Check(), Check(), Check()],
        hand_number=5,
    )
    _checked(
        hand, "STATE:5:r100cc/r150c/cc/cc:AhAd|KsKd|2c7h/3s5c9d/Jc/4h:250|-150|-100:ann|bob|cat"
    )


def test_a_fold_when_checking_is_free_is_refused() -> None:
    # The ACPC protocol: folding is only valid when the player must add chips to call.
    seats = [SeatSetup(0, "ann", 100), SeatSetup(1, "bob", 100)]
    hand = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(0))
    hand.act(Call())
    hand.act(Fold())  # the big blind folds, though it could check
    with pytest.raises(HandRefused, match="folded on the pre-flop when checking was free") as info:
        acpc_state_line(hand)
    assert info.value.code == "free_fold"


@pytest.mark.parametrize(
    ("config", "code", "message"),
    [
        (GameConfig(variant=Variant.FIVE_CARD_DRAW), "unsupported_variant", "five-card draw"),
        (
            GameConfig(structure=BettingStructure.POT_LIMIT),
            "unsupported_betting",
            "limit and no-limit betting only",
        ),
        (GameConfig(ante=1), "antes", "ACPC games do not have"),
        (GameConfig(ante=1, ante_mode=AnteMode.BIG_BLIND), "antes", "antes"),
    ],
)
def test_games_the_acpc_protocol_cannot_deal_are_refused(
    config: GameConfig, code: str, message: str
) -> None:
    seats = [SeatSetup(0, "a", 100), SeatSetup(1, "b", 100)]
    hand = Hand.start(config, seats, button_index=0, rng=random.Random(0))
    policy = random_policy(random.Random(0))
    while not hand.is_over:
        hand.act(policy(hand))
    with pytest.raises(HandRefused, match=message) as info:
        acpc_state_line(hand)
    assert info.value.code == code


def test_a_dead_small_blind_is_refused() -> None:
    seats = [SeatSetup(0, "a", 100), SeatSetup(2, "b", 100), SeatSetup(3, "c", 100)]
    blinds = BlindSeats(small_blind_index=None, big_blind_index=2)
    hand = Hand.start(GameConfig(), seats, button_index=1, blinds=blinds, rng=random.Random(0))
    hand.act(Fold())
    hand.act(Fold())
    with pytest.raises(HandRefused, match=r"were \[2, 0, 0\], not \[1, 2, 0\]") as info:
        acpc_state_line(hand)
    assert info.value.code == "blinds"


def test_a_blind_posted_all_in_for_less_is_refused() -> None:
    seats = [SeatSetup(0, "a", 100), SeatSetup(1, "b", 1)]
    hand = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(0))
    while not hand.is_over:
        hand.act(Call())
    with pytest.raises(HandRefused, match=r"\[1, 1\], not \[2, 1\]"):
        acpc_state_line(hand)


def test_an_unfinished_hand_is_refused() -> None:
    seats = [SeatSetup(0, "a", 100), SeatSetup(1, "b", 100)]
    hand = Hand.start(GameConfig(), seats, button_index=0, rng=random.Random(0))
    with pytest.raises(HandRefused, match="not finished"):
        acpc_state_line(hand)


def test_names_lose_the_characters_that_separate_fields() -> None:
    assert acpc_name("a:b|c\nd\x7f") == "a_b_c_d_"
    assert acpc_name("python calling station") == "python calling station"
    hand = _hand(
        GameConfig(), [("x:y", 100), ("p|q", 100)], ["2c3d", "4h5s"], "6c7d8hTsJs", [Fold()]
    )
    line = acpc_state_line(hand, {"x:y": "Ann: the bot", "p|q": "Bob|2"})
    assert line == "STATE:1:f:2c3d|4h5s:1|-1:Bob_2|Ann_ the bot"


# -- every line of random hands read back by the rules ----------------------------------


def _random_acpc_hand(seed: int, structure: BettingStructure) -> Hand:
    rng = random.Random(seed)
    big_blind = rng.choice([2, 4, 10])
    config = GameConfig(small_blind=big_blind // 2, big_blind=big_blind, structure=structure)
    return random_hand(seed, structure, config=config, seat_counts=range(2, 10), stacks=(1, 300))


def _check_random_line(hand: Hand, name: str) -> AcpcHand:
    line = acpc_state_line(hand)
    read = read_state_line(line, _game(hand))
    assert hand.result is not None
    started = hand.events[0]
    assert isinstance(started, HandStarted)
    order = [seat for seat, _, _ in started.seats]
    # Our chips won, whole: the ACPC dealer's values but for the odd chips of split pots.
    assert read.values == tuple(Fraction(hand.result.net_chips[seat]) for seat in order), name
    assert sum(read.dealer_values) == 0 == sum(read.values), name
    odd = len(hand.result.awards)
    assert all(abs(a - b) < odd for a, b in zip(read.values, read.dealer_values, strict=True)), (
        name,
        line,
    )
    assert read.players == tuple(p for _, p, _ in started.seats)
    assert read.hand_number == hand.hand_number
    return read


@pytest.mark.parametrize("structure", [BettingStructure.NO_LIMIT, BettingStructure.FIXED_LIMIT])
def test_random_hands_follow_the_acpc_rules(structure: BettingStructure) -> None:
    rounds = set()
    for seed in range(1000):
        read = _check_random_line(_random_acpc_hand(seed, structure), f"hand {seed}")
        rounds.add(read.rounds)
    assert rounds == {0, 1, 2, 3}


@pytest.mark.slow
@pytest.mark.parametrize("structure", [BettingStructure.NO_LIMIT, BettingStructure.FIXED_LIMIT])
def test_thousands_of_random_hands_follow_the_acpc_rules(structure: BettingStructure) -> None:
    for seed in range(1000, 15_000):
        _check_random_line(_random_acpc_hand(seed, structure), f"hand {seed}")


@pytest.mark.parametrize(
    "seeds", [range(100), pytest.param(range(100, 1000), marks=pytest.mark.slow)]
)
def test_pokerkit_reads_our_no_limit_lines_to_the_same_results(seeds: range) -> None:
    # pokerkit's ACPC reader deals every player the same stack.
    config = GameConfig(small_blind=5, big_blind=10)
    compared = 0
    for seed in seeds:
        rng = random.Random(seed)
        count = rng.randint(2, 6)
        seats = [SeatSetup(seat, f"p{seat}", 500) for seat in range(count)]
        hand = play(
            Hand.start(config, seats, button_index=count - 1, rng=rng, hand_number=seed),
            calling_policy(rng),
        )
        line = acpc_state_line(hand)
        game = NoLimitTexasHoldem((), True, 0, (5, 10), 10)
        (history,) = HandHistory.from_acpc_protocol(game, 500, line, error_status=True)
        state = list(history)[-1]
        won = [a - b for a, b in zip(state.stacks, history.starting_stacks, strict=True)]
        ours = [int(value) for value in line.split(":")[4].split("|")]
        assert sum(won) == 0
        if won != ours:  # only the odd chips of split pots (pokerkit's own rule)
            assert max(abs(a - b) for a, b in zip(won, ours, strict=True)) < count, line
        compared += 1
    assert compared == len(seeds)


def test_pokerkit_reads_our_limit_lines() -> None:
    config = GameConfig(
        small_blind=5, big_blind=10, structure=BettingStructure.FIXED_LIMIT, cap_heads_up=True
    )
    for seed in range(100):
        rng = random.Random(seed)
        count = rng.randint(2, 6)
        seats = [SeatSetup(seat, f"p{seat}", 10_000) for seat in range(count)]
        hand = play(
            Hand.start(config, seats, button_index=count - 1, rng=rng, hand_number=seed),
            calling_policy(rng),
        )
        line = acpc_state_line(hand)
        game = FixedLimitTexasHoldem((), True, 0, (5, 10), 10, 20)
        (history,) = HandHistory.from_acpc_protocol(game, 10_000, line, error_status=True)
        assert not list(history)[-1].status


@pytest.mark.parametrize(
    "character", ["\x85", "\x9b", "\u2028", "\u2029", "\u202e", "\x00", "\x1b", "\r"]
)
def test_names_lose_line_breaks_and_c1_and_bidi_controls_as_the_export_page_says(
    character: str,
) -> None:
    assert acpc_name(f"bot{character}x") == "bot_x"
    hand = _hand(GameConfig(), [("a", 100), ("b", 100)], ["2c3d", "4h5s"], "6c7d8hTsJs", [Fold()])
    line = acpc_state_line(hand, {"a": f"evil{character}bot", "b": "b"})
    assert line.endswith(":b|evil_bot") and len(line.splitlines()) == 1


def test_printable_names_in_any_script_are_kept() -> None:
    assert acpc_name("Größe 🂡 бот 机器人") == "Größe 🂡 бот 机器人"
