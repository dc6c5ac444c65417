"""The page built from parts is what the live updates send (games/web/parts.py): after every move,
the play area of an open page, updated only by the out-of-band parts it was sent, is the play area
a fresh page shows, for the players at the table and for someone watching."""

import random
import re

import pytest
from playwright.sync_api import expect

from games import engine
from games.models import Game
from games.play.moves import move_submit

from .deals import BASE_DEAL
from .test_game_play import assert_clean

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
    if (element.matches("[data-maze-tools], [data-round-toast]")) element.removeAttribute("hidden");
    if (element.classList) {
      for (const name of [...element.classList]) {
        if (/^htmx-|--fresh$|^tip-off$/.test(name)) element.classList.remove(name);
      }
      if (element.getAttribute("class") === "") element.removeAttribute("class");
    }
  }
  return play.outerHTML
    .replace(/([?&;]p=)[\\w-]+/g, "$1")
    .replace(/(name="(?:csrfmiddlewaretoken|key)" value=")[^"]*/g, "$1");
}"""


def settled(page, revision):
    """The page shows ``revision`` and no request or swap is under way."""
    expect(page.locator("#poll")).to_have_attribute(
        "hx-get", re.compile(rf"[?&]v={revision}(&|$)"), timeout=WAIT
    )
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-settling, .htmx-swapping')"
    )


def fresh_play(page, url):
    """The play area a page opened now would get (a poll that names no page of its own)."""
    response = page.request.get(f"{url}poll/?v=0", headers={"HX-Request": "true"})
    assert response.status == 200
    return response.text()


@pytest.mark.django_db(transaction=True)
def test_an_open_page_updated_by_parts_is_the_page_a_fresh_load_shows(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid, otto = (make_player(n) for n in ("ann", "bob", "cid", "otto"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = f"{live_server.url}/games/{game.pk}/"
    pages = {user: player_page(user) for user in (ann, bob, otto)}  # Otto watches
    answers = []
    for page in pages.values():
        page.goto(url)
        page.on("response", lambda r: "/poll/" in r.url and answers.append(r.text()))
    rng = random.Random(7)
    for _move in range(14):
        game = Game.objects.get(pk=game.pk)
        state = game.engine_state()
        if state.finished:
            break
        seat = game.seats.get(position=int(state.to_move))
        move = rng.choice(engine.legal_moves(state, seat.engine_name))
        move_submit(game_id=game.pk, user=seat.user, move=move, expected_version=game.version)
        revision = Game.objects.get(pk=game.pk).revision
        for user, page in pages.items():
            settled(page, revision)
            shown = page.evaluate(SERVER_DRAWN, None)
            fresh = page.evaluate(SERVER_DRAWN, fresh_play(page, url))
            assert shown == fresh, f"{user.display_name}'s page after move {_move + 1}"
    sent = "".join(answers)
    # The pages were sent parts, not their whole play area again and again.
    assert answers and not any('id="play"' in answer for answer in answers)
    assert 'hx-swap-oob="afterbegin:#log-r1"' in sent  # new log lines at the top
    assert re.search(r'<td hx-swap-oob="true" id="mz', sent)  # cells
    assert re.search(r'hx-swap-oob="(afterend:#mzl|beforeend:#mzr|\w+:#mzb)', sent)  # growth
    assert_clean(browser_problems)
