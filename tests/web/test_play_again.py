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

from games.models import Game, Invitation, Notice
from games.play.errors import ServiceError
from games.play.lobby import game_rematch, game_start, practice_create, seat_join
from games.read.rematch import FULL, IN, JOIN, STARTED, PlayAgain, play_again
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
    assert play_again(finished, bob) == PlayAgain(IN, "Bob", again.pk)  # their own: a link
    assert play_again(finished, ann) == PlayAgain(JOIN, "Bob")
    assert play_again(finished, dan) is None  # not of this table
    client.force_login(ann)
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    assert "Bob wants to play again with this table." in page
    join = reverse("rematch", args=[finished.pk])  # pressed by a second player: joins
    assert f'action="{join}"' in page
    assert client.post(join).url == reverse("game", args=[again.pk])
    assert again.seats.filter(user=ann).exists()
    assert Game.objects.filter(rematch_of=finished).count() == 1
    assert play_again(finished, ann) == PlayAgain(IN, "Bob", again.pk)  # joined: the offer goes
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    assert "wants to play again" not in page and 'data-testid="rematch"' not in page
    assert f'href="{reverse("game", args=[again.pk])}" data-testid="rematch-link"' in page


def test_the_new_game_starts_by_itself_once_the_whole_table_has_joined(
    people, finished, client, django_capture_on_commit_callbacks
):
    ann, bob, cid, _ = people
    again = game_rematch(game_id=finished.pk, user=bob)
    assert game_rematch(game_id=finished.pk, user=ann) == again
    assert Game.objects.get(pk=again.pk).status == Game.Status.LOBBY  # Cid is not in yet
    client.force_login(cid)  # the last one, through the invitation's link
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("invite_accept", args=[again.invite_token]))
    again.refresh_from_db()
    assert again.status == Game.Status.RUNNING and again.snapshot is not None
    positions = again.seats.values_list("position", flat=True)
    assert sorted(positions) == [0, 1, 2]
    assert play_again(finished, cid) == PlayAgain(IN, "Bob", again.pk)
    # Everyone is told it started, as when its creator starts a game (schedule.notices_for_start).
    told = Notice.objects.filter(game=again, kind__in=[Notice.Kind.STARTED, Notice.Kind.TURN])
    assert set(told.values_list("seat__user", flat=True)) == {ann.pk, bob.pk, cid.pk}


@pytest.fixture
def four_finished(people):
    game = table(people, rounds=1, name="Four")
    game = play_until(game, random.Random(5))
    assert game.status == Game.Status.FINISHED
    return game


def test_the_creator_may_start_before_everyone_joined_and_the_late_are_told(
    people, four_finished, client
):
    ann, bob, cid, dan = people
    again = game_rematch(game_id=four_finished.pk, user=bob)
    game_rematch(game_id=four_finished.pk, user=ann)
    game_rematch(game_id=four_finished.pk, user=cid)
    assert Game.objects.get(pk=again.pk).status == Game.Status.LOBBY  # Dan is not in
    game_start(game_id=again.pk, user=bob)
    before = Game.objects.count()
    with pytest.raises(ServiceError, match="started without you") as refused:
        game_rematch(game_id=four_finished.pk, user=dan)
    assert refused.value.code == "rematch-closed" and Game.objects.count() == before
    assert not again.seats.filter(user=dan).exists()
    assert play_again(four_finished, dan) == PlayAgain(STARTED, "Bob")
    client.force_login(dan)
    response = client.post(reverse("rematch", args=[four_finished.pk]), follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == reverse("game", args=[four_finished.pk])
    assert page.count("The new game with this table has started without you.") == 2  # and why


def test_a_full_new_game_is_said_so_to_whoever_comes_late(people, four_finished, make_user):
    ann, bob, cid, dan = people
    again = game_rematch(game_id=four_finished.pk, user=bob)
    seat_join(game_id=again.pk, user=make_user("eve"))  # invited by Bob from the new lobby
    game_rematch(game_id=four_finished.pk, user=ann)
    game_rematch(game_id=four_finished.pk, user=cid)
    with pytest.raises(ServiceError, match="is full"):
        game_rematch(game_id=four_finished.pk, user=dan)
    assert play_again(four_finished, dan) == PlayAgain(FULL, "Bob")
    assert Game.objects.get(pk=again.pk).status == Game.Status.LOBBY  # Dan never came


def test_an_open_page_of_the_finished_game_is_offered_the_new_game_by_its_poll(
    people, finished, client
):
    """The page of a finished game follows it while something may be offered (its poll, which
    the live stream triggers): making the new game grows the finished game's revision, and the
    page's poll is answered with the offer (issue 50, 4)."""
    ann, bob, _, _ = people
    client.force_login(ann)
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    poll = reverse("game_poll", args=[finished.pk])
    shown = Game.objects.get(pk=finished.pk).revision
    assert f'hx-get="{poll}?v={shown}' in page  # the page listens
    assert client.get(poll, {"v": shown}, headers={"HX-Request": "true"}).status_code == 204
    again = game_rematch(game_id=finished.pk, user=bob)
    assert Game.objects.get(pk=finished.pk).revision == shown + 1
    answer = client.get(poll, {"v": shown}, headers={"HX-Request": "true"}).content.decode()
    assert "Bob wants to play again with this table." in answer
    game_rematch(game_id=finished.pk, user=ann)  # joined: nothing more to follow
    page = client.get(reverse("game", args=[finished.pk])).content.decode()
    assert f'hx-get="{poll}' not in page
    assert f'href="{reverse("game", args=[again.pk])}"' in page


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
    offered = play_again(practice, ann)
    assert offered == PlayAgain(others=False) and not offered.listens  # nobody else to make it
    again = game_rematch(game_id=practice.pk, user=ann)
    assert again.practice and again.status == Game.Status.RUNNING
    assert again.seats.filter(bot__isnull=False).count() == 3
    assert not Invitation.objects.filter(game=again).exists()
    assert game_rematch(game_id=practice.pk, user=ann) == again
    assert play_again(practice, ann) == PlayAgain(IN, "Ann", again.pk)


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
