"""The page built from parts is what the live updates send (games/web/live_parts.py): after every
move, the play area of an open page, updated only by the out-of-band parts it was sent, is the play
area a fresh page shows, for the players at the table and for someone watching (whose page is
carried its parts in the live stream instead of asking for them)."""

import random
import re

import pytest
from playwright.sync_api import expect

from games import engine
from games.models import Game
from games.play.moves import move_submit

from .deals import BASE_DEAL
from .test_game_play import assert_clean, wait_in_page

WAIT = 10_000

# The play area as the server drew it: what the page's scripts add for a moment or for the
# screen (zoom, a card lighting up, htmx's classes, hidden tools and closed results) left out.
SERVER_DRAWN = """(html) => {
  const box = document.createElement("template");
  box.innerHTML = html;
  const play = html === null ? document.getElementById("play").cloneNode(true)
    : box.content.getElementById("play");
  for (const element of [play, ...play.querySelectorAll("*")]) {
    element.removeAttribute("style");
    element.removeAttribute("hx-swap-oob");
    element.removeAttribute("data-spots-centred");
    element.removeAttribute("inert");  // a waiting hand, made inert by js/learn.js
    element.removeAttribute("data-placed");  // a player's card placed under their chip
    if (element.matches("[data-maze-tools], [data-round-toast]")) element.removeAttribute("hidden");
    if (element.matches("[data-offers-slot]")) element.replaceChildren();  // js/next_game.js
    if (element.matches(".seat__badge--passed")) element.remove();  // js/game.js marks a pass
    if (element.classList) {
      for (const name of [...element.classList]) {
        if (/^htmx-|--fresh$|^tip-off$|^seat--passed$/.test(name)) element.classList.remove(name);
      }
      if (element.getAttribute("class") === "") element.removeAttribute("class");
    }
  }
  return play.outerHTML
    .replace(/([?&;]p=)[\\w-]+/g, "$1")
    .replace(/(name="(?:csrfmiddlewaretoken|key)" value=")[^"]*/g, "$1");
}"""


# htmx tells afterRequest on the element that asked once it has handled the answer (its swaps,
# or none), even when that element has left the page meanwhile.
POLL_HANDLED = """() => {
  const poll = document.getElementById("poll");
  window.pollHandled = new Promise(resolve => poll.addEventListener("htmx:afterRequest", resolve));
}"""


SHOWS_REVISION = """(revision) => {
  const asks = document.getElementById("poll")?.getAttribute("hx-get");
  return new RegExp(`[?&]v=${revision}(&|$)`).test(asks);
}"""


def settled(page, revision):
    """The page shows ``revision`` (its hidden poll asks from there) and no request or swap is
    under way."""
    wait_in_page(page, SHOWS_REVISION, revision, what=f"the page at revision {revision}")
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"
    )


# Counts the times js/game.js fits the maze into the table (each sets --maze-h once, and makes the
# browser lay the page out several times): htmx tells its swap and settle events on every part of
# a response, and a live update is a dozen parts. Fitted once per response, an update costs two or
# three fits (the swap, the settle, a resize the new parts cause); once per part, it was about 30.
COUNT_FITS = """(() => {
  window.mazeFits = 0;
  const set = CSSStyleDeclaration.prototype.setProperty;
  CSSStyleDeclaration.prototype.setProperty = function (name, ...rest) {
    if (name === "--maze-h") window.mazeFits += 1;
    return set.call(this, name, ...rest);
  };
})()"""
FITS_SINCE = "() => { const fits = window.mazeFits; window.mazeFits = 0; return fits; }"
MOST_FITS_PER_UPDATE = 5


