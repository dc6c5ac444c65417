"""Emails, reminders and moderation that hold over days (issue 11), with time travel.

Celery runs eagerly here, as in test_notifications.py; the real worker is in
test_email_integration.py.
"""

from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from django.core import mail
from django.db.models import Q
from django.test import Client
from django.urls import reverse

from games import engine
from games.models import Game, Notice, Seat
from games.moderation import tables
from games.outbox import schedule
from games.play.chat import chat_post
from games.play.lobby import game_create, game_start, invitation_send, seat_join
from games.play.moves import move_submit
from games.play.visits import seat_seen
from games.tasks import sweep
from saboteur_site.celery import app
from tests.players import create_player

pytestmark = pytest.mark.django_db
START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)  # a Monday; Prague is UTC+1


@pytest.fixture(autouse=True)
def eager_celery():
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def traveller():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def players(traveller):
    return [create_player(n, password="x") for n in ("ann", "bob", "cid")]


def lobby(players, turn_limit=timedelta(days=1), **options):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=len(players),
        turn_limit=turn_limit, **options,
    )  # fmt: skip
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game


def start(players, turn_limit=timedelta(days=1), capture=None, **options):
    game = lobby(players, turn_limit, **options)
    if capture is None:
        return game_start(game_id=game.pk, user=players[0])
    with capture(execute=True):
        return game_start(game_id=game.pk, user=players[0])


def mover(game):
    game.refresh_from_db()
    return game.seats.select_related("user").get(position=game.to_move)


def play(game, capture):
    seat = mover(game)
    state = engine.State.from_json(game.snapshot)
    with capture(execute=True):
        move_submit(
            game_id=game.pk, user=seat.user, expected_version=game.version,
            move={"move": "pass", "discard": [state.hands[state.to_move][0]]},
        )  # fmt: skip
    return seat


def quiet(user, start_at, end_at, zone="UTC"):
    user.time_zone = zone
    user.quiet_from, user.quiet_until = start_at, end_at
    user.save()


def to(user, subject_part=""):
    return [m for m in mail.outbox if m.to == [user.email] and subject_part in m.subject]


# -- 2. Quiet hours -----------------------------------------------------------------------------


def test_a_turn_email_waits_for_the_end_of_quiet_hours(
    players, traveller, django_capture_on_commit_callbacks
):
    traveller.move_to(datetime(2026, 11, 2, 23, 0, tzinfo=UTC))
    for user in players:
        quiet(user, time(22, 0), time(7, 0))
    game = start(players, capture=django_capture_on_commit_callbacks)
    first = mover(game)
    assert mail.outbox == []  # neither the start nor the turn at 23:00
    notice = Notice.objects.get(kind="turn", seat=first)
    assert notice.status == "pending"
    assert notice.due_at == datetime(2026, 11, 3, 7, 0, tzinfo=UTC)
    traveller.move_to(datetime(2026, 11, 3, 6, 59, tzinfo=UTC))
    sweep()
    assert mail.outbox == []
    traveller.move_to(datetime(2026, 11, 3, 7, 0, tzinfo=UTC))
    sweep()
    assert len(to(first.user, "Your turn")) == 1
    assert len(mail.outbox) == 3  # and the other two hear the game started


def test_mentions_absent_seats_and_digests_wait_for_quiet_hours_too(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players)
    sweep()
    mail.outbox.clear()
    traveller.move_to(datetime(2026, 11, 2, 23, 0, tzinfo=UTC))
    ann, bob, cid = players
    for user in players:
        quiet(user, time(22, 0), time(7, 0))
    bob.email_digest = True
    bob.save()
    with django_capture_on_commit_callbacks(execute=True):
        chat_post(game_id=game.pk, user=ann, text="@Bob dig east")
    absent = game.seats.get(user=cid)
    schedule.notice_absent(game=game, absent=absent, now=traveller_now())
    Notice.objects.create(
        key="digest-quiet", kind="digest", user=bob, due_at=traveller_now(),
        data={"games": [game.pk]},
    )  # fmt: skip
    sweep()
    assert mail.outbox == []
    held = Notice.objects.filter(Q(kind__in=["mention", "absent"]) | Q(key="digest-quiet"))
    assert held.count() == 4
    assert set(held.values_list("status", flat=True)) == {"pending"}
    traveller.move_to(datetime(2026, 11, 3, 7, 0, tzinfo=UTC))
    sweep()
    assert set(held.values_list("status", flat=True)) == {"sent"}


