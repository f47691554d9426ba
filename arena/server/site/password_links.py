"""One-time links to set a password, made by the administrator (the site sends no email):
``manage password_link NAME`` or the action "Make a one-time password link" on the admin's
Users page. The link is Django's password-reset link: it works once (setting the password
changes what its token was signed with) and for ``PASSWORD_RESET_TIMEOUT`` at most (three
days), and only for the account it was made for."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.contrib.auth.tokens import default_token_generator
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

__all__ = ["password_link"]


def password_link(user: User) -> str:
    """The path of a one-time link for ``user`` to set a new password."""
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    return reverse("password-reset", args=[uid, default_token_generator.make_token(user)])
