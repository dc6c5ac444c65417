"""The installable site and push over HTTP (issue 27): the manifest, the service worker and the
offline page, turning push on and removing devices, the profile's choices, /health/, the next
game after a move and the count of waiting games in the tab's title.

The browser side (the worker installed, its cache, a push delivered to it) is in
tests/e2e/test_installable.py.
"""

from __future__ import annotations

import json
import os
import re

import pytest
from django.contrib.staticfiles import finders
from django.test import Client
from django.urls import reverse

from accounts import devices
from accounts.models import PushSubscription
from games import engine
from games.models import Game
from games.play.lobby import game_create, game_start, seat_join
from games.play.moves import move_submit
from saboteur_site import vapid
from tests.push_service import PushService
from tests.web.test_settings_guard import production_env, run_manage

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def push_on(settings):
    settings.VAPID_PRIVATE_KEY, public = vapid.generate()
    return public


@pytest.fixture
def service():
    with PushService() as running:
        yield running


@pytest.fixture
def players(make_user):
    return [make_user(name) for name in ("ann", "bob", "cid", "dan")]


def logged_in(user, **kwargs):
    client = Client(**kwargs)
    client.force_login(user)
    return client


def start_game(players, name="Deep mine"):
    game = game_create(creator=players[0], name=name, ruleset="base", max_seats=len(players))
    for user in players[1:]:
        seat_join(game_id=game.pk, user=user)
    return game_start(game_id=game.pk, user=players[0])


def to_move(game):
    game.refresh_from_db()
    seat = game.seats.select_related("user").get(position=game.to_move)
    return seat, engine.State.from_json(game.snapshot)


# -- Manifest, service worker, offline page ------------------------------------------------------


@pytest.mark.parametrize("page", ["home", "lobby", "game"])
def test_pages_link_the_manifest_and_register_the_worker(players, page):
    game = start_game(players[:3])
    url = reverse(page, args=[game.pk]) if page == "game" else reverse(page)
    response = logged_in(players[0]).get(url)
    body = response.content.decode()
    assert response.status_code == 200
    assert '<link rel="manifest" href="/manifest.webmanifest">' in body
    assert '<meta name="theme-color" content="#1f1a17">' in body
    nonce = re.search(r"'nonce-([^']+)'", response["Content-Security-Policy"]).group(1)
    assert f'src="/static/js/pwa.js" nonce="{nonce}" data-worker="/sw.js" defer' in body


