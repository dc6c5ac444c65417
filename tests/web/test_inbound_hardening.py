"""No 5xx on inbound (issue 47, point 5).

Authenticated webhook posts that are not what the provider sends answered 500 with an ERROR (and
the provider retried them for hours): 11 shapes found by a hostile probe, each now a 400 with no
ERROR and nothing changed, and a Hypothesis property over arbitrary JSON and form bodies. Mailgun
signs only a timestamp and a token, not the body: its posts now need a recent timestamp, a token
never seen before and, as Postmark's, the basic auth of the webhook URL. A multipart body posted
to ``/accounts/devices/`` answered 500 too.

Posts are built as the providers build them (tests/web/test_replies.py), against a real game
whose reply address would make a move: a shape that slipped through would change something.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
import time
from email.message import EmailMessage

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.test.utils import override_settings
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from accounts.models import PushSubscription
from games.models import ChatMessage, InboundMail, Move, Notice
from games.web import inbound
from tests.conftest import scaled_examples
from tests.players import create_player

from .test_one_tap import ACTION_DEAL, rigged
from .test_replies import MAILGUN_KEY, basic, postmark_payload, reply, reply_to, turn_email
from .test_settings_guard import one_line_refusal, production_env, run_manage

pytestmark = pytest.mark.django_db

SECRET = "hook:s3cret"


@pytest.fixture
def players():
    return [create_player(name) for name in ("ann", "bob", "cid")]


@pytest.fixture
def game(players):
    return rigged(players, deal=ACTION_DEAL)


@pytest.fixture(autouse=True)
def providers(settings):
    settings.INBOUND_EMAIL_PROVIDERS = ["mailgun", "postmark"]
    settings.ANYMAIL = {"WEBHOOK_SECRET": SECRET, "MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}


@pytest.fixture
def good(game, players) -> EmailMessage:
    """Ann's "1" to her turn email: posted well-formed, it makes her move."""
    return reply(reply_to(turn_email(game, players[0])), "1")


def state(game) -> tuple:
    """Everything a webhook post could change."""
    game.refresh_from_db()
    return (
        game.version,
        InboundMail.objects.count(),
        ChatMessage.objects.count(),
        Move.objects.count(),
        Notice.objects.count(),
        len(mail.outbox),
    )


def client() -> Client:
    return Client(raise_request_exception=False)  # a 500 is an answer to check, not a raise


# -- The providers' posts ----------------------------------------------------------------------


def signed(*, timestamp: int | None = None, token: str | None = None, key=MAILGUN_KEY) -> dict:
    """Mailgun's signature fields: HMAC-SHA256 of timestamp and token (a new one by default)."""
    import hashlib
    import hmac

    stamp = str(int(time.time()) if timestamp is None else timestamp)
    token = token or secrets.token_hex(25)
    digest = hmac.new(key.encode(), f"{stamp}{token}".encode(), hashlib.sha256).hexdigest()
    return {"timestamp": stamp, "token": token, "signature": digest}


def mailgun(fields: dict, *, auth=SECRET, **signature):
    """A form post to the Mailgun webhook, signed, with basic auth."""
    return client().post(
        "/inbound/mailgun/", {**fields, **signed(**signature)}, **(basic(auth) if auth else {})
    )


def mailgun_mime(message: EmailMessage) -> dict:
    """The fields of Mailgun's forward() in its raw-MIME form (what the site is set up for)."""
    return {
        "body-mime": message.as_string(),
        "recipient": message["To"],
        "sender": "ann@example.com",
    }


def postmark(body: str | bytes, content_type="application/json", *, auth=SECRET):
    return client().post(
        "/inbound/postmark/", body, content_type=content_type, **(basic(auth) if auth else {})
    )


def errors(caplog) -> list[str]:
    """The ERROR (and worse) lines logged: a malformed post must leave none."""
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR]


# -- The 11 shapes of the probe ------------------------------------------------------------------


def _postmark_with(change):
    def build(message):
        payload = postmark_payload(message)
        change(payload)
        return payload

    return build


