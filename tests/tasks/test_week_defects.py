"""Defects found over a simulated week of play (issue 22), each driven through the real minute
sweep with time travel, on PostgreSQL. Point 1 on SQLite is in test_sweep_on_sqlite.py.

Celery runs eagerly here (the on-commit hook really sends), as in test_notices_over_days.py.
"""

from __future__ import annotations

import html
import logging
import re
from datetime import UTC, datetime, time, timedelta

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.services import profile_update
from games import engine
from games.models import Game, Notice, Seat
from games.moderation import players as moderation_players
from games.moderation import tables
from games.outbox import digests, sending
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from games.play.vacations import vacation_declare
from games.read.card_names import card_name
from games.tasks import send_notice, send_notices, sweep
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


def start(players, turn_limit=timedelta(days=1), capture=None, **options):
    game = game_create(
        creator=players[0], name="Deep mine", ruleset="base", max_seats=len(players),
        turn_limit=turn_limit, **options,
    )  # fmt: skip
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    if capture is None:
        return game_start(game_id=game.pk, user=players[0])
    with capture(execute=True):
        return game_start(game_id=game.pk, user=players[0])


def mover(game) -> Seat:
    game.refresh_from_db()
    return game.seats.select_related("user").get(position=game.to_move)


def play(game, capture=None):
    """The player to move passes with their first card."""
    seat = mover(game)
    state = engine.State.from_json(game.snapshot)
    move = {"move": "pass", "discard": [state.hands[state.to_move][0]]}
    if capture is None:
        move_submit(game_id=game.pk, user=seat.user, expected_version=game.version, move=move)
    else:
        with capture(execute=True):
            move_submit(game_id=game.pk, user=seat.user, expected_version=game.version, move=move)
    return seat


def quiet(user, start_at, end_at, zone="UTC"):
    user.time_zone = zone
    user.quiet_from, user.quiet_until = start_at, end_at
    user.save()


def to(user, subject_part=""):
    return [m for m in mail.outbox if m.to == [user.email] and subject_part in m.subject]


def now():
    return timezone.now()


# -- 1. The digest never breaks the sweep ------------------------------------------------------


def test_a_failing_part_of_the_sweep_is_logged_and_the_others_still_run(
    players, traveller, monkeypatch, caplog
):
    for user in players:
        user.email_digest = True
        user.save()
    game = start(players, turn_limit=timedelta(hours=2))
    late = mover(game)
    traveller.move_to(START + timedelta(hours=1))  # the half-time reminder is due

    def broken(now, **kwargs):
        raise RuntimeError("the digest is broken")

    monkeypatch.setattr(digests, "digests_due", broken)
    with caplog.at_level(logging.ERROR):
        report = sweep()
    assert report["failed"] == ["digests"]
    assert "the sweep's digests failed" in caplog.text
    assert len(to(late.user, "Reminder")) == 1  # sent all the same
    traveller.move_to(START + timedelta(hours=2, minutes=1))
    report = sweep()
    assert report["timeouts"] == 1  # and the deadline is enforced
    assert len(to(late.user, "time ran out")) == 1


# -- 2. An absent or banned seat does not stall the table --------------------------------------


def by_position(game) -> list[Seat]:
    return sorted(game.seats.select_related("user"), key=lambda s: s.position)


