"""The demo game `make run` seeds (issue 47, point 6): its setup (the start and six moves) emails
nobody, the player to move gets one "your turn" email, for the decision of now (a reply to it
makes a move, not "that email is out of date"), and the command names the file to answer.

Celery runs eagerly and the on-commit hooks really run: what the worker does with the tasks the
seed queues, then beat's sweep, as under `make run`. `make run` itself: tests/test_make_run.py.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.test import override_settings

from games.management.commands.seed_demo_game import SETUP_UNSENT
from games.models import Game, Notice
from games.outbox import reply_addresses
from games.tasks import sweep
from saboteur_site.celery import app

pytestmark = pytest.mark.django_db

FILE_MAIL = {
    "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
    "OPTIONS": {"file_path": ""},  # the test's folder
}


@pytest.fixture(autouse=True)
def eager_celery():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def seed(capture) -> str:
    call_command("seed_demo", stdout=io.StringIO())
    out = io.StringIO()
    with capture(execute=True):
        call_command("seed_demo_game", stdout=out)
    sweep()  # as beat does once `make run` serves
    return out.getvalue()


def test_the_demo_emails_only_the_turn_of_now(django_capture_on_commit_callbacks):
    printed = seed(django_capture_on_commit_callbacks)
    game = Game.objects.get(name="Demo: the deep mine")
    assert game.version == 6
    mover = game.seats.select_related("user").get(position=game.to_move).user
    assert f"it is {mover.username}'s turn" in printed

    [email] = mail.outbox  # no "has started", no "your turn" of a turn already played
    assert email.to == [mover.email]
    assert email.subject == "Your turn in Demo: the deep mine"
    reply_to = reply_addresses.read_reply_token(
        reply_addresses.token_in(email.extra_headers["Reply-To"])
    )
    assert reply_to is not None and reply_to.moves
    assert (reply_to.user_id, reply_to.game_id, reply_to.version) == (mover.pk, game.pk, 6)

    # Nothing of the setup can go out later either: the turns played were over (the move
    # pipeline drops their rows), the start's news is marked; only the turn of now's reminders
    # wait.
    rows = Notice.objects.filter(game=game)
    assert list(rows.filter(status="sent").values_list("kind", "version")) == [("turn", 6)]
    started = rows.filter(kind="started")
    assert started.count() == 3  # the three who did not move first
    assert set(started.values_list("status", "reason")) == {("skipped", SETUP_UNSENT)}
    assert set(rows.filter(status="pending").values_list("kind", "version")) <= {("reminder", 6)}
    assert not rows.exclude(version=6).exclude(status="skipped").exists()


def test_the_seed_names_the_file_of_that_email(django_capture_on_commit_callbacks, tmp_path):
    folder = tmp_path / "mail"
    with override_settings(MAILERS={"default": {**FILE_MAIL, "OPTIONS": {"file_path": folder}}}):
        printed = seed(django_capture_on_commit_callbacks)
        again = io.StringIO()
        call_command("seed_demo_game", stdout=again)  # a later `make run`: the same game
    [written] = folder.iterdir()
    named = re.search(r"\"Your turn\" email, to answer by reply .*: (\S+)$", printed, re.M)
    assert named is not None, printed
    assert Path(named[1]).resolve() == written.resolve()
    assert f": {named[1]}\n" in again.getvalue()
    game = Game.objects.get(name="Demo: the deep mine")
    mover = game.seats.select_related("user").get(position=game.to_move).user
    text = written.read_text()
    assert text.count("Subject: ") == 1
    assert "Subject: Your turn in Demo: the deep mine" in text
    assert f"To: {mover.email}" in text


def test_no_file_is_named_when_emails_are_not_written_to_files(django_capture_on_commit_callbacks):
    printed = seed(django_capture_on_commit_callbacks)  # the tests' in-memory mailer
    assert "it is" in printed and "email, to answer" not in printed
