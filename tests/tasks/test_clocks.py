"""Clocks for slow games (issue 26), with time travel through the minute sweep: a time bank,
weekends off, a daily deadline, reminders as the player likes them, vacations, and one clock
shown the same on the page, the dashboard, emails and the admin.

Celery runs eagerly here, with the scaffolding of test_notices_over_days.py (its fixtures too:
imported fixtures look unused or redefined to ruff, hence its noqa).
"""
# ruff: noqa: F401, F811

from datetime import UTC, datetime, time, timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Game, Notice, Seat, TableEvent, Vacation
from games.moderation import tables
from games.play import vacations
from games.play.errors import ServiceError
from games.read import clock as clocks
from games.read.vacations import balance, vacation_days_used
from games.tasks import sweep
from tests.players import create_player
from tests.tasks.test_notices_over_days import (  # the slow-play scaffolding, fixtures too
    START,
    eager_celery,  # autouse
    mover,
    play,
    players,
    start,
    to,
    traveller,
)

pytestmark = pytest.mark.django_db
HOUR, DAY = timedelta(hours=1), timedelta(days=1)


def said(text: str) -> str:
    """Durations in words hold no-break spaces (Django's timesince)."""
    return text.replace("\xa0", " ")


def sweep_at(traveller, moment):
    traveller.move_to(moment)
    return sweep()


# -- 2. The time bank ---------------------------------------------------------------------------


def test_the_bank_is_spent_past_the_turns_limit_before_the_timeout(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(
        players, capture=django_capture_on_commit_callbacks, turn_limit=HOUR, bank=2 * HOUR
    )
    assert set(game.seats.values_list("bank_left", flat=True)) == {2 * HOUR}
    first = mover(game)
    assert game.deadline == START + 3 * HOUR  # the hour, then the bank
    assert said(clocks.clock_text(game)) == "Time left: 1 hour, then 2 hours from the time bank"
    # 90 minutes in: half an hour of the bank is spent when the player moves.
    traveller.move_to(START + 90 * timedelta(minutes=1))
    assert said(clocks.clock_text(game)) == "Time left: 1 hour, 30 minutes, from the time bank"
    play(game, django_capture_on_commit_callbacks)
    first.refresh_from_db()
    assert first.bank_left == 90 * timedelta(minutes=1)
    # The next player's own bank is whole: their timeout comes after 1 + 2 hours.
    second = mover(game)
    decided_at = timezone.now()
    assert sweep_at(traveller, decided_at + 3 * HOUR - timedelta(minutes=1))["timeouts"] == 0
    assert sweep_at(traveller, decided_at + 3 * HOUR)["timeouts"] == 1
    second.refresh_from_db()
    assert second.bank_left == timedelta(0)  # a timeout spends the whole bank


def test_the_bank_shows_in_the_turn_email(players, django_capture_on_commit_callbacks):
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=HOUR, bank=DAY)
    [turn] = to(mover(game).user, "Your turn")
    assert "Time left: 1 hour, then 1 day from the time bank" in said(turn.body)
    assert "Each player has a time bank of 1 day" in said(turn.body)
    [started] = [m for m in mail.outbox if "has started" in m.subject][:1]
    assert "Each player has a time bank of 1 day" in said(started.body)


# -- 3. Weekends off ----------------------------------------------------------------------------


def test_weekends_off_stop_the_clock_on_saturday_and_sunday(
    players, traveller, django_capture_on_commit_callbacks
):
    friday = datetime(2026, 11, 6, 20, 0, tzinfo=UTC)
    traveller.move_to(friday)
    game = start(
        players, capture=django_capture_on_commit_callbacks, weekends_off=True, clock_zone="UTC"
    )
    # 4 hours on Friday, 20 on Monday.
    assert game.deadline == datetime(2026, 11, 9, 20, 0, tzinfo=UTC)
    traveller.move_to(datetime(2026, 11, 7, 12, 0, tzinfo=UTC))
    text = clocks.clock_text(game)
    assert said(text) == "Time left: 20 hours (clock stopped for the weekend)"
    traveller.move_to(datetime(2026, 11, 8, 23, 0, tzinfo=UTC))
    assert clocks.clock_text(game) == text  # time left does not shrink at the weekend
    assert sweep_at(traveller, datetime(2026, 11, 9, 19, 59, tzinfo=UTC))["timeouts"] == 0
    assert sweep_at(traveller, datetime(2026, 11, 9, 20, 0, tzinfo=UTC))["timeouts"] == 1


