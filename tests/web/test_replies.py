"""Answering the emails (issue 40): every game email has a Reply-To of its reader, game and
decision; a reply with a move's number or a short form (in five languages) makes the move, any
other text goes to the chat; the sender gets an answer. Replies come through Mailgun's and
Postmark's inbound webhooks (Anymail's payload formats, signature and basic auth checked) or the
local SMTP server of `make run`; hostile mail of every kind is dropped without an answer and
changes nothing.

Games are rigged through the services (tests/web/test_one_tap.py), emails built by the real
builder from real outbox rows, replies written as mail clients write them."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import smtplib
import socket
import time
from datetime import timedelta
from email.message import EmailMessage
from email.utils import make_msgid

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from games.models import ChatMessage, Game, InboundMail, Notice
from games.outbox import reply_addresses
from games.outbox.emails import build_email
from games.play import replies
from games.play.chat import chat_post
from tests.players import create_player

from .test_one_tap import ACTION_DEAL, rigged

pytestmark = pytest.mark.django_db


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


@pytest.fixture
def game(players):
    return rigged(players, deal=ACTION_DEAL)


def turn_email(game, user):
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game, user=user).latest("pk")
    return build_email(notice, user.email)


def reply_to(sent) -> str:
    return sent.extra_headers["Reply-To"]


def numbered(sent) -> dict[str, int]:
    """The numbered moves of an email's text: label -> number."""
    found = re.findall(r"^- (\d+)\. (.+?): http", sent.body, re.M)
    return {label: int(number) for number, label in found}


def reply(to: str, text: str, *, sender="ann@example.com", **headers) -> EmailMessage:
    message = EmailMessage()
    message["From"] = f"Ann <{sender}>"
    message["To"] = to
    message["Subject"] = headers.pop("Subject", "Re: Your turn in Deep mine")
    message["Message-ID"] = headers.pop("Message_ID", make_msgid(domain="mail.example.com"))
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    quoted = "\n".join("> " + line for line in ("Hello Ann,", "It is your turn.", "1. Look"))
    message.set_content(f"{text}\n\nOn Fri, 4 Dec 2026 at 10:00, Saboteur wrote:\n{quoted}\n")
    return message


def address_of(user, game) -> str:
    """The reply address of any game email to ``user`` made now."""
    return reply_addresses.reply_address(user_id=user.pk, game_id=game.pk, version=game.version)


def answers(user) -> list[Notice]:
    return list(Notice.objects.filter(kind=Notice.Kind.ANSWER, user=user).order_by("pk"))


def answer_text(user) -> str:
    (notice,) = answers(user)
    return build_email(notice, user.email).body


# -- Reply addresses ---------------------------------------------------------------------------


def test_every_game_email_has_a_reply_address_of_its_reader_game_and_decision(game, players):
    sent = turn_email(game, players[0])
    address = reply_to(sent)
    local, _at, domain = address.partition("@")
    assert domain == "localhost" and local.startswith("reply+") and len(local) <= 64
    token = reply_addresses.read_reply_token(local.removeprefix("reply+"))
    assert token == reply_addresses.ReplyTo(players[0].pk, game.pk, game.version, moves=True)
    # Case-insensitive: a provider that upper-cases the address changes nothing.
    assert reply_addresses.read_reply_token(local.removeprefix("reply+").upper()) == token
    assert "Reply to this email with the number of a move" in sent.body
    assert numbered(sent)["Look at the north goal"] >= 1
    assert "Your hand: 1. Cross, 2. Straight (east-west), 3. Broken lantern" in sent.body
    # Another kind of game email (a chat mention) too; a game email of another reader, theirs.
    chat_post(game_id=game.pk, user=players[1], text="@Ann dig north")
    mention = Notice.objects.get(kind=Notice.Kind.MENTION, user=players[0])
    sent = build_email(mention, players[0].email)
    assert reply_addresses.token_in(reply_to(sent)) is not None
    assert "Reply to this email to write to the table’s chat." in sent.body


