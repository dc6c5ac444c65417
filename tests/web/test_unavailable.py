"""Servers away (docs/reliability.md).

PostgreSQL away: the site answers 503 with a clear, translated page, never a 500. The site runs
in a process of its own whose database address is a closed port (what a PostgreSQL restart or a
server refusing connections looks like from Django), through psycopg's pool as in production and
without it; then the port opens (a relay to the real server) and the pool must find it soon.
Redis away: the cache misses and the site goes on.
"""

import json
import os
import select
import socket
import subprocess
import sys
import threading
import time

import pytest

from tests.web.test_settings_guard import ROOT, run_manage

CLOSED = "postgres://postgres@127.0.0.1:1/saboteur"  # nothing listens on port 1

REQUESTS = """
import json
from django.test import Client
from django.conf import settings
answers = []
def keep(name, response):
    answers.append({"name": name, "status": response.status_code,
                    "retry": response.get("Retry-After"), "cache": response.get("Cache-Control"),
                    "body": response.content.decode()})
player = Client(raise_request_exception=False, HTTP_HOST="saboteur.example")
player.cookies[settings.SESSION_COOKIE_NAME] = "a" * 32
player.cookies["csrftoken"] = "b" * 32
keep("game page", player.get("/games/1/"))
keep("home, logged in", player.get("/"))
keep("move", player.post("/games/1/move/", {"kind": "pass"}, HTTP_X_CSRFTOKEN="b" * 32))
keep("poll (htmx)", player.get("/games/1/poll/?v=3", HTTP_HX_REQUEST="true"))
keep("Czech", player.get("/", HTTP_ACCEPT_LANGUAGE="cs"))
print("ANSWERS" + json.dumps(answers))
"""


def site_without_database(**env):
    result = run_manage(
        ["shell", "-c", REQUESTS],
        DJANGO_ENV="development",
        DJANGO_DEBUG="0",
        DJANGO_ALLOWED_HOSTS="saboteur.example",
        DJANGO_LOG_FORMAT="json",
        DATABASE_URL=CLOSED,
        REDIS_URL=os.environ["REDIS_URL"],
        **env,
    )
    assert "ANSWERS" in result.stdout, result.stderr[-3000:]
    answers = json.loads(result.stdout.split("ANSWERS", 1)[1])
    logged = [
        json.loads(line)
        for line in result.stderr.splitlines()
        if line.startswith("{") and '"saboteur.request"' in line
    ]
    return answers, logged


@pytest.mark.slow
@pytest.mark.parametrize("pool", ["1", "0"], ids=["pool", "no pool"])
def test_database_away_answers_503_with_a_clear_page_never_500(pool):
    answers, logged = site_without_database(DATABASE_POOL=pool, DATABASE_POOL_TIMEOUT="1")
    for answer in answers:
        assert answer["status"] == 503, answer["name"]
        assert answer["retry"] == "30"
        assert "no-store" in answer["cache"]
        body = answer["body"]
        # Nothing of the error: no traceback, no exception, no server address.
        for secret in ("Traceback", "OperationalError", "127.0.0.1", "port 1", "psycopg"):
            assert secret not in body, (answer["name"], secret)
    english = answers[0]["body"]
    assert "The site is briefly unavailable" in english
    assert "Nothing you did was lost" in english
    assert '<html lang="en">' in english
    czech = answers[-1]["body"]
    assert '<html lang="cs">' in czech
    assert "The site is briefly unavailable" not in czech  # translated
    # Each request still gets its one log line, with its status, though the user is unknown.
    assert [line["status"] for line in logged] == [503] * len(answers)
    assert all(line["user_id"] is None for line in logged)


# -- Redis away: the cache misses, the site goes on ---------------------------------------------


def cache_away(settings):
    """The site's own cache settings, pointed at a closed port (nothing listens on port 1)."""
    away = {**settings.CACHES["default"], "LOCATION": "redis://127.0.0.1:1/0"}
    settings.CACHES = {**settings.CACHES, "default": away}