def test_the_manifest_makes_the_site_installable():
    response = Client().get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert manifest["name"] == "Saboteur" and manifest["short_name"] == "Saboteur"
    assert manifest["start_url"] == reverse("home") == "/"  # "My games" when logged in
    assert manifest["display"] == "standalone" and manifest["scope"] == "/"
    assert manifest["theme_color"] == "#1f1a17"
    sizes = {icon["sizes"] for icon in manifest["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        assert finders.find(icon["src"].removeprefix("/static/")), icon
    czech = Client(headers={"Accept-Language": "cs"}).get("/manifest.webmanifest")
    assert json.loads(czech.content)["lang"] == "cs"


def worker_constants(source: str) -> dict:
    return {
        name: json.loads(value)
        for name, value in re.findall(r"^const (\w+) = (.+);$", source, re.M)
        if name in ("OFFLINE", "ASSETS", "STATIC")
    }


def test_the_worker_is_served_from_the_root_and_caches_only_static_files(players):
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/"
    assert "no-cache" in response["Cache-Control"]
    assert "Content-Security-Policy" in response
    source = response.content.decode()
    constants = worker_constants(source)
    assert constants["OFFLINE"] == "/offline/" and constants["STATIC"] == "/static/"
    for asset in constants["ASSETS"]:
        assert asset.startswith("/static/"), asset
        assert finders.find(asset.removeprefix("/static/")), asset
    for own in ("css/site.css", "css/table.css", "js/game.js", "js/pwa.js", "js/next_game.js"):
        assert f"/static/{own}" in constants["ASSETS"]
    # One place puts responses in the cache: the static-file branch (the install step adds the
    # list above); pages, partials and polls are never cached.
    assert source.count("cache.put(") == 1 and source.count("cache.addAll(") == 1
    assert re.search(
        r"url\.pathname\.startsWith\(STATIC\)\) \{\s+event\.respondWith\(asset", source
    )
    # A new deploy (other assets or code) is a new cache.
    cache = re.search(r'const CACHE = "saboteur-([0-9a-f]{12})";', source)
    assert cache
    logged = logged_in(players[0]).get("/sw.js").content.decode()
    assert logged == source  # nothing of the player in it


def test_the_offline_page_is_the_same_for_everyone(players):
    game = start_game(players[:3])
    anonymous = Client().get("/offline/")
    player = logged_in(players[0]).get("/offline/")
    assert anonymous.status_code == player.status_code == 200
    assert anonymous.content == player.content  # cached by the worker: nothing personal
    body = player.content.decode()
    assert "You are offline" in body and players[0].display_name not in body
    assert game.name not in body and "csrf" not in body.lower()


# -- Devices -------------------------------------------------------------------------------------


def test_a_browser_turns_push_on_and_the_profile_lists_and_removes_it(players, push_on, service):
    ann, bob = players[:2]
    client = logged_in(ann, enforce_csrf_checks=True)
    page = client.get(reverse("profile")).content.decode()
    assert f'data-push-key="{push_on}"' in page and 'data-testid="push-enable"' in page
    token = client.cookies["csrftoken"].value
    sub = service.subscribe()
    response = client.post(
        "/accounts/devices/",
        json.dumps(sub.json()),
        content_type="application/json",
        headers={"X-CSRFToken": token, "User-Agent": "Mozilla/5.0 (Android 15) Firefox/140.0"},
    )
    assert response.status_code == 201, response.content
    device = PushSubscription.objects.get(user=ann)
    assert device.endpoint == sub.endpoint and device.label == "Firefox on Android"
    cookie = response.cookies[devices.COOKIE]
    assert cookie.value == device.device_key and cookie["httponly"]
    page = client.get(reverse("profile")).content.decode()
    assert "Firefox on Android" in page and "(this device)" in page
    # Nobody else can remove it; its owner can (POST only).
    other = logged_in(bob)
    assert other.post(reverse("device_remove", args=[device.pk])).status_code == 404
    assert client.get(reverse("device_remove", args=[device.pk])).status_code == 405
    response = client.post(
        reverse("device_remove", args=[device.pk]), headers={"X-CSRFToken": token}
    )
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    assert not PushSubscription.objects.exists()


def test_subscribing_needs_a_login_csrf_and_a_post(players, service):
    body = json.dumps(service.subscribe().json())
    anonymous = Client().post("/accounts/devices/", body, content_type="application/json")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]
    strict = logged_in(players[0], enforce_csrf_checks=True)
    assert (
        strict.post("/accounts/devices/", body, content_type="application/json").status_code == 403
    )
    assert logged_in(players[0]).get("/accounts/devices/").status_code == 405
    assert not PushSubscription.objects.exists()


def test_a_malformed_subscription_is_refused_with_a_clear_message(players, service):
    client = logged_in(players[0])
    good = service.subscribe().json()
    bad = [
        b"not json",
        b"[]",
        json.dumps({"endpoint": good["endpoint"]}).encode(),
        json.dumps({**good, "endpoint": "javascript:alert(1)"}).encode(),
        json.dumps({**good, "endpoint": 5}).encode(),
        json.dumps({**good, "endpoint": "https://x/" + "a" * 1000}).encode(),
        json.dumps({**good, "keys": {**good["keys"], "p256dh": "AAAA"}}).encode(),
        json.dumps({**good, "keys": {**good["keys"], "p256dh": "BA" + "A" * 85}}).encode(),
        json.dumps({**good, "keys": {**good["keys"], "auth": "short"}}).encode(),
    ]  # a NUL in it is refused before the view (tests/web/test_bad_json.py)
    for body in bad:
        response = client.post("/accounts/devices/", body, content_type="application/json")
        assert response.status_code == 400, body
        assert "cannot be used" in response.json()["error"]
    assert not PushSubscription.objects.exists()


def test_production_accepts_only_the_push_services_it_knows(players, service, settings):
    settings.PUSH_ANY_HOST = False
    client = logged_in(players[0])
    keys = service.subscribe().json()["keys"]
    for endpoint in (
        "http://fcm.googleapis.com/fcm/send/x",  # not https
        "https://127.0.0.1/push/x",  # the site's own network
        "https://evil.example/fcm.googleapis.com",
        "https://fcm.googleapis.com.evil.example/x",
        "https://fcm.googleapis.com:8443/x",
    ):
        body = {"endpoint": endpoint, "keys": keys}
        response = client.post("/accounts/devices/", body, content_type="application/json")
        assert response.status_code == 400, endpoint
        assert "not one the site knows" in response.json()["error"]
    # Addresses the allow-list's parser and the sender's (urllib3, through requests) read
    # differently, or that hide a host in userinfo: refused whatever the host looks like.
    for endpoint in (
        "https://127.0.0.1:8113\\@fcm.googleapis.com/x",  # urllib3 connects to 127.0.0.1:8113
        "https://fcm.googleapis.com@127.0.0.1/x",
        "https://fcm.googleapis.com:443@127.0.0.1/x",
        "https://user:pw@fcm.googleapis.com/x",
        "https://fcm.googleapis.com%2f@127.0.0.1/x",
        "https://fcm.googleapis.com\t/x",
        "https://fcm.googleapis.com /x",
        "https://fcm.googleapis.com/x\\y",
        "https://fcm.googleapis.com\u3002evil.example/x",
    ):
        body = {"endpoint": endpoint, "keys": keys}
        response = client.post("/accounts/devices/", body, content_type="application/json")
        assert response.status_code == 400, endpoint
        assert "cannot be used" in response.json()["error"]
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/abc",
        "https://updates.push.services.mozilla.com/wpush/v2/abc",
        "https://web.push.apple.com/abc",
        "https://wns2-par02p.notify.windows.com/w/?token=abc",
    ):
        body = {"endpoint": endpoint, "keys": keys}
        assert (
            client.post("/accounts/devices/", body, content_type="application/json").status_code
            == 201
        )
    assert PushSubscription.objects.count() == 4


