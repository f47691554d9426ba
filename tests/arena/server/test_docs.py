"""docs/server.md keeps up with the code: every site key of the competition file is in its
table with its default, and the rate limits it states are the ones enforced."""

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


def test_the_other_rate_limits_are_the_ones_enforced() -> None:
    hour = 3600.0
    assert ratelimit.SIGN_UPS.window == ratelimit.TEAM_UPLOADS.window == hour
    assert ratelimit.UPLOADS_FROM_ADDRESS.window == hour
    text = " ".join(DOC.split())
    assert f"Sign-up is limited to {ratelimit.SIGN_UPS.count} accounts per address per hour" in text
    assert (
        f"uploads to {ratelimit.TEAM_UPLOADS.count} per team and "
        f"{ratelimit.UPLOADS_FROM_ADDRESS.count} per address per hour"
    ) in text
    assert (
        f"{ratelimit.CODE_GUESSES.count} wrong ones from an address within "
        f"{int(ratelimit.CODE_GUESSES.window // 60)} minutes"
    ) in text
