"""One rematch per finished game, offered live (issue 50, point 4): the players' pages of a
finished game stay open; one presses "Play again with this table", and the others are offered
the new game on the page they have open, without a reload (the finished game's page keeps its
live stream while something may be offered), join it in one click, and once the whole table is
in, it starts by itself (the creator's open lobby shows it start, live too)."""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_accessibility import violations
from .test_game_over import play_to_the_end
from .test_game_play import WAIT, assert_clean, game_url
from .test_live import stream_open


def offer(page):
    return page.get_by_test_id("rematch-offer")


@pytest.mark.django_db(transaction=True)
def test_the_others_open_pages_are_offered_the_new_game_live_and_join_it(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    finished = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Deep mine")
    play_to_the_end(finished, ann, bob, cid)
    url = game_url(live_server, finished)
    a, b, c = player_page(ann), player_page(bob), player_page(cid)
    for page in (a, b, c):
        page.goto(url)
        expect(page.get_by_test_id("rematch")).to_be_visible(timeout=WAIT)
        stream_open(page)  # a finished game's page follows it while a new game may come

    a.get_by_test_id("rematch").click()
    expect(a.locator("h1")).to_have_text("Deep mine", timeout=WAIT)
    new_url = a.url
    assert new_url != url
    for page in (b, c):  # no reload: the offer comes to the page that is open
        expect(offer(page)).to_contain_text(
            "Ann wants to play again with this table.", timeout=WAIT
        )
        expect(page.get_by_test_id("rematch")).to_have_count(0)
        assert page.url == url
    assert violations(b) == []

    offer(b).get_by_role("button", name="Join the new game").click()
    expect(b).to_have_url(new_url, timeout=WAIT)
    expect(a.locator("body")).to_contain_text("Bob", timeout=WAIT)  # Ann's lobby, live
    expect(a.get_by_role("button", name="Start the game")).to_be_visible()

    # The last of the table joins: the game starts by itself, on every open page of it.
    offer(c).get_by_role("button", name="Join the new game").click()
    expect(c).to_have_url(new_url, timeout=WAIT)
    for page in (a, b, c):
        expect(page.get_by_test_id("decision-bar")).to_be_visible(timeout=WAIT)
        expect(page.get_by_role("button", name="Start the game")).to_have_count(0)
    assert_clean(browser_problems)
