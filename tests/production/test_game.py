"""Three people use the production site as they would: one signs up and verifies the address
through the link emailed to the SMTP server, the three log in, one turns on notifications, they
create, join and start a game, play ten moves and chat, each page following the others through
its live stream (served by uvicorn behind the proxy) without a reload, and a page that cannot
load shows the offline page.

Everything runs in the stack of tests/production/conftest.py; the test fails on any console
error, 5xx answer or bad log line on the way (``browser_problems``, ``_no_production_problems``).
"""

from __future__ import annotations

import json
import re
import time

import pytest
from playwright.sync_api import expect

from games.engine.cards import CATALOGUE, PATH
from tests.e2e.test_game_play import made, select_card, settled, version

from .stack import text_of, wait_until

PASSWORD = "a-long-and-unusual-password"
GAME = "Production mine"
WAIT = 20_000  # an htmx swap or a page load on a machine whose cores other runs keep busy
# A move reaches the other pages through their live streams: while a stream is open the page's
# 10-second poll is skipped (a safety poll comes once a minute), so this is the stream's doing.
LIVE_WAIT = 20_000
MOVES = 10
# Path cards are laid on the first moves only: the goals are 8 columns away, so 6 cards cannot
# reach one and the round (a one-round game) cannot end before the tenth move.
PLACED_MOVES = 6

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

SHOWN = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map((n) => ({
    title: n.title, body: n.body, tag: n.tag, data: n.data,
  }));
}"""


# -- People -----------------------------------------------------------------------------------


def sign_up(page, origin, *, name, email):
    page.goto(origin)
    page.get_by_role("main").get_by_role("link", name="Sign up").click()
    page.get_by_label("Display name").fill(name)
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_label("Password (again):").fill(PASSWORD)
    page.get_by_role("button", name="Sign Up").click()
    expect(page.get_by_role("heading", name="Verify Your Email Address")).to_be_visible()


def log_in(page, origin, *, email, name):
    page.goto(f"{origin}/accounts/login/")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign In").click()
    page.wait_for_url(f"{origin}/")
    expect(page.get_by_test_id("display-name")).to_have_text(name)


CREATE_PLAYERS = """
import os
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model