def _wrong_types(payload):
    payload["Headers"] = [{"Name": 7, "Value": ["<ann@example.com>"]}]
    payload["ToFull"] = "ann"


def _bad_base64(payload):
    payload["Attachments"] = [{"ContentType": "text/plain", "Name": "a.txt", "Content": "!!x"}]


POSTMARK_SHAPES = {
    "not-json": lambda m: ("{" + json.dumps(postmark_payload(m))[:-1], "application/json"),
    "a-list": lambda m: (json.dumps([postmark_payload(m)]), "application/json"),
    "a-string": lambda m: (json.dumps(json.dumps(postmark_payload(m))), "application/json"),
    "wrong-field-types": lambda m: (
        json.dumps(_postmark_with(_wrong_types)(m)),
        "application/json",
    ),
    "a-401-digit-number": lambda m: ("9" * 401, "application/json"),
    "a-form-body": lambda m: (
        "&".join(f"{k}=x" for k in postmark_payload(m)),
        "application/x-www-form-urlencoded",
    ),
    "bad-base64-attachment": lambda m: (
        json.dumps(_postmark_with(_bad_base64)(m)),
        "application/json",
    ),
}

MAILGUN_SHAPES = {
    "no-body-mime": lambda m: {"recipient": m["To"], "sender": "ann@example.com"},
    "parsed-fields-only": lambda m: {
        "recipient": m["To"],
        "sender": "ann@example.com",
        "from": "Ann <ann@example.com>",
        "subject": m["Subject"],
        "body-plain": "1",
    },
    "bad-message-headers": lambda m: {
        "recipient": m["To"],
        "body-plain": "1",
        "message-headers": '[["From", "ann@example.com"], ["To"',
    },
    "message-headers-not-pairs": lambda m: {
        "recipient": m["To"],
        "body-plain": "1",
        "message-headers": json.dumps({"From": 7, "To": [m["To"]]}),
    },
}


@pytest.mark.parametrize("shape", POSTMARK_SHAPES)
def test_malformed_postmark_posts_answer_400_log_no_error_and_change_nothing(
    game, good, shape, caplog
):
    before = state(game)
    body, content_type = POSTMARK_SHAPES[shape](good)
    response = postmark(body, content_type)
    assert response.status_code == 400, shape
    assert errors(caplog) == [], shape
    assert any("inbound Postmark post refused" in r.getMessage() for r in caplog.records)
    assert state(game) == before
    # The same email posted as Postmark posts it: taken (the shape alone was refused).
    assert postmark(json.dumps(postmark_payload(good))).status_code == 200
    assert state(game) != before


@pytest.mark.parametrize("shape", MAILGUN_SHAPES)
def test_malformed_mailgun_posts_answer_400_log_no_error_and_change_nothing(
    game, good, shape, caplog
):
    before = state(game)
    response = mailgun(MAILGUN_SHAPES[shape](good))
    assert response.status_code == 400, shape
    assert errors(caplog) == [], shape
    assert state(game) == before
    assert mailgun(mailgun_mime(good)).status_code == 200
    assert state(game) != before


def test_a_json_post_or_a_broken_multipart_at_mailguns_address_is_a_400(game, good, caplog):
    """Mailgun posts inbound mail as a form; JSON there is one of its tracking webhooks."""
    before = state(game)
    body = json.dumps({"signature": signed(), "event-data": {"event": "delivered"}})
    assert (
        client()
        .post("/inbound/mailgun/", body, content_type="application/json", **basic(SECRET))
        .status_code
        == 400
    )
    assert (
        client()
        .post(
            "/inbound/mailgun/",
            b'--x\r\nContent-Disposition: form-data; name="token"\r\n\r\nbroken',
            content_type="multipart/form-data; boundary=x",
            **basic(SECRET),
        )
        .status_code
        == 400
    )
    assert errors(caplog) == []
    assert state(game) == before


