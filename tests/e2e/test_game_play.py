"""Whole games played through the browser: rigged deals, three players in three contexts.

The deals are rigged (see the ``rigged_game`` fixture) so that every click has a known outcome;
everything else (selecting cards, turning them, legal spots, decisions, polling) is the real page.
"""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from games.read.card_names import card_name

from .deals import BASE_DEAL, SABOTEUR2_DEAL

POLL_WAIT = 15_000  # the page polls every 10 s
WAIT = 10_000  # a page load or an htmx swap on a busy machine

# -- Helpers ---------------------------------------------------------------------------------


def game_url(live_server, game):
    return f"{live_server.url}/games/{game.pk}/"


def open_turn(page, url):
    """Load the game page fresh and check that it is this player's decision."""
    page.goto(url)
    expect(page.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=WAIT)


def select_card(page, card, *, tap=False):
    link = page.locator(f'a.hand-card[data-card="{card}"]').first
    link.tap() if tap else link.click()
    selected = page.locator(".selected-card")
    expect(selected).to_contain_text(f"Selected: {card_name(card)}", timeout=WAIT)
    settled(page)


def settled(page):
    """htmx has finished swapping and settling (static/js/learn.js scrolls the maze to the legal
    spots then: a tap computed before that could land beside its spot)."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')",
        timeout=WAIT,
    )


def version(page):
    return int(page.locator('#play input[name="version"]').first.input_value())


def confirm_by_keyboard(page):
    """The focus is on "Confirm" (the keyboard's path to a move): Enter makes the move."""
    expect(page.get_by_test_id("confirm-move")).to_be_focused(timeout=WAIT)
    before = version(page)
    page.keyboard.press("Enter")
    made(page, before)


def wait_in_page(page, predicate: str, arg=None, *, what: str, timeout: float = WAIT):
    """Wait until ``predicate(arg)`` (JavaScript) holds in the page, asking every 50 ms.

    For what the page keeps hidden (the play area's version, the poll's address): Playwright's
    ``expect`` on a hidden element, at every ask that does not match yet, reads the whole page's
    accessibility tree for the message it would fail with (a game page's maze: tens of
    milliseconds of the browser's CPU each time, after every move of every test)."""
    try:
        page.wait_for_function(predicate, arg=arg, timeout=timeout, polling=50)
    except PlaywrightTimeoutError:
        raise AssertionError(f"{what}: not within {timeout / 1000:.0f} s") from None


VERSION_IS = """(expected) =>
  document.querySelector('#play input[name="version"]')?.value === String(expected)"""


def made(page, before):
    """The move was accepted: the play area now carries the next version.

    (Not the "Your move is made." notice: a poll that was already under way when the move went
    in may swap in a fresh play area without it.)
    """
    wait_in_page(page, VERSION_IS, before + 1, what=f"the play area at version {before + 1}")
    expect(page.locator("#play .message--error")).to_have_count(0)


def place(page, card, x, y, *, turned=False, tap=False):
    select_card(page, card, tap=tap)
    if turned:
        turn = page.get_by_test_id("turn-card")
        turn.tap() if tap else turn.click()
        turned_field = page.locator('#play input[name="turned"][value="on"]')
        expect(turned_field).to_have_count(1, timeout=WAIT)
    put(page, x, y, tap=tap)


def put(page, x, y, *, tap=False):
    """Pick the highlighted spot for the selected card, confirm, and check the card lies there."""
    settled(page)
    spot = page.locator(f'a.maze__spot[data-at="{x},{y}"]')
    spot.tap() if tap else spot.click()
    confirm = page.locator(f'button.maze__spot--chosen[value="{x},{y}"]')
    expect(confirm).to_have_count(1, timeout=WAIT)
    expect(confirm).to_be_focused(timeout=WAIT)  # static/js/game.js: keyboard players go on
    before = version(page)
    confirm.tap() if tap else confirm.click()
    made(page, before)
    expect(page.locator(".maze__spot")).to_have_count(0)
    cell = page.locator(f'td.maze__cell[data-x="{x}"][data-y="{y}"]')
    expect(cell.locator("svg")).to_have_count(1)


def choose(page, card, label):
    select_card(page, card)
    before = version(page)
    panel = page.locator(".selected-card")
    on_player = panel.get_by_role("link", name=label)
    if on_player.count():  # an action on a player takes a confirmation step
        on_player.click()
        page.get_by_test_id("confirm-action").click()
    else:
        panel.get_by_role("button", name=label).click()
    made(page, before)


def pass_turn(page, card):
    page.get_by_text("Pass: discard one card").click()
    page.locator("label.check", has_text=card_name(card)).locator("input").check()
    before = version(page)
    page.get_by_test_id("pass").click()
    made(page, before)


def decide(page, testid, label):
    before = version(page)
    page.get_by_test_id(testid).get_by_role("button", name=label).click()
    made(page, before)


def waits_for(page, name):
    expect(page.get_by_test_id("turn-line")).to_contain_text(f"Waiting for {name}.", timeout=WAIT)


def game_over_for(page, winners):
    expect(page.get_by_test_id("turn-line")).to_contain_text("The game is over.", timeout=WAIT)
    expect(page.get_by_role("heading", name="Final standings")).to_be_visible()
    result = page.locator("details.round-result").first
    expect(result).to_contain_text("Round 1: the treasure was found")
    expect(result.locator("p", has_text="Winners:")).to_have_text(f"Winners: {winners}")


def assert_clean(browser_problems):
    assert browser_problems.problems == [], browser_problems.problems


# -- Tests -----------------------------------------------------------------------------------


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.django_db(transaction=True)
def test_base_game_played_to_the_end_by_three_browsers(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    a, b, c = (player_page(user) for user in (ann, bob, cid))
    for page in (b, c):
        page.goto(url)
        waits_for(page, "Ann")

    open_turn(a, url)
    place(a, "t-new", 1, 0, turned=True)
    waits_for(a, "Bob")
    # Bob's page was open all along: it learns by polling that it is his turn, without a reload.
    expect(b.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=POLL_WAIT)
    expect(b.locator('td.maze__cell[data-x="1"][data-y="0"] svg')).to_have_count(1)

    choose(b, "map", "Look at the north goal")
    peek = f"You saw: the north goal is {card_name('goal-stone-ne')}."
    expect(b.locator(".knowledge")).to_have_text(peek)
    for page in (a, c):
        page.goto(url)
        expect(page.get_by_test_id("turn-line")).to_be_visible()
        assert "You saw:" not in page.content()

    open_turn(c, url)
    pass_turn(c, "dead-n")
    expect(c.locator('a.hand-card[data-card="dead-n"]')).to_have_count(0)

    for page, card, x in [
        (a, "straight-ew", 2),
        (b, "cross", 3),
        (c, "straight-ew", 4),
        (a, "cross", 5),
        (b, "straight-ew", 6),
    ]:
        open_turn(page, url)
        place(page, card, x, 0)

    # Cid completes the path and reveals the treasure, then picks first.
    open_turn(c, url)
    place(c, "cross", 7, 0)
    cell = c.locator('td.maze__cell[data-x="8"][data-y="0"]')
    expect(cell.locator("svg")).to_have_count(1)
    expect(c.get_by_test_id("gold-pick")).to_be_visible()
    decide(c, "gold-pick", "Keep 3 gold")

    open_turn(a, url)
    expect(a.get_by_test_id("gold-pick").get_by_role("button")).to_have_count(2)
    decide(a, "gold-pick", "Keep 2 gold")

    for page in (a, b, c):
        page.goto(url)
        game_over_for(page, "Ann, Cid")
        expect(page.get_by_role("heading", name="Final standings")).to_be_visible()
    standings = a.locator("section", has=a.get_by_role("heading", name="Final standings"))
    expect(standings.locator("li")).to_have_text(["Cid: 4", "Ann: 2", "Bob: 0"])
    assert_clean(browser_problems)


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.django_db(transaction=True)
def test_saboteur2_blue_door_decides_and_the_thief_steals(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="saboteur2", deal=SABOTEUR2_DEAL)
    url = game_url(live_server, game)
    a, b, c = (player_page(user) for user in (ann, bob, cid))

    open_turn(a, url)
    place(a, "cross", 1, 0)
    open_turn(b, url)
    place(b, "straight-ew", 2, 0)
    open_turn(c, url)
    choose(c, "theft", "Play on yourself")
    open_turn(a, url)
    place(a, "cross", 3, 0)
    open_turn(b, url)
    place(b, "straight-ew", 4, 0)
    open_turn(c, url)
    place(c, "door-blue-ew", 5, 0)
    open_turn(a, url)
    place(a, "t-new", 6, 0)
    open_turn(b, url)
    place(b, "cross", 7, 0)  # green completes the path, through a blue door
    waits_for(b, "Cid")

    open_turn(c, url)
    steal = c.get_by_test_id("steal")
    expect(steal.get_by_role("button", name="Steal from Ann")).to_be_visible()
    expect(steal.get_by_role("button", name="Steal nothing")).to_be_visible()
    decide(c, "steal", "Steal from Ann")

    for page in (a, b, c):
        page.goto(url)
        game_over_for(page, "Ann")
        result = page.locator("details.round-result").first
        expect(result).to_contain_text(re.compile(r"Gold: Ann \+5"))
    standings = a.locator("section", has=a.get_by_role("heading", name="Final standings"))
    expect(standings.locator("li")).to_have_text(["Ann: 4", "Cid: 1", "Bob: 0"])
    assert_clean(browser_problems)


@pytest.mark.django_db(transaction=True)
def test_back_after_logout_does_not_show_the_hand(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    page = player_page(ann)
    response = page.goto(url)
    assert "no-store" in response.headers.get("cache-control", "")
    expect(page.locator("a.hand-card")).to_have_count(6)

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{live_server.url}/")
    nav = page.get_by_role("navigation", name="Account")
    expect(nav.get_by_role("link", name="Log in")).to_be_visible()

    page.go_back()
    expect(page).to_have_url(re.compile(r"/accounts/login/"))
    expect(page.locator("a.hand-card")).to_have_count(0)
    expect(page.locator(".hand")).to_have_count(0)
    assert_clean(browser_problems)


@pytest.mark.django_db(transaction=True)
def test_phone_can_select_and_tap_a_spot(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    page = player_page(ann, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    open_turn(page, url)

    def no_page_overflow():
        width = page.evaluate("document.documentElement.scrollWidth")
        inner = page.evaluate("window.innerWidth")
        # A mobile browser widens the layout viewport to fit wide content: check both.
        assert inner == 390, inner
        assert width <= inner + 1, (width, inner)

    no_page_overflow()
    select_card(page, "straight-ew", tap=True)
    no_page_overflow()
    # The fitted cells are narrower than a finger: the maze zoomed in to the card's spots; Fit
    # shows it all. Zoomed in, its own box scrolls, not the page.
    board = page.locator("#board")
    assert board.evaluate("el => el.scrollWidth > el.clientWidth")
    page.get_by_role("button", name="Fit").tap()
    assert board.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    page.get_by_role("button", name="Zoom in").tap()
    assert board.evaluate("el => getComputedStyle(el).overflowX") in ("auto", "scroll")
    assert board.evaluate("el => el.scrollWidth > el.clientWidth")
    no_page_overflow()
    # The maze keeps its zoom and scroll position when the play area is replaced (js/game.js).
    board.evaluate("el => { el.scrollLeft = 40; }")
    page.locator('a.hand-card[data-card="straight-ew"]').first.tap()
    expect(page.locator(".selected-card")).to_be_visible(timeout=WAIT)
    page.wait_for_function("document.querySelector('#board').scrollLeft === 40")
    page.get_by_role("button", name="Fit").tap()
    put(page, 1, 0, tap=True)  # tap() scrolls the spot into view inside the board
    waits_for(page, "Bob")
    no_page_overflow()
    assert_clean(browser_problems)
