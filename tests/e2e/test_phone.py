"""A whole round on a 390 x 844 phone, by taps alone (issues 13 and 25): the decision bar with the
hand docked at the bottom, the maze fitted into the screen with its legal spots, Confirm always in
view, a zoom that the maze keeps while it grows."""

import pytest
from playwright.sync_api import expect

from games.read.card_names import card_name

from .deals import BASE_DEAL
from .test_game_play import game_url, made, version
from .test_table import SPOTS_BIG  # every spot a finger wide, in the maze's box

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
WAIT = 10_000


def open_turn(page, url):
    page.goto(url)
    expect(page.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=WAIT)
    assert_docked(page)


def assert_docked(page):
    """The decision bar, with the hand, sits at the bottom of the screen and the page never
    scrolls sideways."""
    bar = page.locator("#bar")
    box = bar.bounding_box()
    assert box is not None and abs(box["y"] + box["height"] - 844) <= 1, box
    expect(bar).to_be_in_viewport()
    if not page.get_by_test_id("hand-folded").count():  # folded away for the gold pick
        expect(bar.locator(".hand")).to_be_in_viewport()
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width


SPOT_IN_VIEW = """() => {
    const board = document.querySelector("#board").getBoundingClientRect();
    const dock = document.querySelector("#bar").getBoundingClientRect();
    return [...document.querySelectorAll("#play .maze__spot")].some(spot => {
        const r = spot.getBoundingClientRect();
        return r.left >= board.left - 1 && r.right <= board.right + 1 && r.top >= 0
            && r.top >= board.top - 1 && r.bottom <= Math.min(board.bottom, dock.top) + 1;
    });
}"""


FITS = "b => b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1"


def tap_card(page, card):
    page.locator(f'a.hand-card[data-card="{card}"]').first.tap()
    selected = page.locator(".selected-card")
    expect(selected).to_contain_text(f"Selected: {card_name(card)}", timeout=WAIT)
    expect(selected).to_be_in_viewport()


def tap_place(page, card, x, y, *, turned=False):
    tap_card(page, card)
    if turned:
        page.get_by_test_id("turn-card").tap()
        expect(page.locator('#play input[name="turned"][value="on"]')).to_have_count(1)
    # The legal spots show in the maze, above the docked bar.
    page.wait_for_function(SPOT_IN_VIEW, timeout=WAIT)
    page.wait_for_function(SPOTS_BIG, timeout=WAIT)
    page.locator(f'a.maze__spot[data-at="{x},{y}"]').tap()
    confirm = page.locator(f'button.maze__spot--chosen[value="{x},{y}"]')
    expect(confirm).to_be_in_viewport(timeout=WAIT)
    expect(page.get_by_test_id("confirm-panel")).to_be_in_viewport()  # in the docked bar
    assert_docked(page)
    before = version(page)
    page.get_by_test_id("confirm-panel").tap()
    made(page, before)
    expect(page.locator(f'td.maze__cell[data-x="{x}"][data-y="{y}"] svg')).to_have_count(1)
    # The move made, the maze is fitted again (it had zoomed in to the spots).
    page.wait_for_function(f"() => ({FITS})(document.querySelector('#board'))", timeout=WAIT)


def tap_choice(page, card, label):
    """A choice of the selected card, then its confirmation (every action asks for one)."""
    tap_card(page, card)
    before = version(page)
    page.locator(".selected-card").get_by_role("link", name=label).tap()
    confirm = page.get_by_test_id("confirm-action")
    expect(confirm).to_be_in_viewport(timeout=WAIT)
    confirm.tap()
    made(page, before)


