"""An administrator account in one step (``make admin`` runs it in the run mode; README)."""

import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from accounts import services


class Command(BaseCommand):
    help = (
        "Create an administrator (staff, superuser, verified address) who can log in at once, "
        "or make the account with this address one. The password comes from ADMIN_PASSWORD, "
        "else a random one is made and printed."
    )

    def add_arguments(self, parser):
        parser.add_argument("email", help="the administrator's email address (their login)")
        parser.add_argument("--name", default="", help="display name, for a new account")

    def handle(self, *args, email, name, **options):
        try:
            account = services.admin_create(
                email=email, display_name=name, password=os.environ.get("ADMIN_PASSWORD", "")
            )
        except services.AccountError as error:
            hint = " (--name, or NAME=... with make admin)" if error.code == "display_name" else ""
            raise CommandError(f"{error.message}{hint}") from None
        user = account.user
        if account.password:
            how = f"the password {account.password} (change it once logged in)"
        elif os.environ.get("ADMIN_PASSWORD"):
            how = "the password from ADMIN_PASSWORD"
        else:
            how = "their password"
        state = "Created the administrator" if account.created else "Made an administrator of"
        self.stdout.write(
            f"{state} {user.display_name} <{user.email}>: log in at "
            f"{settings.SITE_URL.rstrip('/')}/admin/ with {how}."
        )
