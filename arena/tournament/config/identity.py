"""What of a tournament's configuration decides its results: the :func:`fingerprint` a run
is stored and found again by, and the first :func:`difference` between a stored config and
today's (why a resume is refused).

Which keys decide the results is declared once, with each key, in
:mod:`arena.settings.catalog` (``decides_results``); the rules here say which of them a
format leaves unused, which are held resolved (their defaults depend on other keys), and
which were added after runs were stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from arena.session.policy import TimeBasis
from arena.settings import REGISTRY, file_keys
from arena.settings.catalog import Format

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig

__all__ = ["difference", "fingerprint"]


def fingerprint(config: TournamentConfig) -> str:
    """SHA-256 (hex) of everything that decides the results: the bots' names and manifest
    paths, the format and its sizes, the game, the limits, the sequential test and the seed
    when one is given. Not the name, run folder, concurrency, executor or sandbox (a run
    may be resumed with more workers, or on a cluster), nor settings the format leaves unused.
    """
    is_sit_and_go = config.format is Format.SIT_AND_GO

    def decides(key: str) -> bool:
        table = key.partition(".")[0]
        if key not in REGISTRY or not REGISTRY[key].decides_results or table == "ring":
            return False  # the seats and the challenger are added resolved below
        if table == "sprt":
            return config.sprt.enabled
        if table == "sit_and_go" or key in ("deals", "block_deals"):
            return (table == "sit_and_go") == is_sit_and_go
        return True

    data = {
        key: value
        for key, value in config.to_values().items()
        if decides(key) and _ADDED_LATER.get(key) != value
    }
    data.update(
        bots=[[bot.name, str(bot.manifest)] for bot in config.bots],
        seats=config.seats,
        seed=config.seed,
        challenger=config.challenger_name,
        games=config.games if is_sit_and_go else None,
    )
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def difference(stored: Mapping[str, Any], config: TournamentConfig) -> str:
    """The first setting that decides the results and differs between a stored
    :meth:`TournamentConfig.to_dict` and ``config``, as ``deals = 4, now 6``; ``""`` when
    none is found."""
    now = config.to_dict()
    for key, setting in file_keys().items():
        if not setting.decides_results and key not in _RESOLVED:
            continue
        table, _, leaf = key.rpartition(".")
        before = (stored.get(table) or {}).get(leaf) if table else stored.get(key)
        before = _ADDED_LATER.get(key) if before is None else before
        after = now[table].get(leaf) if table else now.get(key)
        if before != after:
            return f"{key} = {json.dumps(before)}, now {json.dumps(after)}"
    return ""


#: Keys added after runs were stored, with the value every run had before: left out of
#: the fingerprint at that value, so that a run stored before the key existed is still
#: recognised and resumed.
_ADDED_LATER: dict[str, object] = {"limits.time_basis": TimeBasis.WALL.value, "luck": "off"}

#: Keys the fingerprint holds resolved (their defaults depend on other keys).
_RESOLVED = ("bots", "seed", "challenger", "sit_and_go.seats", "sit_and_go.games", "ring.seats")
