"""Reporting a chat message from a phone (issue 53): the line's "Report" link, the form by taps,
the thanks, and "Your reports" with the outcome; nothing wider than the screen. A muted
player's message refused with the mute's end, the typed text kept."""

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from games.models import ChatMessage, ChatMute, Report
from games.play import lobby
from games.play.chat import chat_post

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


def test_a_chat_message_is_reported_from_a_phone(
    make_player, player_page, live_server, browser_problems
):
    ann, bob, cid = (make_player(name) for name in ("ann", "bob", "cid"))
    game = lobby.game_create(creator=ann, name="Deep mine", ruleset="base", max_seats=3)
    for user in (bob, cid):
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=ann)
    chat_post(game_id=game.pk, user=bob, text="You are all hopeless")
    page = player_page(ann, **PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")

    report = page.get_by_test_id("chat-report")
    expect(report).to_have_count(1)
    report.scroll_into_view_if_needed()
    report.tap()
    expect(page.get_by_test_id("reported-message")).to_contain_text("You are all hopeless")
    page.get_by_label("Abuse or harassment").tap()
    page.get_by_label("What happened").fill("Insults at the table")
    page.get_by_test_id("report-send").tap()

    expect(page.get_by_test_id("my-report")).to_have_count(1)
    expect(page.get_by_test_id("report-outcome")).to_contain_text("Waiting for a moderator")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    saved = Report.objects.get()
    assert (saved.reporter, saved.reported, saved.reason) == (ann, bob, "abuse")
    assert saved.text == "Insults at the table"
    assert not browser_problems.problems, browser_problems.problems


def test_a_muted_player_is_told_until_when_and_keeps_the_typed_text(
    make_player, player_page, live_server, browser_problems
):
    ann, bob, cid = (make_player(name) for name in ("ann", "bob", "cid"))
    game = lobby.game_create(creator=ann, name="Deep mine", ruleset="base", max_seats=3)
    for user in (bob, cid):
        lobby.seat_join(game_id=game.pk, user=user)
    lobby.game_start(game_id=game.pk, user=ann)
    ChatMute.objects.create(user=bob, until=timezone.now() + timedelta(hours=5))
    page = player_page(bob, **PHONE)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    page.locator("#chat-text").fill("Can I speak now?")
    page.locator("#chat-form").get_by_role("button", name="Send").tap()
    expect(page.get_by_test_id("chat-error")).to_contain_text("muted you in the chat until")
    expect(page.locator("#chat-text")).to_have_value("Can I speak now?")
    assert not ChatMessage.objects.exists()
    # The browser logs the refusal's status (422) as a failed load: that one is expected.
    others = [p for p in browser_problems.problems if "status of 422" not in p]
    assert not others, others
