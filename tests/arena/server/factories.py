"""Rows for the site's tests: teams with a member, versions with an archive, tokens."""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

from django.contrib.auth.models import User
from django.core.files.base import ContentFile

from arena.server.site.models import ApiToken, BotVersion, Membership, Team, VersionStatus
from arena.server.site.tokens import new_token, token_digest, token_prefix

PASSWORD = "a long enough password"


def make_team(name: str, *, member: str | None = None) -> Team:
    """A team with one member (``member``, default ``<name>-1``)."""
    team = Team.objects.create(name=name)
    user = User.objects.create_user(member or f"{name}-1", password=PASSWORD)
    Membership.objects.create(user=user, team=team)
    return team


def make_version(
    team: Team, *, status: VersionStatus = VersionStatus.QUEUED, data: bytes = b"archive"
) -> BotVersion:
    """The team's next version, with ``data`` as its archive."""
    number = team.versions.count() + 1
    version = BotVersion(
        team=team,
        number=number,
        status=status,
        archive_sha256=hashlib.sha256(data).hexdigest(),
    )
    version.archive.save(f"{team.pk}-{number}.tar.gz", ContentFile(data), save=False)
    version.save()
    return version


def make_token(team: Team) -> str:
    """A new token of ``team`` (the token itself), made by its first member."""
    token = new_token()
    maker = team.memberships.order_by("pk").first()
    ApiToken.objects.create(
        team=team,
        created_by=None if maker is None else maker.user,
        name="test",
        prefix=token_prefix(token),
        digest=token_digest(token),
    )
    return token


#: Numbers the default archives of :func:`bot_archive`, so that each is new.
_archives = itertools.count(1)


def bot_archive(text: str | None = None) -> bytes:
    """A small tar.gz with a ``bot.toml`` holding ``text`` and a program. The same
    ``text`` gives the same bytes (an identical upload: the site links it to the version it
    repeats); without one, each call's ``bot.toml`` is a new one (a new version)."""
    import gzip
    import io
    import tarfile

    if text is None:
        text = f'name = "bot"\n# archive {next(_archives)}\n'
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as packed,
        tarfile.open(fileobj=packed, mode="w") as archive,
    ):
        for name, data in (("bot.toml", text.encode()), ("bot.py", b"print('hi')\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def write_hands(path: Path, names: tuple[str, str] = ("ants", "bees"), count: int = 6) -> Path:
    """A heads-up match's ``hands.jsonl`` of ``count`` hands at ``path`` (engine-played)."""
    from engine.config import GameConfig
    from tests.arena.report.runs import play_hand, write_match

    ids = ["p0", "p1"]
    hands = [
        play_hand(GameConfig(), ids, hand_number=number, deck_seed=f"d{number}", policy_seed=number)
        for number in range(1, count + 1)
    ]
    write_match(path, "m1", names, hands, {"variant": "holdem"})
    return path
