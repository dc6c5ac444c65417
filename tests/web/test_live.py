"""The live channel (games/read/live.py, games/web/live.py): a change of a game's revision is
published after its commit and reaches the open streams of those who may see the game; a stream
carries nothing but "game N is at revision V"; it ends when its viewer may no longer follow.

Real parts throughout: Redis pub/sub, PostgreSQL, the hub's thread, and for the end-to-end cases
a real server in a subprocess (uvicorn under ASGI with Redis, as in production; runserver
without Redis, as under ``make run``).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection, transaction
from django.test import Client

from games import engine
from games.models import Game, Seat
from games.moderation import players as moderation_players
from games.moderation import tables
from games.play import chat, lobby, moves, visits
from games.read import live

ROOT = Path(__file__).resolve().parent.parent.parent
SHAPE = re.compile(rb'event: revision\ndata: \{"game":(\d+),"revision":(\d+)\}\n\n')


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


@pytest.fixture
def fresh_hub():
    live.stop_hub()
    yield
    live.stop_hub()


def started(players, *, visibility=Game.Visibility.OPEN, count=3):
    game = lobby.game_create(
        creator=players[0], name="Live mine", ruleset="base", max_seats=count, rounds=1
    )
    Game.objects.filter(pk=game.pk).update(visibility=visibility)
    for user in players[1:count]:
        lobby.seat_join(game_id=game.pk, user=user)
    return lobby.game_start(game_id=game.pk, user=players[0])


def play_one(game, rng=None) -> None:
    """One legal move by whoever decides now (a pass when there is one, for short games)."""
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    seat = str(state.to_move)
    legal = engine.legal_moves(state, seat)
    if rng is None:
        passes = [m for m in legal if m["move"] == "pass"]
        move = (passes or legal)[0]
    else:
        move = rng.choice(legal)
    user = game.seats.get(position=state.to_move).user
    moves.move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)


def logged_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# -- Publishing after the commit --------------------------------------------------------------


class Subscriber:
    """A real Redis subscriber on the games channel."""

    def __init__(self):
        self.client = redis.Redis.from_url(settings.REDIS_URL)
        self.pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        self.pubsub.subscribe(f"{settings.LIVE_CHANNEL}:games")
        self.pubsub.get_message(timeout=1)  # the confirmation

    def messages(self, wait=0.3) -> list[str]:
        found, deadline = [], time.monotonic() + wait
        while (left := deadline - time.monotonic()) > 0:
            message = self.pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
            if message is not None:
                found.append(message["data"].decode())
        return found

    def close(self):
        self.pubsub.close()
        self.client.close()


@pytest.fixture
def subscriber():
    sub = Subscriber()
    yield sub
    sub.close()


def revision(game) -> int:
    return Game.objects.values_list("revision", flat=True).get(pk=game.pk)


def come_back(game, user):
    """``user`` had been marked absent (turns timed out) and looks at the game again."""
    Seat.objects.filter(game=game, user=user).update(state=Seat.State.ABSENT)
    visits.seat_seen(game=Game.objects.get(pk=game.pk), user=user)
    assert Seat.objects.get(game=game, user=user).state == Seat.State.ACTIVE


def test_every_writer_publishes_the_new_revision_after_its_commit(
    players, make_user, subscriber, django_capture_on_commit_callbacks
):
    ann, bob, cid, dan = players
    root = make_user("root")

    def published(action) -> list[str]:
        subscriber.messages(0.05)
        with django_capture_on_commit_callbacks(execute=True):
            action()
        return subscriber.messages()

    game = lobby.game_create(creator=ann, name="Live mine", ruleset="base", max_seats=4, rounds=1)
    steps = [
        ("join", lambda: lobby.seat_join(game_id=game.pk, user=bob)),
        ("join", lambda: lobby.seat_join(game_id=game.pk, user=dan)),
        ("leave", lambda: lobby.seat_leave(game_id=game.pk, user=dan)),
        ("join", lambda: lobby.seat_join(game_id=game.pk, user=cid)),
        ("start", lambda: lobby.game_start(game_id=game.pk, user=ann)),
        ("chat", lambda: chat.chat_post(game_id=game.pk, user=bob, text="Dig east!")),
        ("move", lambda: play_one(game)),
        ("pause", lambda: tables.game_pause(game_id=game.pk)),
        ("resume", lambda: tables.game_resume(game_id=game.pk)),
        ("extend", lambda: tables.game_extend(game_id=game.pk, hours=2)),
        ("rename", lambda: tables.game_rename(game_id=game.pk, name="Renamed mine")),
        ("back", lambda: come_back(game, bob)),
        ("ban", lambda: moderation_players.user_ban(user=cid, by=root, reason="rude")),
        (
            "replace",
            lambda: tables.seat_replace(
                game_id=game.pk,
                position=game.seats.get(user=cid).position,
                new_user=dan,
                reason="banned",
            ),
        ),
        ("abort", lambda: tables.game_abort(game_id=game.pk, reason="test")),
    ]
    for label, action in steps:
        before = revision(game)
        messages = published(action)
        after = revision(game)
        assert after > before, label
        assert messages and messages[-1] == f"{game.pk} {after}", (label, messages)
        assert all(re.fullmatch(rf"{game.pk} \d+", m) for m in messages), (label, messages)

    lobby_game = lobby.game_create(creator=bob, name="Gone", ruleset="base", max_seats=4)
    gone = lobby_game.pk
    assert published(lambda: Game.objects.get(pk=gone).delete()) == [
        f"{gone} {lobby_game.revision + 1}"
    ]


def test_a_rolled_back_change_publishes_nothing(players, subscriber):
    game = started(players)
    with pytest.raises(RuntimeError), transaction.atomic():
        play_one(game)
        raise RuntimeError("the move's transaction rolls back")
    assert subscriber.messages() == []


@pytest.mark.django_db(transaction=True)
def test_a_failing_publish_never_fails_a_move(players, settings):
    game = started(players)
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        settings.REDIS_URL = f"redis://127.0.0.1:{closed.getsockname()[1]}/0"
        before = revision(game)
        play_one(game)  # commits; the publish after it fails and is only logged
        play_one(game)  # and the next one does not even wait for Redis
    assert revision(game) == before + 2


# -- Who may open a stream --------------------------------------------------------------------


def test_the_stream_answers_only_those_who_may_see_the_game(players, make_user):
    ann, bob, cid, dan = players
    private = started(players, visibility=Game.Visibility.INVITE)
    open_game = started(players)
    otto = make_user("otto")

    def get(client, game_id):
        return client.get(f"/games/{game_id}/live/")

    seat = get(logged_in(bob), private.pk)
    assert seat.status_code == 200 and seat["Content-Type"] == "text/event-stream"
    assert SHAPE.search(seat.content).groups() == (b"%d" % private.pk, b"%d" % private.revision)
    assert seat["Cache-Control"].startswith("max-age=0") or "no-store" in seat["Cache-Control"]
    assert get(logged_in(otto), private.pk).status_code == 404  # an outsider: as the page
    assert get(logged_in(otto), open_game.pk).status_code == 200  # a spectator of an open game
    assert get(Client(), open_game.pk).status_code == 302  # anonymous: to the login page
    assert get(logged_in(bob), 10**9).status_code == 404
    assert logged_in(bob).post(f"/games/{private.pk}/live/").status_code == 405


def test_the_game_page_loads_the_live_client_and_its_policy_allows_the_stream(players):
    game = started(players)
    response = logged_in(players[1]).get(f"/games/{game.pk}/")
    policy = response["Content-Security-Policy"]
    assert "connect-src 'self'" in policy  # EventSource to the site itself, nowhere else
    assert f'data-live-url="/games/{game.pk}/live/"' in response.content.decode()
    assert f'data-poll-url="/games/{game.pk}/poll/"' in response.content.decode()


def test_under_gunicorns_sync_workers_the_page_keeps_polling(players, settings):
    """Production's WSGI workers must not be held by streams: 204, and EventSource stops."""
    game = started(players)
    settings.LIVE_STREAM_SECONDS = 60
    settings.LIVE_WSGI_STREAMS = False
    assert logged_in(players[1]).get(f"/games/{game.pk}/live/").status_code == 204


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_without_pub_sub_the_page_is_told_to_poll(players, settings, fresh_hub):
    game = started(players)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        settings.REDIS_URL = f"redis://127.0.0.1:{closed.getsockname()[1]}/0"
        settings.LIVE_STREAM_SECONDS = 60
        assert logged_in(players[1]).get(f"/games/{game.pk}/live/").status_code == 503


