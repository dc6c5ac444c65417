"""Coming back after a day, in the browser: the recap of a round that ended meanwhile, the replay
stepped through with the keyboard, and the wide-screen layout (issue 12)."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from games.models import Seat
from tests.web.scenario_games import play_moves, scenario_game

from .conftest import PLAYER_PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

SCENARIO = "base/treasure_found_gold_picks_counter_clockwise_skip_saboteur"
WAIT = 10_000


def browser_user(user):
    user.set_password(PLAYER_PASSWORD)
    user.save()
    return user


def press(page, key: str) -> None:
    """A key once the page's scripts listen: each step is a new page, and a key pressed before
    its deferred replay.js has run would go unheard."""
    page.wait_for_load_state("load")
    page.keyboard.press(key)


def test_a_player_returns_after_a_round_end_sees_the_recap_and_replays_with_the_keyboard(
    player_page, live_server, browser_problems
):
    game, players = scenario_game(SCENARIO, stop_before=6)  # bob has made his last move
    bob = browser_user(players["bob"])
    page = player_page(bob)
    url = f"{live_server.url}/games/{game.pk}/"
    page.goto(url)
    expect(page.get_by_test_id("board")).to_be_visible()
    expect(page.get_by_test_id("since-recaps")).to_have_count(0)

    # While bob is away, cid finds the treasure, the gold is shared and round 2 begins.
    play_moves(game, SCENARIO, 6)
    Seat.objects.filter(game=game, user=bob).update(
        last_seen_at=timezone.now() - timedelta(hours=20)
    )
    page.goto(url)
    recap = page.get_by_test_id("since-recaps")
    expect(recap).to_be_visible()
    expect(recap).to_contain_text("Since you were here")
    expect(recap).to_contain_text("the treasure was found")
    cid = players["cid"].display_name
    expect(recap).to_contain_text(f"{cid} (Gold digger) completed the path to the treasure.")
    expect(recap.get_by_test_id("recap-maze")).to_be_visible()
    expect(page.locator(".log__marker").first).to_be_visible()

    page.get_by_test_id("replay-link").click()
    step = page.get_by_test_id("replay-step")
    expect(step).to_contain_text(f"Move {game.version} of {game.version}", timeout=WAIT)
    press(page, "ArrowLeft")
    expect(step).to_contain_text(f"Move {game.version - 1} of {game.version}", timeout=WAIT)
    press(page, "Home")
    expect(step).to_contain_text(f"Move 0 of {game.version}", timeout=WAIT)
    expect(page.get_by_test_id("board").locator("svg")).to_have_count(4)  # start, 3 goals
    press(page, "ArrowRight")
    expect(step).to_contain_text(f"Move 1 of {game.version}", timeout=WAIT)
    expect(page).to_have_url(re.compile(r"\?step=1$"))
    expect(page.get_by_test_id("step-lines")).to_contain_text("placed")
    expect(page.locator(".maze__cell--new")).to_have_count(1)
    press(page, "End")
    expect(step).to_contain_text(f"Move {game.version} of {game.version}", timeout=WAIT)
    assert browser_problems.problems == []


def test_wide_screen_keeps_maze_hand_chat_and_newest_events_in_view(
    player_page, live_server, browser_problems
):
    game, players = scenario_game(SCENARIO, stop_before=4)
    ann = browser_user(players["ann"])
    page = player_page(ann, viewport={"width": 1280, "height": 800})
    page.goto(f"{live_server.url}/games/{game.pk}/")
    # A player coming back has long put away the first-game guide.
    page.get_by_role("button", name="Got it, hide this guide").click()
    expect(page.get_by_role("button", name="Got it, hide this guide")).to_have_count(0)
    for locator in (
        page.get_by_test_id("board"),
        page.locator(".hand"),
        page.locator("#chat"),
        page.locator(".log-panel .log li").first,
    ):
        expect(locator).to_be_visible()
        box = locator.bounding_box()
        assert box is not None and box["y"] < 800, (locator, box)
    chat, board = page.locator("#chat").bounding_box(), page.locator(".board").bounding_box()
    assert chat["x"] > board["x"] + board["width"] - 1  # the chat sits beside the maze
    assert browser_problems.problems == []
