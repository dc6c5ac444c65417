"""The public API as deployed (issue 54): its calls through the proxy to gunicorn, its NDJSON
streams through the proxy to uvicorn (README's route, as the pages' live streams), a move made
by the API reaching an open game stream, and the browsable docs' collected static files."""

from __future__ import annotations

import http.client
import json
import re
import urllib.request
import uuid
from urllib.error import HTTPError
from urllib.parse import urlsplit

PASSWORD = "a-long-and-unusual-password"

SET_UP = """
import json, os
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from accounts.tokens import token_create
from games.play import lobby

users, tokens = [], {}
for name in ("fili", "kili", "bofur"):  # names no other production test takes
    user = get_user_model().objects.create_user(
        username=name, email=f"{name}@example.com", display_name=name.capitalize(),
        password=os.environ["PLAYER_PASSWORD"],
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    users.append(user)
    tokens[name] = token_create(user=user, name="api", scopes=["read", "play"])[1]
game = lobby.game_create(creator=users[0], name="Scripted mine", ruleset="base", max_seats=3)
for user in users[1:]:
    lobby.seat_join(game_id=game.pk, user=user)
lobby.game_start(game_id=game.pk, user=users[0])
print(json.dumps({"game": game.pk, "tokens": tokens}))
"""


def call(origin: str, token: str, method: str, path: str, body: dict | None = None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(  # noqa: S310 - our own origin
        origin + path, data=data, method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
            return response.status, json.loads(response.read())
    except HTTPError as error:
        return error.code, json.loads(error.read())


class Stream:
    """An NDJSON stream read line by line over one connection."""

    def __init__(self, origin: str, token: str, path: str):
        parts = urlsplit(origin)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.conn.getresponse()

    def next(self) -> dict:
        while True:
            line = self.response.readline()
            assert line, "the stream ended"
            if line.strip():  # a blank line is the heartbeat
                return json.loads(line)

    def close(self) -> None:
        self.conn.close()


def test_the_api_answers_and_its_streams_come_from_the_asgi_process(stack):
    done = stack.manage("shell", "-c", SET_UP, name="api-set-up", PLAYER_PASSWORD=PASSWORD)
    made = json.loads(done.stdout.strip().splitlines()[-1])
    game, tokens = made["game"], made["tokens"]
    status, me = call(stack.origin, tokens["kili"], "GET", "/api/v1/account")
    assert status == 200 and me["display_name"] == "Kili"

    watched = Stream(stack.origin, tokens["kili"], f"/api/v1/games/{game}/stream")
    try:
        assert watched.response.status == 200
        assert watched.response.getheader("Content-Type") == "application/x-ndjson"
        first = watched.next()
        assert first["type"] == "game" and first["game"]["version"] == 0
        mover = next(
            name for name, token in tokens.items()
            if call(stack.origin, token, "GET", f"/api/v1/games/{game}/legal")[1]["moves"]
        )  # fmt: skip
        legal = call(stack.origin, tokens[mover], "GET", f"/api/v1/games/{game}/legal")[1]
        move = {"move": legal["moves"][0], "version": legal["version"], "key": uuid.uuid4().hex}
        moves = f"/api/v1/games/{game}/moves"
        status, answer = call(stack.origin, tokens[mover], "POST", moves, move)
        assert status == 200, answer
        after = watched.next()
        assert after["type"] == "game" and after["game"]["version"] == 1
        assert after["game"]["view"]["me"]["hand"]  # Kili's own hand, on Kili's stream
    finally:
        watched.close()
    streamed = stack.proxy.to("uvicorn", rf"^/api/v1/games/{game}/stream$")
    assert streamed and all(a.status == 200 for a in streamed), streamed
    assert not stack.proxy.to("gunicorn", r"/stream$")
    assert stack.proxy.to("gunicorn", r"^/api/v1/account$")


def test_the_api_docs_load_their_collected_static_files(stack):
    with urllib.request.urlopen(f"{stack.origin}/api/docs", timeout=30) as page:  # noqa: S310
        assert page.status == 200
        text = page.read().decode()
    assets = re.findall(r'(?:href|src)="(/static/[^"]+)"', text)
    assert assets, text[:2000]
    for asset in assets:
        with urllib.request.urlopen(stack.origin + asset, timeout=30) as found:  # noqa: S310
            assert found.status == 200, asset