def test_a_bug_in_the_handler_is_still_a_500(game, good, caplog):
    """Only what cannot be read is the sender's fault: an error past the signal (the handler's)
    stays a 500 with an ERROR, so that the provider retries once it is fixed."""

    def broken(**kwargs):
        raise RuntimeError("a bug of ours")

    inbound.reply_received.connect(broken, dispatch_uid="test.broken")
    try:
        message = reply("someone@example.com", "1")  # dropped by the handler, then the bug
        assert mailgun(mailgun_mime(message)).status_code == 500
        assert postmark(json.dumps(postmark_payload(message))).status_code == 500
    finally:
        inbound.reply_received.disconnect(dispatch_uid="test.broken")
    assert errors(caplog) and all("Internal Server Error" in line for line in errors(caplog))


# -- Mailgun: a fresh signature, used once, and basic auth ---------------------------------------


def test_mailgun_refuses_a_timestamp_outside_five_minutes(game, good, caplog):
    now = int(time.time())
    before = state(game)
    with time_machine.travel(now, tick=False):
        for stamp in (978307200, now - 6 * 60, now + 6 * 60, 10**400):  # 2001, late, ahead
            assert mailgun(mailgun_mime(good), timestamp=stamp).status_code == 400, stamp
        assert state(game) == before
        assert mailgun(mailgun_mime(good), timestamp=now - 4 * 60).status_code == 200
    assert state(game) != before
    assert errors(caplog) == []


def test_one_signature_is_taken_once_whatever_the_body(game, players, good, caplog):
    """Mailgun signs the timestamp and the token, not the body: the same signature with another
    body (or the same) is answered 200, so that Mailgun stops, and nothing is done twice."""
    sent = turn_email(game, players[0])
    token = secrets.token_hex(25)
    first = reply(reply_to(sent), "Good luck")
    assert mailgun(mailgun_mime(first), token=token).status_code == 200
    after_first = state(game)
    assert ChatMessage.objects.get().text == "Good luck"
    for body in (reply(reply_to(sent), "1"), reply(reply_to(sent), "Bob is the saboteur"), first):
        assert mailgun(mailgun_mime(body), token=token).status_code == 200
    assert state(game) == after_first
    assert any("token was used before" in r.getMessage() for r in caplog.records)
    assert errors(caplog) == []


def test_mailgun_without_basic_auth_is_refused_however_well_signed(game, good, settings):
    before = state(game)
    assert mailgun(mailgun_mime(good), auth=None).status_code == 400
    assert mailgun(mailgun_mime(good), auth="hook:wrong").status_code == 400
    settings.ANYMAIL = {"MAILGUN_WEBHOOK_SIGNING_KEY": MAILGUN_KEY}  # no secret set up at all
    assert mailgun(mailgun_mime(good), auth=None).status_code == 400
    assert state(game) == before


@override_settings(
    CACHES={
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there: Redis is away
            "OPTIONS": {"IGNORE_EXCEPTIONS": True},  # as the site's (saboteur_site/settings.py)
        }
    }
)
def test_while_the_token_cache_is_away_mailgun_is_told_to_retry(game, good, caplog):
    """No token can be checked: neither taken unchecked nor dropped as a replay, but a 503,
    which Mailgun retries later."""
    before = state(game)
    response = mailgun(mailgun_mime(good))
    assert response.status_code == 503
    assert state(game) == before
    assert any("cache of tokens is away" in r.getMessage() for r in caplog.records)


def test_production_refuses_to_start_with_mailgun_but_no_basic_auth():
    env = production_env(
        INBOUND_EMAIL_PROVIDERS="mailgun",
        MAILGUN_WEBHOOK_SIGNING_KEY="key-x",
        REPLY_DOMAIN="reply.saboteur.example",
        ANYMAIL_WEBHOOK_SECRET=None,
    )
    line = one_line_refusal(run_manage(["check"], **env))
    assert "mailgun" in line and "ANYMAIL_WEBHOOK_SECRET" in line and "basic auth" in line


