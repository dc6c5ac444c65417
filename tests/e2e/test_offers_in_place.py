"""Nothing floats over the game (issue 50, point 1), at 1366x768, 1920x1080 and on a 390x844
phone: the offers after a move (the next game waiting, push notifications) take no part of the
maze, the players' strip, a result or a decision; on a phone they sit in the flow below the maze
and the bar; answered, they go for good.

What went wrong: on the phone the "Turn on notifications" offer floated over the top 21 % of the
screen (the game's title, the players' strip, the top of the maze) from the first move until
answered; the next game's offer, closed, came back with the next answer.

Measured in the page: hit tests (``elementFromPoint``) over a grid of points of each part of the
game, at the top of the page and with the offer scrolled into view.
"""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_game_play import WAIT, game_url, open_turn, pass_turn, settled
from .test_installable import controlled, push_keys  # noqa: F401 (a fixture)
from .test_table import CONTROL_PROBLEM, SIZES, submit

# The parts of the game an offer may never cover, each probed at 9 x 9 points of its box (within
# the viewport): a list of "offer over part" problems.
OFFER_OVER_GAME = """() => {
    const offers = [...document.querySelectorAll(
        '[data-testid="next-game"] > *, [data-testid="push-prompt"]')]
        .filter(e => e.getClientRects().length);
    const parts = {
        maze: "[data-maze-area]", players: "#seats", decision: "#bar",
        result: ['[data-testid="round-result"]', '[data-testid="round-end"]',
            '[data-testid="game-over"]'].join(", "),
        title: "#game-head",
    };
    const problems = [];
    for (const [name, selector] of Object.entries(parts)) {
        for (const part of document.querySelectorAll(selector)) {
            const r = part.getBoundingClientRect();
            const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
            const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
            if (right <= left || bottom <= top) continue;
            for (let i = 0; i < 9; i++) for (let j = 0; j < 9; j++) {
                const x = left + (right - left) * (i + 0.5) / 9;
                const y = top + (bottom - top) * (j + 0.5) / 9;
                const hit = document.elementFromPoint(x, y);
                if (hit && offers.some(offer => offer.contains(hit)))
                    problems.push(`an offer over the ${name} at ${Math.round(x)},${Math.round(y)}`);
            }
        }
    }
    return problems;
}"""


def offers_cover_nothing(page):
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate(OFFER_OVER_GAME) == []
    for testid in ("push-prompt", "next-game"):
        offer = page.get_by_test_id(testid)
        if offer.is_visible():
            offer.scroll_into_view_if_needed()
            assert page.evaluate(OFFER_OVER_GAME) == [], testid
    page.evaluate("window.scrollTo(0, 0)")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
@pytest.mark.full_chromium  # the offer of notifications needs web push
def test_the_offers_cover_nothing_of_the_game_and_go_for_good_when_answered(
    size,
    live_server,
    make_player,
    rigged_game,
    player_page,
    browser_problems,
    push_keys,  # noqa: F811
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="First mine")
    rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Second mine")
    url = game_url(live_server, game)
    page = player_page(ann, **SIZES[size])
    page.goto(url)
    controlled(page)  # a service worker: the push offer may be made
    open_turn(page, url)

    pass_turn(page, "cross")
    prompt, offer = page.get_by_test_id("push-prompt"), page.get_by_test_id("next-game-link")
    expect(prompt).to_be_visible(timeout=WAIT)
    expect(offer).to_be_visible()
    offers_cover_nothing(page)
    maze = page.locator("[data-maze-area]").bounding_box()
    for testid in ("push-prompt", "next-game"):
        box = page.get_by_test_id(testid).bounding_box()
        if size == "phone":
            # In the flow below the maze (and the bar docked over the screen's bottom).
            assert box["y"] >= maze["y"] + maze["height"] - 1, (testid, box, maze)
        else:
            # Beside the maze, in view as the move is made.
            assert box["x"] >= maze["x"] + maze["width"] - 1, (testid, box, maze)
            assert 0 <= box["y"] and box["y"] + box["height"] <= page.viewport_size["height"]
    if size != "phone":  # the log gives the offers room: the chat's Send stays whole
        send = page.locator("#chat-form").get_by_role("button", name="Send")
        assert send.evaluate(CONTROL_PROBLEM) == ""
    # Usable where they are (a phone scrolls to them), hiding nothing and hidden by nothing.
    for button in (
        offer,
        page.get_by_test_id("next-game-close"),
        prompt.get_by_role("button", name="Turn on notifications"),
        prompt.get_by_role("button", name="Not now"),
    ):
        button.scroll_into_view_if_needed()
        assert button.evaluate(CONTROL_PROBLEM) == "", button

    # The next game's offer, answered, does not come back with the next answer (Bob's move,
    # learnt live) nor a reload.
    page.get_by_test_id("next-game-close").click()
    expect(offer).to_have_count(0)
    submit(game, bob, move="place", card="cross", at=[1, 0])
    expect(page.get_by_test_id("turn-line")).to_contain_text("Waiting for Cid", timeout=20_000)
    settled(page)
    expect(offer).to_have_count(0)
    prompt.get_by_role("button", name="Not now").click()
    expect(prompt).to_be_hidden()
    page.reload()
    expect(page.get_by_test_id("turn-line")).to_contain_text("Waiting for Cid", timeout=WAIT)
    expect(offer).to_have_count(0)
    expect(prompt).to_have_count(0)
    assert browser_problems.problems == []
