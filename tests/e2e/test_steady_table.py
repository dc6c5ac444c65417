"""A steady table (issue 37, point 1): nothing is inserted above the maze during a game, and the
controls are where they are first painted.

What went wrong: after the first move a 160 px "Turn on notifications" panel appeared above the
game and the maze shrank to unreadable cells; after choosing a spot the play area was painted
with the maze unfitted and fitted only once htmx had settled, so the Confirm button moved under
the pointer (5 of 7 clicks missed). The boxes are compared in the page itself: the first one in
the first animation frame after the swap (what the player first sees), the other once all is
settled; no waiting for a time.
"""

import re

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_game_play import (
    WAIT,
    game_url,
    made,
    open_turn,
    pass_turn,
    select_card,
    settled,
    version,
)
from .test_installable import controlled, push_keys  # noqa: F401 (a fixture)
from .test_table import CONTROL_PROBLEM, SIZES

# Records, in the first animation frame after ``selector`` appears, its box and whether the
# element at its centre is itself (window.firstPaint).
WATCH_FIRST_PAINT = """selector => {
    window.firstPaint = null;
    const observer = new MutationObserver(() => {
        const element = document.querySelector(selector);
        if (!element) return;
        observer.disconnect();
        requestAnimationFrame(() => {
            const box = element.getBoundingClientRect();
            const maze = document.querySelector("#board table.maze").getBoundingClientRect();
            window.firstPaint = {
                box: [box.left, box.top, box.width, box.height],
                maze: [maze.left, maze.top, maze.width, maze.height],
                problem: (CONTROL_PROBLEM)(element),
            };
        });
    });
    observer.observe(document.body, {childList: true, subtree: true});
}""".replace("CONTROL_PROBLEM", CONTROL_PROBLEM)

BOXES_NOW = """selector => {
    const box = document.querySelector(selector).getBoundingClientRect();
    const maze = document.querySelector("#board table.maze").getBoundingClientRect();
    return {box: [box.left, box.top, box.width, box.height],
            maze: [maze.left, maze.top, maze.width, maze.height]};
}"""


def area_box(page):
    """The maze's area: the room the table gives the maze."""
    settled(page)
    page.wait_for_function("() => !!document.querySelector('#board table.maze').style.zoom")
    return page.locator("[data-maze-area]").bounding_box()


def rounded(values):
    return [round(value) for value in values]


def same_room(page, before):
    """The maze's area starts where it did and reaches down to the bar (which is lower once the
    decision is made: the area, and the maze in it, then grow; they never shrink for an offer)."""
    after = area_box(page)
    assert rounded([after["x"], after["y"]]) == rounded([before["x"], before["y"]])
    assert after["width"] >= before["width"] - 1
    bar_top = page.locator("#bar").bounding_box()["y"]
    assert bar_top - 12 <= after["y"] + after["height"] <= bar_top + 0.5, (after, bar_top)
    assert after["height"] >= before["height"] - 1


