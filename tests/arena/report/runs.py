"""Run folders made without processes, for the report's tests and its benchmark.

Hands are played by the engine with a random policy; the files and the results database
are written in the arena's layouts (``hands.jsonl`` records, ``results.json``, the
``results.sqlite`` of :class:`~arena.store.sqlite.ResultsDatabase`), so a report reads
them exactly as it reads a real run. Duplicate blocks deal the same decks to every
seating, as a tournament does. A bot named in ``faulty`` gets a timeout now and then (the
arena's default action in the hand records, the fault in its counts and examples). Unless
told ``luck=False``, every hand carries its luck-adjusted result from the arena's own
estimator (:mod:`arena.luck`), in the hand records and the outcomes, as a run with the
estimator on stores it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.luck import estimate_hand, luck_record
from arena.session.latency import LatencyHistogram
from arena.stats.scores import Score
from arena.stats.tables import crosstable, leaderboard
from arena.stats.units import duplicate_units
from arena.store.outcome import (
    FaultExample,
    HandSummary,
    LatencySummary,
    MatchOutcome,
    SeatOutcome,
)
from arena.store.sqlite import PlannedMatch, ResultsDatabase
from engine.actions import Action
from engine.config import GameConfig, Variant
from engine.deck import Deck
from engine.hand import Hand, SeatSetup
from engine.history import hand_to_history
from engine.tournament import Freezeout
from tests.engine.policies import random_policy

__all__ = ["PlayedHand", "play_hand", "write_match", "write_match_folder", "write_tournament"]

Policy = Callable[[Hand], Action]


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A finished hand: its history, who chose each decision, nets and pot."""

    history: dict[str, Any]
    decisions: list[dict[str, Any]]
    nets: tuple[int, ...]
    pot: int
    went_to_showdown: bool
    faults: list[int] = field(default_factory=list)  # seat indexes the arena acted for
    luck: dict[str, Any] | None = None  # the hand record's "luck" (estimator, adjusted)

    def adjusted(self, player_ids: Sequence[str]) -> tuple[float, ...] | None:
        """Each match seat's adjusted result (0 for a seat not in the hand), or None."""
        if self.luck is None:
            return None
        by_player = {
            seat["player_id"]: value
            for seat, value in zip(self.history["seats"], self.luck["adjusted"], strict=True)
        }
        return tuple(float(by_player.get(player, 0.0)) for player in player_ids)


def _finish(
    hand: Hand, player_ids: Sequence[str], policy: Policy, faulty: set[int], rng: random.Random
) -> PlayedHand:
    decisions: list[dict[str, Any]] = []
    faults: list[int] = []
    while not hand.is_over:
        seat = hand.actor_index
        assert seat is not None
        action = policy(hand)
        by = "bot"
        if seat in faulty and rng.random() < 0.2:
            by = "policy"  # the bot timed out: the arena folded or checked for it
            faults.append(seat)
        hand.act(action)
        decisions.append({"seat_index": seat, "player_id": player_ids[seat], "by": by})
    history = hand_to_history(hand)
    result = history["result"]
    start = result["starting_stacks"]
    final = result["final_stacks"]
    nets = tuple(
        int(final[str(index)]) - int(start[str(index)]) if str(index) in start else 0
        for index in range(len(player_ids))
    )
    pot = sum(int(award["amount"]) for award in result["awards"])
    luck = luck_record(estimate_hand({"history": history, "decisions": decisions}))
    showdown = result["ended_reason"] == "SHOWDOWN"
    return PlayedHand(history, decisions, nets, pot, showdown, faults, luck)


def play_hand(
    config: GameConfig,
    player_ids: Sequence[str],
    *,
    hand_number: int,
    deck_seed: str,
    policy_seed: int,
    stack: int = 200,
    faulty: set[int] | None = None,
) -> PlayedHand:
    """Play one hand of ``player_ids`` (seats 0..n-1, the button moving by hand number)
    from the deck of ``deck_seed``."""
    rng = random.Random(policy_seed)
    seats = [SeatSetup(index, player, stack) for index, player in enumerate(player_ids)]
    hand = Hand.start(
        config,
        seats,
        button_index=(hand_number - 1) % len(seats),
        deck=Deck.shuffled(random.Random(deck_seed)),
        hand_number=hand_number,
    )
    return _finish(hand, player_ids, random_policy(rng), faulty or set(), rng)


def _header(match_id: str, names: Sequence[str], config: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "match",
        "format": 1,
        "match_id": match_id,
        "seed": 7,
        "config": config,
        "players": [
            {"player_id": f"p{index}", "seat_index": index, "name": name}
            for index, name in enumerate(names)
        ],
    }