def traveller_now():
    from django.utils import timezone

    return timezone.now()


def test_a_reminder_is_placed_outside_quiet_hours_before_the_deadline(
    players, traveller, django_capture_on_commit_callbacks
):
    """A 10-hour turn from 20:00 ends at 06:00, inside quiet hours 22:00-08:00: both reminders
    (01:00 and 05:00) would fall in them; the player is reminded before they begin."""
    traveller.move_to(datetime(2026, 11, 2, 20, 0, tzinfo=UTC))
    for user in players:
        quiet(user, time(22, 0), time(8, 0))
    game = start(
        players, turn_limit=timedelta(hours=10), capture=django_capture_on_commit_callbacks
    )
    player = mover(game).user
    assert len(to(player, "Your turn")) == 1  # at 20:00, before the quiet hours
    mail.outbox.clear()
    sent_at = []
    moment = datetime(2026, 11, 2, 20, 0, tzinfo=UTC)
    while moment < datetime(2026, 11, 3, 6, 0, tzinfo=UTC):
        traveller.move_to(moment)
        before = len(to(player, "Reminder"))
        sweep()
        sent_at += [moment] * (len(to(player, "Reminder")) - before)
        moment += timedelta(minutes=15)
    assert len(sent_at) == 1, "one reminder, before the quiet hours begin"
    assert all(time(20, 0) <= t.time() < time(22, 0) for t in sent_at)
    assert len(to(player)) == len(sent_at)  # nothing else, and nothing at night


# -- 3. Game start ------------------------------------------------------------------------------


def test_every_player_is_told_the_game_started(players, django_capture_on_commit_callbacks):
    game = start(players, turn_limit=timedelta(hours=6), capture=django_capture_on_commit_callbacks)
    first = mover(game)
    for user in players:
        [message] = to(user)
        assert "Rule set: Saboteur." in message.body
        assert "of 3" in message.body and "You sit at seat" in message.body
        assert "Time per turn: 6 hours." in message.body
        if user == first.user:
            assert message.subject == "Your turn in Deep mine"
            assert "The game Deep mine has started." in message.body
        else:
            assert message.subject == "Deep mine has started"
            assert f"{first.user.display_name} moves first" in message.body


