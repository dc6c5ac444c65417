"""The installable site in Debian's chromium (issue 27): the service worker is installed and
controls the pages, its cache holds static files and the offline page only (checked after a move),
a page that cannot load shows the offline page, the next game and the push offer appear after a
move (never before), and a push message delivered to the registered worker through the DevTools
protocol becomes a notification with the email's one-tap actions, whose page only asks for a
confirmation.
"""

from __future__ import annotations

import json
import re
import time
from urllib.parse import urlsplit

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from games.models import Game, Notice
from games.outbox import push, sending
from games.play.moves import move_submit
from saboteur_site import vapid
from tests.push_service import PushService
from tests.web.test_one_tap import BASE_TO_GOLD  # Cid finishes the row and picks first

from .deals import BASE_DEAL
from .test_game_play import WAIT, pass_turn

# Web push and the caching service worker: only the full Chromium has them (tests/chromium.py).
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.full_chromium]

CACHED_URLS = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) urls.push(request.url);
  }
  return urls;
}"""


SHOWN = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map((n) => ({
    title: n.title, body: n.body, tag: n.tag, actions: n.actions.map((a) => a.title), data: n.data,
  }));
}"""


# The Badging API's calls, recorded (what a browser shows on the installed app's icon).
RECORD_BADGES = """(() => {
  window.badges = [];
  navigator.setAppBadge = (count) => { window.badges.push(count); return Promise.resolve(); };
  navigator.clearAppBadge = () => { window.badges.push(0); return Promise.resolve(); };
})();"""


@pytest.fixture
def push_keys(settings):
    settings.VAPID_PRIVATE_KEY, public = vapid.generate()
    return public


def deliver_push(page, live_server, payload: dict) -> list[dict]:
    """Hand ``payload`` to the page's service worker as a push message (DevTools protocol), and
    return the notifications it then shows."""
    cdp = page.context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 10
    while not registrations and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    [registration] = [r for r in registrations if r["scopeURL"] == f"{live_server.url}/"]
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": live_server.url,
            "registrationId": registration["registrationId"],
            "data": json.dumps(payload),
        },
    )
    shown, deadline = [], time.monotonic() + 10
    while not shown and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        shown = page.evaluate(SHOWN)
    return shown


