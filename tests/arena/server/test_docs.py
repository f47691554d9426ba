"""docs/server.md keeps up with the code: every site key of the competition file is in its
table with its default, and the log-in limits it states are the ones enforced."""

from __future__ import annotations

import re

from arena.server.competition import SITE_KEYS
from arena.server.site import ratelimit
from tests import REPO_ROOT

DOC = (REPO_ROOT / "docs" / "server.md").read_text(encoding="utf-8")


def test_every_site_key_is_in_the_table() -> None:
    rows = dict(re.findall(r"^\| `([a-z_.]+)` \| ([^|]+) \|", DOC, re.M))
    assert set(rows) == set(SITE_KEYS)
    for key, setting in SITE_KEYS.items():
        if setting.default is not None:
            assert rows[key].strip().strip("`").strip('"') in (str(setting.default), setting.shown)


def test_the_log_in_limits_are_the_ones_enforced() -> None:
    stated = (
        f"after {ratelimit.LOG_IN_PAIR.count} failures for one account from one address, or "
        f"{ratelimit.LOG_IN_ADDRESS.count} from one address, within "
        f"{int(ratelimit.LOG_IN_PAIR.window // 60)}"
    )
    assert stated in " ".join(DOC.split())