@pytest.mark.django_db
def test_redis_away_moves_and_pages_still_work(make_user, settings):
    from django.test import Client

    from games import engine
    from games.models import Game, Move
    from games.play.lobby import game_create, game_start, seat_join

    users = [make_user(name) for name in ("ann", "bob", "cid")]
    game = game_create(creator=users[0], name="Away", ruleset="base", max_seats=3)
    for other in users[1:]:
        seat_join(game_id=game.pk, user=other)
    game = game_start(game_id=game.pk, user=users[0])
    cache_away(settings)

    seat = game.seats.get(position=game.to_move)
    client = Client()
    client.force_login(seat.user)
    assert client.get(f"/games/{game.pk}/").status_code == 200
    assert client.get("/games/").status_code == 200
    assert client.get("/").status_code == 200
    # The move's transaction drops cached counts (games/read/invalidation.py): it must not fail.
    state = engine.State.from_json(game.snapshot)
    assert state.hands[seat.position]
    response = client.post(
        f"/games/{game.pk}/move/",
        {"kind": "pass", "discard": ["0"], "version": game.version, "key": "away-1"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert Move.objects.filter(game=game, idempotency_key="away-1").count() == 1
    assert Game.objects.get(pk=game.pk).version == game.version + 1


def test_the_cache_keeps_its_redis_client_and_shares_it_between_threads():
    """Django's Redis cache makes a new client for every call (a copy of redis-py's reply
    table each time); django-redis keeps one per server, which every thread may use."""
    from django.core.cache import cache
    from django_redis import get_redis_connection

    client = get_redis_connection("default")
    assert get_redis_connection("default") is client
    assert get_redis_connection("default", write=False) is client  # one server: one client
    key = "tests:kept-client"
    cache.set(key, 0, 30)
    seen = []

    def count():
        for _ in range(50):
            seen.append(cache.incr(key))

    threads = [threading.Thread(target=count) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(seen) == list(range(1, 201)) and cache.get(key) == 200
    cache.delete(key)


def test_redis_away_the_health_check_says_so(client, settings):
    cache_away(settings)
    response = client.get("/health/?format=json")
    assert response.status_code == 503
    assert any(
        name.startswith("Cache") and value != "OK" for name, value in response.json().items()
    )


# -- PostgreSQL back: the pool reconnects within seconds ---------------------------------------

RECONNECTS = """
import time
from django.db import connection
while True:
    began = time.time()
    try:
        connection.cursor().execute("SELECT 1")
        answer = "ok"
    except Exception:
        answer = "fail"
    connection.close()  # back to the pool
    print(f"{began:.2f} {answer}", flush=True)
    if answer == "ok":
        break
    time.sleep(0.25)
"""


class Forwarder(threading.Thread):
    """PostgreSQL "coming back" on ``port``: a loopback TCP relay to the real server."""

    daemon = True

    def __init__(self, port: int, target: tuple[str, int]):
        super().__init__()
        self.target = target
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port))
        self.server.listen(8)

    def run(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            threading.Thread(target=self.relay, args=(client, upstream), daemon=True).start()

    @staticmethod
    def relay(one, other):
        try:
            while True:
                ready, _, _ = select.select([one, other], [], [], 30)
                if not ready:
                    return
                for sock in ready:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (other if sock is one else one).sendall(data)
        except OSError:
            return
        finally:
            one.close()
            other.close()

    def close(self):
        self.server.close()


@pytest.mark.slow
def test_the_pool_reconnects_within_seconds_once_postgresql_is_back(settings):
    """psycopg's pool retries a lost server with a doubling pause; after a long outage its next
    try could come half a minute after the server was back (503s all along). The site's pool
    starts its tries over every DATABASE_POOL_RECONNECT_TIMEOUT seconds instead."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    database = settings.DATABASES["default"]
    target = (database["HOST"] or "127.0.0.1", int(database["PORT"] or 5432))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DATABASE_POOL")}
    env.update(
        DJANGO_ENV="development",
        DATABASE_URL=f"postgres://{database['USER'] or 'postgres'}@127.0.0.1:{port}/postgres",
        DATABASE_POOL="1",
        DATABASE_POOL_MIN_SIZE="1",
        DATABASE_POOL_TIMEOUT="1",
    )
    site = subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-c", RECONNECTS],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    forwarder = None
    try:
        first = site.stdout.readline()
        while first and not first.endswith(("ok\n", "fail\n")):  # the shell's own words
            first = site.stdout.readline()
        assert first.endswith("fail\n"), first  # the pool's first try: the server is away
        # Away for 17.5 s: psycopg's own tries came at about 1, 3, 7, 15 and then 31 s.
        time.sleep(17.5)
        forwarder = Forwarder(port, target)
        forwarder.start()
        back = time.time()
        for line in site.stdout:
            if line.endswith("ok\n"):
                answered = float(line.split()[0])
                break
        else:
            pytest.fail("the site never reached PostgreSQL again")
        assert answered - back < 6, f"{answered - back:.1f} s after the server was back"
    finally:
        site.kill()
        site.wait(timeout=10)
        if forwarder is not None:
            forwarder.close()