# -- Streams in this process (WSGI path, real Redis, the hub's thread) ---------------------------


class Stream:
    """An open stream read through the test client (the view's WSGI path)."""

    def __init__(self, client: Client, game_id: int, query: str = ""):
        self.response = client.get(f"/games/{game_id}/live/{query}")
        assert self.response.status_code == 200, self.response.status_code
        self.chunks = iter(self.response.streaming_content)
        self.raw: list[bytes] = []

    def next_event(self, timeout=5.0) -> tuple[str, dict]:
        """The next event other than a ping (the heartbeat is 1 s in these tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = next(self.chunks, None)
            if chunk is None:
                return "closed", {}
            self.raw.append(chunk)
            name, data = parse(chunk)
            if name != "ping":
                return name, data
        raise AssertionError("no event within the timeout")

    def close(self):
        self.response.close()


def parse(chunk: bytes) -> tuple[str, dict]:
    fields = dict(line.split(": ", 1) for line in chunk.decode().splitlines() if ": " in line)
    return fields.get("event", ""), json.loads(fields.get("data", "{}"))


@pytest.fixture
def real_streams(settings, fresh_hub):
    settings.LIVE_STREAM_SECONDS = 60
    settings.LIVE_HEARTBEAT_SECONDS = 1
    streams = []

    def open_stream(user, game, query=""):
        client = logged_in(user) if not isinstance(user, Client) else user
        stream = Stream(client, game.pk, query)
        streams.append(stream)
        return stream

    yield open_stream
    for stream in streams:
        stream.close()


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_move_reaches_every_open_stream_of_the_game(players, make_user, real_streams):
    game = started(players)
    other = started(players)
    streams = [real_streams(user, game) for user in players[:3]]
    streams.append(real_streams(make_user("otto"), game))  # a spectator
    for stream in streams:
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": game.revision})
    play_one(other)  # another game's move reaches none of them
    play_one(game)
    for stream in streams:
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_giving_up_a_seat_in_a_private_game_ends_the_stream(players, real_streams):
    ann, bob, cid, dan = players
    game = lobby.game_create(creator=ann, name="Private", ruleset="base", max_seats=4)
    Game.objects.filter(pk=game.pk).update(visibility=Game.Visibility.INVITE)
    lobby.seat_join(game_id=game.pk, user=bob)
    lobby.seat_join(game_id=game.pk, user=cid)
    ann_stream, bob_stream = real_streams(ann, game), real_streams(bob, game)
    ann_stream.next_event(), bob_stream.next_event()
    lobby.seat_leave(game_id=game.pk, user=bob)
    assert bob_stream.next_event() == ("end", {})
    assert bob_stream.next_event() == ("closed", {})
    assert ann_stream.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})
    assert logged_in(bob).get(f"/games/{game.pk}/live/").status_code == 404


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_logging_out_ends_that_sessions_streams_at_once(players, real_streams):
    game = started(players)
    client, other_device = logged_in(players[1]), logged_in(players[1])
    stream, other = real_streams(client, game), real_streams(other_device, game)
    stream.next_event(), other.next_event()
    client.post("/accounts/logout/")
    assert stream.next_event(timeout=3) == ("end", {})
    play_one(game)  # the same player's other session still follows the game
    assert other.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_session_that_no_longer_stands_ends_its_stream(players, real_streams, settings):
    """Deactivated (a ban), expired or logged out elsewhere: the periodic check ends it."""
    settings.LIVE_RECHECK_SECONDS = 1
    game = started(players)
    stream = real_streams(players[2], game)
    stream.next_event()
    type(players[2]).objects.filter(pk=players[2].pk).update(is_active=False)
    assert stream.next_event(timeout=5) == ("end", {})


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_deleted_lobby_ends_its_streams(players, real_streams):
    game = lobby.game_create(creator=players[0], name="Short", ruleset="base", max_seats=4)
    stream = real_streams(players[1], game)
    stream.next_event()
    Game.objects.get(pk=game.pk).delete()
    assert stream.next_event() == ("end", {})


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_without_redis_the_hub_reads_revisions_from_the_database(players, real_streams, settings):
    """``make run`` has no Redis: the stream still follows moves made by another process."""
    settings.REDIS_URL = ""
    settings.LIVE_FALLBACK_POLL_MS = 100
    game = started(players)
    stream = real_streams(players[1], game)
    stream.next_event()
    # A change that no signal of this process sees (as a Celery worker's move would be).
    Game.objects.filter(pk=game.pk).update(revision=game.revision + 5)
    assert stream.next_event(timeout=3) == (
        "revision",
        {"game": game.pk, "revision": game.revision + 5},
    )
    assert live.hub().use_redis is False


# -- No secret in a live message (docs/architecture.md, "Secrets") -------------------------------


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("visibility", "seed"), [(Game.Visibility.OPEN, 3), (Game.Visibility.INVITE, 4)]
)
def test_no_secret_in_any_live_message_through_whole_games(
    visibility, seed, players, make_user, real_streams
):
    """Every event of every seat's stream, a spectator's (open game) and an outsider's (private:
    refused) through a whole random game: each is exactly "game N at revision V" with the
    game's revision at that moment, so no card, role, goal, seed or gold can ride along."""
    rng = random.Random(seed)
    game = started(players, visibility=visibility, count=4)
    watcher = make_user("otto")
    state = engine.State.from_json(game.snapshot)
    secrets = set(state.config.round_seeds) | {card for hand in state.hands for card in hand}
    secrets |= set(state.roles)
    viewers = list(players)
    if visibility == Game.Visibility.OPEN:
        viewers.append(watcher)
    else:
        assert logged_in(watcher).get(f"/games/{game.pk}/live/").status_code == 404
    streams = [real_streams(user, game) for user in viewers]
    told = 0
    while True:
        game.refresh_from_db()
        for stream in streams:
            assert stream.next_event() == (
                "revision",
                {"game": game.pk, "revision": game.revision},
            )
            told += 1
        if game.status != Game.Status.RUNNING:
            break
        play_one(game, rng)
    assert told > 20 * len(viewers)
    for stream in streams:
        for chunk in stream.raw:
            assert re.fullmatch(rb"(retry: 3000\n\n)?" + SHAPE.pattern, chunk) or chunk == (
                b"event: ping\ndata: {}\n\n"
            ), chunk
            text = chunk.decode()
            assert not [s for s in secrets if re.search(rf"\b{re.escape(s)}\b", text)]