def write_match(
    path: Path,
    match_id: str,
    names: Sequence[str],
    hands: Sequence[PlayedHand],
    config: dict[str, Any],
) -> None:
    """Write ``hands.jsonl`` as the arena writes it (compact JSON, one record a line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as file:
        file.write(json.dumps(_header(match_id, names, config), separators=(",", ":")) + "\n")
        for played in hands:
            number = played.history["hand_number"]
            record = {
                "type": "hand",
                "hand_number": number,
                "hand_id": f"{match_id}-{number}",
                "sitting_out": [],
                "decisions": played.decisions,
                "history": played.history,
                **({"luck": played.luck} if played.luck is not None else {}),
            }
            file.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False) + "\n")
        file.write(json.dumps({"type": "match_end", "hands_played": len(hands)}) + "\n")


def _match_config(
    game: GameConfig, hand_count: int, policy: str = "reset", *, luck: bool = False
) -> dict[str, Any]:
    return {
        "match_id": "match",
        "game": game.to_dict(),
        "hand_count": hand_count,
        "starting_stack": 200,
        "stack_policy": policy,
        **({"luck": True, "score": "adjusted"} if luck else {}),
    }


def _without_luck(hands: Sequence[PlayedHand], luck: bool) -> list[PlayedHand]:
    """The hands as a run with the estimator off keeps them (no luck) unless ``luck``."""
    return [played if luck else replace(played, luck=None) for played in hands]


def _latency(rng: random.Random, count: int) -> tuple[LatencyHistogram, LatencySummary]:
    histogram = LatencyHistogram()
    for _ in range(count):
        histogram.add(rng.lognormvariate(0.0, 1.2))
    stats = histogram.summary()
    return histogram, LatencySummary(
        stats.count, stats.mean_ms, stats.p50_ms, stats.p99_ms, stats.max_ms, histogram.buckets()
    )


def _seat_outcomes(
    names: Sequence[str],
    hands: Sequence[PlayedHand],
    match_id: str,
    rng: random.Random,
    places: Sequence[int] | None = None,
) -> tuple[SeatOutcome, ...]:
    seats = []
    for index, name in enumerate(names):
        faults = [played for played in hands if index in played.faults]
        counts = {"timeout": sum(p.faults.count(index) for p in faults)} if faults else {}
        examples = (
            (FaultExample("timeout", faults[0].history["hand_number"], "no reply in 5000 ms"),)
            if faults
            else ()
        )
        chips = sum(played.nets[index] for played in hands)
        _, latency = _latency(rng, 50)
        place = (
            places[index]
            if places is not None
            else 1
            + sum(1 for other in range(len(names)) if sum(p.nets[other] for p in hands) > chips)
        )
        seats.append(
            SeatOutcome(
                seat_index=index,
                bot=name,
                chips_won=chips,
                place=place,
                hands_played=len(hands),
                fault_counts=counts,
                fault_examples=examples,
                latency=latency,
            )
        )
    return tuple(seats)


def write_tournament(
    folder: Path,
    *,
    bots: Sequence[str] = ("ann", "bob", "cat"),
    fmt: str = "round_robin",
    deals: int = 10,
    block_deals: int = 5,
    variant: Variant = Variant.HOLDEM,
    faulty: Sequence[str] = (),
    standings: bool = True,
    seed: int = 1,
    luck: bool = True,
    score: str | None = None,
) -> Path:
    """A finished tournament's run folder (``results.sqlite``, ``matches/``, and
    ``standings.json`` unless ``standings`` is false) with the pairs (round robin), the
    rotations (ring) or the games (sit-and-go) the format plays."""
    game = GameConfig(variant=variant)
    rng = random.Random(seed)
    plan: list[PlannedMatch] = []
    outcomes: list[MatchOutcome] = []
    blocks: list[tuple[str, list[tuple[tuple[str, ...], str]]]] = []
    if fmt == "round_robin":
        pairs = [(a, b) for i, a in enumerate(bots) for b in bots[i + 1 :]]
        for block in range(deals // block_deals):
            for p, (a, b) in enumerate(pairs, start=1):
                block_id = f"rr-{p:03d}-b{block + 1:02d}"
                blocks.append((block_id, [((a, b), block_id), ((b, a), block_id + "-swap")]))
    elif fmt == "ring":
        for block in range(deals // block_deals):
            block_id = f"ring-001-b{block + 1:02d}"
            rotations = [tuple(bots[k:]) + tuple(bots[:k]) for k in range(len(bots))]
            blocks.append(
                (block_id, [(r, f"{block_id}-r{k + 1}") for k, r in enumerate(rotations)])
            )
    for block_number, (block_id, members) in enumerate(blocks):
        for seats, match_id in members:
            plan.append(
                PlannedMatch(
                    match_id,
                    block_id,
                    "heads_up" if len(seats) == 2 else "ring",
                    len(plan),
                    seats,
                    len(plan),
                )
            )
            ids = [f"p{k}" for k in range(len(seats))]
            hands = []
            for number in range(1, block_deals + 1):
                hands.append(
                    play_hand(
                        game,
                        ids,
                        hand_number=number,
                        deck_seed=f"{seed}:{block_number}:{number}",
                        policy_seed=rng.randrange(2**32),
                        faulty={k for k, name in enumerate(seats) if name in faulty},
                    )
                )
            hands = _without_luck(hands, luck)
            outcomes.append(_outcome(folder, match_id, seats, hands, game, rng))
    if fmt == "sit_and_go":
        for game_number in range(1, deals + 1):
            match_id = f"sng-{game_number:03d}"
            seats = tuple(bots[game_number % len(bots) :]) + tuple(bots[: game_number % len(bots)])
            plan.append(PlannedMatch(match_id, match_id, "sit_and_go", len(plan), seats, len(plan)))
            outcomes.append(_freezeout(folder, match_id, seats, game, rng, luck=luck))
    config = {
        "name": "synthetic",
        "format": fmt,
        "game": {
            "variant": variant.value,
            "betting": "no_limit",
            "small_blind": 1,
            "big_blind": 2,
            "starting_stack": 200,
        },
        "bots": [{"name": bot, "manifest": f"{bot}/bot.toml"} for bot in bots],
        "luck": "on" if luck else "off",
        "score": score,
    }
    folder.mkdir(parents=True, exist_ok=True)
    with ResultsDatabase(folder / "results.sqlite") as db:
        tournament = db.start_tournament("synthetic", f"fp-{fmt}-{seed}", config, seed, True)
        db.plan_matches(tournament.id, plan)
        for outcome in outcomes:
            db.record_match(tournament.id, outcome)
        db.finish_tournament(tournament.id)
    if standings and fmt == "round_robin":
        _write_standings(folder, bots, outcomes, blocks)
    return folder


def _outcome(
    folder: Path,
    match_id: str,
    seats: Sequence[str],
    hands: Sequence[PlayedHand],
    game: GameConfig,
    rng: random.Random,
) -> MatchOutcome:
    relative = f"matches/{match_id}/hands.jsonl"
    has_luck = any(p.luck is not None for p in hands)
    config = _match_config(game, len(hands), luck=has_luck)
    write_match(folder / relative, match_id, seats, hands, config)
    ids = [f"p{k}" for k in range(len(seats))]
    summaries = tuple(
        HandSummary(p.history["hand_number"], 2, p.nets, p.pot, p.went_to_showdown, p.adjusted(ids))
        for p in hands
    )
    return MatchOutcome(
        match_id,
        _seat_outcomes(seats, hands, match_id, rng),
        summaries,
        "hand_count",
        relative,
        1.0,
        estimator=_estimator(hands),
    )


def _estimator(hands: Sequence[PlayedHand]) -> str | None:
    return next((str(p.luck["estimator"]) for p in hands if p.luck is not None), None)


def _freezeout(
    folder: Path,
    match_id: str,
    seats: Sequence[str],
    game: GameConfig,
    rng: random.Random,
    *,
    luck: bool,
) -> MatchOutcome:
    ids = [f"p{k}" for k in range(len(seats))]
    match = Freezeout(game, ids, starting_stack=100, seed=match_id, max_hands=300)
    policy = random_policy(random.Random(rng.randrange(2**32)))
    hands: list[PlayedHand] = []
    while not match.is_over:
        hand = match.next_hand()
        played = _finish(hand, ids, policy, set(), rng)
        nets = tuple(played.nets[k] if k < len(played.nets) else 0 for k in range(len(ids)))
        hands.append(
            PlayedHand(
                played.history,
                played.decisions,
                nets,
                played.pot,
                played.went_to_showdown,
                luck=played.luck if luck else None,
            )
        )
        match.finish_hand(hand)
    places = {standing.player_id: standing.place for standing in match.standings()}
    relative = f"matches/{match_id}/hands.jsonl"
    config = _match_config(game, len(hands), "freezeout", luck=luck)
    write_match(folder / relative, match_id, seats, hands, config)
    summaries = tuple(
        HandSummary(
            p.history["hand_number"],
            max(1, p.history["config"]["big_blind"]),
            p.nets,
            p.pot,
            p.went_to_showdown,
            p.adjusted(ids),
        )
        for p in hands
    )
    return MatchOutcome(
        match_id,
        _seat_outcomes(seats, hands, match_id, rng, [places[i] for i in ids]),
        summaries,
        "one_player_left",
        relative,
        1.0,
        estimator=_estimator(hands),
    )


def _write_standings(
    folder: Path,
    bots: Sequence[str],
    outcomes: Sequence[MatchOutcome],
    blocks: Sequence[tuple[str, list[tuple[tuple[str, ...], str]]]],
) -> None:
    """standings.json as the tournament writes it (leaderboard and crosstable)."""
    by_id = {outcome.match_id: outcome for outcome in outcomes}
    has_luck = all(outcome.estimator is not None for outcome in outcomes)
    score: Score = "adjusted" if has_luck else "raw"
    units: list[dict[str, float]] = []
    adjusted: list[dict[str, float]] = []
    pairs: dict[tuple[str, str], list[float]] = {}
    adjusted_pairs: dict[tuple[str, str], list[float]] = {}
    for _block_id, members in blocks:
        block = [by_id[match_id] for _seats, match_id in members]
        block_units = duplicate_units(block)
        units.extend(block_units)
        a, b = members[0][0]
        pairs.setdefault((a, b), []).extend(unit[a] for unit in block_units)
        if has_luck:
            block_adjusted = duplicate_units(block, score="adjusted")
            adjusted.extend(block_adjusted)
            adjusted_pairs.setdefault((a, b), []).extend(unit[a] for unit in block_adjusted)
    chips = {bot: 0 for bot in bots}
    hands = {bot: 0 for bot in bots}
    for outcome in outcomes:
        for seat in outcome.seats:
            chips[seat.bot] += seat.chips_won
            hands[seat.bot] += seat.hands_played
    document = {
        "name": "synthetic",
        "format": "round_robin",
        "leaderboard": leaderboard(
            units, chips, hands, adjusted_units=adjusted if has_luck else None, score=score
        ).to_dict(),
        "crosstable": crosstable(
            pairs,
            bots=list(bots),
            adjusted_pair_units=adjusted_pairs if has_luck else None,
            score=score,
        ).to_dict(),
        "sprt": [],
    }
    (folder / "standings.json").write_text(json.dumps(document), encoding="utf-8")


def write_match_folder(
    folder: Path,
    names: Sequence[str],
    *,
    hand_count: int = 20,
    variant: Variant = Variant.HOLDEM,
    faulty: Sequence[str] = (),
    results: bool = True,
    seed: int = 3,
    stack_policy: str = "reset",
    luck: bool = True,
) -> Path:
    """A match's run folder: ``hands.jsonl`` and (unless ``results`` is false) a
    ``results.json`` with each seat's fault ledger and latency summary."""
    game = GameConfig(variant=variant)
    rng = random.Random(seed)
    ids = [f"p{k}" for k in range(len(names))]
    hands = [
        play_hand(
            game,
            ids,
            hand_number=number,
            deck_seed=f"{seed}:{number}",
            policy_seed=rng.randrange(2**32),
            faulty={k for k, name in enumerate(names) if name in faulty},
        )
        for number in range(1, hand_count + 1)
    ]
    hands = _without_luck(hands, luck)
    config = _match_config(game, hand_count, stack_policy, luck=luck)
    write_match(folder / "hands.jsonl", "match", names, hands, config)
    if results:
        players = []
        for seat in _seat_outcomes(names, hands, "match", rng):
            _histogram, latency = _latency(rng, 40)
            faults = [
                {
                    "kind": "timeout",
                    "hand_number": p.history["hand_number"],
                    "code": "timeout",
                    "detail": "no reply within 5000 ms",
                }
                for p in hands
                if seat.seat_index in p.faults
            ]
            players.append(
                {
                    "player_id": f"p{seat.seat_index}",
                    "name": seat.bot,
                    "seat_index": seat.seat_index,
                    "hands_played": seat.hands_played,
                    "chips_won": seat.chips_won,
                    "place": seat.place,
                    "final_stack": None,
                    "eliminated_in_hand": None,
                    "faults": {
                        "counts": {"timeout": len(faults), "crash": 0},
                        "latency": {
                            "count": latency.count,
                            "p50_ms": latency.p50_ms,
                            "p99_ms": latency.p99_ms,
                            "max_ms": latency.max_ms,
                            "mean_ms": latency.mean_ms,
                        },
                        "faults": faults,
                    },
                }
            )
        document = {
            "match_id": "match",
            "ended_reason": "hand_count",
            "config": config,
            "players": players,
        }
        (folder / "results.json").write_text(json.dumps(document), encoding="utf-8")
    return folder
