"""Friends and challenges (issue 52): following from a player's page (the followed may remove a
follower), the friends page (friends' open tables and games in progress, open games only), and
challenges: friends only, never across a block, one email each, one click to accept, a refusal
or an expiry told to the challenger, the game starting once all have answered."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from accounts import relations
from accounts.players import player_url
from games.models import Challenge, Game, Notice
from games.outbox import sending
from games.play import challenges, lobby
from games.play.errors import ServiceError
from tests.players import create_player

pytestmark = pytest.mark.django_db


def friends_of(user, *others):
    for other in others:
        relations.follow(user, other)
        relations.follow(other, user)


def send(**fields):
    values = {"ruleset": "base", "pace": "2d"}
    values.update(fields)
    return challenges.challenge_send(**values)


def test_following_from_the_player_page_and_removing_a_follower(client):
    ann, bob = create_player("ann"), create_player("bob")
    client.force_login(ann)
    page = client.get(player_url(bob)).content.decode()
    assert reverse("follow", args=[bob.pk]) in page
    assert client.post(reverse("follow", args=[bob.pk])).status_code == 302
    assert relations.follows(ann, bob)
    assert reverse("unfollow", args=[bob.pk]) in client.get(player_url(bob)).content.decode()
    client.force_login(bob)  # Bob removes Ann as a follower
    assert reverse("follower_remove", args=[ann.pk]) in client.get(player_url(ann)).content.decode()
    client.post(reverse("follower_remove", args=[ann.pk]))
    assert not relations.follows(ann, bob)
    relations.block(bob, ann)
    client.force_login(ann)
    client.post(reverse("follow", args=[bob.pk]))  # kept apart: refused
    assert not relations.follows(ann, bob)
    assert client.post(reverse("follow", args=[99999])).status_code == 404
    assert client.get(reverse("follow", args=[bob.pk])).status_code == 405


def test_the_friends_page_shows_friends_open_tables_and_games_only_if_open(client):
    ann, bob, cid, dan = (create_player(n) for n in ("ann", "bob", "cid", "dan"))
    friends_of(ann, bob)
    relations.follow(cid, ann)  # a follower, not a friend
    open_lobby = lobby.game_create(creator=bob, name="Bob's open", ruleset="base", max_seats=4)
    lobby.game_create(
        creator=bob, name="Bob's secret", ruleset="base", max_seats=4,
        visibility=Game.Visibility.INVITE,
    )  # fmt: skip
    running = lobby.game_create(creator=bob, name="Bob's running", ruleset="base", max_seats=3)
    for user in (cid, dan):
        lobby.seat_join(game_id=running.pk, user=user)
    lobby.game_start(game_id=running.pk, user=bob)
    client.force_login(ann)
    page = client.get(reverse("friends")).content.decode()
    assert "Bob&#x27;s open" in page or "Bob's open" in page
    assert "secret" not in page  # an invite-only table stays its players'
    assert "running" in page
    assert 'data-testid="followers"' in page and "Cid" in page
    assert open_lobby.pk


def test_a_challenge_emails_each_friend_once_and_starts_when_all_accepted(client):
    ann, bob, cid = (create_player(n) for n in ("ann", "bob", "cid"))
    friends_of(ann, bob, cid)
    mail.outbox.clear()
    game = send(challenger=ann, friends=[bob.pk, cid.pk, bob.pk])  # a name twice: once
    assert game.visibility == Game.Visibility.INVITE and game.max_seats == 3
    rows = Challenge.objects.filter(game=game)
    assert rows.count() == 2
    for notice in Notice.objects.filter(kind=Notice.Kind.CHALLENGE):
        sending.send(notice.pk)
    assert sorted(m.to[0] for m in mail.outbox) == [bob.email, cid.email]
    token = rows.get(challenged=bob).token
    assert token in mail.outbox[0].body or token in mail.outbox[1].body
    client.force_login(bob)
    url = reverse("challenge", args=[token])
    assert b"Accept and take my seat" in client.get(url).content
    assert client.post(url, {"answer": "accept"}).status_code == 302
    assert client.post(url, {"answer": "accept"}).status_code == 302  # a double click
    assert Game.objects.get(pk=game.pk).seats.count() == 2
    client.force_login(cid)
    client.post(reverse("challenge", args=[rows.get(challenged=cid).token]), {"answer": "accept"})
    assert Game.objects.get(pk=game.pk).status == Game.Status.RUNNING


def test_a_refusal_is_told_to_the_challenger_and_someone_else_gets_not_found(client):
    ann, bob, cid, dan = (create_player(n) for n in ("ann", "bob", "cid", "dan"))
    friends_of(ann, bob, cid)
    game = send(challenger=ann, friends=[bob.pk, cid.pk])
    token = Challenge.objects.get(game=game, challenged=bob).token
    client.force_login(dan)
    assert client.get(reverse("challenge", args=[token])).status_code == 404
    assert client.post(reverse("challenge", args=[token]), {"answer": "accept"}).status_code == 404
    client.force_login(bob)
    client.post(reverse("challenge", args=[token]), {"answer": "refuse"})
    told = Notice.objects.get(kind=Notice.Kind.CHALLENGE_ANSWER)
    assert told.user == ann and told.data["answer"] == "refused"
    mail.outbox.clear()
    sending.send(told.pk)
    assert "Bob refused your challenge" in mail.outbox[0].subject
    client.post(reverse("challenge", args=[token]), {"answer": "accept"})  # too late: answered
    assert not Game.objects.get(pk=game.pk).seats.filter(user=bob).exists()
    client.post(reverse("challenge", args=[token]), {"answer": "maybe"})  # forged: nothing
    assert Challenge.objects.get(token=token).state == Challenge.State.REFUSED


def test_only_friends_never_across_a_block_nor_a_banned_one_nor_an_impossible_table():
    ann, bob, cid, dan = (create_player(n) for n in ("ann", "bob", "cid", "dan"))
    friends_of(ann, bob, cid)
    relations.follow(ann, dan)  # one way: not a friend
    for friends, code in (
        ([dan.pk, bob.pk], "not-friends"),
        ([], "bad-challenge"),
        ([bob.pk], "bad-challenge"),  # 2 players: the base game needs 3
        ([99999, bob.pk], "not-friends"),
    ):
        with pytest.raises(ServiceError) as refused:
            send(challenger=ann, friends=friends)
        assert refused.value.code == code
    with pytest.raises(ServiceError):
        send(challenger=ann, friends=[bob.pk, cid.pk], pace="5m")
    relations.block(cid, ann)
    with pytest.raises(ServiceError) as refused:
        send(challenger=ann, friends=[bob.pk, cid.pk])
    assert refused.value.code == "not-friends"
    type(bob).objects.filter(pk=bob.pk).update(is_active=False)
    with pytest.raises(ServiceError):
        send(challenger=ann, friends=[bob.pk], ruleset="saboteur2")
    assert not Challenge.objects.exists() and not Game.objects.exists()


def test_an_unanswered_challenge_expires_and_the_challenger_is_told():
    ann, bob, cid = (create_player(n) for n in ("ann", "bob", "cid"))
    friends_of(ann, bob, cid)
    game = send(challenger=ann, friends=[bob.pk, cid.pk])
    challenges.challenge_answer(
        user=bob, token=Challenge.objects.get(challenged=bob).token, accept=True
    )
    later = timezone.now() + timedelta(days=3, minutes=1)
    assert challenges.challenges_expire(later) == 1
    assert Challenge.objects.get(challenged=cid).state == Challenge.State.EXPIRED
    told = Notice.objects.get(kind=Notice.Kind.CHALLENGE_ANSWER)
    assert told.user == ann and told.data["answer"] == "expired"
    # Bob and Ann are too few for the base game: the lobby waits for its creator.
    assert Game.objects.get(pk=game.pk).status == Game.Status.LOBBY
    with pytest.raises(ServiceError) as refused:
        challenges.challenge_answer(
            user=cid, token=Challenge.objects.get(challenged=cid).token, accept=True
        )
    assert refused.value.code == "answered"


def test_the_challenge_form_refuses_forged_friends_and_long_fields(client):
    ann, bob, cid, dan = (create_player(n) for n in ("ann", "bob", "cid", "dan"))
    friends_of(ann, bob, cid)
    client.force_login(ann)
    assert b'data-testid="challenge-form"' in client.get(reverse("friends")).content
    for fields in (
        {"friends": [str(dan.pk)], "ruleset": "saboteur2", "pace": "2d", "rounds": "3"},
        {"friends": ["x" * 3000], "ruleset": "base", "pace": "2d", "rounds": "3"},
        {"friends": [str(bob.pk), str(cid.pk)], "ruleset": "base", "pace": "x" * 900,
         "rounds": "3"},
        {"friends": [str(bob.pk)], "ruleset": "base", "pace": "2d", "rounds": "3"},  # too few
    ):  # fmt: skip
        answer = client.post(reverse("challenge_create"), fields)
        assert answer.status_code == 422 and b"errorlist" in answer.content
    assert not Challenge.objects.exists()
    answer = client.post(
        reverse("challenge_create"),
        {"friends": [str(bob.pk), str(cid.pk)], "ruleset": "base", "pace": "1d", "rounds": "2"},
    )
    game = Game.objects.get()
    assert answer.status_code == 302 and game.rounds == 2
    assert game.turn_limit == timedelta(days=1)


def test_a_daily_challenge_ends_every_decision_at_20_utc_as_its_pace_says():
    ann = create_player("ann", time_zone="Europe/Prague")
    bob = create_player("bob")
    friends_of(ann, bob)
    game = send(challenger=ann, friends=[bob.pk], ruleset="saboteur2", pace="daily")
    assert game.daily_at.hour == 20 and game.clock_zone == "UTC"
