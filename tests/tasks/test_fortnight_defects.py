"""Defects of a simulated fortnight and a hostile probe (issue 36), each with the test that
failed before its fix. Celery runs eagerly, with the slow-play scaffolding of
test_notices_over_days.py (its fixtures too, hence the noqa)."""
# ruff: noqa: F401, F811

import importlib
import zoneinfo
from datetime import UTC, datetime, time, timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import ChatMessage, Notice, Seat
from games.moderation import players as moderation
from games.moderation import tables
from games.outbox import schedule
from games.play.chat import chat_post
from games.play.vacations import vacation_declare
from games.read import durations
from games.tasks import sweep
from tests.players import create_player
from tests.tasks.test_notices_over_days import (  # the slow-play scaffolding, fixtures too
    START,
    eager_celery,  # autouse
    mover,
    play,
    players,
    quiet,
    start,
    to,
    traveller,
)

pytestmark = pytest.mark.django_db
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


# -- 1. A replaced seat keeps its time bank ---------------------------------------------------


def test_a_banned_players_seat_keeps_its_bank_for_whoever_takes_it_over(
    players, traveller, django_capture_on_commit_callbacks
):
    """A ban during the player's turn brought the deadline to now and their stand-in's move
    spent the whole bank: the newcomer started with none, though the briefing promised one."""
    game = start(
        players, capture=django_capture_on_commit_callbacks, turn_limit=6 * HOUR, bank=DAY,
        bot_stand_ins=True,
    )  # fmt: skip
    banned = mover(game)
    traveller.shift(HOUR)
    with django_capture_on_commit_callbacks(execute=True):
        moderation.user_ban(user=banned.user, by=None, reason="Cheating")
    game.refresh_from_db()
    assert game.to_move != banned.position  # the stand-in played the turn
    assert Seat.objects.get(pk=banned.pk).bank_left == DAY
    fay = create_player("fay")
    with django_capture_on_commit_callbacks(execute=True):
        seat = tables.seat_replace(game_id=game.pk, position=banned.position, new_user=fay)
    assert seat.bank_left == DAY


# -- 12. A decision's notices keyed by the game's version ---------------------------------------


def test_two_decisions_of_a_seat_beginning_at_the_same_instant_each_get_their_email(
    players, traveller, django_capture_on_commit_callbacks
):
    """With the clock standing still (as in a transaction where the site decides for absent
    seats, or a frozen test clock), a full round of passes brings the first player's turn back
    at the very instant of their first one: its "your turn" row had the first one's key and
    was dropped as a duplicate."""
    game = start(players, capture=django_capture_on_commit_callbacks)
    first = mover(game)
    for _ in players:
        play(game, django_capture_on_commit_callbacks)
    assert mover(game).pk == first.pk
    assert len(to(first.user, "Your turn")) == 2
    turns = Notice.objects.filter(seat=first, kind=Notice.Kind.TURN)
    assert sorted(turns.values_list("status", flat=True)) == ["sent", "sent"]


def test_the_deploy_rekeys_the_pending_notices_of_decisions_under_way(
    players, traveller, django_capture_on_commit_callbacks
):
    """Rows written before the new key (the decision's start alone) would look like another
    decision's to the sender: migration 0007 gives the pending ones of current decisions the
    new key, so their reminders still go."""
    from django.apps import apps

    rekey = importlib.import_module("games.migrations.0007_decision_keys").rekey
    game = start(players, capture=django_capture_on_commit_callbacks)
    reminders = Notice.objects.filter(game=game, kind=Notice.Kind.REMINDER, status="pending")
    assert reminders.exists()
    new_keys = set(reminders.values_list("key", flat=True))
    old = game.decision_since.isoformat()
    for notice in reminders:  # as the code before wrote them
        notice.data["since"] = old
        notice.key = notice.key.rsplit(":v", 1)[0] + ":" + old
        notice.save()
    rekey(apps, None)
    assert set(reminders.values_list("key", flat=True)) == new_keys
    assert {r.data["since"] for r in reminders.all()} == {schedule.decision_key(game)}
    traveller.shift(timedelta(hours=13))  # half the day's turn: the first reminder
    sweep()
    assert len(to(mover(game).user, "Reminder")) == 1


# -- 2. "N hours before" reminders come in time, or the site's own ------------------------------


def reminders_of(seat) -> dict:
    rows = Notice.objects.filter(seat=seat, kind=Notice.Kind.REMINDER, status="pending")
    return {n.data["mark"]: n.due_at for n in rows}


