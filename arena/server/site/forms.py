"""The site's forms."""

from __future__ import annotations

import hmac
from typing import Any

from django import forms
from django.contrib.auth.forms import UserCreationForm

from arena.server.site.models import Team, TokenScope

__all__ = ["JoinTeamForm", "NewTeamForm", "SignUpForm", "TokenForm", "UploadForm", "codes_match"]


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """A new account; with ``invite`` the invitation code too."""

    invite_code = forms.CharField(required=False, max_length=64)

    def __init__(self, *args: Any, invite: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.invite = invite
        if invite is None:
            del self.fields["invite_code"]

    def clean_username(self) -> str:
        """A name no account has in any case (Django's check), and in ASCII once read as
        NFKC: a database compares case only in ASCII for certain, and the log-in finds an
        account by its name in any case (:mod:`arena.server.site.names`)."""
        name = str(super().clean_username() or "")  # "" once Django found the name taken
        if not name.isascii():
            raise forms.ValidationError(
                f"{name!r}: a user name is ASCII letters, digits and @ . + - _ only"
            )
        return name

    def clean_invite_code(self) -> str:
        """The code must be the site's (compared in constant time: the time taken tells a
        guesser nothing of how much of the code it had right)."""
        code = str(self.cleaned_data.get("invite_code") or "")
        if self.invite is not None and not codes_match(code, self.invite):
            raise forms.ValidationError("that is not the invitation code")
        return code


def codes_match(given: str, expected: str) -> bool:
    """Whether a typed code is ``expected``, in constant time.

    >>> codes_match("blue-42", "blue-42"), codes_match("blue-41", "blue-42")
    (True, False)
    """
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


class NewTeamForm(forms.Form):
    """A new team's name."""

    name = forms.RegexField(
        regex=r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$",
        max_length=64,
        error_messages={"invalid": "1 to 64 letters, digits, spaces, '.', '_' or '-'"},
    )

    def clean_name(self) -> str:
        """A name no team has."""
        name = str(self.cleaned_data["name"]).strip()
        if Team.objects.filter(name__iexact=name).exists():
            raise forms.ValidationError("a team of that name exists")
        return name


class JoinTeamForm(forms.Form):
    """The team code a member gave."""

    code = forms.CharField(max_length=32)


class TokenForm(forms.Form):
    """A new token's name, the days it works (blank: until revoked) and what it may do."""

    name = forms.CharField(max_length=64)
    days = forms.IntegerField(
        required=False, min_value=1, max_value=3650, label="Works for (days, blank: until revoked)"
    )
    #: Left out (an older form or script): read and upload, as every token before scopes.
    scope = forms.ChoiceField(
        choices=TokenScope.choices,
        initial=TokenScope.UPLOAD,
        required=False,
        label="What it may do",
    )


class UploadForm(forms.Form):
    """A bot archive (tar.gz or zip), and whether it plays once accepted (unticked: the
    site's rule, only when no version of the team plays yet)."""

    archive = forms.FileField()
    activate = forms.BooleanField(
        required=False, label="Play with this version once it is accepted"
    )
