"""Challenges through the API (issues 52 and 54): the challenges sent to the caller, answering
one as the challenge's page does, and the account stream telling each new one."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts import relations
from accounts.tokens import token_create, token_revoke
from games.models import Challenge, Seat
from games.play import challenges

from .test_api_streams import Lines, real

__all__ = ["real"]  # the streams' fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def friends(make_user):
    people = [make_user(name) for name in ("ann", "bob", "cid", "dan")]
    for a in people:
        for b in people:
            if a != b:
                relations.follow(a, b)
    return people


def api(user, scopes=("read", "play")) -> Client:
    _token, text = token_create(user=user, name="test", scopes=list(scopes))
    return Client(headers={"Authorization": f"Bearer {text}"})


def challenge(ann, *others):
    game = challenges.challenge_send(
        challenger=ann, friends=[u.pk for u in others], ruleset="base", pace="2d"
    )
    return game, {c.challenged_id: c for c in Challenge.objects.filter(game=game)}


def test_the_challenges_sent_to_me_are_listed_and_answered_as_on_their_page(friends):
    ann, bob, cid, _dan = friends
    game, sent = challenge(ann, bob, cid)
    listed = api(bob).get("/api/v1/challenges").json()
    assert [(c["id"], c["game"], c["challenger"]) for c in listed] == [
        (sent[bob.pk].pk, game.pk, ann.display_name)
    ]
    assert api(ann).get("/api/v1/challenges").json() == []  # the challenger's are not hers
    accepted = api(bob).post(f"/api/v1/challenges/{sent[bob.pk].pk}/accept")
    assert accepted.status_code == 200 and accepted.json()["state"] == "accepted"
    assert Seat.objects.filter(game=game, user=bob).exists()
    assert api(bob).get("/api/v1/challenges").json() == []  # answered: no longer listed
    refused = api(cid).post(f"/api/v1/challenges/{sent[cid.pk].pk}/refuse")
    assert refused.status_code == 200 and refused.json()["state"] == "refused"
    again = api(cid).post(f"/api/v1/challenges/{sent[cid.pk].pk}/accept")
    assert (again.status_code, again.json()["code"]) == (422, "answered")


def test_anothers_challenge_a_read_token_and_a_session_open_nothing(friends):
    ann, bob, cid, dan = friends
    _game, sent = challenge(ann, bob, cid)
    for client in (api(dan), api(ann), api(cid)):  # not theirs: as if there were none
        answer = client.post(f"/api/v1/challenges/{sent[bob.pk].pk}/accept")
        assert answer.status_code == 404 and answer.json()["code"]
    read_only = api(bob, scopes=("read",)).post(f"/api/v1/challenges/{sent[bob.pk].pk}/accept")
    assert read_only.status_code == 403 and read_only.json()["code"] == "scope"
    session = Client()
    session.force_login(bob)
    assert session.post(f"/api/v1/challenges/{sent[bob.pk].pk}/accept").status_code == 401
    assert Challenge.objects.get(pk=sent[bob.pk].pk).state == Challenge.State.PENDING


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_the_account_stream_tells_each_challenge_once_even_with_no_game(friends, real):
    ann, bob, cid, dan = friends
    _game, sent = challenge(ann, bob, cid)
    stream = Lines(real, bob, "/api/v1/stream")  # Bob sits at no running game: it stays open
    told = stream.next()
    assert told["type"] == "challenge" and told["challenge"]["id"] == sent[bob.pk].pk
    _later, more = challenge(cid, bob, dan)
    told = stream.next(timeout=10)  # by the next heartbeat (1 s in these tests)
    assert told["type"] == "challenge" and told["challenge"]["id"] == more[bob.pk].pk
    token_revoke(user=bob, token_id=stream.token.pk)
    assert stream.next(timeout=10) in ({"type": "end"}, {"type": "closed"})
