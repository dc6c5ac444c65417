"""Invitation emails and game creation are capped, so that the site cannot be used to flood
inboxes (README, "Rate limits"). Counted in the database; the clock is moved with time-machine."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.urls import reverse

from games.models import Game, Invitation, Notice
from games.play import lobby as play_lobby
from games.play.errors import ServiceError
from games.play.lobby import game_create, invitation_send
from tests.players import create_player

pytestmark = pytest.mark.django_db
START = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def lobby(user, name="Lobby"):
    return game_create(creator=user, name=name, ruleset="base", max_seats=10)


def test_game_creation_is_capped_per_user_per_hour(client, clock):
    ann, bob = create_player("ann"), create_player("bob")
    for i in range(play_lobby.MAX_GAMES_PER_HOUR):
        lobby(ann, f"Game {i}")
    with pytest.raises(ServiceError) as refusal:
        lobby(ann)
    assert refusal.value.code == "rate-limited"
    # Through the page: a clear message, nothing created.
    client.force_login(ann)
    data = {"name": "One more", "ruleset": "base", "max_seats": 4, "visibility": "open"}
    response = client.post(reverse("game_create"), {**data, "turn_limit": "86400"})
    assert response.status_code == 422
    assert "games in the last hour" in response.content.decode()
    assert Game.objects.filter(creator=ann).count() == play_lobby.MAX_GAMES_PER_HOUR
    lobby(bob)  # others are not affected
    clock.shift(timedelta(hours=1, seconds=1))
    lobby(ann)


def test_invitations_are_capped_per_sender_per_hour_across_games(clock):
    ann = create_player("ann")
    games = [lobby(ann, f"Game {i}") for i in range(3)]
    limit = play_lobby.MAX_INVITATIONS_PER_SENDER_PER_HOUR
    for i in range(limit):
        invitation_send(game_id=games[i % 3].pk, user=ann, email=f"friend{i}@example.com")
    with pytest.raises(ServiceError) as refusal:
        invitation_send(game_id=games[0].pk, user=ann, email="one-more@example.com")
    assert refusal.value.code == "rate-limited"
    assert Invitation.objects.count() == limit
    assert Notice.objects.filter(kind="invitation").count() == limit
    clock.shift(timedelta(hours=1, seconds=1))
    invitation_send(game_id=games[0].pk, user=ann, email="one-more@example.com")


def test_invitations_to_one_address_are_capped_per_day_across_senders(client, clock):
    senders = [create_player(n) for n in ("ann", "bob", "cid", "dan")]
    games = [lobby(user, f"Game of {user.username}") for user in senders]
    limit = play_lobby.MAX_INVITATIONS_PER_ADDRESS_PER_DAY
    for game, user in list(zip(games, senders, strict=True))[:limit]:
        invitation_send(game_id=game.pk, user=user, email="Target@Example.com")
    client.force_login(senders[limit])
    response = client.post(
        reverse("invitation_create", args=[games[limit].pk]),
        {"email": "target@example.com"},
        follow=True,
    )
    assert "enough invitations today" in response.content.decode()
    assert Invitation.objects.filter(email="target@example.com").count() == limit
    clock.shift(timedelta(days=1, seconds=1))
    invitation_send(game_id=games[limit].pk, user=senders[limit], email="target@example.com")
