"""Web Push through the outbox (issue 27): each device once, encrypted and signed, the same events,
preferences and quiet hours as email, gone subscriptions deleted, and the email that can wait.

The push service is a local stand-in (tests/push_service.py) that checks the VAPID JWT and
decrypts every payload with the test subscription's private key, as a browser would. Celery runs
eagerly (the on-commit hook really sends); PostgreSQL and the real outbox rows throughout.
The slow-play scaffolding (fixtures too) is test_notices_over_days.py's: imported fixtures look
unused or redefined to ruff, hence its noqa.
"""
# ruff: noqa: F401, F811

from __future__ import annotations

import json
from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from allauth.account.models import EmailAddress
from django.core import mail
from django.test import Client
from django.utils import timezone

from accounts import devices
from accounts.models import PushSubscription
from games import engine
from games.models import Game, Notice, PushDelivery
from games.outbox import push
from games.play.chat import chat_post
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from games.play.visits import seat_seen
from games.tasks import send_notice, sweep
from saboteur_site import vapid
from tests.players import create_player
from tests.push_service import PushService
from tests.tasks.test_notices_over_days import (  # the slow-play scaffolding, fixtures too
    START,
    eager_celery,  # autouse
    mover,
    players,
    traveller,
)
from tests.tasks.test_notifications import sweeps_at_once

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def vapid_key(settings):
    private, public = vapid.generate()
    settings.VAPID_PRIVATE_KEY = private
    settings.VAPID_SUBJECT = "mailto:admin@saboteur.example"
    return public


@pytest.fixture
def service():
    with PushService() as running:
        yield running


def device(user, service, *, answer=201, used=None):
    sub = service.subscribe(answer=answer)
    devices.device_subscribe(user=user, subscription=sub.json(), user_agent="Firefox/140 Android")
    if used is not None:
        PushSubscription.objects.filter(endpoint=sub.endpoint).update(last_used_at=used)
    return sub


def start(players, turn_limit=timedelta(days=1)):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=len(players),
        turn_limit=turn_limit,
    )  # fmt: skip
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    game = game_start(game_id=game.pk, user=players[0])
    sweep()  # the start's notices, before the tests' devices exist
    return game


def next_player(game):
    """Who decides after the one deciding now (clockwise; a pass starts no round-end decision)."""
    game.refresh_from_db()
    return game.seats.get(position=(game.to_move + 1) % game.seats.count()).user


def pass_turn(game, django_capture_on_commit_callbacks):
    seat = mover(game)
    state = engine.State.from_json(game.snapshot)
    with django_capture_on_commit_callbacks(execute=True):
        move_submit(
            game_id=game.pk, user=seat.user, expected_version=game.version,
            move={"move": "pass", "discard": [state.hands[state.to_move][0]]},
        )  # fmt: skip
    return seat


def turn_mails(to):
    return [m for m in mail.outbox if "Your turn" in m.subject and m.to == [to.email]]


def clean(received):
    """Every message arrived encrypted to the subscription's keys and signed with the site's key."""
    for message in received:
        assert message.problems == [], message.problems
    return [message.payload for message in received]


# -- Delivery -----------------------------------------------------------------------------------


def test_a_turn_is_pushed_once_to_each_device_encrypted_and_signed(
    players, service, vapid_key, django_capture_on_commit_callbacks
):
    game = start(players)
    second_player = next_player(game)
    phone, laptop = device(second_player, service), device(second_player, service)
    pass_turn(game, django_capture_on_commit_callbacks)
    for sub in (phone, laptop):
        [payload] = clean(service.to(sub))
        assert payload["title"] == "Your turn in Deep mine"
        assert payload["body"] == "Play a card or pass."
        assert payload["url"].endswith(f"/games/{game.pk}/")
        assert payload["tag"] == f"game-{game.pk}" and payload["waiting"] == 1
        assert payload["actions"] == []  # a turn with path cards needs the maze
    [message] = service.to(phone)
    assert message.vapid_key == vapid_key  # the key browsers subscribed with
    assert message.claims["sub"] == "mailto:admin@saboteur.example"
    assert message.headers["urgency"] == "high" and message.headers["topic"] == f"game{game.pk}"
    assert 0 < int(message.headers["ttl"]) <= 86400  # until the deadline
    assert len(turn_mails(second_player)) == 1  # the email too (the player did not choose else)
    notice = Notice.objects.get(kind="turn", user=second_player)
    assert notice.pushes.filter(status="sent").count() == 2