def tap_pass(page, card):
    page.get_by_text("Pass: discard one card").tap()
    page.locator("label.check", has_text=card_name(card)).locator("input").tap()
    before = version(page)
    page.get_by_test_id("pass").tap()
    made(page, before)


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.django_db(transaction=True)
def test_a_whole_round_on_a_phone_by_taps(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    a, b, c = (player_page(user, **PHONE) for user in (ann, bob, cid))

    open_turn(a, url)
    tap_place(a, "t-new", 1, 0, turned=True)
    open_turn(b, url)
    tap_choice(b, "map", "Look at the north goal")
    open_turn(c, url)
    tap_pass(c, "dead-n")
    for page, card, x in [
        (a, "straight-ew", 2),
        (b, "cross", 3),
        (c, "straight-ew", 4),
        (a, "cross", 5),
        (b, "straight-ew", 6),
        (c, "cross", 7),  # reaches the treasure, far east of the start: the maze scrolls to it
    ]:
        open_turn(page, url)
        tap_place(page, card, x, 0)
    expect(c.get_by_test_id("gold-pick")).to_be_visible()
    before = version(c)
    c.get_by_test_id("gold-pick").get_by_role("button", name="Keep 3 gold").tap()
    made(c, before)
    open_turn(a, url)
    before = version(a)
    a.get_by_test_id("gold-pick").get_by_role("button", name="Keep 2 gold").tap()
    made(a, before)
    a.goto(url)
    expect(a.get_by_test_id("turn-line")).to_contain_text("The game is over.", timeout=WAIT)
    # The game over page, its recap's maze included, is no wider than the phone (it was 420 px),
    # with every part of it open.
    a.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    width = a.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_a_greyed_cards_reason_is_read_in_full_by_a_tap(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    a = player_page(ann, **PHONE)
    open_turn(a, url)
    tap_pass(a, "t-new")
    b = player_page(bob, **PHONE)
    open_turn(b, url)
    greyed = b.locator("#bar .hand > li", has=b.locator(".hand-card--idle")).filter(
        has_text="Rockfall"
    )
    reason = greyed.get_by_test_id("unplayable-reason")
    full = reason.text_content().strip()
    assert full  # the reason is there, if cut short under the card
    greyed.locator(".hand-card").tap()
    toast = b.locator("#help-toast")
    expect(toast).to_be_visible()
    expect(toast).to_have_text(f"Rockfall: {full}")
    assert toast.evaluate("t => t.scrollHeight <= t.clientHeight + 1")  # all of it shows
    b.locator(".game-header h1").tap()  # elsewhere: it closes
    expect(toast).to_be_hidden()
    assert browser_problems.problems == []


WEST_DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "first": "0",
    "hands": {"0": ["straight-ew", "cross"], "1": ["map"], "2": ["map"]},
}


@pytest.mark.django_db(transaction=True)
def test_the_maze_fits_as_it_grows_and_zooms_by_buttons(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=WEST_DEAL)
    page = player_page(ann, **PHONE)
    open_turn(page, game_url(live_server, game))
    board = page.locator("#board")
    fits = "b => b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1"
    assert board.evaluate(fits)
    # Choosing the card opens a column west of the start (a legal spot there). The fitted cells
    # are narrower than a finger: the maze zooms in to the card's spots, each at least 40 px.
    tap_card(page, "straight-ew")
    spot = page.locator('a.maze__spot[data-at="-1,0"]')
    expect(spot).to_have_count(1)
    page.wait_for_function(SPOTS_BIG, timeout=WAIT)
    expect(spot).to_be_in_viewport()
    fit = page.locator("[data-board-fit]")
    expect(fit).to_have_attribute("aria-pressed", "false")
    # Fit shows the whole maze, the spot and the goals (the player's choice).
    fit.tap()
    expect(fit).to_have_attribute("aria-pressed", "true")
    assert board.evaluate(fits)
    for cell in (spot, page.locator('td.maze__cell[data-x="8"][data-y="0"]')):
        expect(cell).to_be_in_viewport()
    # Zoom in: the maze scrolls inside its box (a finger pans it); Fit brings it all back.
    page.get_by_role("button", name="Zoom in").tap()
    expect(fit).to_have_attribute("aria-pressed", "false")
    assert not board.evaluate(fits)
    assert board.evaluate("b => getComputedStyle(b).overflowX") == "auto"
    fit.tap()
    expect(fit).to_have_attribute("aria-pressed", "true")
    assert board.evaluate(fits)
    # Two fingers spread apart on the maze zoom it in (js/game.js), not the page.
    box = board.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    touch = page.context.new_cdp_session(page)

    def fingers(kind, apart):
        points = [{"x": x - apart, "y": y, "id": 0}, {"x": x + apart, "y": y, "id": 1}]
        touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    fingers("touchStart", 20)
    for apart in (40, 60, 80, 100):
        fingers("touchMove", apart)
    touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(fit).to_have_attribute("aria-pressed", "false")
    assert not board.evaluate(fits)
    assert page.evaluate("visualViewport.scale") == 1  # the page itself did not zoom
    fit.tap()
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, width
    assert browser_problems.problems == []