@pytest.mark.parametrize("size", ["1366x768", "phone"])
@pytest.mark.django_db(transaction=True)
@pytest.mark.full_chromium  # the offer of notifications needs web push
def test_the_offers_after_a_move_take_no_room_from_the_maze(
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
    page = player_page(ann, **SIZES[size])
    page.goto(game_url(live_server, game))
    controlled(page)  # a service worker: the push offer may be made
    open_turn(page, game_url(live_server, game))
    before = area_box(page)

    # A pass: the maze keeps its size, so the area alone can change.
    pass_turn(page, "cross")
    expect(page.get_by_test_id("push-prompt")).to_be_visible(timeout=WAIT)
    expect(page.get_by_test_id("next-game-link")).to_be_visible()
    same_room(page, before)
    # The offers are usable where they are (in the flow: below the maze on a phone, which
    # scrolls to them), and hide no decision of the page (tests/e2e/test_offers_in_place.py).
    for testid in ("push-prompt", "next-game-link"):
        page.get_by_test_id(testid).scroll_into_view_if_needed()
        assert page.get_by_test_id(testid).evaluate(CONTROL_PROBLEM) == ""
    page.get_by_test_id("push-prompt").get_by_role("button", name="Not now").click()
    expect(page.get_by_test_id("push-prompt")).to_be_hidden()
    page.get_by_test_id("next-game-close").click()
    expect(page.get_by_test_id("next-game-link")).to_have_count(0)
    page.evaluate("window.scrollTo(0, 0)")
    same_room(page, before)
    assert browser_problems.problems == []


@pytest.mark.parametrize("size", ["1366x768", "phone"])
@pytest.mark.django_db(transaction=True)
def test_confirm_is_painted_where_it_stays_and_the_maze_fitted_at_once(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    page = player_page(ann, **SIZES[size])
    tap = size == "phone"
    open_turn(page, game_url(live_server, game))
    select_card(page, "cross", tap=tap)

    page.evaluate(WATCH_FIRST_PAINT, '[data-testid="confirm-panel"]')
    spot = page.locator('a.maze__spot[data-at="1,0"]')
    spot.tap() if tap else spot.click()
    page.wait_for_function("() => window.firstPaint !== null", timeout=WAIT)
    settled(page)
    first = page.evaluate("window.firstPaint")
    now = page.evaluate(BOXES_NOW, '[data-testid="confirm-panel"]')
    assert first["problem"] == "", first  # clickable in the very first frame
    assert rounded(first["box"]) == rounded(now["box"])
    assert rounded(first["maze"]) == rounded(now["maze"])

    moved = version(page)
    confirm = page.get_by_test_id("confirm-panel")
    confirm.tap() if tap else confirm.click()
    made(page, moved)
    assert browser_problems.problems == []


# The bands around the maze on a wide screen, and whether the zoom tools overlap it.
BANDS = """() => {
    const box = (selector) => document.querySelector(selector).getBoundingClientRect();
    const main = box("#play [data-table-main]"), maze = box("#board");
    const tools = box("#play [data-maze-tools]"), side = box("#play .side");
    const cell = document.querySelector("#board td.maze__cell").getBoundingClientRect();
    const overlap = !(tools.right <= maze.left || tools.left >= maze.right
        || tools.bottom <= maze.top || tools.top >= maze.bottom);
    return {
        cell: cell.width, overlap,
        left: maze.left - main.left, between: tools.left - maze.right,
        right: side.left - tools.right, beside: side.left >= maze.right,
    };
}"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_the_maze_takes_the_free_room_and_its_tools_cover_none_of_it(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    page = player_page(ann, **SIZES[size])
    open_turn(page, game_url(live_server, game))
    for zoomed in (False, True):
        area_box(page)
        bands = page.evaluate(BANDS)
        assert not bands["overlap"], bands  # the goals' labels stay readable
        if size != "phone":
            assert bands["beside"], bands
            if not zoomed:
                for band in ("left", "between", "right"):
                    assert bands[band] <= bands["cell"], (band, bands)
        page.locator("[data-zoom=in]").click()
    assert browser_problems.problems == []


# Every card that flies across the table, as it starts (window.flights).
RECORD_FLIGHTS = """() => {
    window.flights = [];
    new MutationObserver(records => {
        for (const record of records) for (const node of record.addedNodes) {
            if (node.classList && node.classList.contains("fly-card"))
                window.flights.push(node.dataset.card);
        }
    }).observe(document.body, {childList: true});
}"""

REFRESH = "url => htmx.ajax('GET', url + '?part=play', {target: '#play', swap: 'outerHTML'})"


def seen_move(page, url, game, user, **move):
    """``user`` makes ``move`` (through the move service) and ``page`` shows it."""
    from .test_table import submit

    submit(game, user, **move)
    page.evaluate(REFRESH, url)
    settled(page)


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
@pytest.mark.django_db(transaction=True)
def test_every_kind_of_move_flies_from_the_movers_seat_to_its_target(
    motion, live_server, make_player, rigged_game, player_page, browser_problems
):
    """Only path cards moved (a 1.4 s landing); tools, maps, thefts and traps had no animation."""
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    c = player_page(cid, reduced_motion=motion, **SIZES["1366x768"])
    c.goto(url)
    expect(c.get_by_test_id("turn-line")).to_be_visible()
    c.evaluate(RECORD_FLIGHTS)
    wanted = []
    for user, move in [
        (ann, {"move": "place", "card": "t-new", "at": [1, 0], "turned": True}),
        (bob, {"move": "action", "card": "break-lantern", "target": "0"}),
    ]:
        seen_move(c, url, game, user, **move)
        wanted.append(move["card"])
        if motion == "no-preference":
            c.wait_for_function(f"() => window.flights.length === {len(wanted)}", timeout=WAIT)
    # The tool's target is outlined: Ann's seat, not the path card any more.
    expect(c.locator('.seat[data-seat="0"]')).to_have_class(re.compile(r"\bseat--last\b"))
    expect(c.locator("#board .maze__cell--last")).to_have_count(0)
    flights = c.evaluate("window.flights")
    assert flights == (wanted if motion == "no-preference" else [])
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_hats_swapped_fly_both_ways_between_the_two_chips(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    """Hats and hands change places: one card flies from the mover to the other player and one
    back, where a tool flies one way only."""
    from .deals import SWAP_DEAL

    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="saboteur2", deal=SWAP_DEAL)
    url = game_url(live_server, game)
    c = player_page(cid, **SIZES["1366x768"])
    c.goto(url)
    expect(c.get_by_test_id("turn-line")).to_be_visible()
    c.evaluate(RECORD_FLIGHTS)
    seen_move(c, url, game, ann, move="action", card="swap-hats", target="1")
    c.wait_for_function("() => window.flights.length === 2", timeout=WAIT)
    assert c.evaluate("window.flights") == ["swap-hats", "swap-hats"]
    expect(c.locator('.seat[data-seat="1"]')).to_have_class(re.compile(r"\bseat--last\b"))
    assert browser_problems.problems == []
