"""Defects a review found where today's features meet: quiet hours with reminders, stand-in bots
with emails, "since your last move" and replaced seats."""

from datetime import UTC, datetime, time, timedelta

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from games.models import Game, Move, Notice, Seat
from games.moderation import players as moderation_players
from games.moderation import tables
from games.play.moves import bot_move
from games.read.history import since_version
from games.tasks import sweep
from tests.players import create_player
from tests.tasks.test_notices_over_days import (  # noqa: F401 - fixtures
    eager_celery,
    mover,
    players,
    quiet,
    start,
    to,
    traveller,
)
from tests.web.test_bots import stand_in_game, time_out_until_absent

pytestmark = pytest.mark.django_db


def test_no_reminder_goes_out_with_the_turn_email_held_by_quiet_hours(
    players,  # noqa: F811 - the imported fixture
    traveller,  # noqa: F811
    django_capture_on_commit_callbacks,
):
    """A 12-hour turn from 23:00 (quiet 22:00-07:00): the turn email waits until 07:00; the first
    reminder, moved to 07:00 too, would be a second email at the same moment."""
    traveller.move_to(datetime(2026, 11, 2, 23, 0, tzinfo=UTC))
    for user in players:
        quiet(user, time(22, 0), time(7, 0))
    game = start(
        players, turn_limit=timedelta(hours=12), capture=django_capture_on_commit_callbacks
    )
    player = mover(game).user
    mail.outbox.clear()
    moment = datetime(2026, 11, 2, 23, 0, tzinfo=UTC)
    sent: list[tuple[datetime, str]] = []
    while moment < datetime(2026, 11, 3, 11, 0, tzinfo=UTC):
        traveller.move_to(moment)
        before = len(to(player))
        sweep()
        sent += [(moment, m.subject) for m in to(player)[before:]]
        moment += timedelta(minutes=15)
    at_seven = [subject for when, subject in sent if when.time() == time(7, 0)]
    assert len(at_seven) == 1 and "Your turn" in at_seven[0], sent
    later = [s for w, s in sent if w.time() > time(7, 0)]
    assert any("Reminder" in s for s in later), "still reminded before the deadline"


@pytest.fixture
def make_user():
    return lambda name: create_player(name)


def test_a_stand_in_seat_gets_no_turn_emails_and_its_moves_are_not_the_players(
    make_user,
    traveller,  # noqa: F811 - the imported fixture
):
    game = stand_in_game(make_user)
    seat = time_out_until_absent(game)
    assert seat.stand_in
    game.refresh_from_db()
    # Whatever the turn, no "your turn" or reminder row is pending for the absent player.
    for _ in range(6):
        game.refresh_from_db()
        if game.status != Game.Status.RUNNING:
            break
        if game.to_move == seat.position:
            assert not Notice.objects.filter(
                user=seat.user, kind__in=["turn", "reminder"], status="pending"
            ).exists()
            record = bot_move(game_id=game.pk, version=game.version)
            assert record.automatic, "a stand-in's move is the site's, not the player's"
        else:
            other = game.seats.live().get(position=game.to_move)
            record = bot_move(game_id=game.pk, version=game.version)
            if record is None:
                from games.play.moves import move_submit
                from tests.web.test_bots import my_legal_move

                move_submit(
                    game_id=game.pk,
                    user=other.user,
                    move=my_legal_move(game, other.user),
                    expected_version=game.version,
                )
    seat.refresh_from_db()
    own = list(
        Move.objects.filter(game=game, seat=seat, automatic=False).values_list(
            "sequence", flat=True
        )
    )
    moves = list(
        Move.objects.filter(game=game).values_list(
            "sequence", "events", "automatic", "seat__position"
        )
    )
    assert since_version(seat, moves, visit=False) == max([seat.seen_version, *own, 0])


def test_a_replaced_stand_in_seat_does_not_break_the_old_players_page(make_user):
    game = stand_in_game(make_user)
    seat = time_out_until_absent(game)
    newcomer = make_user("fay")
    tables.seat_replace(game_id=game.pk, position=seat.position, new_user=newcomer, reason="Gone")
    seat.refresh_from_db()
    assert seat.state == Seat.State.REPLACED and not seat.stand_in
    client = Client(raise_request_exception=False)
    client.force_login(seat.user)
    response = client.get(reverse("game", args=[game.pk]))
    assert response.status_code < 500
    seat.refresh_from_db()
    assert seat.state == Seat.State.REPLACED


@pytest.mark.parametrize("name", ["Bot 2 (a bot)", "played by a bot for Ann", "БОТ", "bot"])
def test_a_display_name_cannot_pose_as_a_bot(name):
    from django.core.exceptions import ValidationError

    from accounts.services import profile_update

    user = create_player("ann")
    with pytest.raises(ValidationError):
        profile_update(user=user, display_name=name)
    profile_update(user=user, display_name="Robot Bottom")  # the word alone is kept


def test_a_practice_game_emails_nobody(make_user, django_capture_on_commit_callbacks):
    from games.play.lobby import practice_create

    user = make_user("ann")
    with django_capture_on_commit_callbacks(execute=True):
        game = practice_create(creator=user, ruleset="base", bots=2)
    assert not Notice.objects.filter(game=game).exists()


def test_a_banned_player_in_a_stand_in_game_is_played_by_a_bot(make_user):
    game = stand_in_game(make_user)
    mod = create_player("mod", is_staff=True)
    victim = game.seats.live().get(position=(game.to_move + 1) % 3)
    moderation_players.user_ban(user=victim.user, by=mod, reason="abuse")
    victim.refresh_from_db()
    assert victim.state == Seat.State.ABSENT and victim.stand_in


def test_the_replay_keeps_the_names_of_players_who_were_replaced(make_user):
    from games.engine import State
    from games.play.moves import move_submit

    game = stand_in_game(make_user)  # ann, bob, cid
    mover_seat = game.seats.select_related("user").get(position=game.to_move)
    hand = State.from_json(game.snapshot).hands[game.to_move]
    move_submit(
        game_id=game.pk,
        user=mover_seat.user,
        move={"move": "pass", "discard": [hand[0]]},
        expected_version=game.version,
    )
    old_name = mover_seat.user.display_name
    tables.seat_replace(
        game_id=game.pk, position=mover_seat.position, new_user=make_user("fay"), reason="Gone"
    )
    other = game.seats.live().exclude(position=mover_seat.position).first().user
    client = Client()
    client.force_login(other)
    body = client.get(reverse("game_replay", args=[game.pk]) + "?step=1").content.decode()
    assert f"{old_name} passed and discarded 1 card face down." in body
    assert "Fay passed" not in body


def test_timeout_emails_in_a_stand_in_game_say_a_bot_plays(
    make_user,
    eager_celery,  # noqa: F811 - the imported fixture
    django_capture_on_commit_callbacks,
):
    from games.outbox.sending import send

    game = stand_in_game(make_user)
    with django_capture_on_commit_callbacks(execute=True):
        seat = time_out_until_absent(game)
    for notice in Notice.objects.filter(user=seat.user, kind="timeout", status="pending"):
        send(notice.pk, now=notice.due_at)
    bodies = [m.body for m in mail.outbox if m.to == [seat.user.email] and "ran out" in m.subject]
    assert bodies, "the absent player was told"
    assert all("let a bot make your move" in body for body in bodies)
    assert "passed for you" not in "".join(bodies)
    assert any("a bot plays for you" in body for body in bodies)