# -- A real server and a real Redis -------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(**extra) -> dict:
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = {
        **os.environ,
        "DJANGO_ENV": "development",
        "DJANGO_DEBUG": "0",
        "DATABASE_URL": url,
        "DJANGO_LOG_LEVEL": "WARNING",
        "LIVE_HEARTBEAT_SECONDS": "1",
        "LIVE_CHANNEL": settings.LIVE_CHANNEL,  # this run's own (tests/conftest.py)
    }
    env.update(extra)
    return env


def start_server(command, env, port):
    process = subprocess.Popen(  # noqa: S603
        command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process
        except OSError:
            if process.poll() is not None:
                raise RuntimeError(process.stderr.read().decode()) from None
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start")


def stop_server(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class HttpStream:
    """An SSE stream read over a real socket."""

    def __init__(self, port, game_id, session, query=""):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.conn.request(
            "GET",
            f"/games/{game_id}/live/{query}",
            headers={"Cookie": f"sessionid={session}", "Accept": "text/event-stream"},
        )
        self.response = self.conn.getresponse()

    def next_event(self) -> tuple[str, dict]:
        lines = []
        while True:
            line = self.response.fp.readline()
            if not line:
                return "closed", {}
            if line == b"\n":
                if any(x.startswith(b"event:") for x in lines):
                    name, data = parse(b"".join(lines))
                    if name != "ping":
                        return name, data
                lines = []
                continue
            lines.append(line)

    def close(self):
        self.conn.close()


def session_of(user) -> str:
    return logged_in(user).cookies[settings.SESSION_COOKIE_NAME].value


@pytest.mark.django_db(transaction=True)
def test_under_uvicorn_a_published_revision_reaches_an_open_stream(players):
    """Production's shape: the stream served by uvicorn (ASGI), the move made elsewhere (here:
    this process, as gunicorn or a Celery worker would), Redis between them."""
    game = started(players)
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "saboteur_site.asgi:application"]
    command += ["--port", str(port), "--log-level", "warning"]
    server = start_server(command, server_env(), port)
    try:
        stream = HttpStream(port, game.pk, session_of(players[1]))
        assert stream.response.status == 200
        assert stream.response.getheader("Content-Type") == "text/event-stream"
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": game.revision})
        began = time.monotonic()
        play_one(game)
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})
        assert time.monotonic() - began < 5
        stream.close()  # a page closed: the server lets its stream go
        spectator = HttpStream(port, game.pk, session_of(players[3]))
        assert spectator.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})
        # A watcher's page says its revision and token: it is carried its part (a thread of
        # the server works it out, under ASGI too).
        shown, token = revision(game), "watcherpage1"
        carried = HttpStream(port, game.pk, session_of(players[3]), f"?v={shown}&p={token}")
        assert carried.next_event() == ("revision", {"game": game.pk, "revision": shown})
        play_one(game)
        assert spectator.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})
        name, data = carried.next_event()
        assert (name, data["from"], data["revision"]) == ("part", shown, revision(game))
        assert f"/poll/?v={revision(game)}&amp;p={token}" in data["html"]
        spectator.close()
        carried.close()
        time.sleep(0.5)
    finally:
        stop_server(server)
    problems = [
        line
        for line in server.stderr.read().decode().splitlines()
        if "Traceback" in line or ("ERROR" in line and "graceful shutdown" not in line)
    ]
    assert problems == []


