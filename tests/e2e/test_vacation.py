"""A vacation in the browser, on a phone (issue 26): the player declares it from their profile,
the page shows the balance and the planned end, the table's game page tells the others and the
player's clock says it has stopped; "I am back" ends it."""

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}
WAIT = 10_000


@pytest.mark.django_db(transaction=True)
def test_a_vacation_declared_on_a_phone_stops_the_clock_and_the_table_sees_it(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Slow mine")
    mover = game.seats.get(position=game.to_move).user
    other = next(u for u in (ann, bob, cid) if u != mover)
    page = player_page(mover, **PHONE)
    page.goto(f"{live_server.url}/accounts/profile/")
    page.get_by_test_id("vacation-link").tap()
    expect(page.get_by_test_id("vacation-balance")).to_contain_text("14 vacation days left")
    page.get_by_label("Days").fill("3")
    page.get_by_test_id("vacation-declare").tap()
    expect(page.get_by_test_id("vacation-planned")).to_contain_text("You are on vacation until")
    expect(page.get_by_test_id("vacation-balance")).to_contain_text("11 vacation days left")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    watcher = player_page(other)
    watcher.goto(f"{live_server.url}/games/{game.pk}/")
    expect(watcher.locator("body")).to_contain_text(f"{mover.display_name} is on vacation from")
    expect(watcher.locator(".deadline")).to_contain_text(
        "(clock stopped: the player is on vacation)"
    )
    page.get_by_test_id("vacation-end").tap()
    expect(page.get_by_test_id("vacation-balance")).to_contain_text("14 vacation days left")
    watcher.reload()
    expect(watcher.locator("body")).to_contain_text(f"{mover.display_name} is back from vacation.")
    assert browser_problems.problems == []