def test_a_token_cannot_be_forged_altered_or_used_after_its_game(game, players):
    token = reply_addresses.reply_token(user_id=players[0].pk, game_id=game.pk, version=0)
    for at in (0, 17, 36):  # any character changed: the user, the game, the signature
        changed = token[:at] + ("a" if token[at] != "a" else "b") + token[at + 1 :]
        assert reply_addresses.read_reply_token(changed) is None
    other = reply_addresses.reply_token(user_id=players[1].pk, game_id=game.pk, version=0)
    assert other != token
    assert (
        reply_addresses.read_reply_token("x" * 37) is None
        and reply_addresses.read_reply_token("") is None
    )
    assert not reply_addresses.expired(game)
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, finished_at=timezone.now() - timedelta(days=6)
    )
    game.refresh_from_db()
    assert not reply_addresses.expired(game)  # a week to say "well played"
    Game.objects.filter(pk=game.pk).update(finished_at=timezone.now() - timedelta(days=8))
    game.refresh_from_db()
    assert reply_addresses.expired(game)
    got = replies.receive(reply(f"reply+{token}@localhost", "gg"))
    assert got == replies.Received("dropped", "expired with its game")


def test_without_a_reply_domain_no_reply_to(game, players, settings):
    settings.REPLY_DOMAIN = ""
    assert "Reply-To" not in turn_email(game, players[0]).extra_headers


# -- What a reply does ---------------------------------------------------------------------------


def test_a_number_makes_the_move_listed_and_the_answer_says_so(game, players):
    sent = turn_email(game, players[0])
    number = numbered(sent)["Look at the north goal"]
    got = replies.receive(reply(reply_to(sent), str(number)))
    assert got.outcome == "moved"
    game.refresh_from_db()
    assert game.version == 1
    move = game.moves.get()
    assert move.payload == {"move": "action", "card": "map", "goal": "north"}
    assert InboundMail.objects.get().outcome == "moved"
    text = answer_text(players[0])
    assert "Done in Deep mine: Look at the north goal." in text
    # The next player gets their turn email, with their own reply address.
    bob = Notice.objects.get(kind=Notice.Kind.TURN, user=players[1])
    assert reply_addresses.token_in(reply_to(build_email(bob, players[1].email)))


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("map north", {"move": "action", "card": "map", "goal": "north"}),
        ("Mapa sever", {"move": "action", "card": "map", "goal": "north"}),  # cs, sk
        ("мапа південь", {"move": "action", "card": "map", "goal": "south"}),  # uk
        ("hartă mijloc", {"move": "action", "card": "map", "goal": "middle"}),  # ro
        ("harta nord.", {"move": "action", "card": "map", "goal": "north"}),
        ("pass 2", {"move": "pass", "discard": ["straight-ew"]}),
        ("pas 5", {"move": "pass", "discard": ["rockfall"]}),  # cs, sk, ro
        ("пас 1", {"move": "pass", "discard": ["cross"]}),  # uk
        ("#4", None),  # a number: the fourth move listed
    ],
)
def test_short_forms_in_five_languages(game, players, line, expected):
    sent = turn_email(game, players[0])
    got = replies.receive(reply(reply_to(sent), line))
    assert got.outcome == "moved", answer_text(players[0])
    payload = game.moves.get().payload
    if expected is not None:
        assert payload == expected
    else:
        label = next(label for label, n in numbered(sent).items() if n == 4)
        assert label in answer_text(players[0])