@pytest.mark.django_db(transaction=True)
def test_under_runserver_without_redis_the_stream_follows_the_database(players):
    """``make run``'s shape: runserver, no REDIS_URL; the move made by another process."""
    game = started(players)
    port = free_port()
    command = [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    server = start_server(command, server_env(REDIS_URL=""), port)
    try:
        stream = HttpStream(port, game.pk, session_of(players[0]))
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": game.revision})
        play_one(game)
        assert stream.next_event() == ("revision", {"game": game.pk, "revision": revision(game)})
        stream.close()
    finally:
        stop_server(server)


@pytest.mark.real_streams
@pytest.mark.django_db(transaction=True)
def test_a_player_holds_at_most_so_many_streams_and_the_next_page_polls(
    players, make_user, real_streams, settings
):
    """One stream per open page is fine; a script opening them by the thousand would hold the
    server's memory (~75 kB a stream): past ``LIVE_STREAMS_PER_USER`` the answer is 429, which
    the page takes as "poll instead" (static/js/live.js), and a closed stream frees its place."""
    settings.LIVE_STREAMS_PER_USER = 2
    game, other = started(players), started(players)
    ann = logged_in(players[1])
    first, second = real_streams(ann, game), real_streams(ann, other)
    assert first.next_event()[0] == second.next_event()[0] == "revision"
    assert ann.get(f"/games/{game.pk}/live/").status_code == 429
    assert logged_in(players[1]).get(f"/games/{game.pk}/live/").status_code == 429  # any session
    watcher = real_streams(make_user("otto"), game)  # someone else: their own count
    assert watcher.next_event()[0] == "revision"
    first.close()
    deadline = time.monotonic() + 5
    while live.hub().count() > 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    third = real_streams(ann, game)
    assert third.next_event() == ("revision", {"game": game.pk, "revision": game.revision})