def test_a_pause_over_a_weekend_keeps_the_counted_time(
    players, traveller, django_capture_on_commit_callbacks
):
    traveller.move_to(datetime(2026, 11, 6, 20, 0, tzinfo=UTC))  # Friday
    game = start(players, capture=django_capture_on_commit_callbacks, weekends_off=True)
    tables.game_pause(game_id=game.pk)
    game.refresh_from_db()
    assert game.paused_remaining == DAY
    traveller.move_to(datetime(2026, 11, 7, 9, 0, tzinfo=UTC))  # Saturday
    game = tables.game_resume(game_id=game.pk)
    assert game.deadline == datetime(2026, 11, 10, 0, 0, tzinfo=UTC)  # Monday's 24 hours
    game = tables.game_extend(game_id=game.pk, hours=2)
    assert game.deadline == datetime(2026, 11, 10, 2, 0, tzinfo=UTC)


# -- 4. A daily deadline ------------------------------------------------------------------------


def test_a_daily_deadline_in_the_games_zone(players, traveller, django_capture_on_commit_callbacks):
    traveller.move_to(datetime(2026, 11, 2, 16, 0, tzinfo=UTC))  # 17:00 in Prague
    game = start(
        players, capture=django_capture_on_commit_callbacks, daily_at=time(20, 0),
        clock_zone="Europe/Prague",
    )  # fmt: skip
    assert game.deadline == datetime(2026, 11, 2, 19, 0, tzinfo=UTC)  # today, 20:00 there
    # A move at 19:30 there: today's 20:00 leaves less than an hour, so tomorrow's.
    traveller.move_to(datetime(2026, 11, 2, 18, 30, tzinfo=UTC))
    play(game, django_capture_on_commit_callbacks)
    game.refresh_from_db()
    assert game.deadline == datetime(2026, 11, 3, 19, 0, tzinfo=UTC)
    assert sweep_at(traveller, datetime(2026, 11, 3, 18, 59, tzinfo=UTC))["timeouts"] == 0
    assert sweep_at(traveller, datetime(2026, 11, 3, 19, 0, tzinfo=UTC))["timeouts"] == 1


def test_a_daily_deadlines_reminders_share_the_decisions_own_length(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks, daily_at=time(20, 0))
    assert game.deadline == datetime(2026, 11, 2, 20, 0, tzinfo=UTC)  # 10 hours from 10:00
    due = sorted(Notice.objects.filter(kind="reminder").values_list("due_at", flat=True))
    assert due == [
        datetime(2026, 11, 2, 15, 0, tzinfo=UTC),
        datetime(2026, 11, 2, 19, 0, tzinfo=UTC),
    ]


def test_the_creation_form_sets_the_clock(players):
    client = Client()
    client.force_login(players[0])
    response = client.post(
        reverse("game_create"),
        {
            "name": "Slow mine", "ruleset": "base", "max_seats": 4, "rounds": "3",
            "visibility": "open", "turn_limit": str(2 * 86400), "bank": str(86400),
            "weekends_off": "on", "daily_at": "21:30", "clock_zone": "Europe/Prague",
        },
    )  # fmt: skip
    assert response.status_code == 302
    game = Game.objects.get(name="Slow mine")
    assert (game.bank, game.weekends_off, game.daily_at, game.clock_zone) == (
        DAY,
        True,
        time(21, 30),
        "Europe/Prague",
    )
    assert game.vacations_pause is False  # an unticked box
    page = client.get(reverse("game", args=[game.pk])).content.decode()
    assert "Every turn ends at 21:30 (Europe/Prague)" in page
    assert "The clocks stop on Saturdays and Sundays (Europe/Prague)." in page
    # Bad input changes nothing.
    response = client.post(
        reverse("game_create"),
        {"name": "Bad", "ruleset": "base", "max_seats": 4, "turn_limit": "86400",
         "visibility": "open", "bank": "999", "clock_zone": "Mars/Olympus"},
    )  # fmt: skip
    assert response.status_code == 422
    assert not Game.objects.filter(name="Bad").exists()


# -- 5. Reminders as I like them ----------------------------------------------------------------