def test_a_stale_email_or_someone_elses_decision_makes_no_move_and_lists_the_moves_of_now(
    game, players
):
    sent = turn_email(game, players[0])
    bobs = replies.receive(reply(reply_to(sent), "1"))  # Ann's address: it is Ann's token
    assert bobs.outcome == "moved"
    # Bob replies "1" to his own email from before his turn? He had none; Ann replies again to
    # the old email: her decision is over.
    again = replies.receive(reply(reply_to(sent), "2"))
    assert again.outcome == "refused"
    game.refresh_from_db()
    assert game.version == 1
    text = build_email(answers(players[0])[1], players[0].email).body
    assert "made no move: it is Bob's decision now, not yours." in text
    # Bob's turn now; a reply of Bob to an email of an older decision is stale.
    old = reply_addresses.reply_address(
        user_id=players[1].pk, game_id=game.pk, version=0, moves=True
    )
    stale = replies.receive(reply(old, "1", sender="bob@example.com"))
    assert stale.outcome == "refused"
    text = build_email(answers(players[1])[0], players[1].email).body
    assert "the game has moved on since that email" in text
    assert numbered(build_email(answers(players[1])[0], players[1].email))  # the moves of now
    assert "Reply to this email with the number of a move" in text
    assert game.moves.count() == 1
    # A number the email does not list.
    fresh = reply_addresses.reply_address(
        user_id=players[1].pk, game_id=game.pk, version=1, moves=True
    )
    replies.receive(reply(fresh, "99", sender="bob@example.com"))
    assert (
        "that email lists no move number 99 (to pass, write “pass” and the number of the card"
        in build_email(answers(players[1])[1], players[1].email).body
    )


def test_other_text_goes_to_the_chat_without_the_quote_and_the_chats_limit_holds(game, players):
    to = address_of(players[1], game)  # any game email of Bob's (not his turn)
    text = "Careful, I think Cid is a saboteur!\nSee you tomorrow."
    got = replies.receive(reply(to, text, sender="bob@example.com"))
    assert got.outcome == "chat"
    (message,) = ChatMessage.objects.filter(game=game)
    assert message.text == text and message.seat.user == players[1]
    assert "Posted to the chat of Deep mine" in answer_text(players[1])
    game.refresh_from_db()
    assert game.version == 0  # no move
    for n in range(10):  # the chat's rate limit (10 a minute) holds for replies as for the page
        replies.receive(reply(to, f"more {n}", sender="bob@example.com"))
    assert ChatMessage.objects.filter(game=game).count() == 10
    refused = InboundMail.objects.get(user=players[1], outcome="refused")
    last = Notice.objects.filter(kind=Notice.Kind.ANSWER, user=players[1]).latest("pk")
    assert refused.pk and "faster than the table can read" in last.data["lines"][0]


# -- Dropped without an answer, nothing changed ----------------------------------------------


def assert_dropped(got, why, game, players):
    assert got.outcome == "dropped" and why in got.why, got
    game.refresh_from_db()
    assert game.version == 0 and not ChatMessage.objects.exists()
    assert not Notice.objects.filter(kind=Notice.Kind.ANSWER).exists()
    assert not InboundMail.objects.exists()


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"sender": "eve@example.com"}, "not from the player's verified address"),
        ({"sender": "bob@example.com"}, "not from the player's verified address"),
        ({"Auto_Submitted": "auto-replied"}, "auto-submitted"),
        ({"Precedence": "bulk"}, "bulk"),
        ({"X_Autoreply": "yes"}, "auto-reply header"),
        ({"Subject": "Out of Office: back on Monday"}, "auto-reply subject"),
        ({"Subject": "Automatická odpověď: Your turn"}, "auto-reply subject"),
        ({"Return_Path": "<>"}, "bounce"),
        ({"sender": "MAILER-DAEMON@mail.example.com"}, "bounce"),
        ({"List_Id": "<players.example.com>"}, "a mailing list"),
        (
            {"Authentication_Results": "mx.example.net; spf=pass; dmarc=fail (p=reject)"},
            "forged sender",
        ),
    ],
)
def test_hostile_or_automatic_mail_is_dropped(game, players, change, why):
    sent = turn_email(game, players[0])
    got = replies.receive(reply(reply_to(sent), "1", **change))
    assert_dropped(got, why, game, players)


def test_unknown_forged_and_foreign_addresses_and_unverified_senders_are_dropped(game, players):
    sent = turn_email(game, players[0])
    token = reply_addresses.token_in(reply_to(sent))
    forged = token[:-2] + ("aa" if not token.endswith("aa") else "bb")
    for to in (f"reply+{forged}@localhost", "ann@example.com", f"reply+{token}@elsewhere.org"):
        assert_dropped(replies.receive(reply(to, "1")), "no reply address", game, players)
    players[0].emailaddress_set.update(verified=False)
    assert_dropped(replies.receive(reply(reply_to(sent), "1")), "verified", game, players)
    players[0].emailaddress_set.update(verified=True)
    players[0].is_active = False  # banned
    players[0].save()
    assert_dropped(replies.receive(reply(reply_to(sent), "1")), "no such", game, players)


