"""A fit's snapshot as the bytes stored in its row: the arrays a claim reads (ratings,
covariance band, candidate pairs), then the roster they were made for. numpy and JSON
only; :mod:`arena.server.ladder.fit_snapshot` makes and reads the snapshots."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = ["StoredRoster", "pack_snapshot", "unpack_snapshot"]


#: The snapshot's arrays, in the order :func:`pack_snapshot` lays them out; those holding whole
#: numbers (version numbers, game counts) come back as integers.
_SNAPSHOT = ("ids", "strength", "sd", "low", "high", "game_count", "band", "pair_first",
             "pair_second", "importance", "wrong", "variance", "placed", "knobs")  # fmt: skip
_WHOLE = frozenset({"ids", "game_count", "pair_first", "pair_second", "placed"})


def pack_snapshot(arrays: Mapping[str, npt.NDArray[Any]]) -> bytes:
    """:data:`_SNAPSHOT`'s arrays as one run of float64 (every value a version number or a
    count below 2**53, or a float): each array's dimensions, its shape, then its values,
    read back by :func:`unpack_snapshot` with one ``frombuffer`` (a zip of arrays took
    longer to open than the rest of a claim's reading).
    :func:`arena.server.ladder.fit_snapshot.fit_snapshot` follows them with the roster they were
    made for, as JSON (:class:`StoredRoster`)."""
    parts: list[npt.NDArray[np.float64]] = []
    for name in _SNAPSHOT:
        values = np.asarray(arrays[name], dtype=np.float64)
        parts += [np.array([values.ndim, *values.shape], dtype=np.float64), values.ravel()]
    return np.concatenate(parts).astype("<f8").tobytes()


def unpack_snapshot(data: bytes) -> tuple[dict[str, npt.NDArray[Any]], StoredRoster | None]:
    """:func:`pack_snapshot`'s arrays again, and the roster after them (None: a snapshot made
    before the roster was stored)."""
    flat = np.frombuffer(data, dtype="<f8", count=len(data) // 8)  # the roster's bytes too
    found: dict[str, npt.NDArray[Any]] = {}
    at = 0
    for name in _SNAPSHOT:
        dimensions = int(flat[at])
        shape = tuple(int(size) for size in flat[at + 1 : at + 1 + dimensions])
        at += 1 + dimensions
        size = int(np.prod(shape))
        values = flat[at : at + size].reshape(shape)
        found[name] = values.astype(np.int64) if name in _WHOLE else values
        at += size
    rest = data[8 * at :]
    if not rest:
        return found, None
    roster = json.loads(rest)
    return found, StoredRoster(roster["digest"], tuple(roster["labels"]), tuple(roster["teams"]))


class StoredRoster(NamedTuple):
    """The roster a fit's candidates were made for: its digest
    (:func:`arena.server.ladder.roster.roster_digest`), and the label and team of each
    version of the snapshot, in its order."""

    digest: str
    labels: tuple[str, ...]
    teams: tuple[str, ...]