def test_reminders_n_hours_before_the_deadline(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.reminder_hours = "8,4,1"
        user.save()
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=2 * DAY)
    player = mover(game).user
    due = sorted(Notice.objects.filter(kind="reminder").values_list("due_at", flat=True))
    deadline = START + 2 * DAY
    assert due == [deadline - 8 * HOUR, deadline - 4 * HOUR, deadline - HOUR]
    mail.outbox.clear()
    moment = START
    while moment < deadline:
        sweep_at(traveller, moment)
        moment += timedelta(minutes=30)
    assert len(to(player, "Reminder")) == 3  # none lost, none twice


def test_reminders_off_and_the_sites_schedule(
    players, traveller, django_capture_on_commit_callbacks
):
    ann, bob, cid = players
    ann.email_reminders = False
    ann.save()
    bob.reminder_hours = ""
    bob.save()
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=DAY)
    seat = mover(game)
    marks = set(Notice.objects.filter(kind="reminder").values_list("data__mark", flat=True))
    assert marks == (set() if seat.user == ann else {"50", "90"})


def test_changing_the_reminders_in_the_profile_moves_them(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=2 * DAY)
    player = mover(game).user
    client = Client()
    client.force_login(player)
    form = {
        "display_name": player.display_name, "time_zone": "UTC", "email_turns": "on",
        "email_reminders": "on", "reminder_hours": "6, 2",
    }  # fmt: skip
    assert client.post(reverse("profile"), form).status_code == 302
    pending = Notice.objects.filter(kind="reminder", status="pending")
    assert sorted(pending.values_list("data__mark", flat=True)) == ["h2", "h6"]
    assert Notice.objects.filter(kind="reminder", status="skipped").count() == 2
    for bad in ("1, 2, 3, 4", "eight", "0", "500"):
        response = client.post(reverse("profile"), {**form, "reminder_hours": bad})
        assert response.status_code == 422
    player.refresh_from_db()
    assert player.reminder_hours == "6,2"


def test_quiet_hours_still_apply_to_reminders_by_hours(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.reminder_hours = "4"
        user.quiet_from, user.quiet_until = time(2, 0), time(9, 0)
        user.save()
    # A 20-hour turn from 10:00 ends at 06:00: "4 hours before" is 02:00, in quiet hours.
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=20 * HOUR)
    [due] = Notice.objects.filter(kind="reminder").values_list("due_at", flat=True)
    assert due == datetime(2026, 11, 3, 1, 30, tzinfo=UTC)  # half an hour before they begin
    assert game.deadline == datetime(2026, 11, 3, 6, 0, tzinfo=UTC)


# -- 1. Vacations -------------------------------------------------------------------------------


def test_a_vacation_stops_the_clock_and_the_emails_and_the_table_is_told(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=DAY)
    seat = mover(game)
    away = seat.user
    others = [u for u in players if u != away]
    mail.outbox.clear()
    traveller.move_to(START + 2 * HOUR)
    with django_capture_on_commit_callbacks(execute=True):
        vacations.vacation_declare(user=away, days=3)
    game.refresh_from_db()
    assert game.deadline == START + DAY + 3 * DAY  # the 22 hours left wait for the return
    assert balance(away.pk) == 11
    for user in others:
        [told] = to(user, "vacation")
        assert f"{away.display_name} is on vacation from" in told.body
        assert "A player's vacation stops their clock in this game." in told.body
    assert TableEvent.objects.filter(game=game, kind="vacation").count() == 1
    viewer = Client()
    viewer.force_login(others[0])
    assert (
        f"{away.display_name} is on vacation from"
        in viewer.get(reverse("game", args=[game.pk])).content.decode()
    )
    # Time left stands still through the vacation, and the sweep does not time them out.
    traveller.move_to(START + 2 * DAY)
    assert clocks.time_left(game, timezone.now()) == 22 * HOUR
    assert "(clock stopped: the player is on vacation)" in clocks.clock_text(game)
    for user in players:  # the dashboards and the games to watch say so too
        client = Client()
        client.force_login(user)
        assert "(clock stopped: the player is on vacation)" in client.get("/").content.decode()
    watcher = Client()
    watcher.force_login(create_player("dan", password="x"))
    lobby = watcher.get(reverse("lobby")).content.decode()
    assert "(clock stopped: the player is on vacation)" in lobby
    assert sweep_at(traveller, START + DAY + HOUR)["timeouts"] == 0
    assert to(away) == []  # their emails stop
    # A day before the end they are told.
    sweep_at(traveller, START + 2 * HOUR + 2 * DAY)
    [ending] = to(away)
    assert ending.subject == "Your vacation ends tomorrow"
    # Back on time: the reminders of their turn come, then the timeout.
    sweep_at(traveller, START + 2 * HOUR + 3 * DAY + 11 * HOUR)
    assert len(to(away, "Reminder")) == 1
    assert sweep_at(traveller, game.deadline)["timeouts"] == 1


