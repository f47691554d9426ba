"""``arena match``: build the bots, play a match, print its results.

The use case is :func:`arena.match.host.host_match`; this module reads the flags and
prints. A bot whose build failed cannot start: the match is refused (exit code 2) unless
``--allow-absent`` lets it sit out.

After the results, :func:`score_table` gives each bot's result in mbb/hand with its 95%
interval over the hands: raw and, when the luck estimator ran, luck-adjusted, with the luck
between them (raw - adjusted). Raw is always shown.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from rich.table import Table
from rich.text import Text

from arena.commands.common import (
    check_out_dir,
    default_out_dir,
    load_manifests,
    open_launcher,
    print_match_end,
    with_advice,
)
from arena.commands.report import report_after_run
from arena.match import host
from arena.match.config import MAX_SEATS, MIN_SEATS
from arena.match.console import show_table, table_text
from arena.match.host import BuildFailedError
from arena.match.log import configure_logging
from arena.match.progress import Progress
from arena.match.readiness import BotsNotReadyError
from arena.match.results import MatchResult
from arena.settings import UsageError, add_groups, given, group
from arena.settings.match import match_config
from arena.stats.intervals import Estimate, estimate
from arena.stats.units import mbb
from protocol.inert import inert_text

__all__ = [
    "DEFAULT_HAND_COUNT",
    "DESCRIPTION",
    "GROUPS",
    "add_arguments",
    "run",
    "score_summary",
    "score_table",
]

#: Hands of a match when --hands is not given (and it is not a freezeout).
DEFAULT_HAND_COUNT = 100
#: The settings a match takes.
GROUPS = ("game", "match", "run", "score", "limits", "sandbox", "log", "output")

DESCRIPTION = (
    "Play a match between 2 to 10 bots, seated in the order given; writes hands.jsonl, "
    "results.json, stderr/ and report.html to --out."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena match``'s arguments."""
    parser.add_argument("manifests", nargs="+", type=Path, metavar="MANIFEST", help="bot.toml")
    add_groups(
        parser,
        *GROUPS,
        shown={"out": "runs/match-<time>", "hands": str(DEFAULT_HAND_COUNT)},
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Play the match; 0 played, 130 interrupted (usage mistakes raise ``UsageError``)."""
    count = len(args.manifests)
    if not MIN_SEATS <= count <= MAX_SEATS:
        raise UsageError(f"a match needs {MIN_SEATS} to {MAX_SEATS} manifests, got {count}")
    manifests = load_manifests(args.manifests)
    config = match_config(given(args, group(*GROUPS)), default_hands=DEFAULT_HAND_COUNT)
    folder = check_out_dir(args.out if args.out is not None else default_out_dir("match"))
    launcher = open_launcher(args, out)
    remove_logging = configure_logging(
        args.log_level, log_file=args.log_file, game_id=config.match_id
    )
    progress = None if args.no_progress else Progress(config.hand_count)
    try:
        result = host.host_match(
            config, manifests, folder.path, launcher=launcher, progress=progress
        )
    except BuildFailedError as exc:
        raise UsageError(
            with_advice(exc, "fix the bot, or pass --allow-absent to play on without it")
        ) from None
    except BotsNotReadyError as exc:
        # Nearly always a mistake of the command (a wrong path, a missing build): no hand
        # was played and the bots are stopped; the user may play on without them.
        raise UsageError(f"{exc}; fix the bot or pass --allow-absent to play on") from None
    except KeyboardInterrupt:
        # The bots are already stopped (run_match's finally); the hands so far are kept.
        out.write(f"\ninterrupted: the hands played so far are in {folder.history}\n")
        return 130
    finally:
        remove_logging()
        launcher.close()
    print_match_end(result, folder, out, speed=True)
    about, table = score_summary(result, score=str(config.score))
    out.write(about + "\n")
    show_table(out, table)
    if not args.no_report:
        report_after_run(folder.path, out)
    return 0


def score_table(result: MatchResult, *, score: str) -> str:
    """Each bot's result in mbb/hand ± its 95% interval over the hands it was dealt: raw,
    and with the luck estimator adjusted and the luck (raw - adjusted); a first line names
    what the match was measured by (``score``), the estimator and the order of the rows.
    Plain text at its natural width, as the results table.

    >>> from arena.match.results import PlayerResult
    >>> from arena.store.outcome import HandSummary
    >>> hands = tuple(HandSummary(n, 2, (s, -s), adjusted=(s / 4, -s / 4))
    ...               for n, s in enumerate((4, -2, 6, 0), start=1))
    >>> players = (PlayerResult("p0", "ann", 0, 4, 8, 4.0),
    ...            PlayerResult("p1", "bob", 1, 4, -8, -4.0))
    >>> result = MatchResult("m", 1, "hands", 4, players, estimator="e/1", hands=hands)
    >>> print(score_table(result, score="adjusted"))
    mbb/hand ± 95% interval over the hands; score adjusted; luck estimator e/1; rows by adjusted
    ┏━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━┓
    ┃ bot ┃          raw ┃   adjusted ┃ luck ┃
    ┡━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━┩
    │ ann │ +1000 ± 2905 │ +250 ± 726 │ +750 │
    │ bob │ -1000 ± 2905 │ -250 ± 726 │ -750 │
    └─────┴──────────────┴────────────┴──────┘
    """
    about, table = score_summary(result, score=score)
    return about + "\n" + table_text(table)


def score_summary(result: MatchResult, *, score: str) -> tuple[str, Table]:
    """:func:`score_table`'s first line and its table (which a terminal fits to its width)."""
    has_luck = result.estimator is not None and all(h.adjusted is not None for h in result.hands)
    table = Table()
    table.add_column("bot")
    table.add_column("raw", justify="right")
    if has_luck:
        table.add_column("adjusted", justify="right")
        table.add_column("luck", justify="right")
    rows: list[tuple[float, list[str]]] = []
    for player in result.ranked():
        # The hands the seat was dealt: all of them, or those up to its elimination.
        last = player.eliminated_in_hand
        hands = [
            hand
            for hand in result.hands
            if hand.big_blind > 0 and (last is None or hand.hand_number <= last)
        ]
        index = player.seat_index
        raw = estimate([mbb(hand.nets[index], hand.big_blind) for hand in hands])
        row = [inert_text(player.name), _interval(raw)]
        scored = raw.mean
        if has_luck:
            adjusted = estimate(
                [1000.0 * (hand.adjusted or ())[index] / hand.big_blind for hand in hands]
            )
            row += [_interval(adjusted), f"{raw.mean - adjusted.mean:+.0f}"]
            scored = adjusted.mean if score == "adjusted" else raw.mean
        rows.append((scored, row))
    # Rows in the order of a number shown: a freezeout's places (who busted first), else
    # the score the match is measured by (the other formats' places are the raw chips).
    by_place = result.mode == "freezeout"
    kind = score if has_luck else "raw"
    if not by_place:
        rows.sort(key=lambda scored_row: -scored_row[0])  # stable: ties keep the ranking
    for _scored, row in rows:
        table.add_row(*(Text(cell) for cell in row))
    about = f"luck estimator {result.estimator}" if has_luck else "luck estimator off"
    order = "place" if by_place else kind
    return f"mbb/hand ± 95% interval over the hands; score {score}; {about}; rows by {order}", table


def _interval(value: Estimate) -> str:
    """``+120 ± 35`` (``± -`` while the spread is unknown: fewer than two hands)."""
    half = value.half_width
    return f"{value.mean:+.0f} ± {half:.0f}" if half != float("inf") else f"{value.mean:+.0f} ± -"
