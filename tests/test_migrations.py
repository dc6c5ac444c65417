"""The migrations say what the models say: a model changed without its migration would leave
the database of every deployed site as it was (``makemigrations --check`` finds nothing to
write)."""

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db  # makemigrations reads the database's migration history


def test_every_model_change_has_its_migration():
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:  # --check exits with 1 when a migration is missing
        raise AssertionError(f"a migration is missing:\n{out.getvalue()}") from exit_