def test_back_early_keeps_the_time_left_and_releases_held_emails(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=DAY)
    away = mover(game).user
    others = [u for u in players if u != away]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        vacations.vacation_declare(user=away, days=5)
    # Someone mentions them: held until they are back.
    from games.play.chat import chat_post

    with django_capture_on_commit_callbacks(execute=True):
        chat_post(game_id=game.pk, user=others[0], text=f"@{away.display_name} enjoy")
    assert to(away) == []
    traveller.move_to(START + DAY)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        vacations.vacation_end(user=away)
    game.refresh_from_db()
    assert game.deadline == START + 2 * DAY  # the whole day is still theirs
    assert len(to(away, "mentioned you")) == 1
    for user in others:
        assert len(to(user, "is back from vacation")) == 1
    assert balance(away.pk) == 13  # one day taken, four given back
    assert Notice.objects.get(kind="vacation-end").status == "skipped"
    with pytest.raises(ServiceError):
        vacations.vacation_end(user=away)


def test_a_vacation_planned_ahead_moves_the_deadline_it_overlaps(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=2 * DAY)
    away = mover(game).user
    away.time_zone = "UTC"
    away.save()
    vacations.vacation_declare(user=away, days=2, starts_on=(START + DAY).date())
    game.refresh_from_db()
    assert game.deadline == START + 4 * DAY
    # Called off before it began: the deadline is back, no day of the balance used.
    vacations.vacation_end(user=away)
    game.refresh_from_db()
    assert game.deadline == START + 2 * DAY
    assert balance(away.pk) == 14
    assert vacation_days_used(away.pk) == 0


def test_the_balance_and_bad_input(players):
    ann = players[0]
    vacations.vacation_declare(user=ann, days=10)
    with pytest.raises(ServiceError, match="vacation planned already"):
        vacations.vacation_declare(user=ann, days=1)
    vacations.vacation_end(user=ann)
    with pytest.raises(ServiceError, match="day left|days left"):
        vacations.vacation_declare(user=ann, days=15)
    with pytest.raises(ServiceError):
        vacations.vacation_declare(user=ann, days=0)
    with pytest.raises(ServiceError):
        vacations.vacation_declare(user=ann, days=2, starts_on=(START - DAY).date())
    assert Vacation.objects.count() == 1


def test_vacation_days_used_are_public(players, traveller):
    ann = players[0]
    vacations.vacation_declare(user=ann, days=3)
    traveller.move_to(START + 2 * DAY)
    assert vacation_days_used(ann.pk) == 2.0
    traveller.move_to(START + 100 * DAY)
    assert vacation_days_used(ann.pk) == 0  # outside the last 90 days
    traveller.move_to(START + 2 * DAY)
    client = Client()
    client.force_login(players[1])
    page = client.get(reverse("player", args=[ann.display_name])).content.decode()
    assert "Vacation days used" in page
    assert 'data-testid="vacation-days">2<' in page


