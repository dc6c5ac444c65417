"""The unchanged poll answered before the user is loaded (games/web/polls.py, issue 49).

It answers one thing, 204, in one query; every other case is the view's, whose answers these
tests pin: a session the current secret does not verify, an inactive user, a game the user may
not see, a visit to note, a push device in use, a change to show.
"""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import resolve, reverse
from django.utils import timezone

from accounts import devices
from accounts.models import PushSubscription
from games.models import Seat
from games.web import polls, views

from .test_game_pages import logged_in, start_game


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


def poll(client, game, revision, **params):
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("game_poll", args=[game.pk]), {"v": revision, **params})
    return response, [q["sql"] for q in queries.captured_queries]


def test_the_middleware_knows_the_polls_path():
    path = reverse("game_poll", args=[12345])
    assert polls.POLL_PATH.fullmatch(path)["pk"] == "12345"
    assert resolve(path).func is views.game_poll
    assert "games.web.polls.UnchangedPollMiddleware" in settings.MIDDLEWARE
    # Before any middleware that reads the user, after those that give it a session.
    order = settings.MIDDLEWARE.index
    assert (
        order("django.contrib.auth.middleware.AuthenticationMiddleware")
        < order("games.web.polls.UnchangedPollMiddleware")
        < order("accounts.middleware.UserLanguageMiddleware")
    )


def test_an_unchanged_poll_is_one_query_that_reads_the_user_with_the_game(players, caplog):
    game = start_game(players)
    client = logged_in(players[1])
    with caplog.at_level(logging.INFO, logger="saboteur.request"):
        response, queries = poll(client, game, game.revision)
    assert response.status_code == 204
    assert response.content == b""
    assert "no-store" in response["Cache-Control"]
    assert len(queries) == 1, queries
    assert "accounts_user" in queries[0] and "games_game" in queries[0]
    # The request's log line names the player and the game, as every poll's does.
    (line,) = [r for r in caplog.records if r.name == "saboteur.request"]
    assert (line.status, line.user_id, line.game_id) == (204, players[1].pk, game.pk)


def test_a_watcher_and_the_creator_of_an_open_game_get_it_too(players, make_user):
    game = start_game(players[:3], count=3)
    for user in (make_user("eve"), players[0]):
        response, queries = poll(logged_in(user), game, game.revision)
        assert (response.status_code, len(queries)) == (204, 1)


def test_a_change_is_the_views_answer_with_the_user_read_once(players):
    game = start_game(players)
    response, queries = poll(logged_in(players[1]), game, game.revision - 1)
    assert response.status_code == 200
    assert 'id="play"' in response.content.decode()
    assert not [q for q in queries if q.startswith('SELECT "accounts_user"')], queries
    assert not [q for q in queries if "FROM games_game g LEFT JOIN" in q], queries  # POLL_SQL


def test_a_session_from_before_a_password_change_is_ended_by_the_view(players):
    game = start_game(players)
    client = logged_in(players[1])
    players[1].set_password("another-long-password-9")
    players[1].save()
    response, _ = poll(client, game, game.revision)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert "_auth_user_id" not in client.session  # flushed, as get_user does


def test_an_inactive_player_is_logged_out_by_the_view(players):
    game = start_game(players)
    client = logged_in(players[1])
    players[1].is_active = False
    players[1].save(update_fields=["is_active"])
    response, _ = poll(client, game, game.revision)
    assert response.status_code == 302


def test_a_session_of_an_older_secret_is_renewed_by_the_view(players):
    game = start_game(players)
    client = logged_in(players[1])
    old_hash = client.session[HASH_SESSION_KEY]
    with override_settings(
        SECRET_KEY="a-newer-secret-" + "x" * 50, SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]
    ):
        response, queries = poll(client, game, game.revision)
        assert response.status_code == 204
        assert len(queries) > 1  # the view's get_user, which keeps the session with a new hash
        assert client.session[HASH_SESSION_KEY] != old_hash
        response, queries = poll(client, game, game.revision)
        assert (response.status_code, len(queries)) == (204, 1)


def test_a_private_game_is_not_found_for_others(players, make_user):
    game = start_game(players[:3], count=3, visibility="private")
    response, _ = poll(logged_in(make_user("eve")), game, game.revision)
    assert response.status_code == 404
    response, _ = poll(logged_in(players[3]), game, game.revision)
    assert response.status_code == 404
    response, queries = poll(logged_in(players[2]), game, game.revision)
    assert (response.status_code, len(queries)) == (204, 1)


def test_nobody_logged_in_and_no_game_are_the_views_answers(players):
    game = start_game(players)
    response, _ = poll(Client(), game, game.revision)
    assert response.status_code == 302
    client = logged_in(players[1])
    response = client.get(reverse("game_poll", args=[game.pk + 1000]), {"v": 1})
    assert response.status_code == 404
    for bad in ("", "x", "-1", "١"):  # no revision, not a number, an Arabic-Indic digit
        response, _ = poll(client, game, bad)
        assert response.status_code == 200  # the view: the part, as for any other revision


def test_a_visit_to_note_goes_to_the_view(players):
    game = start_game(players)
    client = logged_in(players[1])
    seat = Seat.objects.get(game=game, user=players[1])
    long_ago = timezone.now() - timedelta(hours=3)
    Seat.objects.filter(pk=seat.pk).update(last_seen_at=long_ago)
    response, queries = poll(client, game, game.revision, here="1")
    assert response.status_code == 204
    assert not [q for q in queries if q.startswith('SELECT "accounts_user"')], queries
    seat.refresh_from_db()
    assert seat.last_seen_at > long_ago  # noted by the view
    # Seen a moment ago: nothing to note, the one query answers.
    response, queries = poll(client, game, game.revision, here="1")
    assert (response.status_code, len(queries)) == (204, 1)


def test_a_push_device_in_use_is_noted_by_the_middleware_after(players):
    game = start_game(players)
    client = logged_in(players[1])
    long_ago = timezone.now() - timedelta(days=3)
    device = PushSubscription.objects.create(
        user=players[1], endpoint="https://push.example/1", p256dh="k", auth="a",
        label="Phone", device_key="a-device", last_used_at=long_ago,
    )  # fmt: skip
    client.cookies[devices.COOKIE] = device.device_key
    response, queries = poll(client, game, game.revision)
    assert response.status_code == 204
    device.refresh_from_db()
    assert device.last_used_at > long_ago  # DeviceSeenMiddleware ran
    assert not [q for q in queries if q.startswith('SELECT "accounts_user"')]  # read once


def test_a_head_request_is_the_views(players):
    game = start_game(players)
    client = logged_in(players[1])
    with CaptureQueriesContext(connection) as queries:
        response = client.head(reverse("game_poll", args=[game.pk]), {"v": game.revision})
    assert response.status_code == 204
    assert len(queries.captured_queries) > 1
