"""The games done counted as they are added to the sums (``RatingFit.done_count``, so a fit
no longer counts every game), started from the games already counted; and the fit as
matchmaking reads it (``RatingFit.snapshot``, made by the next fit)."""

from typing import Any

from django.db import migrations, models


def count_done(apps: Any, schema_editor: Any) -> None:
    """The games done and already in the sums: the ones counted from now on add to them."""
    game, fit = apps.get_model("arena_ladder", "Game"), apps.get_model("arena_ladder", "RatingFit")
    done = game.objects.filter(status="done", counted=True).count()
    if done:
        fit.objects.update_or_create(pk=1, defaults={"done_count": done})


class Migration(migrations.Migration):
    dependencies = [  # noqa: RUF012
        ("arena_ladder", "0004_running_sums"),
    ]

    operations = [  # noqa: RUF012
        migrations.AddField(
            model_name="ratingfit",
            name="done_count",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="ratingfit",
            name="snapshot",
            field=models.BinaryField(blank=True, default=b""),
        ),
        migrations.RunPython(count_done, migrations.RunPython.noop),
    ]