def test_a_stand_in_bot_plays_during_a_vacation_where_the_table_chose_it(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(
        players,
        capture=django_capture_on_commit_callbacks,
        vacations_pause=False,
        bot_stand_ins=True,
    )
    seat = mover(game)
    deadline = game.deadline
    with django_capture_on_commit_callbacks(execute=True):
        vacations.vacation_declare(user=seat.user, days=2)
    seat.refresh_from_db()
    assert seat.stand_in and seat.state == Seat.State.ACTIVE
    game.refresh_from_db()
    assert game.deadline == deadline  # no clock stops here
    sweep_at(traveller, START + 2 * timedelta(minutes=1))
    game.refresh_from_db()
    assert game.version == 1 and game.moves.get().stand_in  # the bot played for them
    # A look at the game is no return; the vacation's end is.
    client = Client()
    client.force_login(seat.user)
    client.get(reverse("game", args=[game.pk]))
    seat.refresh_from_db()
    assert seat.stand_in
    sweep_at(traveller, START + 2 * DAY)
    seat.refresh_from_db()
    assert not seat.stand_in
    assert Vacation.objects.get().stage == "over"


def test_a_vacation_that_begins_later_brings_its_stand_in_then(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(
        players,
        capture=django_capture_on_commit_callbacks,
        vacations_pause=False,
        bot_stand_ins=True,
    )
    seat = game.seats.exclude(position=game.to_move).first()
    vacations.vacation_declare(user=seat.user, days=1, starts_on=(START + DAY).date())
    seat.refresh_from_db()
    assert not seat.stand_in
    sweep_at(traveller, START + DAY)
    seat.refresh_from_db()
    assert seat.stand_in
    # Open pages are told (a new revision) when the vacation ends too: its badge and the clock
    # change (the vacations' part of the sweep alone: no move in between).
    game.refresh_from_db()
    before = game.revision
    traveller.move_to(START + 3 * DAY)
    assert vacations.vacations_due(timezone.now()) == 1
    game.refresh_from_db()
    assert game.revision > before


def test_the_vacation_page(players):
    client = Client(enforce_csrf_checks=False)
    ann = players[0]
    client.force_login(ann)
    page = client.get(reverse("vacation"))
    assert "You have 14 vacation days left of 14 a year." in page.content.decode()
    assert client.get(reverse("vacation_end")).status_code == 405
    response = client.post(reverse("vacation"), {"days": "20"})
    assert response.status_code == 422
    assert "vacation days left this year" in response.content.decode()
    assert client.post(reverse("vacation"), {"days": "3"}).status_code == 302
    page = client.get(reverse("vacation")).content.decode()
    assert "You are on vacation until" in page and "11 vacation days left" in page
    assert client.post(reverse("vacation_end")).status_code == 302
    assert not Vacation.objects.filter(ended_at__isnull=True).exists()
    assert "vacation-link" in client.get(reverse("profile")).content.decode()


# -- 6. One clock, shown the same everywhere ----------------------------------------------------


def test_the_clock_reads_the_same_on_the_page_the_dashboard_emails_and_the_admin(
    players, traveller, django_capture_on_commit_callbacks
):
    traveller.move_to(datetime(2026, 11, 6, 20, 0, tzinfo=UTC))  # Friday
    game = start(
        players, capture=django_capture_on_commit_callbacks, turn_limit=HOUR * 6, bank=DAY,
        weekends_off=True, clock_zone="UTC",
    )  # fmt: skip
    seat = mover(game)
    traveller.move_to(datetime(2026, 11, 7, 12, 0, tzinfo=UTC))  # Saturday
    text = clocks.clock_text(game)
    assert said(text) == (
        "Time left: 2 hours, then 1 day from the time bank (clock stopped for the weekend)"
    )
    client = Client()
    client.force_login(seat.user)
    assert text in client.get(reverse("game", args=[game.pk])).content.decode()
    assert text in client.get(reverse("home")).content.decode()
    root = create_player("root", password="x")
    root.is_staff = root.is_superuser = True
    root.save()
    admin = Client()
    admin.force_login(root)
    # The admin's label says "time left": its value is the rest of the sentence (issue 36.8).
    rest = text.removeprefix("Time left: ")
    assert rest != text
    assert rest in admin.get(reverse("admin:games_game_changelist")).content.decode()
    assert rest in admin.get(reverse("admin:games_game_change", args=[game.pk])).content.decode()
    mail.outbox.clear()
    Notice.objects.filter(kind="turn").update(status="pending", due_at=timezone.now())
    sweep()
    [turn] = to(seat.user, "Your turn")
    assert text in turn.body


def test_each_day_begun_counts_against_the_balance_after_a_grace_hour(players, traveller):
    ann = players[0]
    vacations.vacation_declare(user=ann, days=3)
    traveller.move_to(START + 50 * timedelta(minutes=1))
    vacations.vacation_end(user=ann)  # declared by mistake: no day spent
    assert balance(ann.pk) == 14
    traveller.move_to(START + HOUR)
    vacations.vacation_declare(user=ann, days=3)
    traveller.move_to(START + HOUR + DAY + 2 * HOUR)
    vacations.vacation_end(user=ann)  # a second day begun
    assert balance(ann.pk) == 12


def test_the_daily_digest_shows_the_clock_with_the_bank(
    players, traveller, django_capture_on_commit_callbacks
):
    for user in players:
        user.email_digest = True
        user.save()
    game = start(players, capture=django_capture_on_commit_callbacks, turn_limit=DAY, bank=DAY)
    sweep()
    [digest] = to(mover(game).user, "It is your turn in 1 game")
    assert "Time left: 1 day, then 1 day from the time bank" in said(digest.body)