def test_sending_again_and_again_pushes_each_device_once(players, service):
    game = start(players)
    first = mover(game).user
    sub = device(first, service)
    notice = Notice.objects.get(kind="turn", user=first)
    Notice.objects.filter(pk=notice.pk).update(status="pending")
    for _ in range(3):
        send_notice.delay(notice.pk)
    assert len(service.to(sub)) == 1
    # A device added later gets the notice once too, the first one not again.
    later = device(first, service)
    Notice.objects.filter(pk=notice.pk).update(status="pending")
    send_notice.delay(notice.pk)
    send_notice.delay(notice.pk)
    assert len(service.to(sub)) == 1 and len(service.to(later)) == 1
    assert PushDelivery.objects.filter(notice=notice).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_push_each_device_once(settings):
    with PushService() as service, time_machine.travel(START, tick=False):
        players = [create_player(n, password="x") for n in ("ann", "bob", "cid")]
        game = start(players)
        first = mover(game).user
        subs = [device(first, service) for _ in range(3)]
        Notice.objects.filter(kind__in=["turn", "started"]).update(status="pending")
        mail.outbox.clear()
        sweeps_at_once(3)
        for sub in subs:
            assert [p["title"] for p in clean(service.to(sub))] == ["Your turn in Deep mine"]
        assert len(turn_mails(first)) == 1


def test_a_subscription_the_push_service_forgot_is_deleted(
    players, service, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    gone, unknown, fine = (device(nxt, service, answer=code) for code in (410, 404, 201))
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(gone)) == 1 and len(service.to(unknown)) == 1
    endpoints = set(PushSubscription.objects.values_list("endpoint", flat=True))
    assert endpoints == {fine.endpoint}
    assert len(clean(service.to(fine))) == 1
    assert len(turn_mails(nxt)) == 1  # the email is not affected


def test_a_failing_push_service_is_tried_again_by_the_sweep_while_the_turn_lasts(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    flaky = device(nxt, service, answer=503)
    pass_turn(game, django_capture_on_commit_callbacks)
    delivery = PushDelivery.objects.get(subscription__endpoint=flaky.endpoint)
    assert (delivery.status, delivery.attempts) == ("pending", 1)
    assert len(turn_mails(nxt)) == 1  # the email went anyway
    sweep()  # not due yet: it backs off
    assert len(service.to(flaky)) == 1
    service.subscriptions[flaky.endpoint].answer = 201
    traveller.shift(timedelta(minutes=3))
    sweep()
    sweep()
    assert len(service.to(flaky)) == 2
    delivery.refresh_from_db()
    assert delivery.status == "sent"
    assert len(turn_mails(nxt)) == 1

    # A push that fails until the turn has moved on is not sent any more.
    pass_turn(game, django_capture_on_commit_callbacks)  # now nxt's decision is over
    following = next_player(game)
    late = device(following, service, answer=500)
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(late)) == 1
    pass_turn(game, django_capture_on_commit_callbacks)  # their own move: the turn is over
    service.subscriptions[late.endpoint].answer = 201
    traveller.shift(timedelta(hours=1))
    sweep()
    assert len(service.to(late)) == 1
    old = PushDelivery.objects.get(subscription__endpoint=late.endpoint)
    assert old.status == "failed" and old.last_error == "the turn has moved on"


# -- The same events, preferences and quiet hours ------------------------------------------------


def test_push_follows_the_email_choices(players, service, django_capture_on_commit_callbacks):
    game = start(players)
    ann, bob, cid = players
    subs = {user.pk: device(user, service) for user in players}
    bob.email_mentions = False
    bob.save()
    with django_capture_on_commit_callbacks(execute=True):
        chat_post(game_id=game.pk, user=ann, text="@Bob and @Cid: dig east")
    assert [p["title"] for p in clean(service.to(subs[cid.pk]))][-1] == (
        "Ann mentioned you in Deep mine"
    )
    assert clean(service.to(subs[cid.pk]))[-1]["body"] == "@Bob and @Cid: dig east"
    assert not [p for p in clean(service.to(subs[bob.pk])) if "mentioned" in p["title"]]

    nxt = next_player(game)
    nxt.email_turns = False
    nxt.save()
    before = len(service.to(subs[nxt.pk]))
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(subs[nxt.pk])) == before  # no "your turn", by email or push