def test_the_first_player_is_emailed_even_when_they_were_on_the_lobby_page(
    players, traveller, django_capture_on_commit_callbacks
):
    game = lobby(players)
    for user in players:  # everyone waits on the lobby page (which polls)
        seat_seen(game=game, user=user)
    traveller.shift(timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        game = game_start(game_id=game.pk, user=players[0])
    first = mover(game)
    assert len(to(first.user, "Your turn")) == 1


def test_no_turn_email_to_a_player_on_the_running_games_page(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    traveller.shift(timedelta(minutes=2))
    following = sorted(game.seats.select_related("user"), key=lambda s: s.position)
    nxt = following[(mover(game).position + 1) % 3]
    Seat.objects.filter(pk=nxt.pk).update(last_seen_at=traveller_now())
    game.refresh_from_db()
    mail.outbox.clear()
    play(game, django_capture_on_commit_callbacks)
    assert to(nxt.user, "Your turn") == []


# -- 4. Pause, resume, extend, abort ------------------------------------------------------------


def test_a_reminder_due_during_a_pause_is_sent_after_the_resume(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(
        players, turn_limit=timedelta(hours=10), capture=django_capture_on_commit_callbacks
    )
    player = mover(game).user
    traveller.move_to(START + timedelta(hours=4))
    tables.game_pause(game_id=game.pk)
    traveller.move_to(START + timedelta(hours=5))  # the half-time reminder falls due
    sweep()
    assert to(player, "Reminder") == []
    traveller.move_to(START + timedelta(hours=8))
    with django_capture_on_commit_callbacks(execute=True):
        game = tables.game_resume(game_id=game.pk)
    assert game.deadline == START + timedelta(hours=14)
    traveller.move_to(START + timedelta(hours=8, minutes=59))
    sweep()
    assert to(player, "Reminder") == []  # not early
    traveller.move_to(START + timedelta(hours=9))  # 5 hours (half the limit) before 14:00
    sweep()
    assert len(to(player, "Reminder")) == 1
    traveller.move_to(START + timedelta(hours=13))
    sweep()
    assert len(to(player, "Reminder")) == 2


def test_an_extension_moves_the_reminders_with_the_deadline(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(days=2), capture=django_capture_on_commit_callbacks)
    player = mover(game).user
    traveller.move_to(START + timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        game = tables.game_extend(game_id=game.pk, hours=24)
    assert game.deadline == START + timedelta(hours=72)
    traveller.move_to(START + timedelta(hours=44))  # where the 90 % reminder used to be
    sweep()
    reminders = to(player, "Reminder")
    assert len(reminders) == 0
    traveller.move_to(START + timedelta(hours=48))  # half the limit before the new deadline
    sweep()
    assert len(to(player, "Reminder")) == 1
    traveller.move_to(START + timedelta(hours=67, minutes=12))  # 10 % of 48 h before it
    sweep()
    [_, last] = to(player, "Reminder")
    assert "Nov. 5, 2026, 10 a.m. (UTC)" in last.body  # the new deadline
    assert "4\xa0hours, 48\xa0minutes" in last.body


def test_abort_tells_every_player_why_and_the_page_and_dashboard_keep_it(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        tables.game_abort(game_id=game.pk, reason="Abusive chat from a player.")
    for user in players:
        [message] = to(user)
        assert message.subject == "Deep mine was stopped by the moderators"
        assert "Abusive chat from a player." in message.body
    assert not Notice.objects.filter(game=game, status="pending").exists()
    client = Client()
    client.force_login(players[1])
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "The moderators stopped this game: Abusive chat from a player." in page
    assert "Waiting for" not in page
    dashboard = client.get(reverse("home")).content.decode()
    assert reverse("game", args=[game.pk]) in dashboard


# -- 8. Nobody times out untold -----------------------------------------------------------------


def test_a_player_whose_time_ran_out_is_told_what_the_site_did(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(hours=1), capture=django_capture_on_commit_callbacks)
    late = mover(game)
    mail.outbox.clear()
    traveller.shift(timedelta(hours=1, minutes=1))
    sweep()
    [message] = to(late.user, "time ran out")
    assert message.subject == "Your time ran out in Deep mine"
    assert "passed for you, discarding one card at random" in message.body
    assert "Open the game to play your next turn yourself." in message.body
    assert f"/games/{game.pk}/" in message.body


def test_a_digest_user_gets_turn_emails_for_a_game_shorter_than_a_day(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.email_digest = True
        user.save()
    short = start(
        players, turn_limit=timedelta(hours=1), capture=django_capture_on_commit_callbacks
    )
    long = start(players, turn_limit=timedelta(days=2), capture=django_capture_on_commit_callbacks)
    assert Notice.objects.get(game=short, kind="turn").status == "sent"
    assert not Notice.objects.filter(game=long, kind="turn").exists()
    # The morning digest lists only the game it serves.
    Game.objects.filter(pk=short.pk).update(deadline=START + timedelta(days=5))
    traveller.move_to(datetime(2026, 11, 3, 8, 1, tzinfo=UTC))
    sweep()
    for digest in Notice.objects.filter(kind="digest"):
        assert short.pk not in digest.data["games"]


def test_absent_seat_emails_have_their_own_preference_and_unsubscribe_link(players, traveller):
    game = start(players)
    sweep()
    ann, bob, cid = players
    bob.email_absent = False
    bob.save()
    mail.outbox.clear()
    schedule.notice_absent(game=game, absent=game.seats.get(user=cid), now=traveller_now())
    sweep()
    [message] = to(ann, "absent")
    assert "/unsubscribe/" in message.extra_headers["List-Unsubscribe"]
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert to(bob) == []
    assert Notice.objects.get(kind="absent", user=bob).reason == "opted out"
    link = message.extra_headers["List-Unsubscribe"].strip("<>")
    Client().post(link.split("8000", 1)[1], {"List-Unsubscribe": "One-Click"})
    ann.refresh_from_db()
    assert ann.email_absent is False and ann.email_turns is True


# -- 9. Email details ---------------------------------------------------------------------------


def test_language_and_deadline_follow_the_recipient(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.time_zone, user.language = "Europe/Prague", "cs"
        user.save()
    start(players, capture=django_capture_on_commit_callbacks)
    message = mail.outbox[0]
    assert message.extra_headers["Content-Language"] == "cs"
    assert '<html lang="cs">' in message.alternatives[0].content
    for user in players:
        user.language = "en"
        user.save()
    mail.outbox.clear()
    game = Game.objects.get()
    play(game, django_capture_on_commit_callbacks)
    [message] = [m for m in mail.outbox if "Your turn" in m.subject]
    assert message.extra_headers["Content-Language"] == "en"
    assert '<html lang="en">' in message.alternatives[0].content
    # The deadline: 10:00 UTC tomorrow is 11:00 in Prague.
    assert "Decide by Nov. 3, 2026, 11 a.m. (Europe/Prague)." in message.body


def test_invitations_state_the_rule_set_seats_and_time_limit(
    players, django_capture_on_commit_callbacks
):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=5,
        turn_limit=timedelta(days=1, hours=12),
    )  # fmt: skip
    seat_join(game_id=game.pk, user=players[1])
    with django_capture_on_commit_callbacks(execute=True):
        invitation_send(game_id=game.pk, user=players[0], email="pal@example.com")
    [message] = mail.outbox
    assert "Rule set: Saboteur. Seats: 2 of 5 taken. Time per turn: 1 day 12 hours." in (
        message.body
    )


def test_reminders_of_an_ended_turn_are_cancelled_at_once(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    first = mover(game)
    play(game, django_capture_on_commit_callbacks)
    old = Notice.objects.filter(seat=first, kind="reminder")
    assert old.count() == 2
    assert set(old.values_list("status", "reason")) == {("skipped", "the turn has moved on")}
    assert Notice.objects.filter(kind="reminder", status="pending").count() == 2


# -- 5. A skipped notice's true reason ----------------------------------------------------------


def test_a_notice_to_an_inactive_account_says_so(players, traveller):
    game = start(players)
    first = mover(game)
    type(first.user).objects.filter(pk=first.user.pk).update(is_active=False)
    sweep()
    assert Notice.objects.get(kind="turn").reason == "inactive account"


def test_a_seat_handed_over_while_paused_gets_its_turn_email_on_resume(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    seat = mover(game)
    fay = create_player("fay", password="x")
    tables.game_pause(game_id=game.pk)
    with django_capture_on_commit_callbacks(execute=True):
        tables.seat_replace(game_id=game.pk, position=seat.position, new_user=fay)
    assert to(fay, "Your turn") == []
    traveller.shift(timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        tables.game_resume(game_id=game.pk)
    assert len(to(fay, "Your turn")) == 1
    assert Notice.objects.filter(user=fay, kind="reminder", status="pending").count() == 2


def test_timeout_emails_stop_once_the_seat_is_absent(players, traveller):
    game = start(players, turn_limit=timedelta(hours=1))
    late = mover(game)
    sweep()
    for _ in range(12):  # everyone is away: every turn times out
        traveller.shift(timedelta(hours=1, minutes=1))
        sweep()
    late.refresh_from_db()
    assert late.state == Seat.State.ABSENT and late.timeouts_in_a_row > 3
    timeouts = to(late.user, "time ran out")
    assert len(timeouts) == 3
    assert "three times in a row" in timeouts[-1].body
    assert "Open the game to take your seat back." in timeouts[-1].body
