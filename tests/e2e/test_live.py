"""Live updates in real browsers: two pages of one game see each other's move at once, through the
server-sent events stream (games/web/live.py, static/js/live.js), not the 10-second poll."""

import time

import pytest
from playwright.sync_api import expect

from .deals import BASE_DEAL
from .test_game_play import assert_clean, open_turn, place, waits_for

# Well under the poll's 10 s: only the stream can bring the move this fast. The test also checks
# that no timer poll left the watching page before the move showed.
LIVE_WAIT_MS = 4_000


def stream_open(page):
    expect(page.locator("script[data-live-url]")).to_have_attribute(
        "data-state", "open", timeout=10_000
    )


def poll_requests(page):
    seen = []
    page.on("request", lambda request: "/poll/" in request.url and seen.append(time.monotonic()))
    return seen


@pytest.mark.django_db(transaction=True)
def test_two_pages_see_each_others_moves_without_waiting_for_the_poll(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = f"{live_server.url}/games/{game.pk}/"
    a, b = player_page(ann), player_page(bob)
    b.goto(url)
    waits_for(b, "Ann")
    open_turn(a, url)
    stream_open(a)
    stream_open(b)
    b_polls = poll_requests(b)

    moved = time.monotonic()
    place(a, "t-new", 1, 0, turned=True)
    # Bob's page shows Ann's card and that it is his turn, without a reload or a timer poll.
    expect(b.get_by_test_id("turn-line")).to_contain_text("Your decision.", timeout=LIVE_WAIT_MS)
    expect(b.locator('td.maze__cell[data-x="1"][data-y="0"] svg')).to_have_count(1)
    assert time.monotonic() - moved < LIVE_WAIT_MS / 1000 + 2  # place() itself waits a little
    assert len(b_polls) == 1, "one live refresh, no timer poll"

    # And back: Bob's move reaches Ann's page the same way.
    a_polls = poll_requests(a)
    b.locator('a.hand-card[data-card="map"]').first.click()
    b.locator(".selected-card").get_by_role("link", name="Look at the north goal").click()
    b.get_by_test_id("confirm-action").click()
    expect(a.get_by_test_id("turn-line")).to_contain_text("Waiting for Cid.", timeout=LIVE_WAIT_MS)
    assert len(a_polls) == 1
    assert_clean(browser_problems)


@pytest.mark.django_db(transaction=True)
def test_logging_out_ends_the_stream_of_the_other_tab(
    live_server, make_player, rigged_game, player_page, browser_problems
):
    ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL)
    url = f"{live_server.url}/games/{game.pk}/"
    first = player_page(ann)
    second = first.context.new_page()  # a second tab of the same session
    browser_problems.attach(second, label="Ann's second tab")
    for page in (first, second):
        page.goto(url)
        stream_open(page)
    first.get_by_role("button", name="Log out").click()
    expect(second.locator("script[data-live-url]")).to_have_attribute(
        "data-state", "ended", timeout=5_000
    )
    assert_clean(browser_problems)


@pytest.fixture(autouse=True)
def _fresh_hub():
    """Each test starts and ends without this process's live hub (streams of closed pages)."""
    from games.read import live

    live.stop_hub()
    yield
    live.stop_hub()
