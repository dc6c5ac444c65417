"""The ledger and private marks in a browser (issue 38): a player's card opens from the players
strip by hover, by a tap on a phone and with the keyboard, over the table (moving nothing); a mark
given there shows on the author's chip, after a reload too, and on nobody else's page."""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_game_play import WAIT, game_url, open_turn, settled
from .test_table import SIZES, submit

pytestmark = pytest.mark.django_db(transaction=True)


def inside_viewport(page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
        and box["y"] + box["height"] <= size["height"] + 0.5
    )


def bobs_turn(live_server, make_player, rigged_game, player_page, size):
    """Ann has passed: Bob's page at his turn (``size``), the game's address, and Cid."""
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = game_url(live_server, game)
    submit(game, ann, move="pass")
    b = player_page(bob, **SIZES[size])
    open_turn(b, url)
    return b, url, cid


def test_a_players_card_opens_by_hover_and_keyboard_and_a_mark_stays_the_authors(
    live_server, make_player, rigged_game, player_page
):
    b, url, cid = bobs_turn(live_server, make_player, rigged_game, player_page, "1366x768")
    maze = b.locator("#board").bounding_box()
    # Hover over Ann's chip: her card, under the chip, in view; the maze has not moved.
    b.locator("#seat-0").hover()
    card = b.locator("#did-0")
    expect(card).to_be_visible(timeout=WAIT)
    expect(card).to_contain_text("This round: passed")
    assert inside_viewport(b, card)
    assert b.locator("#board").bounding_box() == maze
    # The mouse leaves: it closes.
    b.locator("#board").hover()
    expect(card).to_be_hidden(timeout=WAIT)
    # The keyboard: focus Cid's chip, Enter opens his card, Tab to a mark, Enter gives it.
    b.locator('#seat-2 [data-testid="seat-open"]').focus()
    b.keyboard.press("Enter")
    expect(b.locator("#did-2")).to_be_visible(timeout=WAIT)
    b.locator("#did-2").get_by_role("button", name="Saboteur").focus()
    b.keyboard.press("Enter")
    settled(b)
    badge = b.locator("#seat-2 .seat__mark--saboteur")
    expect(badge).to_be_visible(timeout=WAIT)
    b.reload()
    expect(b.locator("#seat-2 .seat__mark--saboteur")).to_be_visible(timeout=WAIT)
    # Nobody else sees it.
    c = player_page(cid)
    c.goto(url)
    expect(c.get_by_test_id("players")).to_be_visible(timeout=WAIT)
    expect(c.locator(".seat__mark")).to_have_count(0)


def test_on_a_phone_a_tap_on_a_chip_opens_the_card_in_view(
    live_server, make_player, rigged_game, player_page
):
    b, _url, _cid = bobs_turn(live_server, make_player, rigged_game, player_page, "phone")
    b.locator('#seat-0 [data-testid="seat-open"]').tap()
    card = b.locator("#did-0")
    expect(card).to_be_visible(timeout=WAIT)
    assert inside_viewport(b, card)
    card.get_by_role("button", name="Not sure").tap()
    settled(b)
    expect(b.locator("#seat-0 .seat__mark--unsure")).to_be_visible(timeout=WAIT)
    # The page is no wider than the phone.
    assert b.evaluate("() => document.documentElement.scrollWidth") <= 390
