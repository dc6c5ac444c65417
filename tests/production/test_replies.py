"""Answering the emails and checking a deal, as deployed (issues 40 and 39): on the production
stack (gunicorn behind the proxy, the Celery worker sending to the SMTP server, WhiteNoise's
static files), a "your turn" email from the worker carries a reply address; a reply posted to
the Mailgun webhook as Mailgun posts it (raw MIME, signed; basic auth) makes the move, and the
worker emails the next player and the answer; a reply posted as Postmark posts it (JSON, basic
auth) goes to the chat. Once the round is over, a browser checks its deal with the collected
fairness.js: "Matches"."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import time
import urllib.parse
import urllib.request
from email.message import EmailMessage
from email.utils import make_msgid

from playwright.sync_api import expect

from .conftest import INBOUND_SECRET, INBOUND_SIGNING_KEY
from .stack import text_of

PASSWORD = "a-long-and-unusual-password"
GAME = "Answered mine"

SET_UP = """
import os
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from games.play import lobby

users = []
for name in ("ori", "nori", "dori"):
    user = get_user_model().objects.create_user(
        username=name, email=f"{name}@example.com", display_name=name.capitalize(),
        password=os.environ["PLAYER_PASSWORD"],
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    users.append(user)
game = lobby.game_create(
    creator=users[0], name="Answered mine", ruleset="base", max_seats=3, rounds=1
)
for user in users[1:]:
    lobby.seat_join(game_id=game.pk, user=user)
lobby.game_start(game_id=game.pk, user=users[0])
print(game.pk)
"""

PLAY_OUT = """
import random
from games import bots, engine
from games.models import Game
from games.play.moves import move_submit

game = Game.objects.get(name="Answered mine")
rng = random.Random(40)
while game.status == "running":
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.live().get(position=state.to_move)
    name = seat.engine_name
    move = bots.choose_move(engine.view_for(state, name), engine.legal_moves(state, name), rng)
    move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
    game.refresh_from_db()
print(game.status)
"""


def post(url: str, body: bytes, content_type: str) -> int:
    request = urllib.request.Request(url, data=body, method="POST")  # noqa: S310 - our origin
    request.add_header("Content-Type", content_type)
    auth = base64.b64encode(INBOUND_SECRET.encode()).decode()
    request.add_header("Authorization", f"Basic {auth}")
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - our own origin
        return response.status


def reply_to(email: EmailMessage, text: str) -> EmailMessage:
    reply = EmailMessage()
    reply["From"] = str(email["To"])
    reply["To"] = str(email["Reply-To"])
    reply["Subject"] = "Re: " + str(email["Subject"])
    reply["Message-ID"] = make_msgid(domain="mail.example.com")
    quoted = "\n".join("> " + line for line in text_of(email).splitlines()[:10])
    reply.set_content(f"{text}\n\nOn Fri, 4 Dec 2026 at 10:00, Saboteur wrote:\n{quoted}\n")
    return reply


def as_mailgun(origin: str, reply: EmailMessage) -> int:
    # A new token each post, signed now: the site takes a token once, within 5 minutes.
    timestamp, token = str(int(time.time())), secrets.token_hex(25)
    signature = hmac.new(
        INBOUND_SIGNING_KEY.encode(), f"{timestamp}{token}".encode(), hashlib.sha256
    ).hexdigest()
    form = urllib.parse.urlencode(
        {
            "body-mime": reply.as_string(),
            "recipient": str(reply["To"]),
            "sender": str(reply["From"]),
            "timestamp": timestamp,
            "token": token,
            "signature": signature,
        }
    ).encode()
    return post(f"{origin}/inbound/mailgun/", form, "application/x-www-form-urlencoded")


def as_postmark(origin: str, reply: EmailMessage) -> int:
    payload = {
        "FromFull": {"Email": str(reply["From"]), "Name": ""},
        "ToFull": [{"Email": str(reply["To"]), "Name": ""}],
        "CcFull": [],
        "OriginalRecipient": str(reply["To"]),
        "Subject": str(reply["Subject"]),
        "MessageID": "5d3b7c4e-0000-4000-8000-000000000040",
        "TextBody": reply.get_content(),
        "HtmlBody": "",
        "Headers": [{"Name": "Message-ID", "Value": str(reply["Message-ID"])}],
        "Attachments": [],
    }
    return post(f"{origin}/inbound/postmark/", json.dumps(payload).encode(), "application/json")


def test_replies_through_both_webhooks_and_a_deal_checked_in_the_browser(stack, new_page):
    origin, mail = stack.origin, stack.mail
    done = stack.manage("shell", "-c", SET_UP, name="replies-set-up", PLAYER_PASSWORD=PASSWORD)
    game_id = int(done.stdout.split()[-1])

    def turn_of(address=None, after=0):
        return mail.wait_for(
            lambda m: (
                mail.messages.index(m) >= after
                and str(m["Subject"]) == f"Your turn in {GAME}"
                and (address is None or str(m["To"]) != address)
            ),
            timeout=60,
            what=f"a turn email of {GAME}",
        )

    first = turn_of()
    assert re.fullmatch(r"reply\+[a-z2-7]{37}@reply\.saboteur\.test", str(first["Reply-To"]))
    mover = str(first["To"])
    seen = len(mail.messages)
    # The first move the email lists: a move's number ("1"), or a pass by its card's number
    # ("pass 2") when the random deal gave the mover no action card.
    listed = re.search(r"^- ((?:pass )?\d+)\. ", text_of(first), re.M)
    assert listed is not None, text_of(first)
    assert as_mailgun(origin, reply_to(first, listed[1])) == 200
    answer = mail.wait_for(
        lambda m: str(m["To"]) == mover and str(m["Subject"]) == f"Your reply to {GAME}",
        timeout=60,
        what="the answer to the Mailgun reply",
    )
    assert "Done in Answered mine:" in text_of(answer)
    nxt = turn_of(address=mover, after=seen)
    assert as_postmark(origin, reply_to(nxt, "Good digging, everyone")) == 200
    chatted = mail.wait_for(
        lambda m: str(m["To"]) == str(nxt["To"]) and "Posted to the chat" in text_of(m),
        timeout=60,
        what="the answer to the Postmark reply",
    )
    assert "Good digging, everyone" in text_of(chatted)

    # The round played out (a bot's choices through the services); its deal checked in a
    # browser, by the collected fairness.js.
    played = stack.manage("shell", "-c", PLAY_OUT, name="replies-play-out")
    assert played.stdout.split()[-1] == "finished", played.stdout
    page = new_page("Ori")
    page.goto(f"{origin}/accounts/login/")
    page.get_by_label("Email").fill("ori@example.com")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{origin}/")
    page.goto(f"{origin}/games/{game_id}/deals/1/")
    script = page.locator('script[src*="/static/js/fairness."]').get_attribute("src")
    assert re.fullmatch(r"/static/js/fairness\.[0-9a-f]{12}\.js", script), script
    verdict = page.get_by_test_id("deal-verdict")
    expect(verdict).to_have_text(re.compile(r"^Matches"), timeout=20_000)
    page.goto(f"{origin}/games/{game_id}/deals/0/")  # the seating and the gold supply
    expect(verdict).to_have_text(re.compile(r"^Matches"), timeout=20_000)
