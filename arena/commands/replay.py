"""``arena replay``: check a recorded match by playing it again."""

from __future__ import annotations

import argparse
from typing import TextIO

from arena.commands.values import fail
from arena.store.jsonl import HandLogError
from arena.tools.replay import replay_file

__all__ = ["run_replay"]


def run_replay(args: argparse.Namespace, parser: argparse.ArgumentParser, out: TextIO) -> int:
    try:
        report = replay_file(args.history)
    except (HandLogError, KeyError, TypeError, ValueError) as exc:
        # KeyError/TypeError/ValueError: a header that is JSON but not ours.
        fail(parser, "replay", f"cannot replay {str(args.history)!r}: {exc}")
    out.write(report.format(verbose=args.verbose) + "\n")
    return 0 if report.is_ok else 1
