"""Email never depends on push (issue 34).

A player with a push device lost the emails of every kind push had no words for (a pause, a
resumption, an extension, a vacation: ``KeyError`` before the email, the row left due with 0
attempts and retried by every sweep), and any push error other than the push service's own
(a ``py_vapid`` error over the claims) failed the whole notice. Now every kind is pushed or
explicitly email only, every push failure is caught per device and recorded on its delivery, and
the email goes as if the device did not exist; a notice that cannot be sent at all counts its
attempts, records why and ends "failed", never due for ever.

The push service is the local stand-in (tests/push_service.py); the scaffolding is
test_push.py's (which borrows test_notices_over_days.py's), hence the noqa.
"""
# ruff: noqa: F401, F811

from __future__ import annotations

import socket
from datetime import time, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from accounts import devices
from accounts.models import PushSubscription
from games.models import Notice, PushDelivery
from games.moderation import tables
from games.outbox import push, sending
from games.play.chat import chat_post
from games.play.vacations import vacation_declare
from games.tasks import sweep
from tests.push_service import PushService
from tests.tasks.test_notices_over_days import eager_celery, players, quiet, traveller
from tests.tasks.test_push import clean, device, next_player, pass_turn, service, start, vapid_key

pytestmark = pytest.mark.django_db


def mails(user, words: str) -> list:
    return [m for m in mail.outbox if m.to == [user.email] and words in m.subject]


def test_every_kind_of_notice_is_pushed_with_words_of_its_own_or_is_email_only():
    kinds = set(Notice.Kind)
    assert push.PUSHED_KINDS | push.EMAIL_ONLY == kinds
    assert not push.PUSHED_KINDS & push.EMAIL_ONLY
    assert set(push._TEXTS) == set(push.PUSHED_KINDS)
    assert push.EMAIL_ONLY == {Notice.Kind.INVITATION, Notice.Kind.DIGEST, Notice.Kind.ANSWER}


@pytest.mark.parametrize(
    ("act", "kind", "subject"),
    [
        (lambda game: tables.game_pause(game_id=game.pk), "paused",
         "Deep mine is paused by the moderators"),
        (lambda game: (tables.game_pause(game_id=game.pk), tables.game_resume(game_id=game.pk)),
         "resumed", "Deep mine has resumed"),
        (lambda game: tables.game_extend(game_id=game.pk, hours=5), "extended",
         "More time in Deep mine"),
    ],
    ids=["paused", "resumed", "extended"],
)  # fmt: skip
def test_the_moderators_clock_changes_reach_a_player_with_a_device_by_push_and_email(
    act, kind, subject, players, service, django_capture_on_commit_callbacks
):
    """The issue's repro: a game of three, one player with a device, a moderator's pause: the
    others got "... is paused", the player with the device nothing at all."""
    game = start(players)
    watcher = next_player(game)
    phone = device(watcher, service)
    with django_capture_on_commit_callbacks(execute=True):
        act(game)
    sweep()
    for user in players:
        assert len(mails(user, subject)) == 1, (user, [m.subject for m in mail.outbox])
    [payload] = [p for p in clean(service.to(phone)) if p["title"] == subject]
    assert payload["body"].startswith("The moderators ")
    assert payload["url"].endswith(f"/games/{game.pk}/")
    notice = Notice.objects.get(user=watcher, kind=kind)
    assert (notice.status, notice.attempts) == ("sent", 1)
    assert notice.pushes.get().status == "sent"
    assert not Notice.objects.filter(kind=kind, status="pending").exists()


def test_a_vacation_and_its_end_reach_players_with_devices_by_push_and_email(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(days=3))
    away, other = players[1], players[2]
    away_phone, other_phone = device(away, service), device(other, service)
    with django_capture_on_commit_callbacks(execute=True):
        vacation_declare(user=away, days=2)
    sweep()
    assert len(mails(other, "will be on vacation")) == 1
    [told] = [p for p in clean(service.to(other_phone)) if "vacation" in p["title"]]
    assert told["title"] == f"{away.display_name} will be on vacation"
    assert told["url"].endswith(f"/games/{game.pk}/")

    traveller.shift(timedelta(days=1, hours=1))  # a day before the vacation ends
    sweep()
    assert len(mails(away, "Your vacation ends tomorrow")) == 1
    [ending] = [p for p in clean(service.to(away_phone)) if "vacation" in p["title"]]
    assert ending["title"] == "Your vacation ends tomorrow"
    assert ending["body"].startswith("Your vacation ends at ")
    assert not Notice.objects.filter(kind__in=["vacation", "vacation-end"], status="pending")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # nothing listens there once the probe is closed


