"""The executor settings: ``executor`` and ``scheduler``, from TOML and flags; they decide
nothing a bot does, so they are not part of the tournament's fingerprint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.settings.catalog import ExecutorKind
from arena.tournament.config import (
    TournamentConfigError,
    build_config,
    fingerprint,
    load_config,
)
from tests.arena.tournament.helpers import FOLDER, STATION

BOTS = [str(FOLDER), str(STATION)]


def _file(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(f"bots = {json.dumps(BOTS)}\n{body}\n", encoding="utf-8")
    return path


def test_the_local_pool_is_the_default_executor() -> None:
    config = build_config(overrides={"bots": BOTS})
    assert (config.executor, config.scheduler) == (ExecutorKind.LOCAL, None)


def test_a_file_asks_for_a_dask_cluster_at_a_scheduler(tmp_path: Path) -> None:
    config = load_config(_file(tmp_path, 'executor = "dask"\nscheduler = "tcp://10.0.0.5:8786"'))
    assert (config.executor, config.scheduler) == (ExecutorKind.DASK, "tcp://10.0.0.5:8786")
    assert build_config(overrides=config.to_values()) == config
    assert config.to_dict()["executor"] == "dask"


@pytest.mark.parametrize(
    "address", ["tcp://10.0.0.5:8786", "tls://scheduler.lan:8786", "host-1:8786", "[::1]:8786"]
)
def test_a_scheduler_is_an_address_with_a_port(address: str) -> None:
    config = build_config(overrides={"bots": BOTS, "executor": "dask", "scheduler": address})
    assert config.scheduler == address


@pytest.mark.parametrize(
    "address", ["http://host:8786", "tcp://host", "tcp://host:0", "tcp://host:70000", "", 8786]
)
def test_a_bad_scheduler_address_is_named_with_the_shape_wanted(address: object) -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(overrides={"bots": BOTS, "executor": "dask", "scheduler": address})
    assert caught.value.key == "scheduler"
    assert "must be a Dask scheduler's address: tcp://HOST:PORT or tls://HOST:PORT" in str(
        caught.value
    )


def test_an_unknown_executor_suggests_the_closest() -> None:
    with pytest.raises(TournamentConfigError, match=r"one of local, dask \(did you mean 'dask'"):
        build_config(overrides={"bots": BOTS, "executor": "dsk"})


def test_a_scheduler_without_the_dask_executor_is_an_error() -> None:
    with pytest.raises(TournamentConfigError) as caught:
        build_config(overrides={"bots": BOTS, "scheduler": "tcp://10.0.0.5:8786"})
    assert str(caught.value) == (
        'command line: scheduler = "tcp://10.0.0.5:8786": is used only by executor = dask'
        " (--executor dask)"
    )


def test_the_executor_leaves_the_fingerprint_alone() -> None:
    # A run started on the local pool resumes on a cluster, and the other way round.
    local = build_config(overrides={"bots": BOTS, "seed": 3})
    cluster = build_config(
        overrides={
            "bots": BOTS,
            "seed": 3,
            "executor": "dask",
            "scheduler": "tcp://10.0.0.5:8786",
        }
    )
    assert fingerprint(local) == fingerprint(cluster)
