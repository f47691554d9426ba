"""The site's rate limits: each :class:`Limit` allows ``count`` events of its kind per key
(an address, an account from an address, a team) within ``window`` seconds; past it, the
action is refused (HTTP 429) until the oldest event leaves the window. Nothing wipes the
count early: a guesser that also knows one password, or makes one right guess, gains nothing.

The log-in is limited per account *from one address* (:data:`LOG_IN_PAIR`) and per address
(:data:`LOG_IN_ADDRESS`), never per account alone: a limit per account would let anyone
lock any account out, the administrator's included, with five wrong passwords every quarter
of an hour, while its owner, logging in from an address that has not failed, is never
stopped. A guesser pays :data:`LOG_IN_PAIR` guesses per account per window for each address
it holds, and :data:`LOG_IN_ADDRESS` in all from each.

The decision is a pure function of the events' times (:func:`is_limited`); the events are
rows of :class:`arena.server.site.models.RateEvent`, so every process of the site counts
the same ones (:mod:`arena.server.site.throttle` keeps them).

>>> is_limited([0.0] * 5, now=60.0, limit=5, window=900.0)
True
>>> is_limited([0.0] * 5, now=901.0, limit=5, window=900.0)
False
>>> is_limited([0.0] * 4, now=60.0, limit=5, window=900.0)
False
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CODE_GUESSES",
    "LOG_IN_ADDRESS",
    "LOG_IN_PAIR",
    "PASSWORD_CHANGES",
    "SIGN_UPS",
    "TEAM_UPLOADS",
    "UPLOADS_FROM_ADDRESS",
    "Limit",
    "address_key",
    "is_limited",
]


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``count`` events of ``kind`` per key within ``window`` seconds; ``what``
    names the events in the refusal."""

    kind: str
    count: int
    window: float
    what: str

    @property
    def refusal(self) -> str:
        """The message of a refusal.

        >>> SIGN_UPS.refusal
        'too many accounts made from this address: wait up to 60 minutes'
        """
        return f"too many {self.what}: wait up to {int(self.window // 60)} minutes"


#: Failed log-ins for one account from one address (15 minutes).
LOG_IN_PAIR = Limit("log-in-pair", 5, 900.0, "failed log-ins")
#: Failed log-ins from one address, whatever the accounts (a shared lab's address has room).
LOG_IN_ADDRESS = Limit("log-in-address", 20, 900.0, "failed log-ins")
#: Wrong current passwords given to the password change of one account (15 minutes): a
#: session left open on a shared machine does not let anyone guess its password unbounded.
PASSWORD_CHANGES = Limit("password-change", 5, 900.0, "wrong current passwords")
#: Accounts made from one address in an hour (a class signing up together fits).
SIGN_UPS = Limit("sign-up", 10, 3600.0, "accounts made from this address")
#: Wrong invitation or team codes from one address (15 minutes).
CODE_GUESSES = Limit("code", 10, 900.0, "wrong codes from this address")
#: Uploads by one team in an hour.
TEAM_UPLOADS = Limit("upload-team", 20, 3600.0, "uploads by this team")
#: Uploads from one address in an hour, whatever the teams.
UPLOADS_FROM_ADDRESS = Limit("upload-address", 30, 3600.0, "uploads from this address")


def is_limited(failures: Iterable[float], *, now: float, limit: int, window: float) -> bool:
    """Whether the events (times in seconds) within ``window`` before ``now`` reach ``limit``."""
    return sum(1 for at in failures if now - at < window) >= limit


def address_key(address: str) -> str:
    """An address as the limits count it: an IPv4 address itself, an IPv6 address its /64
    network (one host is given a whole /64: counted per address, it would have 2**64
    addresses, each with a fresh allowance); anything else as it is.

    >>> address_key("203.0.113.7"), address_key("2001:db8:1:2:aaaa::1")
    ('203.0.113.7', '2001:db8:1:2::/64')
    >>> address_key("::ffff:203.0.113.7"), address_key("not an address")
    ('203.0.113.7', 'not an address')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)
