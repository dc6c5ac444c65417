"""Results where the eyes are (issue 37, point 2). The game is over: the scoring view is in view
when the page opens (it was 1,626 px down a 768 px screen, under a greyed hand), the dead hand
goes, and "Play again with this table" makes a new game the others join with one click. A round
is over: its result stays in view in the next round until the player closes it (or decides).

The moves up to the end go through the real move pipeline (``move_submit``) to keep it short.
"""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL, BASE_ROW
from .test_accessibility import violations
from .test_game_play import WAIT, game_url
from .test_table import CONTROL_PROBLEM, SIZES, submit

# The winner line's box is inside the viewport as the page opens (no scrolling).
IN_VIEW = """element => {
    const r = element.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
}"""


def play_to_the_end(game, ann, bob, cid):
    """The rigged first round to its end: Cid reaches the treasure; Cid and Ann pick gold."""
    submit(game, ann, move="place", card="t-new", at=[1, 0], turned=True)
    submit(game, bob, move="action", card="map", goal="north")
    submit(game, cid, move="pass", discard=["dead-n"])
    for seat, card, x in BASE_ROW:
        submit(game, (ann, bob, cid)[seat], move="place", card=card, at=[x, 0])
    submit(game, cid, move="pick-gold", value=3)
    submit(game, ann, move="pick-gold", value=2)


@pytest.mark.parametrize("size", ["1366x768", "phone"])
@pytest.mark.django_db(transaction=True)
def test_the_scoring_view_is_in_view_and_the_table_plays_again(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Deep mine")
    play_to_the_end(game, ann, bob, cid)
    game.refresh_from_db()
    assert game.status == game.Status.FINISHED
    a = player_page(ann, **SIZES[size])
    a.goto(game_url(live_server, game))
    over = a.get_by_test_id("game-over")
    expect(over).to_be_visible(timeout=WAIT)
    winners = over.get_by_role("heading", name="Cid wins with 4 gold!")
    expect(winners).to_be_visible()
    assert winners.evaluate(IN_VIEW), "the winners are not in view as the page opens"
    expect(over.get_by_test_id("standings").locator("li")).to_have_text(
        ["Cid: 4", "Ann: 2", "Bob: 0"]
    )
    expect(over.get_by_test_id("roles-by-round")).to_contain_text("Bob: Saboteur")
    expect(a.locator("#bar .hand")).to_have_count(0)  # the dead hand is gone
    again = over.get_by_test_id("rematch")
    assert again.evaluate(CONTROL_PROBLEM) == ""  # in view and not covered
    width = a.evaluate("document.scrollingElement.scrollWidth")
    assert width <= a.viewport_size["width"], width
    assert violations(a) == []  # axe: no serious or critical violation

    again.click()
    expect(a.locator("h1")).to_have_text("Deep mine", timeout=WAIT)
    new_url = a.url
    assert new_url != game_url(live_server, game)
    b = player_page(bob, **SIZES[size])
    b.goto(game_url(live_server, game))
    offer = b.get_by_test_id("rematch-offer")
    expect(offer).to_contain_text("Ann wants to play again with this table.")
    offer.get_by_role("button", name="Join the new game").click()
    expect(b).to_have_url(new_url, timeout=WAIT)
    a.reload()
    expect(a.locator("body")).to_contain_text("Bob")
    assert browser_problems.problems == []


@pytest.mark.parametrize("size", ["1366x768", "phone"])
@pytest.mark.django_db(transaction=True)
def test_a_rounds_result_stays_in_view_until_closed_and_covers_no_decision(
    size, live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, rounds=2)
    play_to_the_end(game, ann, bob, cid)  # of round 1: the game goes on
    game.refresh_from_db()
    assert game.status == game.Status.RUNNING
    b = player_page(bob, **SIZES[size])
    b.goto(game_url(live_server, game))
    result = b.get_by_test_id("round-result")
    expect(result).to_be_visible(timeout=WAIT)
    expect(result).to_contain_text("Round 1 is over")
    box = "e => JSON.stringify(e.getBoundingClientRect())"
    assert result.evaluate(IN_VIEW), result.evaluate(box)
    assert violations(b) == []
    for control in b.locator("#bar a.hand-card, #bar .hand-card, #bar summary").all():
        # A waiting hand is inert (no decision yet: js/learn.js): nothing to reach there.
        if control.is_visible() and not control.evaluate("e => !!e.closest('[inert]')"):
            assert control.evaluate(CONTROL_PROBLEM) == "", control
    result.get_by_role("button", name="Close").click()
    expect(result).to_be_hidden()
    b.evaluate(
        "url => htmx.ajax('GET', url + '?part=play', {target: '#play', swap: 'outerHTML'})",
        game_url(live_server, game),
    )
    b.reload()
    expect(b.get_by_test_id("turn-line")).to_be_visible()
    expect(b.get_by_test_id("round-result")).to_be_hidden()  # closed stays closed
    assert browser_problems.problems == []