def test_hours_longer_than_the_turn_give_the_sites_reminders(
    players, traveller, django_capture_on_commit_callbacks
):
    """ "8, 2" in a one-hour game: both were due before the turn began, so the player only
    heard "time ran out". Now the site's reminders at half and 90 % of the hour come."""
    for user in players:
        user.reminder_hours = "8,2"
        user.save()
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=HOUR)
    seat = mover(game)
    assert reminders_of(seat) == {"50": START + HOUR / 2, "90": START + HOUR * 0.9}
    mail.outbox.clear()
    for minutes in range(0, 60, 5):
        traveller.move_to(START + timedelta(minutes=minutes))
        sweep()
    assert len(to(seat.user, "Reminder")) == 2


def test_hours_that_fit_are_kept_and_the_others_left_out(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.reminder_hours = "8,2"
        user.save()
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=4 * HOUR)
    assert reminders_of(mover(game)) == {"h2": START + 2 * HOUR}


def test_a_reminder_that_falls_in_quiet_hours_comes_before_them(
    players, traveller, django_capture_on_commit_callbacks
):
    """Quiet hours 22-07 and "8, 2" with the deadline at 10:00: 8 hours before (02:00) moved
    to the end of the quiet hours, 07:00, with 3 hours left, and swallowed the 2-hour one.
    Now it comes at 21:30, with more than its 8 hours left, and the 2-hour one at 08:00."""
    for user in players:
        user.reminder_hours = "8,2"
        quiet(user, time(22, 0), time(7, 0))
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=DAY)
    deadline = START + DAY  # Tuesday 10:00
    assert reminders_of(mover(game)) == {
        "h8": datetime(2026, 11, 2, 21, 30, tzinfo=UTC),
        "h2": deadline - 2 * HOUR,
    }


# -- 3. Chat: a rate limit, and mention emails merged -------------------------------------------


