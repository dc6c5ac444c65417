"""A one-tap decision in a real browser: the "your turn" email is written to a file (as `make run`
does), the link is read from that file and opened in a browser that is not logged in."""

import email
import email.policy
import re

import pytest
from django.test import override_settings
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Game, Move, Notice
from games.outbox import schedule, sending

from .deals import BASE_DEAL

WAIT = 10_000

# Ann starts with a broken lantern for Bob.
DEAL = {
    **BASE_DEAL,
    "hands": {**BASE_DEAL["hands"], "0": ["break-lantern", "map", "cross", "curve-ne", "t-new"]},
}


def file_mailer(directory):
    backend = "django.core.mail.backends.filebased.EmailBackend"
    return {"default": {"BACKEND": backend, "OPTIONS": {"file_path": str(directory)}}}


@pytest.mark.django_db(transaction=True)
def test_a_one_tap_link_from_the_email_file_makes_the_move(
    live_server, make_player, rigged_game, new_page, csp_watcher, tmp_path
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=DEAL)
    Notice.objects.all().delete()
    with override_settings(SITE_URL=live_server.url, MAILERS=file_mailer(tmp_path)):
        (notice,) = [
            n
            for n in schedule.notices_for_decision(game=game, now=timezone.now())
            if n.kind == Notice.Kind.TURN
        ]
        notice = Notice.objects.get(key=notice.key)
        assert sending.send(notice.pk) == "sent"
    (written,) = list(tmp_path.iterdir())
    message = email.message_from_bytes(written.read_bytes(), policy=email.policy.default)
    assert message["To"] == ann.email
    text = message.get_body(("plain",)).get_content()
    link = re.search(r"^- \d+\. Break Bob's lantern: (\S+)$", text, re.M).group(1)
    assert link.startswith(f"{live_server.url}/tap/")

    page = new_page()  # a browser that has never logged in
    page.goto(link)
    expect(page.get_by_role("heading", name="Break Bob's lantern")).to_be_visible(timeout=WAIT)
    assert Game.objects.get(pk=game.pk).version == 0  # opening the link changed nothing
    page.get_by_test_id("one-tap-confirm").click()
    expect(page.get_by_role("heading", name="Your move is made.")).to_be_visible(timeout=WAIT)
    move = Move.objects.get(game=game)
    assert move.payload == {"move": "action", "card": "break-lantern", "target": "1"}
    assert move.seat.user == ann

    # The same link again: it says so, and offers the game.
    page.goto(link)
    expect(page.get_by_role("heading", name="This move is already made")).to_be_visible()
    expect(page.get_by_test_id("open-game")).to_have_attribute("href", f"/games/{game.pk}/")
    assert Game.objects.get(pk=game.pk).version == 1
    assert csp_watcher.violations == []
