"""Create the demo players ann, bob, cid and dan (idempotent)."""

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand
from django.db import transaction

DEMO_NAMES = ("ann", "bob", "cid", "dan")
DEMO_PASSWORD = "saboteur-demo"  # noqa: S105 - printed on purpose, demo accounts only


class Command(BaseCommand):
    help = "Create demo users ann/bob/cid/dan with verified emails (for local trials only)."

    def add_arguments(self, parser):
        parser.add_argument("--password", default=DEMO_PASSWORD)

    @transaction.atomic
    def handle(self, *args, password, **options):
        User = get_user_model()
        # Hashed once for the four (the same password, printed below): the site's hasher takes a
        # third of a second of CPU on purpose, and `make run` resets the four at every start.
        hashed = make_password(password)
        for name in DEMO_NAMES:
            email = f"{name}@example.com"
            user, created = User.objects.get_or_create(
                username=name,
                defaults={"email": email, "display_name": name.capitalize()},
            )
            # Reset every time, so the printed password always works.
            user.password = hashed
            user.save(update_fields=["password"])
            EmailAddress.objects.update_or_create(
                user=user, email=email, defaults={"verified": True, "primary": True}
            )
            state = "created" if created else "exists"
            self.stdout.write(f"  {email:<20} password: {password}   ({state})")