def test_a_message_id_is_handled_once_and_size_is_limited(game, players, settings):
    sent = turn_email(game, players[0])
    message = reply(reply_to(sent), "Hello table")
    assert replies.receive(message).outcome == "chat"
    assert replies.receive(message) == replies.Received("dropped", "handled before")
    assert ChatMessage.objects.count() == 1 and len(answers(players[0])) == 1
    settings.INBOUND_MAX_BYTES = 2000
    big = reply(reply_to(sent), "x" * 3000)
    assert replies.receive(big) == replies.Received("dropped", "too large")


def test_attachments_are_never_read(game, players):
    sent = turn_email(game, players[0])
    message = reply(reply_to(sent), "Nice move")
    message.add_attachment(b"1", maintype="text", subtype="plain", filename="move.txt")
    assert replies.receive(message).outcome == "chat"
    assert ChatMessage.objects.get().text == "Nice move"
    game.refresh_from_db()
    assert game.version == 0


def test_html_only_replies_and_quote_headers_of_each_language(game, players):
    to = address_of(players[1], game)
    headers = [
        "Dne pá 4. 12. 2026 v 10:00 Saboteur <noreply@localhost> napsal(a):",
        "Dňa pi 4. 12. 2026 o 10:00 Saboteur <noreply@localhost> napísal(a):",
        "пт, 4 груд. 2026 р. о 10:00 Saboteur <noreply@localhost> пише:",
        "În vin., 4 dec. 2026 la 10:00, Saboteur <noreply@localhost> a scris:",
    ]
    for n, header in enumerate(headers):
        message = EmailMessage()
        message["From"], message["To"] = "bob@example.com", to
        message["Subject"], message["Message-ID"] = "Re: x", make_msgid()
        message.set_content(f"Line {n}\n\n{header}\n> It is your turn.\n> Hello Bob")
        assert replies.receive(message).outcome == "chat"
        assert ChatMessage.objects.latest("pk").text == f"Line {n}"
        ChatMessage.objects.all().delete()
        InboundMail.objects.all().delete()
        Notice.objects.filter(kind=Notice.Kind.ANSWER).delete()
    html = EmailMessage()
    html["From"], html["To"], html["Subject"] = "bob@example.com", to, "Re: x"
    html["Message-ID"] = make_msgid()
    html.set_content("<div>Dig <b>west</b>!</div><br><blockquote>It is your turn.</blockquote>",
                     subtype="html")  # fmt: skip
    assert replies.receive(html).outcome == "chat"
    assert ChatMessage.objects.get().text.startswith("Dig west!")


# -- Through the providers' webhooks ---------------------------------------------------------


MAILGUN_KEY = "key-test-signing-0123456789"


@pytest.fixture
def providers(settings):
    settings.INBOUND_EMAIL_PROVIDERS = ["mailgun", "postmark"]
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret", "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


def basic(auth: str) -> dict:
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(auth.encode()).decode()}


def mailgun_post(message: EmailMessage, *, key=MAILGUN_KEY, recipient=None, auth="hook:s3cret"):
    """Mailgun's inbound "forward()" route in its raw-MIME form (as Anymail's docs set it up:
    the URL ends in mime): body-mime and the signature fields."""
    timestamp, token = str(int(time.time())), secrets.token_hex(25)  # a new token each post
    signature = hmac.new(key.encode(), f"{timestamp}{token}".encode(), hashlib.sha256).hexdigest()
    return Client().post(
        "/inbound/mailgun/",
        {
            "body-mime": message.as_string(),
            "recipient": recipient or message["To"],
            "sender": "ann@example.com",
            "timestamp": timestamp,
            "token": token,
            "signature": signature,
        },
        **(basic(auth) if auth else {}),
    )


