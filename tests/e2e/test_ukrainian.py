"""The site in Ukrainian: a player whose profile language is Ukrainian plays a move."""

from django.utils import translation
from playwright.sync_api import expect

from games.read.card_names import card_name

WAIT = 10_000
DEAL = {
    "roles": {"0": "gold-digger", "1": "saboteur", "2": "gold-digger"},
    "first": "0",
    "hands": {"0": ["straight-ew"], "1": ["map"], "2": ["map"]},
}


def in_ukrainian(text):
    with translation.override("uk"):
        return str(translation.gettext(text))


def test_a_move_with_the_site_in_ukrainian(make_player, rigged_game, player_page, live_server,
                                           browser_problems):  # fmt: skip
    ann, bob, cid = (make_player(name) for name in ("ann", "bob", "cid"))
    ann.language = "uk"
    ann.save(update_fields=["language"])
    game = rigged_game([ann, bob, cid], ruleset="base", deal=DEAL)
    page = player_page(ann)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    assert page.locator("html").get_attribute("lang") == "uk"
    decision = in_ukrainian("Your decision.")
    assert decision != "Your decision."  # the catalogue really is Ukrainian
    expect(page.get_by_test_id("turn-line")).to_contain_text(decision, timeout=WAIT)

    page.locator('a.hand-card[data-card="straight-ew"]').click()
    with translation.override("uk"):
        name = str(card_name("straight-ew"))
    expect(page.locator(".selected-card")).to_contain_text(name, timeout=WAIT)
    page.locator('a.maze__spot[data-at="1,0"]').click()
    confirm = page.get_by_test_id("confirm-move")
    expect(confirm).to_contain_text(in_ukrainian("Confirm"), timeout=WAIT)
    confirm.click()
    expect(page.locator("#play")).to_contain_text(in_ukrainian("Your move is made."), timeout=WAIT)
    expect(page.locator('td.maze__cell[data-x="1"][data-y="0"] svg')).to_have_count(1)
    assert game.moves.count() == 1
    assert browser_problems.problems == []
