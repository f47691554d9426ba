"""Start-up timing: exec to ``ready``, over several starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.startup import measure_startup
from tests import REPO_ROOT
from tests.arena.bots.programs import hostile, script_manifest


def test_measure_startup_times_exec_to_ready() -> None:
    timing = measure_startup(REPO_ROOT / "sample_bots/python_random/bot.toml", repeats=2)
    assert timing.bot_name == "python random" and len(timing.samples_s) == 2
    assert 0 < timing.median_s <= timing.max_s < 10
    assert timing.to_dict()["starts"] == 2


def test_measure_startup_skips_lines_before_ready(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "print('banner', flush=True)\n"
        "seq = json.loads(sys.stdin.readline())['seq']\n"
        "print(json.dumps({'type': 'ready', 'seq': seq, 'name': 'x'}), flush=True)\n"
    )
    timing = measure_startup(script_manifest(code, tmp_path), repeats=1)
    assert len(timing.samples_s) == 1


def test_measure_startup_fails_clearly_without_ready() -> None:
    with pytest.raises(RuntimeError, match="sent no ready"):
        measure_startup(hostile("hang", "startup"), repeats=1, timeout_s=0.2)
