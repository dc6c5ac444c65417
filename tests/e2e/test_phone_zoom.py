"""On a phone the zoom keeps the goals in view (issue 50, point 2): choosing a card zooms only
as far as its spots need to be a finger wide (40 px), keeping the three goals and the spot nearest
to them (the start's, on the first turn) inside the maze's box; a Map's chosen goal is never
clipped; the decision bar never takes more than 40 % of the screen's height.

What went wrong: choosing a card zoomed so far that the goals left the screen (none of 3 in view,
x = 439 on a 390 px screen, on the first turn and on a grown maze alike); with a Map the start
went off the left (x = -37) and the chosen goal was clipped and covered (1 of 3 hit-testable); an
action on a player grew the bar to 430 of 844 px (maze cells of 12 x 19 px).

Measured in the page: the cells' boxes against the maze's box, hit tests, the bar's height.
"""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL, SABOTEUR2_DEAL
from .test_game_play import WAIT, game_url, open_turn, settled
from .test_table import SIZES, SPOTS_BIG, submit

PHONE = SIZES["phone"]
GOALS = [(8, -2), (8, 0), (8, 2)]

# The cells at (x, y) and whether each lies whole inside the maze's box and is the element found
# at its middle (nothing covers it), with the spots' smallest size.
IN_THE_BOX = """(cells) => {
    const board = document.querySelector("#board").getBoundingClientRect();
    const out = {};
    for (const [x, y] of cells) {
        const cell = document.querySelector(`#board td[data-x="${x}"][data-y="${y}"]`);
        if (!cell) { out[`${x},${y}`] = "missing"; continue; }
        const r = cell.getBoundingClientRect();
        const inside = r.left >= board.left - 1 && r.right <= board.right + 1
            && r.top >= board.top - 1 && r.bottom <= board.bottom + 1;
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        out[`${x},${y}`] = !inside ? `outside: ${Math.round(r.left)},${Math.round(r.top)}`
            : cell.contains(hit) ? "" : `covered by ${hit && hit.className}`;
    }
    return out;
}"""

SPOTS = """() => [...document.querySelectorAll("#board a.maze__spot")].map(s => {
    const cell = s.closest("td");
    return [Number(cell.dataset.x), Number(cell.dataset.y)];
})"""


def in_view(page, cells):
    """The cells that are not whole in the maze's box, or are covered: {} when all are."""
    found = page.evaluate(IN_THE_BOX, [list(cell) for cell in cells])
    return {cell: problem for cell, problem in found.items() if problem}


def nearest_to_the_goals(spots):
    return min(spots, key=lambda at: (abs(8 - at[0]) + abs(at[1]) / 2, at[1]))


def choose(page, card):
    page.locator(f'a.hand-card[data-card="{card}"]').first.tap()
    expect(page.locator(".selected-card")).to_be_visible(timeout=WAIT)
    settled(page)
    page.wait_for_function(SPOTS_BIG, timeout=WAIT)


def goals_and_nearest_spot_in_view(page):
    spots = page.evaluate(SPOTS)
    nearest = tuple(nearest_to_the_goals(spots))
    assert in_view(page, [*GOALS, nearest]) == {}, (nearest, spots)


@pytest.mark.django_db(transaction=True)
def test_choosing_a_card_keeps_the_goals_and_the_nearest_spot_in_view(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    a = player_page(ann, **PHONE)
    open_turn(a, url)
    # The first turn: the spots around the start, nine columns from the goals.
    choose(a, "cross")
    goals_and_nearest_spot_in_view(a)
    assert in_view(a, [(0, 0)]) == {}  # the start too
    a.get_by_test_id("cancel").tap()
    settled(a)
    # A grown maze: the nearest spot is by the goals.
    submit(game, ann, move="place", card="straight-ew", at=[1, 0])
    submit(game, bob, move="place", card="cross", at=[2, 0])
    submit(game, cid, move="place", card="straight-ew", at=[3, 0])
    open_turn(a, url)
    choose(a, "cross")
    goals_and_nearest_spot_in_view(a)
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_a_maps_goals_and_the_chosen_one_are_whole_in_view(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    submit(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    b = player_page(bob, **PHONE)
    open_turn(b, game_url(live_server, game))
    choose(b, "map")
    assert in_view(b, [*GOALS, (0, 0)]) == {}
    for goal, at in (("north", (8, -2)), ("south", (8, 2))):
        b.locator(f'#board a.maze__spot--goal[data-goal="{goal}"]').tap()
        expect(b.get_by_test_id("confirm-action")).to_be_visible(timeout=WAIT)
        settled(b)
        chosen = b.locator(f'#board [data-goal="{goal}"][aria-pressed="true"]')
        expect(chosen).to_have_count(1)
        assert in_view(b, [*GOALS, (0, 0)]) == {}, goal
        assert in_view(b, [at]) == {}
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_the_bar_never_takes_more_than_two_fifths_of_the_phone(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    users = [make_player(n) for n in ("ann", "bob", "cid", "dan", "eve", "fay")]
    deal = {
        **SABOTEUR2_DEAL,
        "roles": {
            "0": "blue-digger",
            "1": "green-digger",
            "2": "saboteur",
            "3": "blue-digger",
            "4": "green-digger",
            "5": "boss",
        },  # fmt: skip
        "set_aside": [
            "blue-digger",
            "blue-digger",
            "green-digger",
            "green-digger",
            "geologist",
            "geologist",
            "profiteer",
            "saboteur",
            "saboteur",
        ],  # fmt: skip
        "hands": {**SABOTEUR2_DEAL["hands"], "3": [], "4": [], "5": []},
    }
    game = rigged_game(users, ruleset="saboteur2", deal=deal)
    submit(game, users[0], move="place", card="cross", at=[1, 0])
    submit(game, users[1], move="place", card="straight-ew", at=[2, 0])
    c = player_page(users[2], **PHONE)
    open_turn(c, game_url(live_server, game))
    limit = 0.4 * 844

    def bar_height():
        settled(c)
        return c.locator("#bar").bounding_box()["height"]

    assert bar_height() <= limit
    c.locator('a.hand-card[data-card="break-cart"]').first.tap()
    expect(c.get_by_test_id("choose-target").first).to_be_visible(timeout=WAIT)
    assert bar_height() <= limit
    c.get_by_test_id("choose-target").filter(has_text="yourself").tap()  # a warning too
    expect(c.get_by_test_id("confirm-action")).to_be_visible(timeout=WAIT)
    assert bar_height() <= limit
    expect(c.get_by_test_id("confirm-action")).to_be_in_viewport()
    assert browser_problems.problems == []
