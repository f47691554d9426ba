"""The match plan and the seeds derived from the tournament seed."""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.match.config import StackPolicy
from arena.settings.catalog import Format
from arena.tournament.config import (
    BotEntry,
    SitAndGoSettings,
    TournamentConfig,
    build_config,
)
from arena.tournament.plan import MatchSpec, groups, plan
from arena.tournament.seeds import DERIVED_SEED_BITS, derive_seed, ordering_key
from engine.config import BettingStructure, Variant
from engine.schedule import BlindSchedule

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")


def config(format_: Format, count: int, **settings_: object) -> TournamentConfig:
    bots = tuple(BotEntry(name, Path(f"/bots/{name}.toml")) for name in NAMES[:count])
    return TournamentConfig(bots=bots, format=format_, **settings_)  # type: ignore[arg-type]


def blocks_of(specs: list[MatchSpec]) -> dict[str, list[MatchSpec]]:
    found: dict[str, list[MatchSpec]] = defaultdict(list)
    for spec in specs:
        found[spec.block_id].append(spec)
    return found


# -- seeds ---------------------------------------------------------------------------------


def test_a_derived_seed_is_the_first_eight_bytes_of_sha256_without_the_top_bit() -> None:
    digest = hashlib.sha256(b"7/rr-001-b01-alice-vs-bob").digest()
    expected = int.from_bytes(digest[:8], "big") & (2**63 - 1)
    assert derive_seed(7, "rr-001-b01-alice-vs-bob") == expected
    assert DERIVED_SEED_BITS == 63


def test_derived_seeds_differ_by_tournament_seed_and_key() -> None:
    seeds = {derive_seed(seed, key) for seed in range(20) for key in ("a", "b", "c")}
    assert len(seeds) == 60
    assert all(0 <= seed < 2**63 for seed in seeds)
    big = 2**255 + 12345
    assert derive_seed(big, "a") == derive_seed(big, "a") != derive_seed(big + 1, "a")


def test_a_seed_that_is_not_an_integer_is_refused() -> None:
    with pytest.raises(TypeError, match="tournament seed must be an integer"):
        derive_seed(True, "a")
    with pytest.raises(TypeError):
        ordering_key("7", "a")  # type: ignore[arg-type]


# -- heads-up ------------------------------------------------------------------------------


def test_both_seatings_of_a_heads_up_block_share_seed_and_deals_with_seats_swapped() -> None:
    specs = plan(config(Format.ROUND_ROBIN, 3, deals=250, block_deals=100), 11)
    blocks = blocks_of(specs)
    assert len(blocks) == 3 * 3
    for block in blocks.values():
        first, swapped = block
        assert (first.arrangement, swapped.arrangement) == (0, 1)
        assert first.seed == swapped.seed
        assert first.hand_count == swapped.hand_count
        assert swapped.bots == first.bots[::-1]
        assert first.bots == first.group
        assert swapped.match_id == first.match_id + "-swap" == first.block_id + "-swap"
        assert first.kind == "heads_up"
    assert sorted(spec.hand_count for spec in specs if spec.group == ("alice", "bob")) == [
        50,
        50,
        100,
        100,
        100,
        100,
    ]


def test_a_round_robin_plays_every_pair_once_per_block() -> None:
    specs = plan(config(Format.ROUND_ROBIN, 4, deals=200, block_deals=100), 1)
    pairs = Counter(spec.group for spec in specs)
    assert len(pairs) == math.comb(4, 2)
    assert set(pairs.values()) == {2 * 2}
    assert all(spec.group == tuple(sorted(spec.bots)) for spec in specs if spec.arrangement == 0)


def test_the_plan_interleaves_groups_so_block_one_of_every_pair_comes_first() -> None:
    specs = plan(config(Format.ROUND_ROBIN, 4, deals=300, block_deals=100), 1)
    block_order = [spec.block_index for spec in specs]
    assert block_order == sorted(block_order)
    first_block = specs[: 6 * 2]
    assert {spec.group for spec in first_block} == set(groups(config(Format.ROUND_ROBIN, 4)))
    assert [spec.position for spec in specs] == list(range(len(specs)))


def test_gauntlet_pairs_only_involve_the_challenger() -> None:
    tournament = config(Format.GAUNTLET, 5, challenger="carol")
    specs = plan(tournament, 3)
    assert {spec.group for spec in specs} == {
        tuple(sorted(("carol", other))) for other in NAMES[:5] if other != "carol"
    }
    assert all("carol" in spec.bots for spec in specs)
    assert all(spec.match_id.startswith("gt-") for spec in specs)
    assert len(specs) == tournament.match_count() == 4 * 2 * 2


