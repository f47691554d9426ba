"""Protocol versions and the handshake's version negotiation.

The arena's ``hello`` names its preferred version (``protocol_version``) and every version
it can speak (``supported_versions``). The bot's ``ready`` may name the version it will
speak; it must be one of the offered ones. A ``ready`` without ``protocol_version`` means
the bot speaks the arena's preferred version.

A new version number is for a change a bot must handle. An addition a bot may use or
ignore (an optional field of a reply) keeps the version and is announced in
``hello.features`` (:data:`FEATURES`), so a bot can tell whether the arena accepts it.

>>> negotiate(None)
1
>>> negotiate(1)
1
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.errors import BotReplyError, ErrorCode

__all__ = ["FEATURES", "PROTOCOL_VERSION", "SUPPORTED_VERSIONS", "negotiate"]

#: The version this package speaks by preference (the newest one).
PROTOCOL_VERSION = 1

#: Every version this package can speak, newest first.
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)

#: What this arena accepts beyond version 1 as first published, named in ``hello.features``.
#: A feature is an addition a bot may use or ignore: a bot that never uses it sees nothing
#: change, so it needs no new version. ``distribution``: an ``action`` reply may carry a
#: mixed strategy (:mod:`protocol.strategy`).
FEATURES: tuple[str, ...] = ("distribution",)


def negotiate(
    bot_version: int | None,
    supported: Sequence[int] = SUPPORTED_VERSIONS,
    *,
    preferred: int = PROTOCOL_VERSION,
) -> int:
    """The version both sides speak, from the bot's ``ready.protocol_version``.

    ``None`` (the bot did not say) selects ``preferred``. A version the arena did not
    offer is the bot's fault (``unsupported_version``).
    """
    if bot_version is None:
        return preferred
    if bot_version not in supported:
        offered = ", ".join(str(v) for v in supported)
        raise BotReplyError(
            ErrorCode.UNSUPPORTED_VERSION,
            f"protocol_version {bot_version!r} is not one of the offered versions: {offered}",
            "/protocol_version",
        )
    return bot_version
