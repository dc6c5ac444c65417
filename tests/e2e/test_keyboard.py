"""Keyboard alone (issue 13): choose a card, move between legal spots with the arrow keys,
confirm; an action on a player is chosen and confirmed the same way; new moves are announced in
the polite live region; the create form disables the base-only variants for Saboteur 2."""

import pytest
from playwright.sync_api import expect

from .test_game_play import confirm_by_keyboard, game_url, made, version

WAIT = 10_000
DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "first": "0",
    "hands": {"0": ["straight-ew", "map"], "1": ["break-cart", "map"], "2": ["map", "map"]},
}


def tab_to(page, selector, limit=80):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focused(page, attribute):
    return page.evaluate(f"() => document.activeElement.getAttribute('{attribute}')")


@pytest.mark.django_db(transaction=True)
def test_moves_by_keyboard_alone_and_announced(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=DEAL)
    url = game_url(live_server, game)
    page = player_page(ann)
    page.goto(url)
    expect(page.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=WAIT)

    # Exploring the maze: from the maze, arrows walk its cards, each showing its help.
    tab_to(page, "#play .board")
    page.keyboard.press("ArrowRight")
    assert focused(page, "title") == "Start: Every path starts here."
    page.keyboard.press("ArrowRight")
    assert focused(page, "data-x") == "8" and focused(page, "data-y") == "0"
    assert "face down" in focused(page, "title")

    tab_to(page, 'a.hand-card[data-card="straight-ew"]')
    page.keyboard.press("Enter")
    expect(page.locator(".selected-card")).to_contain_text("Selected:", timeout=WAIT)
    # The focus lands on a legal spot; arrows walk between the spots around the start.
    expect(page.locator(".maze__spot").first).to_be_focused(timeout=WAIT)
    seen = {focused(page, "data-at")}
    for key in ("ArrowRight", "ArrowLeft", "ArrowLeft"):
        page.keyboard.press(key)
        seen.add(focused(page, "data-at"))
    assert seen == {"1,0", "-1,0"}, seen
    page.keyboard.press("ArrowRight")
    assert focused(page, "data-at") == "1,0"
    # Screen readers hear the spot's neighbours.
    described = page.locator('a.maze__spot[data-at="1,0"]').get_attribute("aria-describedby")
    expect(page.locator(f"#{described}")).to_have_text(
        "Empty spot at column 1, row 0. North: empty; east: empty; south: empty; west: Start."
    )
    page.keyboard.press("Enter")
    confirm_by_keyboard(page)
    announcer = page.get_by_test_id("announcer")
    expect(announcer).to_contain_text("Ann placed Straight (east-west) at column 1, row 0.")
    assert announcer.get_attribute("aria-live") == "polite"

    # Bob breaks Cid's cart: card, target, confirmation, all by keyboard.
    b = player_page(bob)
    b.goto(url)
    expect(b.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=WAIT)
    tab_to(b, 'a.hand-card[data-card="break-cart"]')
    b.keyboard.press(" ")  # the hand's cards are toggle buttons: Space works too
    expect(b.get_by_test_id("choose-target").first).to_be_focused(timeout=WAIT)
    tab_to(b, '[data-testid="choose-target"][href*="target=2"]', limit=5)
    b.keyboard.press("Enter")
    expect(b.get_by_test_id("confirm-action")).to_be_focused(timeout=WAIT)
    before = version(b)
    b.keyboard.press("Enter")
    made(b, before)
    # Ann's open page learns of it by polling and announces it politely.
    expect(page.get_by_test_id("announcer")).to_contain_text("Bob", timeout=15_000)
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_saboteur_2_disables_the_base_only_variants(live_server, make_player, player_page):
    page = player_page(make_player("ann"))
    page.goto(f"{live_server.url}/games/")
    # The creation form (the lobby's filters above it have a rule set and a size too).
    form = page.locator("form[data-create-game]")
    variants = form.locator('input[name="variants"]')
    expect(variants).to_have_count(5)
    variants.first.check()
    form.get_by_label("Rule set").select_option("saboteur2")
    for i in range(5):
        expect(variants.nth(i)).to_be_disabled()
        expect(variants.nth(i)).not_to_be_checked()
    form.get_by_label("Rule set").select_option("base")
    expect(variants.first).to_be_enabled()
    form.get_by_label("Rounds").select_option("1")
    form.get_by_label("Name").fill("Short one")
    form.get_by_label("Number of players").fill("3")
    form.get_by_role("button", name="Create").click()
    expect(page.locator("h1")).to_have_text("Short one", timeout=WAIT)
    expect(page.locator(".game-meta")).to_be_visible()
