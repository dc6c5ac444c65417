"""Outbox rows of decisions under way, keyed by the decision's start alone, get the key that
adds the game's version (``games.outbox.schedule.decision_key``): without it, the sender would
take their decision for another one and drop the "your turn" emails and reminders pending at
the deploy. Rows of decisions that are over keep their old keys (nothing reads them again)."""

from django.db import migrations


def rekey(apps, schema_editor):
    Notice = apps.get_model("games", "Notice")
    pending = Notice.objects.filter(kind__in=("turn", "reminder"), status="pending")
    for notice in pending.select_related("game").iterator():
        game, old = notice.game, notice.data.get("since", "")
        if game.decision_since is None or old != game.decision_since.isoformat():
            continue
        new = f"v{game.version}@{old}"
        notice.data = {**notice.data, "since": new}
        notice.key = notice.key[: -len(old)] + new if notice.key.endswith(old) else notice.key
        notice.save(update_fields=["data", "key"])


class Migration(migrations.Migration):
    dependencies = [("games", "0006_clocks")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
