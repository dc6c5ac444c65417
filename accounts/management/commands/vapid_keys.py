"""``manage.py vapid_keys FILE``: the VAPID private key for push notifications in FILE, made once.

``make run`` (scripts/run.sh) keeps its key in .run/vapid/private_key and exports it as
VAPID_PRIVATE_KEY; production sets VAPID_PRIVATE_KEY itself (see the README).
"""

from __future__ import annotations

import os
from pathlib import Path

from django.core.management.base import BaseCommand

from saboteur_site import vapid


class Command(BaseCommand):
    help = "Write a new VAPID private key (base64url) to FILE unless FILE already holds one."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        if file.exists() and file.read_text().strip():
            self.stdout.write(f"Push notifications: the VAPID key in {file} is kept.")
            return
        file.parent.mkdir(parents=True, exist_ok=True)
        private, public = vapid.generate()
        # Only its owner may read a private key.
        descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(private + "\n")
        self.stdout.write(f"Push notifications: a new VAPID key pair, its private key in {file}.")
