"""A JSON body with text the database cannot store is refused before any view (issue 36, 4).

``POST /accounts/devices/`` (a browser's push subscription, read with ``json.loads`` whatever
its content type) answered 500 to a NUL or a lone surrogate in its body: the 400 guard
(``RefuseUnstorableTextMiddleware``) read paths, queries and form fields, not bodies. Every
route's answer to such a body is checked by the walk of tests/web/test_bad_input.py; here, what
the player's browser gets back and that nothing was stored.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import PushSubscription
from tests.players import create_player
from tests.push_service import PushService

pytestmark = pytest.mark.django_db

CLEAR = "characters the site cannot accept"


@pytest.fixture
def good():
    """A real browser's subscription, as ``PushSubscription.toJSON()`` gives it."""
    with PushService() as service:
        return service.subscribe().json()


@pytest.fixture
def client():
    client = Client(raise_request_exception=False)
    client.force_login(create_player("ann"))
    return client


def bodies(good: dict, bad: str) -> list[str]:
    """``bad`` (a JSON escape) in each place of an otherwise good subscription."""
    text = json.dumps(good)
    endpoint = good["endpoint"]
    return [
        text.replace(endpoint, endpoint + bad),
        text.replace('"auth"', f'"auth{bad}"'),
        text.replace('"keys"', f'"note": ["{bad}"], "keys"'),  # a field the view ignores
        text[:-1] + f', "{bad}": {{"deep": [[["{bad}"]]]}}}}',
    ]


@pytest.mark.parametrize("bad", ["\\u0000", "\\ud800"], ids=["nul", "lone-surrogate"])
def test_a_push_subscription_with_unstorable_text_gets_a_clear_json_400(client, good, bad):
    for body in bodies(good, bad):
        json.loads(body)  # the test's own check: each is valid JSON
        response = client.post("/accounts/devices/", body, content_type="application/json")
        assert response.status_code == 400, body
        assert CLEAR in response.json()["error"], body
        # The view reads the body whatever its type: so does the guard (the page says it).
        response = client.post("/accounts/devices/", body, content_type="text/plain")
        assert response.status_code == 400 and CLEAR in response.content.decode(), body
    assert not PushSubscription.objects.exists()
    # The same subscription without them is kept: the guard refuses only what it must.
    response = client.post("/accounts/devices/", json.dumps(good), content_type="application/json")
    assert response.status_code == 201 and PushSubscription.objects.count() == 1


def test_a_raw_nul_byte_in_a_body_is_refused_with_the_clear_page(client):
    response = client.post("/games/", b"name=a\x00b", content_type="text/plain")
    assert response.status_code == 400
    assert CLEAR in response.content.decode()


def test_bodies_without_such_text_pass_through(client, good):
    """A body that is no JSON, a deeply nested one, or a form: the views decide as before."""
    response = client.post("/accounts/devices/", b"not json", content_type="application/json")
    assert response.status_code == 400 and CLEAR not in response.json()["error"]
    deep = "[" * 100_000 + "]" * 100_000
    response = client.post("/accounts/devices/", deep, content_type="application/json")
    assert response.status_code == 400 and CLEAR not in response.json()["error"]
    assert client.post("/accounts/profile/", {"display_name": ""}).status_code == 422
