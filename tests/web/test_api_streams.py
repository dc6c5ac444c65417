"""The API's NDJSON streams (issue 54, point 3) on the pages' live machinery: real Redis
pub/sub, the hub's thread, PostgreSQL, read through the test client (the WSGI path)."""

from __future__ import annotations

import http.client
import json
import sys
import time

import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from accounts.tokens import token_create, token_revoke
from games import engine
from games.models import Game
from games.play import lobby, moves
from games.read import live
from games.web.api import streams
from tests.web.test_live import free_port, server_env, start_server, stop_server

NO_REDIS_CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "django_cache",
    }
}

pytestmark = [pytest.mark.real_streams, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid")]


@pytest.fixture(autouse=True)
def real(settings):
    live.stop_hub()
    settings.LIVE_STREAM_SECONDS = 60
    settings.LIVE_HEARTBEAT_SECONDS = 1
    settings.LIVE_RECHECK_SECONDS = 1
    opened = []
    yield opened
    for response in opened:
        response.close()
    live.stop_hub()


def started(players, visibility=Game.Visibility.OPEN):
    game = lobby.game_create(
        creator=players[0], name="Streamed", ruleset="base", max_seats=3, rounds=1,
        visibility=visibility,
    )  # fmt: skip
    for user in players[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    return lobby.game_start(game_id=game.pk, user=players[0])


def play_one(game):
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    legal = engine.legal_moves(state, str(state.to_move))
    move = next((m for m in legal if m["move"] == "pass"), legal[0])
    user = game.seats.get(position=state.to_move).user
    moves.move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)


class Lines:
    def __init__(self, real, user, url, scopes=("read",)):
        self.token, text = token_create(user=user, name="stream", scopes=list(scopes))
        self.response = Client(headers={"Authorization": f"Bearer {text}"}).get(url)
        assert self.response.status_code == 200, self.response.content
        assert self.response["Content-Type"] == "application/x-ndjson"
        real.append(self.response)
        self.chunks = iter(self.response.streaming_content)
        self.pending: list[dict] = []

    def next(self, timeout=8.0) -> dict:
        deadline = time.monotonic() + timeout
        while not self.pending and time.monotonic() < deadline:
            chunk = next(self.chunks, None)
            if chunk is None:
                return {"type": "closed"}
            self.pending += [json.loads(text) for text in chunk.decode().splitlines() if text]
        assert self.pending, "no line within the timeout"
        return self.pending.pop(0)


def test_a_games_stream_tells_each_change_as_the_seat_sees_it(players, real):
    game = started(players)
    seat = game.seats.get(user=players[1])
    stream = Lines(real, players[1], f"/api/v1/games/{game.pk}/stream")
    first = stream.next()
    assert first["type"] == "game" and first["game"]["version"] == 0
    mine = engine.State.from_json(Game.objects.get(pk=game.pk).snapshot)
    assert first["game"]["view"] == engine.view_for(mine, seat.engine_name)
    play_one(game)
    after = stream.next()
    assert after["type"] == "game" and after["game"]["version"] == 1
    assert after["game"]["view"]["me"]["hand"] is not None  # their own hand, and only theirs


def test_the_account_stream_says_whose_turn_it_is(players, real):
    game = started(players)
    state = engine.State.from_json(Game.objects.get(pk=game.pk).snapshot)
    first_to_move = game.seats.get(position=state.to_move).user
    stream = Lines(real, first_to_move, "/api/v1/stream")
    assert stream.next() == {"type": "your-turn", "game": game.pk, "version": 0}
    play_one(game)
    game.refresh_from_db()
    second = game.seats.get(position=game.to_move).user
    if second != first_to_move:
        other = Lines(real, second, "/api/v1/stream")
        assert other.next() == {"type": "your-turn", "game": game.pk, "version": 1}


def test_a_revoked_token_ends_its_stream(players, real):
    game = started(players)
    stream = Lines(real, players[2], f"/api/v1/games/{game.pk}/stream")
    assert stream.next()["type"] == "game"
    token_revoke(user=players[2], token_id=stream.token.pk)
    assert stream.next(timeout=10) in ({"type": "end"}, {"type": "closed"})


def test_a_token_holds_a_few_streams_at_once(players, real):
    game = started(players)
    token, text = token_create(user=players[0], name="many", scopes=["read"])
    client = Client(headers={"Authorization": f"Bearer {text}"})
    for _ in range(streams.STREAMS_PER_TOKEN):
        response = client.get(f"/api/v1/games/{game.pk}/stream")
        assert response.status_code == 200
        real.append(response)
    refused = client.get(f"/api/v1/games/{game.pk}/stream")
    assert refused.status_code == 429 and refused.json()["code"] == "too-many-streams"
    assert "Retry-After" in refused


def test_outsiders_get_no_stream_of_a_private_game(players, make_user, real):
    game = started(players, visibility=Game.Visibility.INVITE)
    _token, text = token_create(user=make_user("otto"), name="x", scopes=["read"])
    answer = Client(headers={"Authorization": f"Bearer {text}"}).get(
        f"/api/v1/games/{game.pk}/stream"
    )
    assert answer.status_code == 404 and answer.json()["code"] == "not-found"


# -- Over a real socket: uvicorn (production's ASGI shape) and runserver (`make run`'s) ---------


class NdjsonStream:
    def __init__(self, port, path, token):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.conn.getresponse()

    def next(self) -> dict:
        """The next line that is not a heartbeat."""
        while True:
            text = self.response.readline()  # unchunked by http.client
            if not text:
                return {"type": "closed"}
            if text.strip():
                return json.loads(text)

    def close(self):
        self.conn.close()


@pytest.mark.parametrize("server", ["uvicorn", "runserver"])
def test_streams_over_a_real_server(players, server):
    """Under uvicorn (ASGI, Redis) and runserver without Redis (`make run`), a move made in
    another process reaches the game's stream and the next player's account stream."""
    game = started(players)
    port = free_port()
    if server == "uvicorn":
        command = [sys.executable, "-m", "uvicorn", "saboteur_site.asgi:application"]
        command += ["--port", str(port), "--log-level", "warning"]
        env = server_env()
    else:
        command = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
        env = server_env(REDIS_URL="")
        # Without Redis the cache (the rate limits' counters) is the database's, as `make run`
        # makes it (scripts/run.sh).
        with override_settings(CACHES=NO_REDIS_CACHES):
            call_command("createcachetable")
    _token, text = token_create(user=players[1], name="s", scopes=["read"])
    process = start_server(command, env, port)
    try:
        stream = NdjsonStream(port, f"/api/v1/games/{game.pk}/stream", text)
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "application/x-ndjson"
        assert stream.next()["game"]["version"] == 0
        news = NdjsonStream(port, "/api/v1/stream", text)
        assert news.response.status == 200, news.response.read()[:2000]
        while game.refresh_from_db() or game.seats.get(position=game.to_move).user != players[1]:
            play_one(game)
            assert stream.next()["game"]["version"] == Game.objects.get(pk=game.pk).version
        assert news.next() == {"type": "your-turn", "game": game.pk, "version": game.version}
        stream.close()
        news.close()
        time.sleep(0.5)
    finally:
        stop_server(process)
        said = process.stderr.read().decode()
        print(said)  # shown when the test fails
    problems = [
        line
        for line in said.splitlines()
        if "Traceback" in line or ("ERROR" in line and "graceful shutdown" not in line)
    ]
    assert problems == []
