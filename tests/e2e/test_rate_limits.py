"""A request refused by the site's rate limits, in the browser (issue 48): htmx swaps the 429
answer in (base.html's responseHandling), so the player reads when to try again, under the box
that still holds what they typed."""

from datetime import UTC, datetime

import pytest
import time_machine
from playwright.sync_api import expect

from games.models import ChatMessage
from saboteur_site import ratelimits

from .deals import BASE_DEAL

WAIT = 10_000
# Early in an hour: the one-message-an-hour window below cannot end during the test.
START = datetime(2027, 1, 4, 10, 0, 5, tzinfo=UTC)


@pytest.mark.django_db(transaction=True)
def test_a_refused_message_says_when_to_try_again_and_keeps_the_text(
    live_server, make_player, rigged_game, player_page, monkeypatch
):
    monkeypatch.setitem(ratelimits.LIMITS, "chat", ratelimits.Limit("1/h"))
    with time_machine.travel(START, tick=True):
        ann, bob, cid = (make_player(n) for n in ("ann", "bob", "cid"))
        game = rigged_game([ann, bob, cid], ruleset="base", deal=BASE_DEAL, name="Busy mine")
        page = player_page(ann)
        page.goto(f"{live_server.url}/games/{game.pk}/")
        send = page.locator("#chat-form").get_by_role("button", name="Send")
        page.locator("#chat-text").fill("Hello table")
        send.click()
        expect(page.locator("#chat .chat")).to_contain_text("Hello table", timeout=WAIT)

        page.locator("#chat-text").fill("Who broke my lantern?")
        send.click()
        expect(page.get_by_test_id("chat-error")).to_contain_text(
            "so nothing was changed. You can try again in", timeout=WAIT
        )
        expect(page.locator("#chat-text")).to_have_value("Who broke my lantern?")
        assert not ChatMessage.objects.filter(text="Who broke my lantern?").exists()