def postmark_payload(message: EmailMessage) -> dict:
    """Postmark's inbound JSON for ``message`` (its documented fields; Anymail builds the
    message from them)."""
    return {
        "FromName": "Ann",
        "From": "ann@example.com",
        "FromFull": {"Email": "ann@example.com", "Name": "Ann"},
        "To": message["To"],
        "ToFull": [{"Email": message["To"], "Name": ""}],
        "CcFull": [],
        "OriginalRecipient": message["To"],
        "Subject": message["Subject"],
        "MessageID": "22c74902-a0c1-4511-804f-341342852c90",
        "Date": "Fri, 4 Dec 2026 10:00:00 +0000",
        "TextBody": message.get_content(),
        "HtmlBody": "",
        "StrippedTextReply": "",
        "Headers": [
            {"Name": "Return-Path", "Value": "<ann@example.com>"},
            {"Name": "Message-ID", "Value": message["Message-ID"]},
        ],
        "Attachments": [],
    }


def postmark_post(message: EmailMessage, *, auth="hook:s3cret"):
    return Client().post(
        "/inbound/postmark/",
        json.dumps(postmark_payload(message)),
        content_type="application/json",
        **(basic(auth) if auth else {}),
    )


def test_mailgun_signed_replies_are_taken_and_unsigned_ones_refused(game, players, providers):
    sent = turn_email(game, players[0])
    forged = mailgun_post(reply(reply_to(sent), "1"), key="key-not-mailguns")
    assert forged.status_code == 400
    assert mailgun_post(reply(reply_to(sent), "1"), auth="hook:wrong").status_code == 400
    game.refresh_from_db()
    assert game.version == 0 and not InboundMail.objects.exists()
    message = reply(reply_to(sent), "1")
    assert mailgun_post(message).status_code == 200
    game.refresh_from_db()
    assert game.version == 1
    assert mailgun_post(message).status_code == 200  # redelivered: nothing twice
    game.refresh_from_db()
    assert game.version == 1 and len(answers(players[0])) == 1


def test_postmark_replies_need_the_webhooks_basic_auth(game, players, providers):
    sent = turn_email(game, players[0])
    message = reply(reply_to(sent), "Good luck everyone")
    for auth in (None, "hook:wrong"):
        assert postmark_post(message, auth=auth).status_code in (400, 401, 403)
    assert not ChatMessage.objects.exists()
    assert postmark_post(message).status_code == 200
    assert ChatMessage.objects.get().text == "Good luck everyone"


def test_mailgun_needs_the_webhooks_basic_auth_too(game, players, settings):
    """Its signature alone is not enough (issue 47): without a WEBHOOK_SECRET set up (which the
    settings refuse at start) or without the basic auth in the post, nothing is taken."""
    settings.INBOUND_EMAIL_PROVIDERS = ["mailgun"]
    settings.ANYMAIL = {"MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}
    sent = turn_email(game, players[0])
    assert mailgun_post(reply(reply_to(sent), "1"), auth=None).status_code == 400
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret", "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}
    assert mailgun_post(reply(reply_to(sent), "1"), auth=None).status_code == 400
    game.refresh_from_db()
    assert game.version == 0
    assert mailgun_post(reply(reply_to(sent), "1")).status_code == 200
    game.refresh_from_db()
    assert game.version == 1


def test_a_provider_not_set_up_has_no_webhook(game, players, settings):
    settings.INBOUND_EMAIL_PROVIDERS = []
    sent = turn_email(game, players[0])
    assert mailgun_post(reply(reply_to(sent), "1")).status_code == 404
    assert Client().get("/inbound/sendgrid/").status_code == 404