# -- ring ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("count", "seats"), [(3, 3), (6, 6), (5, 3), (7, 4)])
def test_every_bot_sits_in_every_seat_exactly_once_per_ring_block(count: int, seats: int) -> None:
    tournament = config(Format.RING, count, ring_seats=seats, deals=150, block_deals=100)
    specs = plan(tournament, 5)
    assert len(specs) == tournament.match_count()
    blocks = blocks_of(specs)
    assert len(blocks) == math.comb(count, seats) * 2
    for block in blocks.values():
        group = block[0].group
        assert group is not None
        assert len(block) == seats
        assert {spec.seed for spec in block} == {block[0].seed}
        assert {spec.hand_count for spec in block} == {block[0].hand_count}
        for seat in range(seats):
            assert sorted(spec.bots[seat] for spec in block) == sorted(group)
        assert [spec.arrangement for spec in block] == list(range(seats))
        assert all(spec.kind == "ring" for spec in block)
        assert [spec.match_id for spec in block] == [
            f"{spec.block_id}-r{index + 1}" for index, spec in enumerate(block)
        ]


def test_ring_groups_are_every_combination_of_seats_bots() -> None:
    tournament = config(Format.RING, 5, ring_seats=3)
    assert groups(tournament)[:2] == [("alice", "bob", "carol"), ("alice", "bob", "dave")]
    assert len(set(groups(tournament))) == 10


# -- sit and go ----------------------------------------------------------------------------


def test_every_freezeout_seats_the_tables_count_and_has_its_own_seed() -> None:
    tournament = config(
        Format.SIT_AND_GO, 7, sit_and_go=SitAndGoSettings(games=20, seats=4, max_hands=300)
    )
    specs = plan(tournament, 9)
    assert len(specs) == 20
    assert all(len(spec.bots) == len(set(spec.bots)) == 4 for spec in specs)
    assert len({spec.seed for spec in specs}) == 20
    assert all(spec.kind == "sit_and_go" and spec.group is None for spec in specs)
    assert [spec.match_id for spec in specs][:2] == ["sng-001", "sng-002"]
    assert all(spec.block_id == spec.match_id and spec.hand_count == 300 for spec in specs)
    assert groups(tournament) == []


@pytest.mark.parametrize(("count", "seats"), [(4, 4), (7, 3), (10, 6)])
def test_over_a_cycle_every_bot_sits_in_every_freezeout_seat_once(count: int, seats: int) -> None:
    games = 2 * count
    tournament = config(
        Format.SIT_AND_GO, count, sit_and_go=SitAndGoSettings(games=games, seats=seats)
    )
    specs = plan(tournament, 21)
    for cycle in (specs[:count], specs[count:]):
        taken = Counter((name, seat) for spec in cycle for seat, name in enumerate(spec.bots))
        every = Counter({(name, seat): 1 for name in NAMES[:count] for seat in range(seats)})
        assert taken == every


def test_freezeout_orders_are_drawn_from_the_seed() -> None:
    tournament = config(Format.SIT_AND_GO, 6, sit_and_go=SitAndGoSettings(games=12))
    orders = {plan(tournament, seed)[0].bots for seed in range(8)}
    assert len(orders) > 1
    cycles = {plan(tournament, seed)[6].bots == plan(tournament, seed)[0].bots for seed in range(8)}
    assert False in cycles  # each cycle draws its own order


# -- ids and seeds -------------------------------------------------------------------------


def every_format() -> list[TournamentConfig]:
    return [
        config(Format.ROUND_ROBIN, 5, deals=250, block_deals=100),
        config(Format.GAUNTLET, 4),
        config(Format.RING, 5, ring_seats=4),
        config(Format.SIT_AND_GO, 5),
    ]


@pytest.mark.parametrize("tournament", every_format(), ids=lambda c: str(c.format))
def test_match_ids_are_unique_stable_and_safe_as_file_names(tournament: TournamentConfig) -> None:
    specs = plan(tournament, 42)
    ids = [spec.match_id for spec in specs]
    assert len(set(ids)) == len(ids) == tournament.match_count()
    assert all(re.fullmatch(r"[a-z0-9][a-z0-9_-]*", match_id) for match_id in ids)
    assert [spec.match_id for spec in plan(tournament, 43)] == ids
    assert plan(tournament, 42) == specs


@pytest.mark.parametrize("tournament", every_format(), ids=lambda c: str(c.format))
def test_different_tournament_seeds_give_different_block_seeds(
    tournament: TournamentConfig,
) -> None:
    first = {spec.block_id: spec.seed for spec in plan(tournament, 1)}
    second = {spec.block_id: spec.seed for spec in plan(tournament, 2)}
    assert first.keys() == second.keys()
    assert all(first[block] != second[block] for block in first)
    assert len(set(first.values())) == len(first)