def controlled(page):
    """Wait until the service worker is active, then load the page again under its control."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=WAIT)


def test_the_worker_caches_static_files_only_and_shows_the_offline_page(
    live_server, make_player, rigged_game, player_page, browser_problems, push_keys
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    first = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="First mine")
    second = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Second mine")
    page = player_page(ann)
    page.add_init_script(RECORD_BADGES)
    page.goto(f"{live_server.url}/games/{first.pk}/")
    controlled(page)
    expect(page).to_have_title(re.compile(r"^\(2\) Your turn – First mine"))
    page.wait_for_function("window.badges.length > 0")
    assert page.evaluate("window.badges") == [2]  # the app's icon counts the waiting games
    assert page.get_by_test_id("push-prompt").count() == 0  # never before a move
    expect(page.get_by_test_id("next-game-link")).to_have_count(0)  # this game is theirs now

    pass_turn(page, "cross")
    offer = page.get_by_test_id("next-game-link")
    expect(offer).to_be_visible(timeout=WAIT)
    expect(offer).to_have_attribute("href", f"/games/{second.pk}/")
    expect(page).to_have_title(re.compile(r"^\(1\) First mine"))
    page.wait_for_function("window.badges[window.badges.length - 1] === 1")
    prompt = page.get_by_test_id("push-prompt")
    expect(prompt).to_be_visible()  # the browser has not been asked yet
    prompt.get_by_role("button", name="Not now").click()
    expect(prompt).to_be_hidden()

    cached = page.evaluate(CACHED_URLS)
    paths = {urlsplit(url).path for url in cached}
    assert "/static/css/site.css" in paths and "/offline/" in paths
    assert all(p.startswith("/static/") or p == "/offline/" for p in paths), sorted(paths)

    page.context.set_offline(True)
    try:
        page.goto(f"{live_server.url}/games/{second.pk}/")
        expect(page.get_by_test_id("offline")).to_be_visible(timeout=WAIT)
    finally:
        page.context.set_offline(False)
    page.goto(f"{live_server.url}/games/{second.pk}/")
    expect(page).to_have_title(re.compile(r"^\(1\) Your turn – Second mine"))
    assert browser_problems.problems == [], browser_problems.problems


def test_a_push_message_becomes_a_notification_with_one_tap_actions(
    live_server, make_player, rigged_game, player_page, browser_problems, push_keys
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Gold mine")
    users = {"0": ann, "1": bob, "2": cid}
    for seat, move in BASE_TO_GOLD:
        game.refresh_from_db()
        move_submit(game_id=game.pk, user=users[seat], move=move, expected_version=game.version)
    game.refresh_from_db()
    notice = Notice.objects.filter(kind=Notice.Kind.TURN, game=game, user=cid).latest("pk")
    with override_settings(SITE_URL=live_server.url):
        payload = push.payload(notice)
    assert len(payload["actions"]) == 3

    page = player_page(cid, permissions=["notifications"])
    controlled(page)
    shown = deliver_push(page, live_server, payload)
    [notification] = shown
    assert notification["title"] == "Your turn in Gold mine"
    assert notification["body"] == "Pick one of the gold cards offered to you."
    assert notification["tag"] == f"game-{game.pk}"
    max_actions = page.evaluate("Notification.maxActions")
    titles = [action["title"] for action in payload["actions"]][:max_actions]
    assert notification["actions"] == titles and titles
    assert notification["data"]["url"] == f"{live_server.url}/games/{game.pk}/"
    targets = notification["data"]["actions"]
    assert len(targets) == len(titles)
    assert all(url.startswith(f"{live_server.url}/tap/") for url in targets.values())

    # What choosing an action opens: the confirmation, and nothing is moved without it.
    version = game.version
    page.goto(targets["tap0"])
    expect(page.get_by_test_id("one-tap-confirm")).to_have_text(titles[0])
    assert Game.objects.get(pk=game.pk).version == version
    paths = {urlsplit(url).path for url in page.evaluate(CACHED_URLS)}
    assert all(p.startswith("/static/") or p == "/offline/" for p in paths), sorted(paths)
    assert browser_problems.problems == [], browser_problems.problems


# A browser here cannot reach a real push service, so ``subscribe()`` gives the subscription of
# the local stand-in (tests/push_service.py); everything else is the page's own code.
FAKE_SUBSCRIBE = """(() => {
  const subscription = %s;
  PushManager.prototype.getSubscription = async function () { return null; };
  PushManager.prototype.subscribe = async function (options) {
    if (!options || !options.userVisibleOnly || !options.applicationServerKey) {
      throw new Error("subscribe() without the site's key");
    }
    return { toJSON: () => subscription, options: options, unsubscribe: async () => true };
  };
})();"""


def test_push_turned_on_in_the_profile_brings_the_next_turn_as_a_notification(
    live_server, make_player, rigged_game, player_page, browser_problems, push_keys
):
    with PushService() as service:
        sub = service.subscribe()
        ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
        game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Deep mine")
        page = player_page(bob, permissions=["notifications"])
        page.add_init_script(FAKE_SUBSCRIBE % json.dumps(sub.json()))
        page.goto(f"{live_server.url}/accounts/profile/")
        page.get_by_test_id("push-enable").click()
        expect(page.get_by_test_id("device")).to_contain_text("(this device)", timeout=WAIT)
        expect(page.get_by_test_id("device")).to_contain_text("Chrome")

        Notice.objects.all().delete()
        move_submit(
            game_id=game.pk, user=ann, expected_version=0,
            move={"move": "pass", "discard": ["cross"]},
        )  # fmt: skip
        notice = Notice.objects.get(kind=Notice.Kind.TURN, user=bob)
        with override_settings(SITE_URL=live_server.url):
            assert sending.send(notice.pk) == "sent"
        [message] = service.to(sub)
        assert message.problems == [] and message.payload["title"] == "Your turn in Deep mine"

        page.goto(f"{live_server.url}/")
        controlled(page)
        [notification] = deliver_push(page, live_server, message.payload)
        assert notification["title"] == "Your turn in Deep mine"
        assert notification["body"] == "Play a card or pass."
        assert notification["actions"] == []  # a turn with the maze: the game opens
        assert notification["data"]["url"] == f"{live_server.url}/games/{game.pk}/"
    assert browser_problems.problems == [], browser_problems.problems