# -- Through the local SMTP server (make run) ----------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.django_db(transaction=True)
def test_the_local_smtp_server_takes_replies_for_reply_addresses_only(players):
    from games.management.commands.inbound_smtp import controller

    game = rigged(players, deal=ACTION_DEAL)
    sent = turn_email(game, players[0])
    server = controller(f"127.0.0.1:{free_port()}")
    server.start()
    try:
        with smtplib.SMTP(server.hostname, server.port, timeout=30) as smtp:
            with pytest.raises(smtplib.SMTPRecipientsRefused):
                smtp.send_message(reply("someone@localhost", "1"))
            smtp.send_message(reply(reply_to(sent), "Hello from my inbox"))
    finally:
        server.stop()
    assert ChatMessage.objects.get().text == "Hello from my inbox"
    assert len(answers(players[0])) == 1
    mail.outbox.clear()


def test_every_email_of_a_whole_game_has_its_readers_reply_address(players):
    """Every outbox row of a game played from its start to its end (turns, reminders, mentions,
    the start and the end...) is built with a Reply-To that names its reader and game."""
    import random

    from tests.web.ratings_play import play_fast, table

    game = table(players, rounds=1, name="Whole mine")
    chat_post(game_id=game.pk, user=players[1], text="@Ann @Cid good luck")
    game = play_fast(game, random.Random(40))
    assert game.status == Game.Status.FINISHED
    notices = Notice.objects.filter(game=game, user__isnull=False)
    kinds = set(notices.values_list("kind", flat=True))
    assert {"turn", "reminder", "mention", "started", "finished"} <= kinds, kinds
    for notice in notices:
        sent = build_email(notice, notice.user.email)
        token = reply_addresses.token_in(reply_to(sent))
        found = reply_addresses.read_reply_token(token)
        assert (found.user_id, found.game_id) == (notice.user_id, game.pk), notice.kind


# -- Properties: the parsers never fail, and read back what the site wrote ----------------------


@given(text=st.text(max_size=80))
def test_any_first_line_is_a_command_or_a_chat_message_never_an_error(text):
    command = replies.command_in(text)
    assert command is None or command.kind in ("number", "pass", "map")
    if command is not None and command.kind == "number":
        assert str(command.value) in text


@given(
    n=st.integers(1, 999),
    spaces=st.sampled_from(["", " ", "  "]),
    end=st.sampled_from(["", ".", ")", "!"]),
)
def test_a_number_alone_on_its_line_is_that_move(n, spaces, end):
    assert replies.command_in(f"{spaces}{n}{end}{spaces}") == replies.Command("number", n)


@given(
    user=st.integers(0, 2**32 - 1),
    game=st.integers(0, 2**32 - 1),
    version=st.integers(0, 2**32 - 1),
    moves=st.booleans(),
    case=st.sampled_from([str.lower, str.upper, str.title]),
)
def test_every_token_reads_back_in_any_case_and_fits_an_address(user, game, version, moves, case):
    token = reply_addresses.reply_token(user_id=user, game_id=game, version=version, moves=moves)
    assert len("reply+" + token) <= 64
    found = reply_addresses.read_reply_token(case(token))
    assert found == reply_addresses.ReplyTo(user, game, version, moves)


@given(garbage=st.text(max_size=60))
def test_no_text_is_a_token_by_chance_and_none_raises(garbage):
    assert reply_addresses.read_reply_token(garbage) is None  # a forgery needs the secret key


def test_a_number_in_reply_to_an_email_that_numbered_nothing_makes_no_move(game, players):
    """A mention arrives during Ann's turn; her "2" (two what?) must not play the second move of
    a list she never saw."""
    chat_post(game_id=game.pk, user=players[1], text="@Ann 2 saboteurs here, I bet")
    mention = Notice.objects.get(kind=Notice.Kind.MENTION, user=players[0])
    sent = build_email(mention, players[0].email)
    assert reply_addresses.read_reply_token(reply_addresses.token_in(reply_to(sent))).moves is False
    for line in ("2", "pass 2"):
        replies.receive(reply(reply_to(sent), line))
    game.refresh_from_db()
    assert game.version == 0
    texts = [n.data["lines"][0] for n in answers(players[0])]
    assert all("lists no moves or cards to choose by number" in text for text in texts), texts
    replies.receive(reply(reply_to(sent), "map north"))  # says what it means: made
    game.refresh_from_db()
    assert game.version == 1