# -- The property: arbitrary bodies ----------------------------------------------------------------

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
POSTMARK_KEYS = list(postmark_payload(reply("x@localhost", "1"))) + ["RawEmail", "BccFull"]
MAILGUN_KEYS = [
    "body-mime",
    "body-plain",
    "body-html",
    "message-headers",
    "recipient",
    "sender",
    "from",
    "subject",
    "attachment-count",
    "content-id-map",
    "stripped-text",
    "event",
]
# Text that Anymail reads as JSON or as MIME: JSON of any shape, or headers and a body.
FIELD = TEXT | JSON.map(json.dumps) | st.builds("{}: {}\n\n{}".format, TEXT, TEXT, TEXT)

PROPERTY = hypothesis_settings(
    deadline=None,
    max_examples=scaled_examples(2),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def _nothing_5xx_nothing_changed(game, before, response):
    assert response.status_code < 500, response.content
    assert state(game) == before


@PROPERTY
@given(body=JSON | st.dictionaries(st.sampled_from(POSTMARK_KEYS) | TEXT, JSON, max_size=8))
def test_any_json_posted_to_postmark_is_never_a_5xx_and_changes_nothing(game, body):
    before = state(game)
    _nothing_5xx_nothing_changed(game, before, postmark(json.dumps(body)))


@PROPERTY
@given(fields=st.dictionaries(st.sampled_from(MAILGUN_KEYS) | TEXT, FIELD, max_size=8))
def test_any_signed_form_posted_to_mailgun_is_never_a_5xx_and_changes_nothing(game, fields):
    before = state(game)
    _nothing_5xx_nothing_changed(game, before, mailgun(fields))


@PROPERTY
@given(
    fields=st.dictionaries(st.sampled_from(POSTMARK_KEYS + MAILGUN_KEYS) | TEXT, FIELD, max_size=8),
    provider=st.sampled_from(["postmark", "mailgun"]),
)
def test_any_form_or_json_at_either_address_is_never_a_5xx(game, fields, provider):
    """Forms to Postmark, JSON (signed in its block, as Mailgun's tracking posts) to Mailgun."""
    before = state(game)
    if provider == "postmark":
        response = client().post(f"/inbound/{provider}/", fields, **basic(SECRET))
    else:
        body = json.dumps({**fields, "signature": signed()})
        response = client().post(
            "/inbound/mailgun/", body, content_type="application/json", **basic(SECRET)
        )
    _nothing_5xx_nothing_changed(game, before, response)


# -- /accounts/devices/ ----------------------------------------------------------------------------


def test_a_multipart_body_to_devices_answers_400_and_stores_nothing(caplog):
    browser = client()
    browser.force_login(create_player("ann"))
    broken = b'--x\r\nContent-Disposition: form-data; name="endpoint"\r\n\r\nhttps://push'
    for body, content_type in (
        (broken, "multipart/form-data; boundary=x"),
        (broken + b"\r\n--x--\r\n", "multipart/form-data; boundary=x"),  # a whole form
    ):
        response = browser.post("/accounts/devices/", body, content_type=content_type)
        assert response.status_code == 400, body
        assert "push subscription cannot be used" in response.json()["error"]
    assert not PushSubscription.objects.exists()
    assert errors(caplog) == []


@pytest.mark.parametrize("provider", ["mailgun", "postmark"])
def test_a_reply_over_the_upload_limit_is_dropped_unread_without_an_error(
    game, good, provider, settings, caplog
):
    """A reply with a large photo: acknowledged (so the service does not retry it for hours),
    dropped unread, a WARNING, no ERROR from Django's upload limit, nothing changed."""
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    photo = b"\xff" * 100_000
    before = state(game)
    if provider == "postmark":
        payload = postmark_payload(good)
        encoded = base64.b64encode(photo).decode()
        payload["Attachments"] = [
            {"Name": "a.jpg", "Content": encoded, "ContentType": "image/jpeg"}
        ]
        response = postmark(json.dumps(payload))
    else:
        good.add_attachment(photo, maintype="image", subtype="jpeg", filename="a.jpg")
        response = mailgun(mailgun_mime(good))
    assert response.status_code == 200
    assert errors(caplog) == []
    assert any("dropped unread" in r.getMessage() for r in caplog.records)
    assert state(game) == before
