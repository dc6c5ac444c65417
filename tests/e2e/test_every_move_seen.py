"""Every move is seen on the table, and every control is a finger wide (issue 50, point 5).

What went wrong: a pass was shown nowhere on the table (only a log line); after a move the
keyboard's focus fell to the page's top (24 Tabs back to the hand); on the phone the zoom tools
were 36x36 px, the mark buttons 36 px high, the "Your role" line 14 px, and a chip's invisible
44 px button spilled over the row below (a tap on a second-row chip opened a first-row card).

Measured in the page: bounding boxes of every control of the table and hit tests
(``elementFromPoint``) at its middle and near its corners.
"""

import re

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_game_play import WAIT, confirm_by_keyboard, game_url, open_turn, settled
from .test_table import SIZES, submit

LIVE = 20_000  # an open page learns of a move live (or by its poll, every 10 s)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.django_db(transaction=True)
def test_a_pass_shows_on_the_movers_chip(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    c = player_page(cid, **SIZES[size])
    c.goto(url)
    expect(c.get_by_test_id("turn-line")).to_be_visible()
    submit(game, ann, move="pass", discard=["t-new"])
    # The open page learns of the move live (its parts sent out of band).
    chip = c.locator('.seat[data-seat="0"]')
    passed = chip.get_by_test_id("passed")
    expect(passed).to_have_text(re.compile("passed", re.IGNORECASE), timeout=LIVE)
    expect(chip).to_have_class(re.compile(r"\bseat--passed\b"))  # outlined
    expect(passed).to_be_in_viewport()
    expect(c.get_by_test_id("passed")).to_have_count(1)  # on the mover's chip alone
    c.reload()  # the whole page again: the chip still says it
    expect(passed).to_be_visible(timeout=WAIT)
    # The next move (on the maze) takes the mark away from the chip.
    submit(game, bob, move="place", card="cross", at=[1, 0])
    expect(c.get_by_test_id("passed")).to_have_count(0, timeout=LIVE)
    expect(c.locator("#board td.maze__cell--last")).to_have_count(1)
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_the_focus_goes_back_to_the_hand_after_a_move(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    page = player_page(ann, **SIZES["1366x768"])
    open_turn(page, url)
    page.locator('a.hand-card[data-card="cross"]').focus()
    page.keyboard.press("Enter")
    expect(page.locator(".maze__spot").first).to_be_focused(timeout=WAIT)
    page.locator('a.maze__spot[data-at="1,0"]').focus()
    page.keyboard.press("Enter")
    confirm_by_keyboard(page)
    settled(page)
    # Waiting for the others: the focus is in the bar, a Tab before the hand (not the page's top).
    assert page.evaluate("() => !!document.activeElement.closest('#bar')")
    submit(game, bob, move="place", card="straight-ew", at=[2, 0])
    submit(game, cid, move="pass", discard=["dead-n"])
    expect(page.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=LIVE)
    settled(page)
    # The turn back: the focus is on the hand's first card; Enter chooses it.
    focused = page.locator("#bar .hand a.hand-card").first
    expect(focused).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator(".selected-card")).to_contain_text("Selected:", timeout=WAIT)
    assert browser_problems.problems == []


# Every control of the game's screen, each a finger wide (>= 40 px both ways), none overlapping
# another, and each the element a finger finds at its middle and near its corners (a point under
# the docked bar is the bar's). Inline links in a line of text are left out (the game's Rules and
# Replay links: their line's height), as are the maze's cells (the card's help on a long press).
TARGETS = """() => {
    const selector = [
        "a[href]", "button", "summary", "select", "textarea", "[role=button]",
        "input:not([type=hidden]):not([type=checkbox]):not([type=radio])",
        "label:has(> input[type=checkbox])", "label:has(> input[type=radio])",
        "[tabindex='0']",
    ].join(", ");
    const shown = e => e.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})
        && e.getBoundingClientRect().width > 0;
    const inline = e => e.matches("a:not(.button):not(.hand-card):not(.maze__spot)")
        && e.parentElement.textContent.trim() !== e.textContent.trim();
    const targets = [...document.querySelectorAll(selector)].filter(e =>
        e.closest("#play, .did-pop:popover-open") && shown(e) && !inline(e)
        && !e.closest("td.maze__cell:not(:has(.maze__spot))") && !e.closest("[inert]")
        && !e.matches("#board"));
    // Three layers: the page, the bar docked over it, a player's card over both (opened).
    const layer = e => e.closest(".did-pop:popover-open") ? 2 : e.closest("#bar") ? 1 : 0;
    const problems = [];
    const name = e => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}`
        + ` "${(e.textContent || e.getAttribute("aria-label") || "").trim().slice(0, 24)}"`;
    for (const e of targets) {
        const r = e.getBoundingClientRect();
        if (r.width < 39.5 || r.height < 39.5)
            problems.push(`${name(e)} is ${Math.round(r.width)}x${Math.round(r.height)}`);
        for (const [fx, fy] of [[0.5, 0.5], [0.1, 0.1], [0.9, 0.1], [0.1, 0.9], [0.9, 0.9]]) {
            const x = r.left + r.width * fx, y = r.top + r.height * fy;
            if (y < 0 || y > innerHeight || x < 0 || x > innerWidth) continue;
            const hit = document.elementFromPoint(x, y);
            if (!hit || layer(hit) > layer(e)) continue;  // under the bar or an open card
            const owner = hit.closest(selector);
            if (hit !== e && !e.contains(hit) && !(owner && owner.contains(e)))
                problems.push(`${name(e)} at ${Math.round(x)},${Math.round(y)} hits ${name(hit)}`);
        }
    }
    for (let i = 0; i < targets.length; i++) for (let j = i + 1; j < targets.length; j++) {
        const a = targets[i], b = targets[j];
        if (a.contains(b) || b.contains(a) || layer(a) !== layer(b)) continue;
        const p = a.getBoundingClientRect(), q = b.getBoundingClientRect();
        const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
        const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
        if (w > 1 && h > 1) problems.push(`${name(a)} overlaps ${name(b)}`);
    }
    return problems;
}"""


def targets_problems(page):
    """The problems of the touch targets, at the top of the page and at its end."""
    settled(page)
    page.evaluate("window.scrollTo(0, 0)")
    problems = page.evaluate(TARGETS)
    page.evaluate("window.scrollTo(0, document.scrollingElement.scrollHeight)")
    problems += page.evaluate(TARGETS)
    page.evaluate("window.scrollTo(0, 0)")
    return sorted(set(problems))


@pytest.mark.django_db(transaction=True)
def test_every_touch_target_on_the_phone_is_a_finger_wide_and_its_own(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    users = [make_player(n) for n in ("ann", "bob", "cid", "dan", "eve", "fay")]
    deal = {
        "roles": {str(n): "gold-digger" for n in range(6)} | {"1": "saboteur"},
        "first": "0",
        "hands": {
            "0": ["cross", "map", "break-lantern", "straight-ew", "rockfall"],
            "1": ["map"],
            "2": ["map"],
            "3": ["map"],
            "4": ["map"],
            "5": ["map"],
        },
    }
    game = rigged_game(users, ruleset="base", deal=deal)
    url = game_url(live_server, game)
    page = player_page(users[0], **SIZES["phone"])
    open_turn(page, url)
    assert (
        page.locator("#seats .seat").evaluate_all(
            "chips => new Set(chips.map(c => Math.round(c.getBoundingClientRect().top))).size"
        )
        > 1
    )  # the strip wraps: a second row of chips under the first
    assert targets_problems(page) == []
    # The role's line opened; a player's card with the marks to give (a tap on its chip).
    page.locator("#bar .bar__role > summary").tap()
    assert targets_problems(page) == []
    page.locator('.seat[data-seat="4"] .seat__open').tap()
    expect(page.locator("#did-4")).to_be_visible()
    assert targets_problems(page) == []
    # A second-row chip's tap opens its own card (the first row's invisible buttons spilled).
    page.keyboard.press("Escape")
    for seat in range(1, 6):
        chip = page.locator(f'.seat[data-seat="{seat}"]')
        box = chip.bounding_box()
        page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] - 3)
        expect(page.locator(f"#did-{seat}")).to_be_visible()
        page.keyboard.press("Escape")
        expect(page.locator(f"#did-{seat}")).to_be_hidden()
    # A card chosen: its controls and the zoomed maze's spots.
    page.locator('a.hand-card[data-card="cross"]').tap()
    expect(page.locator(".selected-card")).to_be_visible(timeout=WAIT)
    assert targets_problems(page) == []
    assert browser_problems.problems == []