def test_chat_is_limited_per_player_with_when_to_try_again(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    ann = players[0]
    for n in range(10):
        chat_post(game_id=game.pk, user=ann, text=f"dig {n}")
    client = Client()
    client.force_login(ann)
    url = reverse("chat", args=[game.pk])
    response = client.post(url, {"text": "@Bob dig!"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    page = response.content.decode()
    assert "You can send your next message in 60 seconds." in page
    assert 'data-testid="chat-error"' in page
    assert ChatMessage.objects.filter(game=game).count() == 10  # nothing kept
    response = client.post(url, {"text": "@Bob dig!"})  # a plain form: the whole page
    assert response.status_code == 429 and b"chat-error" in response.content
    traveller.shift(timedelta(seconds=61))
    assert client.post(url, {"text": "@Bob dig!"}, HTTP_HX_REQUEST="true").status_code == 200


def test_mentions_of_an_hour_come_in_one_email(
    players, traveller, django_capture_on_commit_callbacks
):
    """40 messages naming Bob in 8 seconds gave Bob 41 emails in 70 seconds. Now the first is
    emailed at once and the rest of the hour in one email that lists them."""
    game = start(players, capture=django_capture_on_commit_callbacks)
    ann, bob, cid = players
    mail.outbox.clear()
    for n, author in enumerate([ann, cid] * 5):
        with django_capture_on_commit_callbacks(execute=True):
            chat_post(game_id=game.pk, user=author, text=f"@Bob dig {n}")
        traveller.shift(timedelta(seconds=1))
    sweep()
    [first] = to(bob, "mention")
    assert first.subject == "Ann mentioned you in Deep mine"
    traveller.move_to(START + HOUR + timedelta(seconds=1))
    sweep()
    first_again, merged = to(bob, "mention")
    assert merged.subject == "9 mentions of you in Deep mine"
    body = merged.body
    assert all(f"@Bob dig {n}" in body for n in range(1, 10)) and "@Bob dig 0" not in body
    sweep()
    assert len(to(bob, "mention")) == 2
    assert not Notice.objects.filter(kind="mention", status="pending").exists()


# -- 6. A vacation is announced once to each player ---------------------------------------------


def test_a_vacation_is_one_email_to_each_player_listing_the_games_they_share(
    players, traveller, django_capture_on_commit_callbacks
):
    """A player who shared three games with Bob got three identical "Bob will be on vacation"
    emails in a minute."""
    ann, bob, cid = players
    games = [start(players, capture=django_capture_on_commit_callbacks) for _ in range(3)]
    for n, game in enumerate(games):
        game.name = f"Mine {n}"
        game.save(update_fields=["name"])
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        vacation_declare(user=bob, days=2)
    sweep()
    for reader in (ann, cid):
        [told] = to(reader, "will be on vacation")
        for game in games:
            assert game.name in told.body
            assert f"/games/{game.pk}/" in told.body
    assert to(bob, "will be on vacation") == []


# -- 7. Times and zones said alike everywhere ---------------------------------------------------


def test_a_moment_is_said_in_the_readers_zone_named_alike_in_pages_emails_and_pushes(
    players, traveller, django_capture_on_commit_callbacks
):
    """Turn emails said "(Europe/Prague)", the moderators' and vacation emails "(CET)", pushes
    "(EET)", and the vacation page its end in UTC without a zone."""
    ann, bob, cid = players
    for user in players:
        user.time_zone = "Europe/Prague"
        user.save()
    game = start(players, capture=django_capture_on_commit_callbacks)
    deciding = mover(game).user
    # The one who goes on vacation is not the deciding player (whose turn would go to a stand-in).
    away_user, reader = (user for user in players if user != deciding)
    with django_capture_on_commit_callbacks(execute=True):
        tables.game_extend(game_id=game.pk, hours=2)
        vacation_declare(user=away_user, days=2)
    sweep()
    deadline = "Nov. 3, 2026, 1 p.m. (Europe/Prague)"  # Tuesday 12:00 UTC, 13:00 in Prague
    [turn] = to(deciding, "Your turn")
    assert "Decide by " in turn.body
    [more] = to(deciding, "More time")
    assert deadline in more.body
    [away] = to(reader, "will be on vacation")
    assert "Nov. 4, 2026, 11 a.m. (Europe/Prague)" in away.body  # two days from 10:00 UTC
    for message in mail.outbox:
        assert "(CET)" not in message.body and "(UTC)" not in message.body
    game.refresh_from_db()
    with timezone.override(zoneinfo.ZoneInfo("Europe/Prague")):
        assert durations.moment(game.deadline) == deadline
    client = Client()
    client.force_login(away_user)
    page = client.get(reverse("vacation")).content.decode()
    assert "Nov. 4, 2026, 11 a.m. (Europe/Prague)" in page


# -- 8. A seat handed to a bot is told to the table ---------------------------------------------


def test_a_seat_handed_to_a_bot_is_told_to_the_rest_of_the_table(
    players, traveller, django_capture_on_commit_callbacks
):
    ann, bob, cid = players
    game = start(players, capture=django_capture_on_commit_callbacks)
    seat = game.seats.get(user=bob)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        tables.seat_replace(game_id=game.pk, position=seat.position, new_user=None)
    sweep()
    for reader in (ann, cid):
        [told] = to(reader, "took over")
        assert told.subject == "Bot 1 (a bot) took over from Bob in Deep mine"
    assert to(bob, "took over") == [] and len(to(bob, "was taken over")) == 1


# -- Found by the production suite: no "your turn" email to a player at the table --------------


def test_a_player_whose_page_is_in_front_of_them_is_not_emailed_their_turn(
    players, traveller, django_capture_on_commit_callbacks
):
    """The page was marked seen only when loaded (and the live refresh never marked it), so a
    player at the table for more than five minutes got "Your turn" by email at every turn. A
    page in front of its player says so when it polls (``here=1``, live.js), once a minute."""
    game = start(players, capture=django_capture_on_commit_callbacks)
    nxt = game.seats.get(position=(game.to_move + 1) % 3)
    client = Client()
    client.force_login(nxt.user)
    poll = reverse("game_poll", args=[game.pk])
    client.get(reverse("game", args=[game.pk]))
    traveller.shift(timedelta(minutes=10))  # the page open, the stream healthy
    assert client.get(poll, {"v": game.revision}).status_code == 204  # a hidden page's poll
    nxt.refresh_from_db()
    assert nxt.last_seen_at == START  # a page not in front of its player is no visit
    assert client.get(poll, {"v": game.revision, "here": "1"}).status_code == 204
    nxt.refresh_from_db()
    assert nxt.last_seen_at == START + timedelta(minutes=10)
    mail.outbox.clear()
    play(game, django_capture_on_commit_callbacks)
    assert to(nxt.user, "Your turn") == []  # they are at the table
    watcher = create_player("dee")
    viewer = Client()
    viewer.force_login(watcher)
    assert viewer.get(poll, {"v": 0, "here": "1"}).status_code == 200  # watchers mark nothing