def test_a_browser_belongs_to_the_last_player_who_subscribed_it(players, service):
    sub = service.subscribe().json()
    ann, bob = logged_in(players[0]), logged_in(players[1])
    assert ann.post("/accounts/devices/", sub, content_type="application/json").status_code == 201
    assert bob.post("/accounts/devices/", sub, content_type="application/json").status_code == 201
    assert list(PushSubscription.objects.values_list("user", flat=True)) == [players[1].pk]


def test_a_player_has_at_most_twenty_devices(players, service):
    client = logged_in(players[0])
    for _ in range(devices.MAX_DEVICES):
        sub = service.subscribe().json()
        assert (
            client.post("/accounts/devices/", sub, content_type="application/json").status_code
            == 201
        )
    response = client.post(
        "/accounts/devices/", service.subscribe().json(), content_type="application/json"
    )
    assert response.status_code == 400 and "Remove one first" in response.json()["error"]
    assert PushSubscription.objects.count() == devices.MAX_DEVICES


def test_without_keys_the_profile_says_push_is_off(players, settings):
    settings.VAPID_PRIVATE_KEY = ""
    page = logged_in(players[0]).get(reverse("profile")).content.decode()
    assert 'data-testid="push-off"' in page and "data-push-key" not in page


def test_the_profile_saves_the_new_choices(players):
    ann = players[0]
    client = logged_in(ann)
    data = {
        "display_name": ann.display_name, "language": "", "time_zone": "UTC",
        "quiet_from": "", "quiet_until": "", "email_waits_for_push": "on", "next_game_auto": "on",
    }  # fmt: skip
    assert client.post(reverse("profile"), data).status_code == 302
    ann.refresh_from_db()
    assert ann.email_waits_for_push and ann.next_game_auto
    del data["email_waits_for_push"], data["next_game_auto"]
    client.post(reverse("profile"), data)
    ann.refresh_from_db()
    assert not ann.email_waits_for_push and not ann.next_game_auto


# -- Health --------------------------------------------------------------------------------------


def push_health(client) -> str:
    results = client.get("/health/?format=json").json()
    [(name, value)] = [(k, v) for k, v in results.items() if k.startswith("WebPush")]
    assert value == "OK"  # push off is not a failure: the site works without it
    return name


def test_health_says_whether_push_is_on(client, settings):
    settings.VAPID_PRIVATE_KEY = ""
    assert push_health(client) == "WebPush(state='off: VAPID_PRIVATE_KEY is not set')"
    settings.VAPID_PRIVATE_KEY = "not a key"
    assert push_health(client) == "WebPush(state='off: VAPID_PRIVATE_KEY is not a valid key')"
    settings.VAPID_PRIVATE_KEY, _public = vapid.generate()
    assert push_health(client) == "WebPush(state='on')"


# -- The next game, and the count of waiting games ------------------------------------------------


def pass_move(client, game, state, **extra):
    return client.post(
        reverse("move", args=[game.pk]),
        {"version": game.version, "key": f"k{game.version}", "kind": "pass", "discard": ["0"]},
        **extra,
    )


