"""The public API (issue 54; docs/api.md): tokens, the calls, their errors and limits.

Tokens are made on the profile's tokens page, shown once, stored hashed, listed with their last
use and revocable; the API answers a token's calls only (never a session's), with the same
per-seat view and the same move pipeline as the pages.
"""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from ninja import main as ninja_main
from ninja.openapi import schema as ninja_schema

from accounts import relations
from accounts.models import ApiToken
from accounts.tokens import digest_of, token_create
from games import engine
from games.models import Game, Move
from games.play import chat, lobby
from games.play.errors import reason_message
from games.web.api import app as api_app  # the API with every router added
from tests.players import create_player

pytestmark = pytest.mark.django_db


def bearer(text: str) -> dict:
    return {"Authorization": f"Bearer {text}"}


def api(user, scopes=("read", "play", "chat")) -> Client:
    _token, text = token_create(user=user, name="test", scopes=list(scopes))
    return Client(headers=bearer(text))


def started(players):
    game = lobby.game_create(creator=players[0], name="Deep mine", ruleset="base", max_seats=4)
    for user in players[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    return lobby.game_start(game_id=game.pk, user=players[0])


@pytest.fixture
def four(db):
    return [create_player(name) for name in ("ann", "bob", "cid", "dan")]


# -- Tokens ---------------------------------------------------------------------------------


def test_a_token_is_shown_once_stored_hashed_listed_and_revocable(four):
    client = Client()
    client.force_login(four[0])
    answer = client.post("/accounts/tokens/", {"name": "my bot", "scopes": ["read", "play"]})
    assert answer.status_code == 201
    text = re.search(r"sab_[A-Za-z0-9_-]{40,}", answer.content.decode()).group(0)
    assert "no-store" in answer["Cache-Control"]
    token = ApiToken.objects.get(user=four[0])
    assert token.digest == digest_of(text) and text not in str(vars(token))
    assert token.scopes == ["read", "play"] and token.last_used_at is None
    listed = client.get("/accounts/tokens/").content.decode()
    assert "my bot" in listed and text not in listed and token.hint in listed
    assert Client(headers=bearer(text)).get("/api/v1/account").status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 302
    refused = Client(headers=bearer(text)).get("/api/v1/account")
    assert refused.status_code == 401 and refused.json()["code"] == "unauthenticated"


def test_the_same_token_form_sent_twice_makes_one_token(four):
    """The browser's reload of the page that showed a new token sends its form again."""
    client = Client()
    client.force_login(four[0])
    page = client.get("/accounts/tokens/").content.decode()
    key = re.search(r'name="key" value="([^"]+)"', page).group(1)
    form = {"name": "my bot", "scopes": ["read"], "key": key}
    made = client.post("/accounts/tokens/", form)
    assert made.status_code == 201
    fresh_key = re.search(r'name="key" value="([^"]+)"', made.content.decode()).group(1)
    assert fresh_key != key  # the next token's form is a new one
    again = client.post("/accounts/tokens/", form)
    assert again.status_code == 409 and "This form was sent already" in again.content.decode()
    assert re.search(r"sab_[A-Za-z0-9_-]{40,}", again.content.decode()) is None
    assert ApiToken.objects.filter(user=four[0]).count() == 1
    # Another player's form with the same key is theirs: keys are remembered per player.
    other = Client()
    other.force_login(four[1])
    assert other.post("/accounts/tokens/", form).status_code == 201
    assert client.post("/accounts/tokens/", {**form, "key": fresh_key}).status_code == 201
    assert ApiToken.objects.filter(user=four[0]).count() == 2


def test_tokens_refuse_bad_names_scopes_and_others_revoking(four):
    client = Client()
    client.force_login(four[0])
    for data in ({"name": "", "scopes": ["read"]}, {"name": "x", "scopes": ["bot"]},
                 {"name": "x" * 61, "scopes": ["read"]}, {"name": "x"}):  # fmt: skip
        assert client.post("/accounts/tokens/", data).status_code == 422
    assert not ApiToken.objects.exists()
    token, _text = token_create(user=four[1], name="bob's", scopes=["read"])
    assert client.post(f"/accounts/tokens/{token.pk}/revoke/").status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


# -- Authentication, sessions, CSRF -----------------------------------------------------------


def test_a_session_opens_nothing_and_token_calls_need_no_csrf(four):
    session = Client(enforce_csrf_checks=True)
    session.force_login(four[0])
    assert session.get("/api/v1/account").status_code == 401
    made = session.post("/api/v1/games/practice", {"bots": 2}, content_type="application/json")
    assert made.status_code in (401, 403) and not Game.objects.exists()
    _token, text = token_create(user=four[0], name="t", scopes=["read", "play"])
    caller = Client(enforce_csrf_checks=True, headers=bearer(text))
    made = caller.post("/api/v1/games/practice", {"bots": 2}, content_type="application/json")
    assert made.status_code == 201, made.content
    for header in ({}, bearer("sab_nope"), {"Authorization": "Basic abc"}):
        answer = Client(headers=header).get("/api/v1/games")
        assert answer.status_code == 401 and set(answer.json()) == {"code", "message"}


def test_scopes_are_enforced(four):
    reader = api(four[0], scopes=["read"])
    answer = reader.post("/api/v1/games/practice", {"bots": 2}, content_type="application/json")
    assert answer.status_code == 403 and answer.json()["code"] == "scope"
    assert not Game.objects.exists()


# -- Reading and playing --------------------------------------------------------------------


def test_a_game_is_the_seats_own_view_and_a_move_goes_through_the_pipeline(four):
    game = started(four)
    game.refresh_from_db()  # the snapshot as stored (its goals in the database's key order)
    state = engine.State.from_json(game.snapshot)
    mover = next(u for u in four if game.seats.get(user=u).position == state.to_move)
    client = api(mover)
    seen = client.get(f"/api/v1/games/{game.pk}").json()
    seat = state.seats[state.to_move]
    assert seen["view"] == engine.view_for(state, seat) | {}  # the page's own view
    assert seen["me"] == seat and seen["my_turn"] and seen["my_bank_seconds"] == 0
    assert seen["deadline"] is not None  # the clock: when this decision ends
    mine = client.get("/api/v1/games").json()
    assert mine[0]["id"] == game.pk and mine[0]["my_turn"]
    legal = client.get(f"/api/v1/games/{game.pk}/legal").json()
    assert legal["my_turn"] and legal["moves"] == engine.legal_moves(state, seat)
    move = legal["moves"][0]
    body = {"move": move, "version": game.version, "key": "k1"}
    made = client.post(f"/api/v1/games/{game.pk}/moves", body, content_type="application/json")
    assert made.status_code == 200 and made.json()["repeated"] is False
    again = client.post(f"/api/v1/games/{game.pk}/moves", body, content_type="application/json")
    assert again.json()["repeated"] is True and Move.objects.count() == 1
    stale = client.post(
        f"/api/v1/games/{game.pk}/moves", {"move": move, "version": 0},
        content_type="application/json",
    )  # fmt: skip
    assert stale.status_code == 409 and stale.json()["code"] == "stale-version"
    ledger = client.get(f"/api/v1/games/{game.pk}").json()["ledger"]
    assert ledger[0]["round"] == 1 and {row["seat"] for row in ledger[0]["did"]} == set(state.seats)
    log = client.get(f"/api/v1/games/{game.pk}/log").json()
    assert log and log[0]["sequence"] == 1
    others = [u for u in four if u != mover]
    theirs = api(others[0]).get(f"/api/v1/games/{game.pk}/log").json()
    for entry in theirs:  # another seat's private events (the mover's draw) are not theirs
        assert all(e.get("to") in (None, state.seats[game.seats.get(user=others[0]).position])
                   for e in entry["events"])  # fmt: skip


def test_refusals_keep_the_pages_codes_and_messages(four):
    game = started(four)
    state = engine.State.from_json(game.snapshot)
    waiting = next(u for u in four if game.seats.get(user=u).position != state.to_move)
    seat = state.seats[game.seats.get(user=waiting).position]
    hand = state.hands[state.seats.index(seat)]
    move = {"move": "pass", "discard": [hand[0]]}
    answer = api(waiting).post(
        f"/api/v1/games/{game.pk}/moves", {"move": move, "version": game.version},
        content_type="application/json",
    )  # fmt: skip
    assert answer.status_code == 422
    assert answer.json()["code"] == "not-your-decision"
    assert answer.json()["message"] == reason_message("not-your-decision")
    outsider = create_player("otto")
    private = lobby.game_create(
        creator=four[0], name="Closed", ruleset="base", max_seats=4, visibility="invite"
    )
    assert api(outsider).get(f"/api/v1/games/{private.pk}").status_code == 404


@pytest.mark.parametrize(
    "body",
    [b"", b"{", b"[]", b'{"move": 1, "version": 0}', b'{"move": {}, "version": -1}',
     b'{"move": {"move": "place", "card": ["x"]}, "version": 0}',
     b'{"move": {"move": "pass", "discard": "abc"}, "version": 0, "key": "a b"}'],
)  # fmt: skip
def test_bad_input_is_a_json_error_never_a_5xx(four, body):
    game = started(four)
    answer = api(four[0]).post(
        f"/api/v1/games/{game.pk}/moves", body, content_type="application/json"
    )
    assert 400 <= answer.status_code < 500
    assert set(answer.json()) == {"code", "message"}
    assert Move.objects.count() == 0


def test_practice_chat_and_deals(four):
    client = api(four[0])
    made = client.post("/api/v1/games/practice", {"bots": 3}, content_type="application/json")
    game_id = made.json()["id"]
    said = client.post(f"/api/v1/games/{game_id}/chat", {"text": "hello"},
                       content_type="application/json")  # fmt: skip
    assert said.status_code == 201
    assert client.get(f"/api/v1/games/{game_id}/chat").json()[-1]["text"] == "hello"
    assert client.get(f"/api/v1/games/{game_id}/deals/1").status_code == 404  # not over yet


def test_the_chat_leaves_out_the_lines_of_players_the_caller_blocked(four):
    """As on the page (issue 53): a block hides the blocked player's lines for the blocker."""
    game = started(four)
    chat.chat_post(game_id=game.pk, user=four[1], text="from bob")
    chat.chat_post(game_id=game.pk, user=four[2], text="from cid")
    relations.block(four[0], four[1])
    texts = [line["text"] for line in api(four[0]).get(f"/api/v1/games/{game.pk}/chat").json()]
    assert texts == ["from cid"]
    texts = [line["text"] for line in api(four[3]).get(f"/api/v1/games/{game.pk}/chat").json()]
    assert texts == ["from bob", "from cid"]  # a block is the blocker's own


def test_per_token_rate_limits_answer_429_with_retry_after(four, settings):
    client = api(four[0])
    for _ in range(10):
        client.post("/api/v1/games/practice", {"bots": 1}, content_type="application/json")
    answer = client.post("/api/v1/games/practice", {"bots": 2}, content_type="application/json")
    assert answer.status_code == 429 and int(answer["Retry-After"]) > 0
    assert answer.json()["code"] == "too-fast" and not Game.objects.exists()
    other = api(four[0])  # another token of the same player counts apart
    assert other.post("/api/v1/games/practice", {"bots": 2},
                      content_type="application/json").status_code == 201  # fmt: skip


def test_the_docs_and_schema_are_served_without_a_cdn(four):
    schema = Client().get("/api/v1/openapi.json")
    assert schema.status_code == 200 and schema.json()["openapi"].startswith("3.")
    page = Client().get("/api/docs")
    assert page.status_code == 200
    text = page.content.decode()
    assert "/static/ninja/swagger-ui-bundle" in text and "cdn" not in text.lower()


def test_the_schema_is_built_once_and_served_as_built(monkeypatch):
    """Building the OpenAPI schema costs about a tenth of a second of CPU: a process builds it
    once (games/web/api/site.py), and every answer is the schema django-ninja builds."""
    built = ninja_schema.get_schema(api=api_app.api, path_prefix="/api/v1/")
    builds = []

    def counted(**kwargs):
        builds.append(kwargs)
        return ninja_schema.get_schema(**kwargs)

    monkeypatch.setattr(ninja_main, "get_schema", counted)
    vars(api_app.api).pop("_schemas", None)  # as in a process that has not answered yet
    answers = [Client().get("/api/v1/openapi.json").json() for _ in range(3)]
    assert len(builds) == 1 and answers == [json.loads(json.dumps(built))] * 3
    mine = api_app.api.get_openapi_schema()
    mine["paths"].clear()  # a caller's copy is its own
    assert api_app.api.get_openapi_schema()["paths"] and len(builds) == 1


def test_a_method_a_path_does_not_take_is_a_json_405(four):
    answer = api(four[0]).delete("/api/v1/games")
    assert answer.status_code == 405 and answer.json()["code"] == "method"
    assert set(answer["Allow"].replace(" ", "").split(",")) == {"GET", "POST"}
