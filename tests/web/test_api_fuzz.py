"""The whole public API fuzzed from its own OpenAPI schema (schemathesis; issue 54, point 5):
every operation, with bodies, queries and paths drawn from the schema and beyond it, answers
without a server error. The calls carry a token with every scope of a player seated in a
running game, and every path's game is that game: the fuzzed moves, chat lines and lobby calls
reach the real services, not only the 404 of a game that does not exist."""

from __future__ import annotations

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from accounts.tokens import token_create
from games.play import lobby
from games.web.api.app import api
from tests.players import create_player

pytestmark = pytest.mark.django_db

schema = schemathesis.openapi.from_dict(api.get_openapi_schema())
APP = get_wsgi_application()


@pytest.fixture
def kept_connection():
    """The WSGI handler closes the database connection after each request (as Django's test
    client does not): kept open, the calls run inside the test's transaction."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (signals.request_started, signals.request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def seated(db, kept_connection):
    players = [create_player(name) for name in ("ann", "bob", "cid")]
    game = lobby.game_create(creator=players[0], name="Fuzzed", ruleset="base", max_seats=3)
    for user in players[1:]:
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=players[0])
    _token, text = token_create(user=players[0], name="fuzz", scopes=["read", "play", "chat"])
    return game, {"Authorization": f"Bearer {text}"}


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_no_operation_answers_a_server_error(case, seated):
    game, headers = seated
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = game.pk
    response = case.call(app=APP, headers=headers)
    assert response.status_code < 500, (case.method, case.formatted_path, response.text[:500])
    # A path no route matches (a deal number that is not a number) is the site's 404 page;
    # every answer of the API's own routes that refuses is its JSON.
    if response.status_code >= 400 and "json" in response.headers.get("Content-Type", ""):
        assert set(response.json()) == {"code", "message"}, response.text[:300]
