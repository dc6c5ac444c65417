"""One new game per finished table (issue 50): "Play again with this table" made a game per
player who pressed it; from now on the first makes it and the others join it.

Finished games that already have several keep the first one made as their new game; the later
ones stay as they are (their lobbies, their players) but are no longer offered on the finished
game's page."""

from django.db import migrations, models


def keep_the_first_rematch(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    kept = set()
    later = []
    for pk, finished in (
        Game.objects.filter(rematch_of__isnull=False)
        .order_by("rematch_of", "created_at", "pk")
        .values_list("pk", "rematch_of")
    ):
        if finished in kept:
            later.append(pk)
        kept.add(finished)
    Game.objects.filter(pk__in=later).update(rematch_of=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0012_emailed_replies"),
    ]

    operations = [
        migrations.RunPython(keep_the_first_rematch, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="game",
            constraint=models.UniqueConstraint(
                fields=("rematch_of",), name="games_game_one_rematch_per_game"
            ),
        ),
    ]