for name in ("balin", "dwalin", "gloin"):  # Gloin watches the game without a seat
    user = get_user_model().objects.create_user(
        username=name, email=f"{name}@example.com", display_name=name.capitalize(),
        password=os.environ["PLAYER_PASSWORD"],
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
"""


# -- The service worker and push --------------------------------------------------------------


def controlled(page):
    """Wait until the service worker is active, then load the page again under its control."""
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=WAIT)


def deliver_push(page, origin, payload: dict) -> list[dict]:
    """Hand ``payload`` to the page's service worker as a push message (DevTools protocol: the
    browser cannot reach a push service here), and return the notifications it then shows."""
    cdp = page.context.new_cdp_session(page)
    registrations = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda event: registrations.extend(event["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    deadline = time.monotonic() + 20
    while not registrations and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    [registration] = [r for r in registrations if r["scopeURL"] == f"{origin}/"]
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {
            "origin": origin,
            "registrationId": registration["registrationId"],
            "data": json.dumps(payload),
        },
    )
    shown, deadline = [], time.monotonic() + 20
    while not shown and time.monotonic() < deadline:
        page.wait_for_timeout(100)
        shown = page.evaluate(SHOWN)
    return shown


# -- The game page ----------------------------------------------------------------------------


def turn_line(page) -> str:
    return page.get_by_test_id("turn-line").inner_text()


def stream_open(page):
    expect(page.locator("script[data-live-url]")).to_have_attribute(
        "data-state", "open", timeout=WAIT
    )


# Every change of the stream's state from now on (static/js/live.js: "open", "closed" when it
# fails and the page polls instead, "ended"). Staying open all along means the moves came through
# it: while it is healthy the page skips its 10-second poll.
WATCH_STREAM = """() => {
  window.streamStates = [];
  const script = document.querySelector("script[data-live-url]");
  new MutationObserver(() => window.streamStates.push(script.dataset.state))
    .observe(script, {attributes: true, attributeFilter: ["data-state"]});
}"""


def whose_turn(pages: dict) -> str:
    """The name of the player whose page says it is their decision."""

    def mover():
        deciding = [name for name, page in pages.items() if "Your decision." in turn_line(page)]
        return deciding[0] if len(deciding) == 1 else None

    return wait_until(mover, timeout=LIVE_WAIT / 1000, what="one page saying 'Your decision.'")


def place_a_path_card(page) -> tuple[int, int] | None:
    """Lay the first path card of the hand on the first spot the page offers; None (nothing
    done) when no path card of the hand fits anywhere."""
    cards = page.locator("#play a.hand-card[data-card]").evaluate_all(
        "links => links.map((link) => link.dataset.card)"
    )
    paths = [card for card in cards if CATALOGUE[card].kind == PATH]
    if not paths:
        return None
    select_card(page, paths[0])
    spots = page.locator("a.maze__spot")
    if spots.count() == 0:
        page.get_by_test_id("cancel").click()
        expect(page.get_by_test_id("pass-choice")).to_have_count(1, timeout=WAIT)
        settled(page)
        return None
    at = spots.first.get_attribute("data-at")
    spots.first.click()
    confirm = page.locator(f'button.maze__spot--chosen[value="{at}"]')
    expect(confirm).to_have_count(1, timeout=WAIT)
    before = version(page)
    confirm.click()
    made(page, before)
    x, y = (int(n) for n in at.split(","))
    return x, y


def pass_turn(page):
    page.get_by_test_id("pass-choice").locator("summary").click()
    page.get_by_test_id("pass-choice").locator('input[name="discard"]').first.check()
    before = version(page)
    page.get_by_test_id("pass").click()
    made(page, before)


def cell(page, x, y):
    return page.locator(f'td.maze__cell[data-x="{x}"][data-y="{y}"] svg')


# -- The test ---------------------------------------------------------------------------------


@pytest.mark.full_chromium  # web push and the service worker (tests/chromium.py)
def test_three_people_sign_up_play_chat_and_get_a_notification(stack, new_page, browser_problems):
    """The whole visit, on the production stack: sign-up with the emailed link, log-in, push
    turned on (the worker pushes the game's start to the push service; the service worker shows
    it), a game created, joined and started through the pages, ten moves each seen live on the
    other two pages, a chat message seen live, a log-out (gunicorn) ending that session's stream
    (uvicorn) at once, the offline page."""
    origin = stack.origin

    # Thorin signs up; the worker is not involved: the confirmation goes out with the request.
    thorin = new_page("Thorin")
    sign_up(thorin, origin, name="Thorin", email="thorin@example.com")
    message = stack.mail.wait_for(
        lambda m: "thorin@example.com" in m["To"] and "confirm-email" in text_of(m),
        timeout=30,
        what="with Thorin's confirmation link",
    )
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+", text_of(message)).group(0)
    assert link.startswith(f"{origin}/"), link  # SITE_URL's scheme, host and port
    mail_app = new_page("Thorin's mail app")  # the link opened elsewhere, as a stranger
    mail_app.goto(link)
    mail_app.get_by_role("button", name="Confirm").click()
    expect(mail_app.get_by_role("main")).to_contain_text("confirmed", timeout=WAIT)
    log_in(thorin, origin, email="thorin@example.com", name="Thorin")

    # Balin and Dwalin have accounts already (made on the production database's shell).
    stack.manage("shell", "-c", CREATE_PLAYERS, name="create-players", PLAYER_PASSWORD=PASSWORD)
    balin = new_page("Balin")
    log_in(balin, origin, email="balin@example.com", name="Balin")
    subscription = stack.push.subscribe()
    dwalin = new_page("Dwalin", permissions=["notifications"])
    dwalin.add_init_script(FAKE_SUBSCRIBE % json.dumps(subscription.json()))
    log_in(dwalin, origin, email="dwalin@example.com", name="Dwalin")

    # Dwalin turns on notifications on his device.
    dwalin.goto(f"{origin}/accounts/profile/")
    dwalin.get_by_test_id("push-enable").click()
    expect(dwalin.get_by_test_id("device")).to_contain_text("(this device)", timeout=WAIT)

    # Thorin creates a three-seat game; the others join; Thorin starts it.
    thorin.goto(f"{origin}/games/")
    form = thorin.locator("form[data-create-game]")  # the lobby's filters have a rule set too
    form.get_by_label("Rule set").select_option("base")
    form.get_by_label("Rounds").select_option("1")
    form.get_by_label("Name").fill(GAME)
    form.get_by_label("Number of players").fill("3")
    form.get_by_role("button", name="Create").click()
    expect(thorin.locator("h1")).to_have_text(GAME, timeout=WAIT)
    url = thorin.url
    assert re.fullmatch(rf"{re.escape(origin)}/games/\d+/", url), url
    for page in (balin, dwalin):
        page.goto(url)
        page.get_by_role("button", name="Join this game").click()
        expect(page.get_by_role("button", name="Leave")).to_be_visible(timeout=WAIT)
    thorin.goto(url)
    thorin.get_by_role("button", name="Start the game").click()
    expect(thorin.get_by_test_id("turn-line")).to_be_visible(timeout=WAIT)
    # The cards are drawn from collectstatic's hashed copy of static/cards.svg, and drawn indeed.
    href = thorin.locator(".hand-card use").first.get_attribute("href")
    assert re.fullmatch(r"/static/cards\.[0-9a-f]{12}\.svg#[\w-]+", href), href
    sprite = thorin.request.get(origin + href.split("#")[0])
    assert sprite.status == 200 and "image/svg+xml" in sprite.headers["content-type"]
    thorin.wait_for_function(
        "() => document.querySelector('.hand-card use').getBBox().width > 0", timeout=WAIT
    )

    # The worker tells everyone: Dwalin by push (his turn, or the start), Balin by email.
    pushed = wait_until(
        lambda: stack.push.to(subscription),
        timeout=60,
        what="the worker's push to Dwalin's device",
    )
    push = pushed[0]
    assert push.problems == [], push.problems
    assert GAME in push.payload["title"], push.payload
    told = stack.mail.wait_for(
        lambda m: "balin@example.com" in m["To"] and GAME in (m["Subject"] + text_of(m)),
        timeout=60,
        what=f"to Balin about {GAME}",
    )
    assert url in text_of(told), text_of(told)  # the game's link, on SITE_URL
    dwalin.goto(url)
    controlled(dwalin)
    [notification] = deliver_push(dwalin, origin, push.payload)
    assert notification["title"] == push.payload["title"]
    assert notification["data"]["url"] == url

    # The three pages stay open from here on: every change comes through the live streams.
    pages = {"Thorin": thorin, "Balin": balin, "Dwalin": dwalin}
    for page in (thorin, balin):
        page.goto(url)
    for page in pages.values():
        stream_open(page)
        page.evaluate(WATCH_STREAM)
        page.evaluate("window.sameDocument = true")  # gone if the page is ever reloaded
    # Gloin watches: uvicorn carries his page each move's part in its stream (games/web/live.py),
    # so his page need not ask gunicorn for them.
    gloin = new_page("Gloin")
    log_in(gloin, origin, email="gloin@example.com", name="Gloin")
    gloin.goto(url)
    stream_open(gloin)
    gloin_asked = []
    gloin.on("response", lambda r: "/poll/" in r.url and r.status != 204 and gloin_asked.append(r))

    placed = []
    for move in range(MOVES):
        name = whose_turn(pages)
        page = pages[name]
        spot = place_a_path_card(page) if move < PLACED_MOVES else None
        if spot is None:
            pass_turn(page)
        else:
            placed.append(spot)
        waiting = re.search(r"Waiting for (\w+)\.", turn_line(page))
        assert waiting, turn_line(page)
        following = waiting.group(1)
        for other, other_page in pages.items():
            if other == name:
                continue
            said = "Your decision." if other == following else f"Waiting for {following}."
            expect(other_page.get_by_test_id("turn-line")).to_contain_text(said, timeout=LIVE_WAIT)
            if spot is not None:
                expect(cell(other_page, *spot)).to_have_count(1, timeout=LIVE_WAIT)
        expect(gloin.get_by_test_id("turn-line")).to_contain_text(
            f"Waiting for {following}.", timeout=LIVE_WAIT
        )
        if spot is not None:
            expect(cell(gloin, *spot)).to_have_count(1, timeout=LIVE_WAIT)
    assert placed, "no path card could be laid in six moves"
    # Carried, not asked: an ask only when a part could not be applied (a request of the page's
    # own in flight, such as the minute's safety net meeting a move).
    carried = int(gloin.locator("script[data-live-url]").get_attribute("data-carried") or 0)
    assert carried >= 1 and len(gloin_asked) < carried, (carried, [a.url for a in gloin_asked])

    # Balin says something; the others read it without a reload.
    balin.locator("#chat-text").fill("Keep digging, @Thorin!")
    balin.locator("#chat-form").get_by_role("button", name="Send").click()
    for page in pages.values():
        expect(page.get_by_test_id("chat-messages")).to_contain_text(
            "Keep digging, @Thorin!", timeout=LIVE_WAIT
        )

    for name, page in pages.items():
        assert page.evaluate("window.sameDocument === true"), f"{name}'s page was reloaded"
        expect(page.locator("script[data-live-url]")).to_have_attribute("data-state", "open")
        states = page.evaluate("window.streamStates")
        assert set(states) <= {"open"}, f"{name}'s stream was not open all along: {states}"
    streams = stack.proxy.to("uvicorn", r"^/games/\d+/live/$")
    assert streams and all(answer.status == 200 for answer in streams), streams
    assert not stack.proxy.to("gunicorn", r"/live/$"), "a live stream went to gunicorn"

    # Balin logs out in another tab (gunicorn): his game page's stream (uvicorn) ends at once.
    other_tab = browser_problems.attach(balin.context.new_page(), "Balin's other tab")
    other_tab.goto(f"{origin}/")
    other_tab.get_by_role("button", name="Log out").click()
    expect(balin.locator("script[data-live-url]")).to_have_attribute(
        "data-state", "ended", timeout=LIVE_WAIT
    )

    # Dwalin's connection drops: the service worker shows the offline page at the game's
    # address. Which of its two panels shows is told by navigator.onLine, and Chromium's offline
    # emulation does not reach the document the service worker answers the navigation with here
    # (navigator.onLine is false before the navigation, true after it), so the page takes the
    # network for up and says the site is not answering, probing it every few seconds (each
    # failed probe a console error). The two panels are told apart in tests/e2e/
    # test_offline_page.py, where the emulation holds; here, the page is the offline page.
    dwalin.context.set_offline(True)
    before = len(browser_problems.problems)
    try:
        dwalin.goto(url)
        expect(dwalin.locator("body")).to_have_attribute(
            "data-state", re.compile(r"^(offline|not-answering)$"), timeout=WAIT
        )
        assert dwalin.title() in (
            "You are offline · Saboteur",
            "The site is not answering · Saboteur",
        )
    finally:
        dwalin.context.set_offline(False)
    probes = browser_problems.problems[before:]
    browser_problems.problems[before:] = [
        problem for problem in probes if "net::ERR_INTERNET_DISCONNECTED" not in problem
    ]
    expect(dwalin.locator("script[data-live-url]")).to_be_attached(timeout=WAIT)  # back online