def games_waiting_for(user, players, count):
    """``count`` running games in which ``user`` decides now, the oldest first."""
    games = []
    while len(games) < count:
        game = start_game([user, *[p for p in players if p != user][:2]], f"Mine {len(games)}")
        seat, _state = to_move(game)
        if seat.user == user:
            games.append(game)
        else:
            Game.objects.filter(pk=game.pk).delete()
    return games


def test_after_a_move_the_page_offers_the_oldest_game_waiting(players, push_on):
    ann = players[0]
    first, second, third = games_waiting_for(ann, players, 3)
    client = logged_in(ann)
    page = client.get(reverse("game", args=[first.pk])).content.decode()
    assert 'id="next-game"' in page and "next-game-link" not in page  # my turn here: no offer
    assert "data-push-prompt" not in page  # never before a move
    assert "<title>(3) Your turn – Mine 0 · Saboteur</title>" in page
    _seat, state = to_move(first)
    response = pass_move(client, first, state, headers=HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    offer = re.search(r'<div id="next-game"[^>]*hx-swap-oob="true"[^>]*>(.*?)</div>', body, re.S)
    assert offer and f'href="/games/{second.pk}/"' in offer.group(1)  # the oldest, not the third
    assert "Mine 1 waits for your decision." in offer.group(1)
    assert "data-go" not in offer.group(1)
    assert "<title>(2) Mine 0 · Saboteur</title>" in body
    assert 'data-push-prompt data-push-key="' + push_on + '"' in body  # now, after the move
    # Opening the game again later shows the offer, not the push prompt.
    page = client.get(reverse("game", args=[first.pk])).content.decode()
    assert f'href="/games/{second.pk}/" data-testid="next-game-link"' in page
    assert "data-push-prompt" not in page


def test_a_player_who_chose_so_goes_on_to_the_next_game(players):
    ann = players[0]
    ann.next_game_auto = True
    ann.save()
    first, second = games_waiting_for(ann, players, 2)
    client = logged_in(ann)
    _seat, state = to_move(first)
    body = pass_move(client, first, state, headers=HTMX).content.decode()
    assert f'data-go="/games/{second.pk}/"' in body
    # A poll (no move of theirs) never sends them away.
    poll = client.get(reverse("game_poll", args=[first.pk]) + "?v=-1", headers=HTMX)
    assert "data-go" not in poll.content.decode()


def test_without_push_keys_no_prompt_after_a_move(players, settings):
    settings.VAPID_PRIVATE_KEY = ""
    ann = players[0]
    [game] = games_waiting_for(ann, players, 1)
    _seat, state = to_move(game)
    body = pass_move(logged_in(ann), game, state, headers=HTMX).content.decode()
    assert "data-push-prompt" not in body
    assert "<title>Deep mine" not in body and "<title>Mine 0 · Saboteur</title>" in body


def test_the_title_counts_waiting_games_on_every_page(players):
    game = start_game(players[:3])
    seat, state = to_move(game)
    client = logged_in(seat.user)
    assert "<title>(1) My games · Saboteur</title>" in client.get("/").content.decode()
    assert "<title>(1) Games · Saboteur</title>" in client.get("/games/").content.decode()
    other = logged_in(game.seats.exclude(pk=seat.pk).first().user)
    assert "<title>My games · Saboteur</title>" in other.get("/").content.decode()
    move_submit(
        game_id=game.pk, user=seat.user, expected_version=game.version,
        move={"move": "pass", "discard": [state.hands[state.to_move][0]]},
    )  # fmt: skip
    assert "<title>My games · Saboteur</title>" in client.get("/").content.decode()


def test_production_starts_without_push_keys_and_says_so():
    code = (
        "from django.test import Client; "
        "r = Client().get('/health/?format=json', HTTP_HOST='saboteur.example'); "
        "print([k for k in r.json() if k.startswith('WebPush')][0])"
    )
    database = os.environ["DATABASE_URL"].rsplit("/", 1)[0] + "/postgres"
    off = run_manage(
        ["shell", "-c", code], **production_env(DATABASE_URL=database, VAPID_PRIVATE_KEY=None)
    )
    assert off.returncode == 0, off.stderr
    assert off.stdout.splitlines()[-1] == "WebPush(state='off: VAPID_PRIVATE_KEY is not set')"
    key, _public = vapid.generate()
    on = run_manage(
        ["shell", "-c", code], **production_env(DATABASE_URL=database, VAPID_PRIVATE_KEY=key)
    )
    assert on.returncode == 0, on.stderr
    assert on.stdout.splitlines()[-1] == "WebPush(state='on')"