def test_sorted_ids_group_a_pairs_blocks_in_order() -> None:
    tournament = config(Format.ROUND_ROBIN, 3, deals=1200, block_deals=100)
    specs = plan(tournament, 1)
    pairs = groups(tournament)

    def plan_key(spec: MatchSpec) -> tuple[int, int, int]:
        assert spec.group is not None
        return (pairs.index(spec.group), spec.block_index, spec.arrangement)

    assert sorted(specs, key=lambda spec: spec.match_id) == sorted(specs, key=plan_key)
    assert specs[-1].match_id == "rr-003-b12-bob-vs-carol-swap"


def test_names_that_make_the_same_slug_still_get_unique_ids() -> None:
    bots = (BotEntry("A b", Path("/a")), BotEntry("a_b", Path("/b")), BotEntry("?", Path("/c")))
    ids = [spec.match_id for spec in plan(TournamentConfig(bots=bots), 1)]
    assert len(set(ids)) == len(ids)
    assert ids[0] == "rr-001-b01-a_b-vs-a_b"
    assert "rr-002-b01-bot-vs-a_b" in ids


@settings(max_examples=60, deadline=None)
@given(
    format_=st.sampled_from(list(Format)),
    count=st.integers(min_value=3, max_value=7),
    deals=st.integers(min_value=1, max_value=400),
    block_deals=st.integers(min_value=1, max_value=150),
    seed=st.integers(min_value=0, max_value=2**70),
)
def test_every_plan_has_as_many_unique_matches_as_the_config_counts(
    format_: Format, count: int, deals: int, block_deals: int, seed: int
) -> None:
    tournament = config(format_, count, deals=deals, block_deals=block_deals)
    specs = plan(tournament, seed)
    assert len(specs) == tournament.match_count()
    assert len({spec.match_id for spec in specs}) == len(specs)
    if format_ is not Format.SIT_AND_GO:
        per_group = Counter(spec.group for spec in specs if spec.arrangement == 0)
        assert set(per_group.values()) == {len(tournament.block_sizes())}
        hands = Counter(spec.group for spec in specs for _ in range(spec.hand_count))
        assert set(hands.values()) == {deals * tournament.seats}


# -- the arena's match config --------------------------------------------------------------


def test_a_duplicate_match_resets_stacks_and_plays_its_blocks_deals() -> None:
    data = Path(__file__).resolve().parent / "data" / "bots"
    built = build_config(
        overrides={
            "bots": [str(data / name / "bot.toml") for name in ("alpha", "beta", "gamma")],
            "format": "ring",
            "deals": 150,
            "game.variant": "five_card_draw",
            "game.betting": "fixed_limit",
            "game.small_blind": 5,
            "game.big_blind": 10,
            "game.starting_stack": 500,
            "limits.decision_timeout": "250ms",
            "limits.time_bank": 2,
            "limits.check_on_timeout": True,
        }
    )
    last = plan(built, 3)[-1]
    match = last.match_config(built)
    assert match.stack_policy is StackPolicy.RESET
    assert match.schedule is None
    assert match.hand_count == 50 == last.hand_count
    assert (match.seed, match.match_id) == (last.seed, last.match_id)
    assert match.starting_stack == 500
    assert match.game.variant is Variant.FIVE_CARD_DRAW
    assert match.game.structure is BettingStructure.FIXED_LIMIT
    assert (match.game.small_blind, match.game.big_blind) == (5, 10)
    limits = match.time_limits
    assert (limits.decision_s, limits.time_bank_s, match.check_on_timeout) == (0.25, 2.0, True)
    assert limits.startup_s == 10.0


def test_a_freezeout_doubles_its_blinds_and_caps_its_hands() -> None:
    tournament = config(
        Format.SIT_AND_GO,
        4,
        sit_and_go=SitAndGoSettings(double_every_hands=15, max_hands=600),
    )
    spec = plan(tournament, 1)[0]
    match = spec.match_config(tournament)
    assert match.stack_policy is StackPolicy.FREEZEOUT
    assert match.hand_count == 600
    assert match.schedule == BlindSchedule.doubling(1, 2, every_hands=15)
    assert match.schedule is not None
    assert match.schedule.level_for(hands_played=30).big_blind == 8


def test_bot_names_are_kept_whole_in_match_ids_and_short_ones_unchanged() -> None:
    # Ids used to cut names to 20 characters ("..._calling_stati-swap"); a name of 20
    # characters or fewer keeps the id it always had (stored runs still resume).
    bots = (
        BotEntry("Python calling station", Path("/a")),
        BotEntry("twenty_characters_ab", Path("/b")),
    )
    ids = [spec.match_id for spec in plan(TournamentConfig(bots=bots, deals=100), 1)]
    assert ids == [
        "rr-001-b01-python_calling_station-vs-twenty_characters_ab",
        "rr-001-b01-python_calling_station-vs-twenty_characters_ab-swap",
    ]
    giants = tuple(BotEntry(letter * 300, Path(f"/{letter}")) for letter in "xy")
    longest = max(len(s.match_id) for s in plan(TournamentConfig(bots=giants), 1))
    assert longest < 200  # still a file name