def test_a_push_service_that_is_down_neither_fails_nor_delays_the_email(
    players, service, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    down = service.subscribe().json()
    down["endpoint"] = f"http://127.0.0.1:{closed_port()}/push/down"
    devices.device_subscribe(user=nxt, subscription=down, user_agent="Firefox/140 Android")
    PushSubscription.objects.filter(user=nxt).update(last_used_at=game.started_at)  # in use
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(mails(nxt, "Your turn")) == 1  # at once: no push reached a device to wait for
    delivery = PushDelivery.objects.get(notice__user=nxt, notice__kind="turn")
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert delivery.last_error.startswith("ConnectionError")  # recorded on the delivery


def test_a_py_vapid_error_is_recorded_per_device_and_the_email_goes(
    players, service, settings, django_capture_on_commit_callbacks
):
    """A subject py_vapid refuses (the old default whenever SITE_URL had a port) raised a
    ``VapidException`` the sender did not catch: that player never got "Your turn"."""
    game = start(players)
    nxt = next_player(game)
    phone = device(nxt, service)
    settings.VAPID_SUBJECT = "https://saboteur.example:8443"
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(mails(nxt, "Your turn")) == 1
    assert service.to(phone) == []
    notice = Notice.objects.get(user=nxt, kind="turn")
    assert (notice.status, notice.attempts, notice.last_error) == ("sent", 1, "")
    delivery = notice.pushes.get()
    assert delivery.status == "pending" and delivery.attempts == 1
    assert delivery.last_error.startswith("VapidException: Missing 'sub' from claims")


def test_a_mention_whose_message_was_deleted_meanwhile_is_not_sent(
    players, service, traveller, django_capture_on_commit_callbacks
):
    """A mention held by quiet hours whose message the moderators deleted meanwhile: its push's
    words could not be built (the message is gone), which failed the email too, for ever. Now
    the row is dropped for that reason, and nothing of it stays due."""
    game = start(players)
    ann, bob, _cid = players
    phone = device(bob, service)
    quiet(bob, time(9, 0), time(12, 0))  # it is 10:00
    with django_capture_on_commit_callbacks(execute=True):
        message = chat_post(game_id=game.pk, user=ann, text="@Bob: dig east")
    notice = Notice.objects.get(kind="mention", user=bob)
    assert notice.status == "pending"
    tables.chat_delete(message_ids=[message.pk])
    traveller.shift(timedelta(hours=2, minutes=1))
    sweep()
    notice.refresh_from_db()
    assert (notice.status, notice.reason) == ("skipped", "the message was deleted")
    assert mails(bob, "mentioned you") == [] and service.to(phone) == []


def test_a_notice_that_cannot_be_sent_counts_its_attempts_and_ends_failed(players, traveller):
    """Whatever fails on the way (here the row's own data), the attempt is counted and recorded,
    the row backs off, and after ``MAX_ATTEMPTS`` it is "failed" (the admin's outbox lists it):
    none stays due with 0 attempts for every sweep to retry and log."""
    game = start(players, turn_limit=timedelta(days=7))  # outlasts the attempts
    seat = game.seats.get(position=game.to_move)
    Notice.objects.create(
        key="broken", kind=Notice.Kind.TURN, user=seat.user, game=game, seat=seat, data={},
        due_at=timezone.now(),
    )  # fmt: skip
    for attempt in range(1, sending.MAX_ATTEMPTS + 1):
        sweep()
        notice = Notice.objects.get(key="broken")
        assert notice.attempts == attempt
        assert notice.last_error == "KeyError: 'since'"
        traveller.shift(timedelta(hours=6, minutes=1))  # past the longest pause
    assert notice.status == "failed"
    sweep()
    assert Notice.objects.get(key="broken").attempts == sending.MAX_ATTEMPTS


def test_a_stored_endpoint_the_sender_would_read_otherwise_is_never_posted_to(
    players, service, django_capture_on_commit_callbacks
):
    """A subscription kept before the allow-list read addresses as the sender does: it is
    checked again before each push, refused for good, and the email goes."""
    game = start(players)
    nxt = next_player(game)
    keys = service.subscribe().json()["keys"]
    PushSubscription.objects.create(
        user=nxt, endpoint="https://127.0.0.1:8113\\@fcm.googleapis.com/x",
        p256dh=keys["p256dh"], auth=keys["auth"], last_used_at=timezone.now(),
    )  # fmt: skip
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(mails(nxt, "Your turn")) == 1
    delivery = PushDelivery.objects.get(notice__user=nxt, notice__kind="turn")
    assert delivery.status == "failed"
    assert delivery.last_error == "ValueError: the endpoint is not a push service's"