def test_a_banned_players_seat_is_decided_within_a_minute_on_every_lap(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    banned = mover(game)
    mail.outbox.clear()
    before = Notice.objects.order_by("pk").last().pk
    with django_capture_on_commit_callbacks(execute=True):
        moderation_players.user_ban(user=banned.user, by=None, reason="Cheating")
    others = [u for u in players if u != banned.user]
    for user in others:  # the table is told what happens to the seat now
        [absent] = to(user, "absent")
        assert "the site makes a safe move for their seat as soon as it is their turn" in (
            absent.body
        )
    for lap in range(3):
        traveller.shift(timedelta(minutes=1))
        report = sweep()
        assert report["timeouts"] == 1, f"lap {lap}: the table waits for the banned seat"
        game.refresh_from_db()
        while mover(game) != banned:  # the others play at once
            play(game, django_capture_on_commit_callbacks)
    # Nothing is written for the banned account: no turn email, reminder or timeout email.
    assert not Notice.objects.filter(user=banned.user, status="pending").exists()
    assert not Notice.objects.filter(user=banned.user, pk__gt=before).exists()
    assert to(banned.user) == []


def test_an_absent_seat_is_decided_at_once_until_its_player_comes_back(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(hours=2), capture=django_capture_on_commit_callbacks)
    late = mover(game)
    waited = []
    while Seat.objects.get(pk=late.pk).state != Seat.State.ABSENT:  # three timeouts in a row
        traveller.shift(timedelta(hours=2, minutes=1))
        sweep()
        while mover(game) != late:
            play(game, django_capture_on_commit_callbacks)
    others = [u for u in players if u != late.user]
    for user in others:
        [absent] = to(user, "absent")
        assert "let their time run out three times in a row" in absent.body
        assert "the site makes a safe move for them as soon as it is their turn" in absent.body
    [last] = to(late.user, "time ran out")[-1:]
    assert "Open the game to take your seat back." in last.body
    for _lap in range(2):
        begun = mover(game).pk == late.pk and game.decision_since
        traveller.shift(timedelta(minutes=1))
        assert sweep()["timeouts"] == 1
        waited.append(timezone.now() - begun)
        while mover(game) != late:
            play(game, django_capture_on_commit_callbacks)
    assert max(waited) <= timedelta(minutes=1)
    # No "your turn" email or reminder for the absent player's decisions.
    absent_since = Notice.objects.filter(kind="absent").earliest("created_at").created_at
    assert not Notice.objects.filter(
        user=late.user, kind__in=["turn", "reminder"], created_at__gt=absent_since
    ).exists()
    # Back: opening the game takes the seat back, with the turn's whole time and its reminders.
    client = Client()
    client.force_login(late.user)
    assert client.get(reverse("game", args=[game.pk])).status_code == 200
    game.refresh_from_db()
    assert Seat.objects.get(pk=late.pk).state == Seat.State.ACTIVE
    assert game.deadline == game.decision_since + timedelta(hours=2)
    traveller.shift(timedelta(minutes=5))
    assert sweep()["timeouts"] == 0
    assert Notice.objects.filter(user=late.user, kind="reminder", status="pending").count() == 2


# -- 3. Changing quiet hours moves what they hold ----------------------------------------------


def test_a_new_time_zone_releases_the_turn_email_quiet_hours_held_past_the_deadline(
    players, traveller, django_capture_on_commit_callbacks
):
    """At 23:00 UTC a two-hour turn begins for a player whose quiet hours are 22:00-08:00: the
    email waits until 08:00. They move to New York (18:10 there): it goes at once. The turn
    keeps the deadline it had (an hour after their quiet hours, issue 47): a new clock never
    shortens a turn under way."""
    traveller.move_to(datetime(2026, 11, 2, 23, 0, tzinfo=UTC))
    for user in players:
        quiet(user, time(22, 0), time(8, 0))
    game = start(players, turn_limit=timedelta(hours=2), capture=django_capture_on_commit_callbacks)
    player = mover(game).user
    assert to(player) == []
    traveller.move_to(datetime(2026, 11, 2, 23, 10, tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=True):
        profile_update(user=player, time_zone="America/New_York")
    traveller.shift(timedelta(minutes=1))
    sweep()
    [turn] = to(player, "Your turn")
    assert "Decide by Nov. 3, 2026, 4 a.m. (America/New_York)." in turn.body


def test_new_quiet_hours_place_the_reminders_again(
    players, traveller, django_capture_on_commit_callbacks
):
    """A ten-hour turn from 12:00 (deadline 22:00): reminders at 17:00 and 21:00. At 13:00 the
    player takes quiet hours from 20:00: the second reminder comes before them, not never."""
    traveller.move_to(datetime(2026, 11, 2, 12, 0, tzinfo=UTC))
    game = start(
        players, turn_limit=timedelta(hours=10), capture=django_capture_on_commit_callbacks
    )
    player = mover(game).user
    traveller.move_to(datetime(2026, 11, 2, 13, 0, tzinfo=UTC))
    with django_capture_on_commit_callbacks(execute=True):
        profile_update(user=player, quiet_from=time(20, 0), quiet_until=time(8, 0))
    sent_at = []
    moment = datetime(2026, 11, 2, 13, 0, tzinfo=UTC)
    while moment <= datetime(2026, 11, 2, 22, 0, tzinfo=UTC):
        traveller.move_to(moment)
        before = len(to(player, "Reminder"))
        sweep()
        sent_at += [moment.time()] * (len(to(player, "Reminder")) - before)
        moment += timedelta(minutes=15)
    assert sent_at == [time(17, 0), time(19, 30)]


# -- 4. Reminders in order ----------------------------------------------------------------------


def reminders_sent(player, traveller, begin, end, step=timedelta(minutes=5)) -> list:
    """Sweep every ``step`` from ``begin`` to ``end``; the times reminders went out."""
    sent_at, moment = [], begin
    while moment <= end:
        traveller.move_to(moment)
        before = len(to(player, "Reminder"))
        sweep()
        sent_at += [moment.time()] * (len(to(player, "Reminder")) - before)
        moment += step
    return sent_at


@pytest.mark.parametrize(
    ("quiet_from", "expected"),
    [
        # The 90 % reminder (00:00) falls in quiet hours that end after the deadline (01:00): it
        # moves to half an hour before they begin, 19:50, before the half-time one (20:00).
        (time(20, 20), [time(19, 50)]),
        # Moved to 20:30, half an hour after the half-time one: one reminder is enough.
        (time(21, 0), [time(20, 30)]),
        # Quiet hours from 23:00: the 90 % reminder at 22:30, well after the other.
        (time(23, 0), [time(20, 0), time(22, 30)]),
    ],
)
def test_a_reminder_moved_before_quiet_hours_never_comes_before_or_hard_after_the_earlier_one(
    players, traveller, django_capture_on_commit_callbacks, quiet_from, expected
):
    begin = datetime(2026, 11, 2, 15, 0, tzinfo=UTC)  # a ten-hour turn: deadline 01:00
    traveller.move_to(begin)
    for user in players:
        quiet(user, quiet_from, time(8, 0))
    game = start(
        players, turn_limit=timedelta(hours=10), capture=django_capture_on_commit_callbacks
    )
    player = mover(game).user
    assert reminders_sent(player, traveller, begin, begin + timedelta(hours=10)) == expected


def test_a_short_time_limits_reminders_may_be_closer_than_an_hour(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, turn_limit=timedelta(hours=1), capture=django_capture_on_commit_callbacks)
    player = mover(game).user
    sent = reminders_sent(
        player, traveller, START, START + timedelta(hours=1), timedelta(minutes=1)
    )
    assert sent == [time(10, 30), time(10, 54)]


# -- 5. What emails say --------------------------------------------------------------------------


def test_pause_resume_and_extend_tell_the_seated_players_the_deadline_in_their_zone(
    players, traveller
):
    ann, bob, cid = players
    for user, zone in ((bob, "Europe/Prague"), (cid, "America/New_York")):
        user.time_zone = zone
        user.save()
    game = start(players)  # a day per turn from Monday 10:00 UTC
    sweep()
    deciding = mover(game).user
    mail.outbox.clear()
    traveller.move_to(START + timedelta(hours=2))
    tables.game_pause(game_id=game.pk)
    sweep()
    for user in players:
        [paused] = to(user, "paused")
        assert paused.subject == "Deep mine is paused by the moderators"
        assert "the clock is stopped" in paused.body
    assert "Your turn keeps the time it had left: 22\xa0hours." in to(deciding, "paused")[0].body
    traveller.move_to(START + timedelta(hours=5))
    tables.game_resume(game_id=game.pk)  # 22 hours left: until Tuesday 13:00 UTC
    sweep()
    local = {ann: "1 p.m. (UTC)", bob: "2 p.m. (Europe/Prague)", cid: "8 a.m. (America/New_York)"}
    for user in players:
        [resumed] = to(user, "resumed")
        assert "The moderators resumed Deep mine." in resumed.body
        assert f"Nov. 3, 2026, {local[user]}" in resumed.body
    assert "It is your turn: decide by Nov. 3, 2026" in to(deciding, "resumed")[0].body
    traveller.move_to(START + timedelta(hours=6))
    tables.game_extend(game_id=game.pk, hours=5)  # until 18:00 UTC
    sweep()
    local = {ann: "6 p.m. (UTC)", bob: "7 p.m. (Europe/Prague)", cid: "1 p.m. (America/New_York)"}
    for user in players:
        [extended] = to(user, "More time")
        assert f"Nov. 3, 2026, {local[user]}" in extended.body
    assert "The moderators gave you 5 more hours in Deep mine." in to(deciding, "More time")[0].body


def test_timeout_emails_say_what_the_site_did_and_quiet_hours_release_them_as_one(
    players, traveller, django_capture_on_commit_callbacks
):
    traveller.move_to(datetime(2026, 11, 2, 21, 0, tzinfo=UTC))
    game = start(
        players, turn_limit=timedelta(hours=1), capture=django_capture_on_commit_callbacks,
        vacations_pause=False,
    )  # fmt: skip
    late = mover(game)
    # The first time runs out in the evening: the email names the card the site discarded.
    traveller.shift(timedelta(hours=1, minutes=1))
    sweep()
    [first] = to(late.user, "time ran out")
    move = game.moves.get(automatic=True)
    card = card_name(move.payload["discard"][0])
    assert f"passed for you, discarding one card at random.\nYou discarded {card}." in first.body
    # Then a day's vacation, which this game's clock does not stop: two more run out in the
    # night, their emails held until the player is back (22:01, in the quiet hours they set
    # meanwhile), then until 08:00. (Turns that begin in quiet hours no longer run out in them:
    # each leaves an hour after them, issue 47.)
    vacation_declare(user=late.user, days=1)
    for _ in range(2):
        while mover(game) != late:
            play(game, django_capture_on_commit_callbacks)
        traveller.shift(timedelta(hours=1, minutes=1))
        sweep()
    assert len(to(late.user, "time ran out")) == 1
    quiet(late.user, time(22, 0), time(8, 0))
    traveller.move_to(datetime(2026, 11, 3, 22, 30, tzinfo=UTC))
    sweep()
    assert len(to(late.user, "time ran out")) == 1
    traveller.move_to(datetime(2026, 11, 4, 8, 0, tzinfo=UTC))
    sweep()
    [_first, night] = to(late.user, "time ran out")
    assert "Your time in Deep mine ran out 2 times, so the site decided for you:" in night.body
    discards = [
        card_name(m.payload["discard"][0])
        for m in game.moves.filter(automatic=True, seat=late).order_by("sequence")[1:3]
    ]
    for card in discards:
        assert f"The site passed for you, discarding one card at random. You discarded {card}." in (
            night.body
        )
    assert "three times in a row" in night.body  # the last one made them absent


def test_a_newcomer_gets_the_briefing_with_their_first_turn_and_no_last_move_is_claimed(
    players, traveller, django_capture_on_commit_callbacks
):
    game = start(players, capture=django_capture_on_commit_callbacks)
    traveller.shift(timedelta(minutes=5))
    first = play(game, django_capture_on_commit_callbacks)
    # The second player has never moved: their email counts from the game's start.
    [second] = to(mover(game).user, "Your turn")
    assert "What happened since the game began:" in second.body
    assert "since your last move" not in second.body.lower()
    while mover(game) != first:
        traveller.shift(timedelta(minutes=5))
        play(game, django_capture_on_commit_callbacks)
    [again] = to(first.user, "Your turn")[-1:]
    assert "What happened since your last move:" in again.body  # they have one now
    fay = create_player("fay", password="x")
    mail.outbox.clear()
    traveller.shift(timedelta(minutes=5))
    tables.seat_replace(game_id=game.pk, position=first.position, new_user=fay, reason="Away")
    sweep()
    [email] = to(fay)  # one email: the briefing and the turn together
    assert email.subject == "You have a seat in Deep mine, and it is your turn"
    body = email.body
    briefing = body.index(f"you take over from {first.user.display_name}.")
    assert briefing < body.index("It is your turn in Deep mine.")
    assert "What happened since this seat's last move:" in body
    assert "your last move" not in body.lower()
    alt = re.search(r'<img src="cid:maze-[^"]*" alt="([^"]*)"', email.alternatives[0].content)
    assert "since this seat's last move" in html.unescape(alt.group(1)).lower()


def test_a_reminder_states_the_deadline_once_and_the_digest_each_games_deadline(
    players, traveller, django_capture_on_commit_callbacks
):
    ann, bob, cid = players
    game = start(players, capture=django_capture_on_commit_callbacks)  # until Tuesday 10:00
    player = mover(game).user
    traveller.move_to(START + timedelta(hours=12))
    sweep()
    [reminder] = to(player, "Reminder")
    assert reminder.body.count("Nov. 3, 2026, 10 a.m.") == 1
    assert "Decide by Nov. 3, 2026, 10 a.m. (UTC)." in reminder.body
    assert "runs out in 12\xa0hours." in reminder.body
    # Two two-day games await the digest player; the digest gives each one's deadline.
    digester = create_player("dan", password="x", email_digest=True, time_zone="Europe/Prague")
    for name in ("Gold rush", "Deep mine 2"):
        other = game_create(
            creator=digester, name=name, ruleset="base", max_seats=3,
            turn_limit=timedelta(days=2),
        )  # fmt: skip
        for user in (ann, bob):
            seat_join(game_id=other.pk, user=user)
        other = game_start(game_id=other.pk, user=digester)
        Game.objects.filter(pk=other.pk).update(to_move=other.seats.get(user=digester).position)
    traveller.move_to(datetime(2026, 11, 3, 7, 1, tzinfo=UTC))  # 08:01 in Prague
    sweep()
    [digest] = to(digester, "It is your turn in 2 games")
    assert "Gold rush, decide by Nov. 4, 2026, 11 p.m. (Europe/Prague)" in digest.body
    assert "Deep mine 2, decide by Nov. 4, 2026, 11 p.m. (Europe/Prague)" in digest.body


# -- 6. The sweep's counts ------------------------------------------------------------------------


def test_the_sweep_counts_only_the_emails_this_process_sent(players, traveller):
    start(players)
    due = sending.due_notice_ids(now())
    assert len(due) == 3  # the first turn and two "has started"
    # A worker sends two of them while the sweep holds its list of due rows.
    for pk in due[:2]:
        send_notice(pk)
    assert sending.send_each(due) == 1
    assert send_notices(due) == 0  # the hand-over task: nothing left for it
    assert len(mail.outbox) == 3


# -- 7. The demo seed ---------------------------------------------------------------------------


# Was: the first player gets their "your turn" email like everyone else. That email was out of
# date before anyone could answer it (the seed plays six moves after it): issue 47 made the demo's
# setup email nobody, and its player to move get the one current email (test_demo_seed.py).
