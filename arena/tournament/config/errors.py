"""The one error of a tournament's configuration.

>>> str(TournamentConfigError("weekly.toml", "sprt.alpha", 0.7, "must be below 0.5"))
'weekly.toml: sprt.alpha = 0.7: must be below 0.5'
"""

from __future__ import annotations

from arena.settings import SettingsError

__all__ = ["TournamentConfigError"]


class TournamentConfigError(SettingsError):
    """A tournament configuration that cannot be used; the message names the source (the
    TOML file or ``command line``), the dotted key and the bad value, and says what is
    allowed (see :class:`arena.settings.SettingsError`)."""

    code = "bad_tournament_config"
