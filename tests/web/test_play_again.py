"""Play again with this table (issue 37, point 2): a finished game's player makes a new game like
it with one click, the others are invited (an email, and an offer on the finished game's page to
join in one click); a second click gives the same game; nobody else can do it, nor before the end.
"""

from __future__ import annotations

import random

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import translation

from games.models import Game, Invitation
from games.play.errors import ServiceError
from games.play.lobby import game_rematch, practice_create
from games.read.rematch import play_again
from tests.web.ratings_play import play_until, table

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


@pytest.fixture
def finished(people):
    ann, bob, cid, _ = people
    game = table([ann, bob, cid], rounds=1, name="Deep mine", weekends_off=True)
    game = play_until(game, random.Random(7))
    assert game.status == Game.Status.FINISHED
    return game


def test_a_player_plays_again_with_the_table_once_however_often_they_click(people, finished):
    ann, bob, cid, dan = people
    again = game_rematch(game_id=finished.pk, user=bob)
    assert again.status == Game.Status.LOBBY and again.rematch_of == finished
    assert again.creator == bob and list(again.seats.values_list("user", flat=True)) == [bob.pk]
    assert again.visibility == Game.Visibility.INVITE
    for field in ("name", "ruleset", "rounds", "turn_limit", "weekends_off", "clock_zone"):
        assert getattr(again, field) == getattr(finished, field), field
    assert again.max_seats == 3
    invited = set(Invitation.objects.filter(game=again).values_list("email", flat=True))
    assert invited == {ann.email, cid.email}  # not the one who asked, not dan
    assert game_rematch(game_id=finished.pk, user=bob) == again  # a double click
    assert Game.objects.filter(rematch_of=finished).count() == 1
    assert Invitation.objects.filter(game=again).count() == 2


def test_the_others_are_offered_the_new_game_and_join_it_in_one_click(
    people, finished, client, django_capture_on_commit_callbacks
):
    ann, bob, cid, dan = people
    with django_capture_on_commit_callbacks(execute=True):
        again = game_rematch(game_id=finished.pk, user=bob)
    assert play_again(finished, bob).offer is None  # their own
    assert play_again(finished, ann).offer == again
    assert play_again(finished, dan) is None  # not of this table
    client.force_login(ann)
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    assert "Bob wants to play again with this table." in page
    accept = reverse("invite_accept", args=[again.invite_token])
    assert f'action="{accept}"' in page
    assert client.post(accept).status_code == 302
    assert again.seats.filter(user=ann).exists()
    assert play_again(finished, ann).offer is None  # joined: the offer goes
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    assert "wants to play again" not in page and 'data-testid="rematch"' in page


def test_only_a_player_of_a_finished_game_plays_it_again(people, finished, client):
    ann, bob, cid, dan = people
    with pytest.raises(ServiceError):
        game_rematch(game_id=finished.pk, user=dan)
    running = table([ann, bob, cid], rounds=1, name="Running")
    with pytest.raises(ServiceError, match="not over"):
        game_rematch(game_id=running.pk, user=ann)
    # Through the page: a forged post by someone not at the table changes nothing.
    client.force_login(dan)
    before = Game.objects.count()
    client.post(reverse("rematch", args=[finished.pk]))
    assert Game.objects.count() == before
    client.force_login(cid)
    response = client.post(reverse("rematch", args=[finished.pk]))
    again = Game.objects.get(rematch_of=finished, creator=cid)
    assert response.url == reverse("game", args=[again.pk])


def test_a_practice_game_is_played_again_against_as_many_bots_at_once(people):
    ann = people[0]
    practice = practice_create(creator=ann, ruleset="base", bots=3, rounds=1)
    from games.play.moves import bot_move, move_submit
    from tests.web.ratings_play import bot_choice

    rng = random.Random(3)
    for _ in range(3000):
        practice.refresh_from_db()
        if practice.status != Game.Status.RUNNING:
            break
        seat, move = bot_choice(practice, rng)
        if seat.user is None:
            bot_move(game_id=practice.pk, version=practice.version)
        else:
            move_submit(game_id=practice.pk, user=ann, move=move, expected_version=practice.version)
    assert practice.status == Game.Status.FINISHED
    mail.outbox.clear()
    again = game_rematch(game_id=practice.pk, user=ann)
    assert again.practice and again.status == Game.Status.RUNNING
    assert again.seats.filter(bot__isnull=False).count() == 3
    assert not Invitation.objects.filter(game=again).exists()


@pytest.mark.parametrize(
    ("language", "name"),
    [("cs", "Cvičná hra 1 s boty"), ("uk", "Тренування 1 проти ботів")],
)
def test_a_practice_game_is_named_in_its_players_language(make_user, language, name):
    """The name is stored (lists, emails): said in the player's language wherever the game is
    made, not in the language active there (issue 50, 6)."""
    ann = make_user("ann")
    ann.language = language
    ann.save(update_fields=["language"])
    with translation.override("en"):
        game = practice_create(creator=ann, ruleset="base", bots=2, rounds=1)
    assert Game.objects.get(pk=game.pk).name == name
