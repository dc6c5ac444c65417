"""The game table's geometry at 1366x768, 1920x1080 and on a 390x844 phone (issue 25), from
bounding boxes: the start, the goals, every placed card and every legal spot inside the visible
maze area; every decision control inside the viewport and the element at its centre the control
itself; the chat's input not over the log; the round's end shown before and during the gold pick.

The browser makes the decisions being measured; the moves in between go through the real move
pipeline (``move_submit``) to keep each test short.
"""

import pytest
from playwright.sync_api import expect

from games import engine
from games.play import moves

from .deals import BASE_DEAL, BASE_ROW, SABOTEUR2_DEAL
from .test_game_play import WAIT, game_url, made, open_turn, select_card, settled, version

SIZES = {
    "1366x768": {"viewport": {"width": 1366, "height": 768}},
    "1920x1080": {"viewport": {"width": 1920, "height": 1080}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}

# What must hold for the maze: a list of problems (empty when all is well).
MAZE_PROBLEMS = """() => {
    const problems = [];
    const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1
        && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    const area = document.querySelector("[data-maze-area]").getBoundingClientRect();
    const board = document.querySelector("#board").getBoundingClientRect();
    const table = document.querySelector("#board table.maze").getBoundingClientRect();
    const barTop = document.querySelector("#bar").getBoundingClientRect().top;
    if (!inside(board, area)) problems.push("the board leaves its area");
    if (!inside(area, {left: 0, top: 0, right: innerWidth, bottom: barTop}))
        problems.push("the maze area is not in view above the bar");
    // No dark box around the maze: the board is the maze's own size.
    if (board.width > table.width + 2 || board.height > table.height + 2)
        problems.push("the board is larger than its maze");
    const xs = [], ys = [];
    for (const cell of document.querySelectorAll("#board td.maze__cell")) {
        if (!cell.querySelector("svg, .maze__spot")) continue;
        const x = Number(cell.dataset.x), y = Number(cell.dataset.y);
        xs.push(x); ys.push(y);
        if (!inside(cell.getBoundingClientRect(), board)) problems.push(`${x},${y} outside`);
    }
    for (const [x, y] of [[0, 0], [8, -2], [8, 0], [8, 2]]) {
        const cell = document.querySelector(`#board td[data-x="${x}"][data-y="${y}"] svg`);
        if (!cell) problems.push(`no card at ${x},${y}`);
    }
    // One empty row or column at most around the cards and spots.
    const cells = [...document.querySelectorAll("#board td.maze__cell")];
    const first = cells[0], last = cells[cells.length - 1];
    const edges = [first.dataset.x, last.dataset.x, first.dataset.y, last.dataset.y].map(Number);
    const wanted = [
        Math.min(...xs) - 1, Math.max(...xs) + 1, Math.min(...ys) - 1, Math.max(...ys) + 1,
    ];
    if (edges.join() !== wanted.join())
        problems.push("more than one empty row or column around the cards");
    return problems;
}"""

# A control is usable: inside the viewport, and the element at its centre is the control.
CONTROL_PROBLEM = """element => {
    const r = element.getBoundingClientRect();
    if (!r.width || !r.height) return "not shown";
    if (r.left < -0.5 || r.top < -0.5 || r.right > innerWidth + 0.5 || r.bottom > innerHeight + 0.5)
        return `outside the viewport: ${JSON.stringify(r)}`;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit === element || element.contains(hit)) return "";
    return `covered by ${hit ? hit.tagName + "." + hit.className : "nothing"}`;
}"""


def maze_fits(page):
    settled(page)
    page.wait_for_function("() => !!document.querySelector('#board table.maze').style.zoom")
    assert page.evaluate(MAZE_PROBLEMS) == []


# On a touch screen whose fitted cells are narrower than a finger, a chosen card's spots are
# zoomed to (js/game.js): each at least 40 px, inside the maze's box.
SPOTS_BIG = """() => {
    const board = document.querySelector("#board").getBoundingClientRect();
    const spots = [...document.querySelectorAll("#play .maze__spot")];
    return spots.length > 0 && spots.every(spot => {
        const r = spot.getBoundingClientRect();
        return r.width >= 39.5 && r.height >= 39.5;
    }) && spots.some(spot => {
        const r = spot.getBoundingClientRect();
        return r.left >= board.left - 1 && r.right <= board.right + 1
            && r.top >= board.top - 1 && r.bottom <= board.bottom + 1;
    });
}"""


def spots_in_reach(page, *, tap):
    """With a card chosen: on a phone the spots are a finger wide, elsewhere the maze fits."""
    if tap:
        settled(page)
        page.wait_for_function(SPOTS_BIG, timeout=WAIT)
    else:
        maze_fits(page)


def usable(locator):
    """Every element of ``locator`` is a usable control (at least one)."""
    count = locator.count()
    assert count, locator
    for index in range(count):
        element = locator.nth(index)
        assert element.evaluate(CONTROL_PROBLEM) == "", (locator, index)


def submit(game, user, **wanted):
    """Make the legal move of ``user`` that has the ``wanted`` fields, through move_submit."""
    game.refresh_from_db()
    state = engine.State.from_json(game.snapshot)
    seat = game.seats.get(user=user)
    for move in engine.legal_moves(state, seat.engine_name):
        if all(_same(key, move.get(key), value) for key, value in wanted.items()):
            moves.move_submit(game_id=game.pk, user=user, move=move, expected_version=game.version)
            return
    raise AssertionError(f"no legal move {wanted}")


def _same(key, have, want):
    if key == "at":
        return list(have or []) == list(want)
    if key == "discard":
        return sorted(have or []) == sorted(want)
    return have == want


def chat_under_its_list_not_over_the_log(page):
    box = page.locator("#chat-text")
    box.scroll_into_view_if_needed()
    usable(box)
    text, log = box.bounding_box(), page.locator(".log-panel").bounding_box()
    apart = (
        text["y"] >= log["y"] + log["height"] - 1
        or text["y"] + text["height"] <= log["y"] + 1
        or text["x"] >= log["x"] + log["width"] - 1
        or text["x"] + text["width"] <= log["x"] + 1
    )
    assert apart, (text, log)
    chat = page.locator("#chat").bounding_box()
    assert chat["y"] <= text["y"] and text["y"] + text["height"] <= chat["y"] + chat["height"] + 1
    page.evaluate("window.scrollTo(0, 0)")  # back to the table (a phone scrolls to its chat)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_base_table_geometry(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    a = player_page(ann, **SIZES[size])
    tap = size == "phone"

    open_turn(a, url)
    expect(a.get_by_test_id("decision-title")).to_have_text("Choose a card to play, or pass.")
    maze_fits(a)
    usable(a.locator("#bar a.hand-card"))
    usable(a.locator('[data-testid="pass-choice"] > summary'))
    # The players around the table, in turn order, all in view.
    usable(a.get_by_test_id("seat"))
    chat_under_its_list_not_over_the_log(a)

    # A card chosen: its help closes, its spots are in the maze, its controls in the bar.
    select_card(a, "t-new", tap=tap)
    if not tap:
        expect(a.locator("#bar .hand > li.tip-off .card-tip").first).to_be_hidden()
    spots_in_reach(a, tap=tap)
    spots = a.locator("#board .maze__spot")
    # Zoomed in on a phone: some spots off the view, the one nearest to the goals in it (and the
    # goals: tests/e2e/test_phone_zoom.py).
    usable(a.locator('#board .maze__spot[data-at="1,0"]') if tap else spots)
    usable(a.get_by_test_id("turn-card"))
    usable(a.get_by_test_id("cancel"))
    expect(a.get_by_test_id("decision-title")).to_contain_text("Choose a highlighted spot")
    turn = a.get_by_test_id("turn-card")
    turn.tap() if tap else turn.click()
    expect(a.locator('#play input[name="turned"][value="on"]')).to_have_count(1, timeout=WAIT)
    settled(a)
    spot = a.locator('a.maze__spot[data-at="1,0"]')
    spot.tap() if tap else spot.click()
    expect(a.get_by_test_id("confirm-move")).to_have_count(1, timeout=WAIT)
    settled(a)
    spots_in_reach(a, tap=tap)
    usable(a.get_by_test_id("confirm-move"))
    usable(a.get_by_test_id("confirm-panel"))
    before = version(a)
    confirm = a.get_by_test_id("confirm-panel")
    confirm.tap() if tap else confirm.click()
    made(a, before)
    maze_fits(a)

    # Bob: a map's choices, then the goal he saw shows its face to him alone.
    b = player_page(bob, **SIZES[size])
    open_turn(b, url)
    select_card(b, "map", tap=tap)
    looks = b.get_by_test_id("choose-target")
    usable(looks)
    expect(b.get_by_test_id("decision-title")).to_have_text("Choose a goal to look at.")
    # The goals themselves are choices on the maze too; a choice asks to confirm, as every
    # action does (a Map was made at once by its button).
    goals = b.locator("#board a.maze__spot--goal")
    expect(goals).to_have_count(3)
    north = b.locator('#board a.maze__spot--goal[data-goal="north"]')
    usable(north)
    north.tap() if tap else north.click()
    confirm = b.get_by_test_id("confirm-action")
    expect(confirm).to_have_count(1, timeout=WAIT)
    settled(b)
    expect(b.get_by_test_id("confirm-step")).to_contain_text("Look at the north goal?")
    expect(north).to_have_attribute("aria-pressed", "true")
    usable(confirm)
    before = version(b)
    confirm.tap() if tap else confirm.click()
    made(b, before)
    maze_fits(b)
    seen = b.locator('td[data-x="8"][data-y="-2"]')
    expect(seen.get_by_test_id("peeked")).to_have_count(1)
    expect(seen.locator(".card-svg--back")).to_have_count(0)
    b.close()

    # Cid passes: the card choice opens above the bar, with Pass in view.
    c = player_page(cid, **SIZES[size])
    open_turn(c, url)
    summary = c.locator('[data-testid="pass-choice"] > summary')
    summary.tap() if tap else summary.click()
    # The choices come when it opens (asked for: the next player's live update stays small).
    expect(c.get_by_test_id("pass")).to_be_visible(timeout=WAIT)
    usable(c.locator('[data-testid="pass-choice"] label.check'))
    usable(c.get_by_test_id("pass"))
    c.locator("label.check", has_text="Dead end").locator("input").check()
    before = version(c)
    pass_button = c.get_by_test_id("pass")
    pass_button.tap() if tap else pass_button.click()
    made(c, before)

    # To the round's end: the gold pick is decided with the round's result in view.
    for seat, card, x in BASE_ROW:
        submit(game, (ann, bob, cid)[seat], move="place", card=card, at=[x, 0])
    c.goto(url)
    expect(c.get_by_test_id("decision-title")).to_have_text("Pick a gold card.")
    end = c.get_by_test_id("round-end")
    expect(end).to_contain_text("Round 1 is over")
    expect(end).to_contain_text("Bob: Saboteur")
    maze_fits(c)
    expect(c.locator("#board .card-svg--back")).to_have_count(0)  # every goal face up
    expect(c.get_by_test_id("hand-folded")).not_to_have_attribute("open", "")
    expect(c.locator("#bar .hand-card__reason")).to_have_count(0)
    usable(c.get_by_test_id("gold-pick").get_by_role("button"))
    a.goto(url)
    expect(a.get_by_test_id("round-end")).to_contain_text("Bob: Saboteur")
    expect(a.get_by_test_id("gold-pick-wait")).to_be_visible()
    assert browser_problems.problems == []


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_saboteur2_table_geometry(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="saboteur2", deal=SABOTEUR2_DEAL)
    url = game_url(live_server, game)
    tap = size == "phone"
    submit(game, ann, move="place", card="cross", at=[1, 0])
    submit(game, bob, move="place", card="straight-ew", at=[2, 0])

    # Cid chooses whom to break: the targets and the confirmation in the bar.
    c = player_page(cid, **SIZES[size])
    open_turn(c, url)
    select_card(c, "break-cart", tap=tap)
    expect(c.get_by_test_id("decision-title")).to_contain_text("Choose whom to play")
    targets = c.get_by_test_id("choose-target")
    usable(targets)
    target = targets.filter(has_text="Ann")
    target.tap() if tap else target.click()
    expect(c.get_by_test_id("confirm-action")).to_have_count(1, timeout=WAIT)
    settled(c)
    usable(c.get_by_test_id("confirm-action"))
    before = version(c)
    confirm = c.get_by_test_id("confirm-action")
    confirm.tap() if tap else confirm.click()
    made(c, before)
    # The broken cart shows as an icon by Ann in the players' strip.
    ann_seat = c.get_by_test_id("seat").filter(has_text="Ann")
    expect(ann_seat.locator(".icon-svg")).to_have_count(1)

    # Ann: discard two cards to remove the broken cart, from the bar.
    a = player_page(ann, **SIZES[size])
    open_turn(a, url)
    maze_fits(a)
    summary = a.locator('[data-testid="clear-choice"] > summary')
    usable(summary)
    summary.tap() if tap else summary.click()
    expect(a.get_by_test_id("clear")).to_be_visible(timeout=WAIT)
    usable(a.locator('[data-testid="clear-choice"] label.check'))
    usable(a.locator('[data-testid="clear-choice"] select'))
    usable(a.get_by_test_id("clear"))
    a.close()

    # On to the round's end through a blue door: Cid's theft is decided in the bar.
    submit(game, ann, move="clear", remove="break-cart", discard=["curve-ne", "curve-ne"])
    submit(game, bob, move="place", card="straight-ew", at=[3, 0])
    submit(game, cid, move="action", card="theft", target="2")
    submit(game, ann, move="place", card="cross", at=[4, 0])
    submit(game, bob, move="place", card="cross", at=[5, 0])
    submit(game, cid, move="place", card="door-blue-ew", at=[6, 0])
    submit(game, ann, move="place", card="t-new", at=[7, 0])
    c.goto(url)
    expect(c.get_by_test_id("decision-title")).to_have_text("Choose whom to steal from.")
    expect(c.get_by_test_id("round-end")).to_contain_text("Round 1 is over")
    maze_fits(c)
    expect(c.get_by_test_id("hand-folded")).to_have_count(1)
    usable(c.get_by_test_id("steal").get_by_role("button"))
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_the_maze_zooms_and_pans_and_the_newest_move_lands(
    live_server, make_player, rigged_game, player_page, browser
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    submit(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    b = player_page(bob, **SIZES["1366x768"])
    open_turn(b, url)
    # The newest move lands once, animated.
    landed = b.locator("#board td.maze__cell--last")
    expect(landed).to_have_count(1)
    assert landed.evaluate("td => td.dataset.x + ',' + td.dataset.y") == "1,0"
    animation = landed.locator("svg").evaluate("svg => getComputedStyle(svg).animationName")
    assert animation == "maze-land"
    board = b.locator("#board")
    fits = "b => b.scrollWidth <= b.clientWidth + 1 && b.scrollHeight <= b.clientHeight + 1"
    assert board.evaluate(fits)
    # Keys + and 0 on the maze.
    board.focus()
    b.keyboard.press("+")
    expect(board).to_have_class("board board--main board--zoomed")
    assert not board.evaluate(fits)
    # Arrow keys on the zoomed maze pan it, both ways (ArrowRight did nothing). Zoomed in until
    # the maze is wider than its room (at first it takes the room the log leaves).
    where = "b => [Math.round(b.scrollLeft), Math.round(b.scrollTop)]"
    for _ in range(3):
        b.keyboard.press("+")
    b.wait_for_function("() => { const b = document.querySelector('#board');"
                        " return b.scrollWidth > b.clientWidth + 1; }")  # fmt: skip
    board.evaluate("b => { b.scrollLeft = 0; b.scrollTop = 0; }")
    b.keyboard.press("ArrowRight")
    b.wait_for_function("() => document.querySelector('#board').scrollLeft > 0")
    b.keyboard.press("ArrowDown")
    b.wait_for_function("() => document.querySelector('#board').scrollTop > 0")
    panned = board.evaluate(where)
    b.keyboard.press("ArrowLeft")
    b.keyboard.press("ArrowUp")
    b.wait_for_function(f"() => document.querySelector('#board').scrollLeft < {panned[0]}")
    b.wait_for_function(f"() => document.querySelector('#board').scrollTop < {panned[1]}")
    expect(board).to_be_focused()
    b.keyboard.press("0")
    expect(board).not_to_have_class("board board--main board--zoomed")
    # Ctrl + wheel zooms around the pointer; dragging pans the zoomed maze.
    box = board.bounding_box()
    b.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    b.keyboard.down("Control")
    b.mouse.wheel(0, -400)
    b.keyboard.up("Control")
    expect(board).to_have_class("board board--main board--zoomed")
    before = board.evaluate("b => [b.scrollLeft, b.scrollTop]")
    b.mouse.down()
    b.mouse.move(box["x"] + box["width"] / 2 - 80, box["y"] + box["height"] / 2 - 40, steps=5)
    b.mouse.up()
    after = board.evaluate("b => [b.scrollLeft, b.scrollTop]")
    assert after != before
    # The zoom survives a swap of the play area (choosing a card).
    select_card(b, "map")
    expect(board).to_have_class("board board--main board--zoomed")
    b.get_by_role("button", name="Fit").click()
    expect(board).not_to_have_class("board board--main board--zoomed")

    # The chat's box keeps what is typed while the play area is refreshed around it, and is
    # emptied once the message is sent.
    box = b.locator("#chat-text")
    box.fill("Who broke my lantern?")
    b.evaluate(
        "url => htmx.ajax('GET', url + '?part=play', {target: '#play', swap: 'outerHTML'})", url
    )
    settled(b)
    expect(b.locator("#chat-text")).to_have_value("Who broke my lantern?")
    b.locator("#chat-form").get_by_role("button", name="Send").click()
    expect(b.locator("#chat .chat")).to_contain_text("Who broke my lantern?", timeout=WAIT)
    expect(b.locator("#chat-text")).to_have_value("")

    # Under prefers-reduced-motion the newest move does not move.
    context = browser.new_context(reduced_motion="reduce", viewport={"width": 1366, "height": 768})
    try:
        from django.conf import settings
        from django.test import Client

        client = Client()
        client.force_login(bob)
        cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
        context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": cookie, "url": url}])
        still = context.new_page()
        still.goto(url)
        cell = still.locator("#board td.maze__cell--last")
        expect(cell).to_have_count(1)
        assert cell.locator("svg").evaluate("s => getComputedStyle(s).animationName") == "none"
    finally:
        context.close()
