"""One account, however its name is typed.

Django's log-in form already reads a user name as NFKC and strips its spaces, so ``"alice "``,
``" alice"`` and a fullwidth ``"ａlice"`` all log in as ``alice``; whatever counts tries per
account (:mod:`arena.server.site.ratelimit`) or looks an account up must read the name the
same way, or each spelling is a new account to the limit while it is the same one to the
password check. :func:`account_key` is that reading, case-folded too: the site's names are
unique without regard to case (Django's sign-up form refuses ``Alice`` next to ``alice``),
and the log-in finds an account by its name in any case (:class:`NameBackend`).

>>> account_key(" alice"), account_key("alice "), account_key("ａlice"), account_key("ALICE")
('alice', 'alice', 'alice', 'alice')
>>> account_key("\\u212aate")  # the Kelvin sign is a K once NFKC has read it
'kate'
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import User
from django.http import HttpRequest

__all__ = ["NameBackend", "account_key", "find_account"]


def account_key(name: str) -> str:
    """The account a typed name means: NFKC, without surrounding spaces, case-folded."""
    return unicodedata.normalize("NFKC", name).strip().casefold()


def find_account(name: str) -> User | None:
    """The account ``name`` means (:func:`account_key`): its exact name first, else the one
    account whose name differs only in case; None when there is none (or, for accounts an
    administrator made apart only by case, more than one)."""
    typed = unicodedata.normalize("NFKC", name).strip()
    exact = User.objects.filter(username=typed).first()
    if exact is not None:
        return exact
    key = account_key(typed)
    # iexact narrows in the database; the key decides (a database may fold only ASCII).
    found = [user for user in User.objects.filter(username__iexact=typed)
             if account_key(user.username) == key]  # fmt: skip
    return found[0] if len(found) == 1 else None


class NameBackend(ModelBackend):
    """Django's own log-in by user name and password, the account found by
    :func:`find_account` (the site's only authentication backend)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        """The account ``username`` means, when ``password`` is its password and it may log in."""
        if username is None or password is None:
            return None
        user = find_account(username)
        if user is None:
            # As Django does: hash anyway, so that an unknown name answers no faster.
            User().set_password(password)
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None
