"""Emails and the game link `make run` prints lead to where the site is served; allauth's emails
speak in the site's name and the recipient's language (issue 11, point 1)."""

import io
import os
import subprocess
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import Client, override_settings
from django.urls import reverse

from games.models import Game, Notice
from tests.players import create_player

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("run_addr", "expected"),
    [
        ("127.0.0.1:8000", "http://127.0.0.1:8000"),
        ("8123", "http://127.0.0.1:8123"),
        ("0.0.0.0:9000", "http://127.0.0.1:9000"),
        ("saboteur.lan:8001", "http://saboteur.lan:8001"),
    ],
)
def test_run_mode_links_to_the_run_address(run_addr, expected):
    script = f'source scripts/lib.sh && site_url_for "{run_addr}"'
    out = subprocess.run(
        ["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True, timeout=10
    )
    assert out.stdout == expected
    # run.sh exports it (lib.sh's run_mode_env) for the site, the worker and the game link it
    # prints (unless already set).
    lib = (ROOT / "scripts/lib.sh").read_text()
    assert 'export SITE_URL="${SITE_URL:-$(site_url_for "$HOST_PORT")}"' in lib
    run = (ROOT / "scripts/run.sh").read_text()
    assert run.index("run_mode_env") < run.index("run_prepare")


@pytest.mark.django_db
@override_settings(SITE_URL="http://127.0.0.1:8123")
def test_the_printed_game_link_and_emails_use_the_site_url(django_capture_on_commit_callbacks):
    out = io.StringIO()
    call_command("seed_demo", stdout=io.StringIO())
    with django_capture_on_commit_callbacks(execute=True):
        call_command("seed_demo_game", stdout=out)
    game = Game.objects.get()
    assert f"http://127.0.0.1:8123/games/{game.pk}/" in out.getvalue()
    assert ":8000" not in out.getvalue()
    notice = Notice.objects.filter(kind="turn").order_by("-pk").first()
    from games.outbox.emails import build_email

    body = build_email(notice, "x@example.com").body
    assert f"http://127.0.0.1:8123/games/{game.pk}/" in body and ":8000" not in body


@pytest.mark.django_db
def test_allauth_emails_speak_in_the_sites_name_and_the_recipients_language():
    create_player("ann")
    create_player("ola", language="cs")
    client = Client()
    for address in ("ann@example.com", "ola@example.com"):
        client.post(reverse("account_reset_password"), {"email": address})
    english, czech = mail.outbox
    assert english.to == ["ann@example.com"]
    assert english.body.startswith("Hello from Saboteur!")  # not from the request's host
    assert czech.to == ["ola@example.com"]
    greeting = czech.body.splitlines()[0]
    assert greeting.startswith("Pozdrav") and "testserver" not in greeting


def test_make_run_makes_its_vapid_key_once(tmp_path):
    """scripts/run.sh's own lines, run as they are: a key under .run/ the first time, the same
    key after, exported for the site and the worker (started after it)."""
    run = (ROOT / "scripts/run.sh").read_text()
    start = run.index("# Push notifications: a VAPID key pair")
    block = run[start : run.index("fi\n", start) + 3]
    assert run.index(block) < run.index("celery -A saboteur_site worker")
    assert run.index(block) < run.index("manage.py runserver")
    script = f'cd {ROOT}; python() {{ {ROOT}/.venv/bin/python "$@"; }}\n'
    script += block.replace(".run/vapid/private_key", str(tmp_path / "vapid" / "key"))
    script += '\necho "$VAPID_PRIVATE_KEY"'

    def run_block(key=""):
        env = {**os.environ, "VAPID_PRIVATE_KEY": key}
        return subprocess.run(
            ["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60
        )

    first, again = run_block(), run_block()
    assert first.returncode == again.returncode == 0, first.stderr + again.stderr
    key = first.stdout.split()[-1]
    assert again.stdout.split()[-1] == key and "is kept" in again.stdout
    assert (tmp_path / "vapid" / "key").stat().st_mode & 0o777 == 0o600
    from saboteur_site import vapid

    assert vapid._vapid(key) is not None  # a valid P-256 private key
    set_before = run_block("from-production")
    assert set_before.stdout.split()[-1] == "from-production"  # a key already set is kept
