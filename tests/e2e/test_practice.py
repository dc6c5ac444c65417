"""One person plays a whole practice game against two bots in the browser; a real Celery worker
plays the bots' moves as their turns begin (a site waits BOT_MOVE_DELAY seconds, 3 by default;
this test none, so that the game's forty-odd bot moves take seconds, not a minute). The player's
page stays open all game: the bots' moves reach it through its live stream."""

import re
import time

import pytest
from playwright.sync_api import expect

from games.models import Game
from tests.tasks.test_email_integration import assert_clean as assert_worker_clean
from tests.tasks.test_email_integration import (
    celery_app_on,
    channel,  # noqa: F401 - a fixture
    running_workers,
    worker_env,
)

from .test_game_play import wait_in_page

DELAY = 0  # seconds a bot waits (BOT_MOVE_DELAY of the test and its worker): at once here
LIMIT = 600  # seconds for the whole game


def my_decision(page) -> str:
    """Wait until the open page, kept up to date by its live stream as the bots move, says it is
    the player's decision ("turn") or the game is over ("over")."""
    line = page.get_by_test_id("turn-line")
    expect(line).to_contain_text(re.compile(r"Your decision\.|The game is over\."), timeout=120_000)
    return "over" if "The game is over." in line.inner_text() else "turn"


VERSION_MOVED = """(before) =>
  document.querySelector('#play input[name="version"]')?.value !== String(before)"""


def decide(page):
    """Any legal decision: keep the first gold card offered, or pass with the first card."""
    before = int(page.locator('#play input[name="version"]').first.input_value())
    gold = page.get_by_test_id("gold-pick")
    if gold.count():
        gold.get_by_role("button").first.click()
    else:
        page.locator("details.decision summary", has_text="Pass:").click()
        page.locator('details.decision input[name="discard"]').first.check()
        page.get_by_test_id("pass").click()
    wait_in_page(page, VERSION_MOVED, before, what="the decision taken")


@pytest.mark.slow  # started first (tests/conftest.py)
@pytest.mark.django_db(transaction=True)
def test_one_person_plays_a_practice_game_against_two_bots_to_its_end(
    channel,  # noqa: F811
    tmp_path,
    settings,
    live_server,
    make_player,
    player_page,
    browser_problems,
):
    url, queue = channel
    settings.BOT_MOVE_DELAY = DELAY
    env = {
        **worker_env(url, 1),
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "BOT_MOVE_DELAY": str(DELAY),
        "CELERY_QUEUE": queue,
    }
    ann = make_player("ann")
    with celery_app_on(url, queue), running_workers(tmp_path, queue, env) as logs:
        page = player_page(ann)
        page.goto(f"{live_server.url}/games/")
        form = page.get_by_test_id("practice-form")
        form.get_by_label("Game to practise").select_option("base")
        form.get_by_label("Number of bots").fill("2")
        form.get_by_label("Game length").select_option("1")
        form.get_by_role("button", name="Play against bots").click()
        page.wait_for_url(f"{live_server.url}/games/*/")
        # The bots are at the table as bots.
        for name in ("Bot 1", "Bot 2"):
            seat = page.get_by_test_id("seat").filter(has_text=name)
            expect(seat.locator(".seat__badge--bot")).to_have_text("bot")

        started = time.monotonic()
        while time.monotonic() - started < LIMIT:
            if my_decision(page) == "over":
                break
            decide(page)
        else:
            pytest.fail("the practice game did not end in time")
        expect(page.get_by_role("heading", name="Final standings")).to_be_visible()
        assert_worker_clean(logs)
    game = Game.objects.get()
    assert game.practice and game.status == Game.Status.FINISHED
    assert game.moves.filter(seat__bot__isnull=False).exists()
    assert browser_problems.problems == []