def test_quiet_hours_hold_the_push_too(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    nxt.time_zone, nxt.quiet_from, nxt.quiet_until = "UTC", time(9), time(12)
    nxt.save()
    sub = device(nxt, service)
    pass_turn(game, django_capture_on_commit_callbacks)
    assert service.to(sub) == [] and turn_mails(nxt) == []
    traveller.move_to(datetime(2026, 11, 2, 12, 1, tzinfo=UTC))
    sweep()
    assert [p["title"] for p in clean(service.to(sub))] == ["Your turn in Deep mine"]
    assert len(turn_mails(nxt)) == 1


def test_start_and_end_of_a_game_are_pushed(players, service, django_capture_on_commit_callbacks):
    subs = {}
    game = game_create(creator=players[0], name="Short", ruleset="base", max_seats=3, rounds=1)
    for user in players:
        subs[user.pk] = device(user, service)
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    with django_capture_on_commit_callbacks(execute=True):
        game = game_start(game_id=game.pk, user=players[0])
    titles = {pk: [p["title"] for p in clean(service.to(sub))] for pk, sub in subs.items()}
    first = mover(game).user
    for user in players:
        expected = "Your turn in Short" if user == first else "Short has started"
        assert titles[user.pk] == [expected]
    # The game ends (the rigged shortcut: the last move of a finished state through the engine
    # is covered elsewhere); the end notice is the outbox's like any other.
    from games.outbox.schedule import notices_for_end
    from games.outbox.sending import enqueue_after_commit

    Game.objects.filter(pk=game.pk).update(status=Game.Status.FINISHED)
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        enqueue_after_commit(notices_for_end(game=game, now=START))
    for user in players:
        assert clean(service.to(subs[user.pk]))[-1]["title"] == "Short is over"
    assert len([m for m in mail.outbox if m.subject == "Short is over"]) == 3


def test_a_player_without_a_verified_address_still_gets_the_push(
    players, service, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    EmailAddress.objects.filter(user=nxt).update(verified=False)
    sub = device(nxt, service)
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(clean(service.to(sub))) == 1 and turn_mails(nxt) == []
    notice = Notice.objects.filter(user=nxt, kind="turn").latest("pk")
    assert notice.status == "sent" and notice.reason == "pushed; no verified address"


# -- The email that can wait ---------------------------------------------------------------------


def test_the_email_waits_when_push_reached_a_device_in_use(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    nxt.email_waits_for_push = True
    nxt.save()
    sub = device(nxt, service, used=START - timedelta(minutes=10))
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(sub)) == 1 and turn_mails(nxt) == []
    notice = Notice.objects.filter(user=nxt, kind="turn").latest("pk")
    assert notice.status == "pending" and notice.due_at == START + push.EMAIL_WAIT
    traveller.shift(timedelta(minutes=10))
    seat_seen(game=game, user=nxt)  # the player opens the game from the notification
    traveller.shift(push.EMAIL_WAIT)
    sweep()
    notice.refresh_from_db()
    assert notice.status == "sent" and "opened" in notice.reason
    assert turn_mails(nxt) == [] and len(service.to(sub)) == 1


def test_the_held_email_goes_when_the_player_did_not_come(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    nxt.email_waits_for_push = True
    nxt.save()
    sub = device(nxt, service, used=START)
    pass_turn(game, django_capture_on_commit_callbacks)
    traveller.shift(push.EMAIL_WAIT + timedelta(minutes=1))
    sweep()
    assert len(turn_mails(nxt)) == 1 and len(service.to(sub)) == 1


def test_the_email_does_not_wait_for_a_device_nobody_used_lately(
    players, service, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    nxt.email_waits_for_push = True
    nxt.save()
    device(nxt, service, used=START - push.RECENT_USE - timedelta(minutes=1))
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(turn_mails(nxt)) == 1


def test_using_the_site_on_a_device_marks_it_used(players, service, traveller):
    ann = players[0]
    client = Client()
    client.force_login(ann)
    response = client.post(
        "/accounts/devices/", service.subscribe().json(), content_type="application/json"
    )
    assert response.status_code == 201
    key = response.cookies[devices.COOKIE].value
    traveller.shift(timedelta(hours=2))
    client.get("/")
    assert PushSubscription.objects.get(device_key=key).last_used_at == START + timedelta(hours=2)


def test_without_keys_nothing_is_pushed_and_mail_goes_on(
    players, service, settings, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    sub = device(nxt, service)
    settings.VAPID_PRIVATE_KEY = ""
    pass_turn(game, django_capture_on_commit_callbacks)
    assert service.to(sub) == [] and len(turn_mails(nxt)) == 1
    assert not PushDelivery.objects.exists()


# -- What a payload may carry --------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind",
    [
        "turn", "reminder", "absent", "mention", "started", "finished", "timeout", "aborted",
        "briefing", "replaced",
    ],
)  # fmt: skip
def test_no_push_payload_shows_a_secret_of_another_seat(players, kind):
    """Every pushed kind, its payload built again after changing what its player may not know,
    is identical (the email leak test's twin check), and carries no seed."""
    from games.outbox import schedule

    game = start(players)
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.select_related("user").get(position=game.to_move)
    other = game.seats.exclude(pk=seat.pk).select_related("user").first()
    if kind == "reminder":
        notice = Notice.objects.filter(kind="reminder", seat=seat).first()
    elif kind == "absent":
        schedule.notice_absent(game=game, absent=seat, now=START)
        notice = Notice.objects.filter(kind="absent").first()
    elif kind == "mention":
        chat_post(game_id=game.pk, user=other.user, text=f"@{seat.user.display_name} hi")
        notice = Notice.objects.get(kind="mention")
    elif kind == "turn":
        notice = Notice.objects.get(kind="turn", seat=seat)
    else:
        notice = Notice.objects.create(
            key=f"{kind}-test", kind=kind, user=other.user, game=game, seat=other, due_at=START,
            data={"move": "pass", "reason": "spam", "old": "Ann", "new": "Bob"},
        )  # fmt: skip
    me = state.seat_index(notice.seat.engine_name)
    original = push.payload(notice)
    others = [i for i in range(3) if i != me]
    state.hands[others[0]][0], state.pile[0] = state.pile[0], state.hands[others[0]][0]
    state.roles[others[0]], state.roles[others[1]] = state.roles[others[1]], state.roles[others[0]]
    state.pile.reverse()
    state.set_aside.reverse()
    Game.objects.filter(pk=game.pk).update(snapshot=state.to_json())
    twin = push.payload(Notice.objects.get(pk=notice.pk))
    assert twin == original
    assert original["title"] and "Deep mine" in original["title"] + original["body"]
    for seed in state.config.round_seeds:
        assert seed not in str(original)


def test_a_gold_pick_carries_the_emails_one_tap_links_which_only_open_the_confirmation():
    """The decision that needs no maze: its push has actions, the same signed, single-use,
    version-bound links as the email; following one shows the confirmation and moves nothing."""
    from tests.web.test_one_tap import BASE_DEAL, BASE_TO_GOLD, links, moves_of, play, rigged

    users = [create_player(n) for n in ("ann", "bob", "cid")]
    game = rigged(users, deal=BASE_DEAL)
    play(game, BASE_TO_GOLD)
    cid = users[2]
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game, user=cid).latest("pk")
    payload = push.payload(notice)
    assert payload["body"] == "Pick one of the gold cards offered to you."
    titles = [action["title"] for action in payload["actions"]]
    assert set(titles) == {"Keep 1 gold", "Keep 2 gold", "Keep 3 gold"}
    from games.outbox.emails import build_email

    emailed = links(build_email(notice, cid.email))
    for action in payload["actions"]:
        path = action["url"].removeprefix("http://127.0.0.1:8000")
        assert path.startswith("/tap/")
        assert (
            emailed[action["title"]].split("/")[2].split(":")[0] == path.split("/")[2].split(":")[0]
        )  # the same signed data (the signatures differ only by their time)
    before = moves_of(game)
    client = Client(enforce_csrf_checks=True)
    page = client.get(payload["actions"][0]["url"].removeprefix("http://127.0.0.1:8000"))
    assert page.status_code == 200 and b'data-testid="one-tap-confirm"' in page.content
    assert moves_of(game) == before  # opening the action's page moves nothing

    cid.email_hand = False  # the player keeps their choices out of notifications
    cid.save()
    assert push.payload(Notice.objects.get(pk=notice.pk))["actions"] == []


def test_a_payload_fits_what_push_services_take(players):
    from tests.web.test_one_tap import SABOTEUR2_DEAL, SABOTEUR2_TO_STEAL, play, rigged

    game = rigged(players, deal=SABOTEUR2_DEAL, ruleset="saboteur2")
    play(game, SABOTEUR2_TO_STEAL)
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game).latest("pk")
    payload = push.payload(notice)
    assert payload["actions"]  # a Theft: steal from someone, or nothing
    assert len(json.dumps(payload).encode()) < 3000  # 4096 bytes less the encryption's


def test_without_an_address_a_push_that_failed_is_left_to_the_sweep(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    EmailAddress.objects.filter(user=nxt).update(verified=False)
    flaky = device(nxt, service, answer=503)
    gone = device(nxt, service, answer=410)
    pass_turn(game, django_capture_on_commit_callbacks)
    notice = Notice.objects.filter(user=nxt, kind="turn").latest("pk")
    assert notice.status == "sent" and "tried again" in notice.reason
    service.subscriptions[flaky.endpoint].answer = 201
    traveller.shift(timedelta(minutes=3))
    sweep()
    assert len(clean(service.to(flaky))) == 2 and len(service.to(gone)) == 1
    # With no device left either, the notice is skipped, as before push existed.
    PushSubscription.objects.all().delete()
    pass_turn(game, django_capture_on_commit_callbacks)
    pass_turn(game, django_capture_on_commit_callbacks)
    pass_turn(game, django_capture_on_commit_callbacks)
    notice = Notice.objects.filter(user=nxt, kind="turn").latest("pk")
    assert (notice.status, notice.reason) == ("skipped", "no verified address")


def test_a_push_tried_again_waits_for_the_end_of_quiet_hours(
    players, service, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    nxt = next_player(game)
    nxt.time_zone, nxt.quiet_from, nxt.quiet_until = "UTC", time(10, 5), time(12)
    nxt.save()
    flaky = device(nxt, service, answer=503)
    pass_turn(game, django_capture_on_commit_callbacks)  # 10:00, before the quiet hours
    service.subscriptions[flaky.endpoint].answer = 201
    traveller.shift(timedelta(minutes=10))  # 10:10: due again, but quiet
    sweep()
    assert len(service.to(flaky)) == 1
    traveller.move_to(datetime(2026, 11, 2, 12, 0, 30, tzinfo=UTC))
    sweep()
    assert len(service.to(flaky)) == 2 and clean(service.to(flaky)[1:])


def test_a_push_tried_again_obeys_the_opt_out_and_waits_out_a_vacation(
    players, service, traveller, django_capture_on_commit_callbacks
):
    """The sweep's retries go through the outbox's one rule (``sending.hold_or_skip``): they
    missed the email choices and vacations, so a push refused before the player opted out, or
    before they left, still went out once the push service took it."""
    from games.play.vacations import vacation_declare

    game = start(players)
    nxt = next_player(game)
    flaky = device(nxt, service, answer=503)
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(flaky)) == 1
    nxt.email_turns = False  # "your turn" emails, and so their pushes, no more
    nxt.save()
    service.subscriptions[flaky.endpoint].answer = 201
    traveller.shift(timedelta(minutes=10))
    sweep()
    assert len(service.to(flaky)) == 1
    delivery = PushDelivery.objects.get(subscription__endpoint=flaky.endpoint)
    assert (delivery.status, delivery.last_error) == ("failed", "opted out")

    # The next player's push, refused, then the player goes on vacation: it waits for them.
    pass_turn(game, django_capture_on_commit_callbacks)
    following = next_player(game)
    away = device(following, service, answer=503)
    pass_turn(game, django_capture_on_commit_callbacks)
    assert len(service.to(away)) == 1
    vacation_declare(user=following, days=2)
    service.subscriptions[away.endpoint].answer = 201
    traveller.shift(timedelta(minutes=10))
    sweep()
    assert len(service.to(away)) == 1
    held = PushDelivery.objects.get(subscription__endpoint=away.endpoint)
    assert held.status == "pending" and held.due_at >= timezone.now() + timedelta(days=1)
