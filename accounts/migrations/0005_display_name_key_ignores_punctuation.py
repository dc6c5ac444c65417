"""Display-name keys under the rule of issue 23: spaces, punctuation and symbols no longer tell
two names apart ("Ann", "A nn" and "Ann." share the key "ann").

Every key is computed again with ``accounts.names.skeleton``. Players who joined under the older
rule may now share a key; the column is unique, so only one of them can hold it:

- the player who took the name first (earliest ``date_joined``, then lowest id) keeps the key,
  and with it the protection against new look-alikes;
- each later one keeps their name (renaming a player behind their back would be worse) but gets
  no key (NULL, as for a row without a name). Their name is grandfathered: ``User.save`` leaves
  the key of an unchanged name alone and the name rules never refuse a player's current name,
  so they can go on saving their profile and password; the next time they change their name it
  must pass the rules like anyone's. A new player still cannot take a look-alike of theirs, as
  the first holder's key covers it.

Nothing here fails on such a pair, so the migration never stops a deploy. Going back keeps the
new keys: they are stricter than the old ones, and the old code recomputes a key on every save.
"""

from django.db import migrations


def recompute_keys(apps, schema_editor):
    # The current rule, on purpose: the keys must be what the running code compares against.
    from accounts.names import skeleton

    User = apps.get_model("accounts", "User")
    users = list(User.objects.order_by("date_joined", "pk").only("pk", "display_name"))
    # No key while they are recomputed, so no update meets a key that is about to move.
    User.objects.update(display_name_key=None)
    taken = set()
    for user in users:
        key = skeleton(user.display_name) or None
        if key in taken:
            key = None  # a later look-alike: grandfathered without a key (see above)
        elif key is not None:
            taken.add(key)
        user.display_name_key = key
    User.objects.bulk_update(users, ["display_name_key"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_reminder_hours"),
    ]

    operations = [
        migrations.RunPython(recompute_keys, migrations.RunPython.noop),
    ]
