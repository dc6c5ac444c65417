"""An administrator in one step (issue 23, point 7): ``manage.py admin_create`` and ``make admin``
make an account that can log in at once, with no confirmation email to wait for."""

import io
import os
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.players import PASSWORD, create_player

ROOT = Path(__file__).resolve().parents[2]
User = get_user_model()
PRINTED_PASSWORD = re.compile(r"with the password (\S+) \(change it once logged in\)\.$")


def admin_create(*args):
    out = io.StringIO()
    call_command("admin_create", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_a_new_administrator_logs_in_at_once_with_the_printed_password(client, monkeypatch):
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    out = admin_create("boss@example.com", "--name", "Boss")
    assert len(out.strip().splitlines()) == 1, out
    assert out.startswith("Created the administrator Boss <boss@example.com>: log in at ")
    password = PRINTED_PASSWORD.search(out.strip()).group(1)
    boss = User.objects.get(email="boss@example.com")
    assert boss.is_staff and boss.is_superuser and boss.display_name == "Boss"
    assert EmailAddress.objects.get(user=boss).verified
    # No confirm-email wall: the login goes straight home, and the admin opens.
    response = client.post(
        reverse("account_login"), {"login": "boss@example.com", "password": password}
    )
    assert response.status_code == 302 and response.headers["Location"] == reverse("home")
    assert client.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_an_existing_player_is_made_an_administrator_and_keeps_their_password(monkeypatch):
    monkeypatch.delenv("ADMIN_PASSWORD", raising=False)
    ann = create_player("ann", verified=False)
    out = admin_create("ANN@example.com")
    assert out.strip() == (
        "Made an administrator of Ann <ann@example.com>: log in at "
        "http://127.0.0.1:8000/admin/ with their password."
    )
    ann.refresh_from_db()
    assert ann.is_staff and ann.is_superuser and ann.check_password(PASSWORD)
    assert EmailAddress.objects.get(user=ann).verified  # the admin vouches for the address
    # ADMIN_PASSWORD sets the password instead of printing one.
    monkeypatch.setenv("ADMIN_PASSWORD", "another-long-passphrase")
    assert admin_create("ann@example.com").strip().endswith("the password from ADMIN_PASSWORD.")
    ann.refresh_from_db()
    assert ann.check_password("another-long-passphrase")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("args", "password", "message"),
    [
        (["boss@example.com"], "", "Please choose a display name."),
        (["boss@example.com", "--name", "Admin"], "", "“admin” is kept for the site itself"),
        (["not-an-address", "--name", "Boss"], "", "valid email address"),
        (["boss@example.com", "--name", "Boss"], "1234", "This password is too short"),
    ],
)
def test_refusals_say_why_and_create_nothing(monkeypatch, args, password, message):
    monkeypatch.setenv("ADMIN_PASSWORD", password)
    with pytest.raises(CommandError, match=message):
        admin_create(*args)
    assert not User.objects.exists()


@pytest.mark.slow  # started first (tests/conftest.py)
def test_make_admin_creates_the_account_in_the_run_modes_database(tmp_path):
    """What the README tells a newcomer to type, in a subprocess, against the run mode's kind
    of database (a SQLite file of this test's own instead of db.sqlite3)."""
    database = tmp_path / "db.sqlite3"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ADMIN_"))}
    env["DATABASE_URL"] = f"sqlite:///{database}"
    env["RUN_ADDR"] = "127.0.0.1:8765"
    args = ["EMAIL=boss@example.com", "NAME=Boss Lady"]
    command = ["make", "-s", "admin", *args] if shutil.which("make") else None
    if command is None:  # what `make admin` runs
        command = ["bash", "scripts/admin.sh", "boss@example.com", "Boss Lady"]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("Created the administrator Boss Lady <boss@example.com>: log in at ")
    assert "http://127.0.0.1:8765/admin/" in line and PRINTED_PASSWORD.search(line)
    with sqlite3.connect(database) as db:
        ((staff, superuser, verified),) = db.execute(
            "SELECT is_staff, is_superuser, verified FROM accounts_user"
            " JOIN account_emailaddress ON account_emailaddress.user_id = accounts_user.id"
        ).fetchall()
    assert (staff, superuser, verified) == (1, 1, 1)


def test_make_admin_without_an_address_says_how_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(EMAIL="from-the-shell@example.com", DATABASE_URL=f"sqlite:///{tmp_path}/db")
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    result = subprocess.run(
        ["make", "-s", "admin"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0
    assert "error: give the address: make admin EMAIL=you@example.com" in result.stderr
    assert not (tmp_path / "db").exists()  # the shell's own EMAIL was not taken