def fresh_play(page, url):
    """The play area a page opened now would get (a poll that names no page of its own)."""
    response = page.request.get(f"{url}poll/?v=0", headers={"HX-Request": "true"})
    assert response.status == 200
    return response.text()


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.django_db(transaction=True)
def test_an_open_page_updated_by_parts_is_the_page_a_fresh_load_shows(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid, otto = (make_player(n) for n in ("ann", "bob", "cid", "otto"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = f"{live_server.url}/games/{game.pk}/"
    pages = {user: player_page(user) for user in (ann, bob, otto)}  # Otto watches
    answers = []
    watcher_answers = []  # Otto's page is carried its parts in the stream (games/web/live.py)
    for user, page in pages.items():
        page.add_init_script(COUNT_FITS)
        page.goto(url)
        # Its stream open before the first move: a page whose stream opens later asks once
        # for what it missed (its first event says it is behind).
        expect(page.locator("script[data-live-url]")).to_have_attribute(
            "data-state", "open", timeout=WAIT
        )
        kept = watcher_answers if user == otto else answers
        page.on(
            "response",
            lambda r, kept=kept: "/poll/" in r.url and r.status != 204 and kept.append(r.text()),
        )
    rng = random.Random(7)
    for _move in range(14):
        game = Game.objects.get(pk=game.pk)
        state = game.engine_state()
        if state.finished:
            break
        seat = game.seats.get(position=int(state.to_move))
        for page in pages.values():
            page.evaluate(FITS_SINCE)  # the page's load and the moves before not counted
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        revision = Game.objects.get(pk=game.pk).revision
        for user, page in pages.items():
            settled(page, revision)
            fits = page.evaluate(FITS_SINCE)
            where = f"{user.display_name}'s page after move {_move + 1}"
            assert fits <= MOST_FITS_PER_UPDATE, f"{where}: the maze fitted {fits} times"
            shown = page.evaluate(SERVER_DRAWN, None)
            fresh = page.evaluate(SERVER_DRAWN, fresh_play(page, url))
            assert shown == fresh, where
    # Otto's page was carried the moves in its stream ("part" events), and the comparison above
    # shows they left it as a fresh page. It asks only when it cannot apply one (a request of
    # its own in flight: the minute's safety-net ask, which may meet a move on a slow machine).
    carried = int(pages[otto].locator("script[data-live-url]").get_attribute("data-carried") or 0)
    assert carried >= 1 and len(watcher_answers) < carried, (carried, len(watcher_answers))
    sent = "".join(answers)
    # The pages were sent parts, not their whole play area again and again.
    assert answers and not any('id="play"' in answer for answer in answers)
    assert 'hx-swap-oob="afterbegin:#log-r1"' in sent  # new log lines at the top
    assert re.search(r'<td hx-swap-oob="true" id="mz', sent)  # cells
    assert re.search(r'hx-swap-oob="(afterend:#mzl|beforeend:#mzr|\w+:#mzb)', sent)  # growth
    assert_clean(browser_problems)


@pytest.mark.django_db(transaction=True)
def test_a_poll_answered_after_its_play_area_was_replaced_is_dropped(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    """A live update under way while the player chooses a card (the play area replaced whole)
    was worked out for the old play area: its swaps would land in the detached old one or
    nowhere (htmx:oobErrorNoTarget), so static/js/live.js drops it."""
    from games.play.chat import chat_post

    from .test_game_play import open_turn, select_card
    from .test_live import stream_open

    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = f"{live_server.url}/games/{game.pk}/"
    page = player_page(ann)
    open_turn(page, url)
    stream_open(page)
    held = []
    page.route("**/poll/**", lambda route: held.append(route))  # every poll waits until let go
    chat_post(game_id=game.pk, user=bob, text="Dig east!")  # a new revision: the page asks
    while not held:
        page.wait_for_timeout(50)
    page.evaluate(POLL_HANDLED)  # the poll element that asked
    select_card(page, "t-new")  # meanwhile the play area is replaced, the chat line in it
    expect(page.locator("#chat")).to_contain_text("Dig east!")
    for route in list(held):
        route.continue_()
    page.unroute("**/poll/**")
    page.evaluate("() => window.pollHandled")
    expect(page.locator("#chat li", has_text="Dig east!")).to_have_count(1)
    expect(page.locator(".selected-card")).to_be_visible()  # the choice stays
    assert_clean(browser_problems)
