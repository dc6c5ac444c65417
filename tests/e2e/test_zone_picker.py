"""The time-zone picker in a browser (issue 36, point 11), on a phone and with the keyboard:
a new player's profile selects the browser's zone and says so; typing narrows the list, Enter
goes to it; what is saved is the IANA name. The lobby's picker searches the same way."""

import pytest
from playwright.sync_api import expect

from accounts.zones import zone_names

PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}


@pytest.mark.django_db(transaction=True)
def test_a_new_player_gets_the_browsers_zone_and_finds_another_by_typing(
    live_server, make_player, player_page, browser_problems
):
    ann = make_player("ann")
    page = player_page(ann, timezone_id="Asia/Tokyo", **PHONE)
    page.goto(f"{live_server.url}/accounts/profile/")
    posts = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else 0)
    zone = page.locator('select[name="time_zone"]')
    expect(zone).to_have_value("Asia/Tokyo")
    expect(page.get_by_test_id("zone-browser")).to_contain_text("Tokyo (UTC+9)")
    search = page.get_by_role("searchbox", name="Find a time zone")
    search.fill("prag")
    expect(zone).to_have_value("Europe/Prague")
    expect(zone.locator("option")).to_have_count(1)
    expect(page.locator(".zone-search")).to_contain_text("Time zones found: 1")
    search.press("Enter")  # to the list, without sending the form
    expect(zone).to_be_focused()
    search.fill("utc+5:30")
    offset = zone.locator("option:checked")
    expect(offset).to_contain_text("(UTC+5:30)")  # the first of the zones at that offset
    chosen = zone.input_value()
    search.fill("qqqq")
    expect(page.locator(".zone-search")).to_contain_text("No time zone matches")
    expect(zone).to_have_value(chosen)  # nothing found: the choice stays
    search.fill("sao paulo")  # accents and case do not matter
    expect(zone).to_have_value("America/Sao_Paulo")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    page.get_by_test_id("save-profile").tap()
    expect(page.locator("body")).to_contain_text("Your profile is saved.")
    ann.refresh_from_db()
    assert ann.time_zone == "America/Sao_Paulo"
    assert posts == [f"{live_server.url}/accounts/profile/"]  # Save's, never Enter's
    # Chosen now: the browser's zone is no longer put over it.
    page.reload()
    expect(page.locator('select[name="time_zone"]')).to_have_value("America/Sao_Paulo")
    expect(page.get_by_test_id("zone-browser")).to_have_count(0)
    assert browser_problems.problems == []


@pytest.mark.django_db(transaction=True)
def test_the_lobby_picker_is_searched_with_the_keyboard(
    live_server, make_player, player_page, browser_problems
):
    ann = make_player("ann")
    page = player_page(ann, timezone_id="Europe/Prague")
    page.goto(f"{live_server.url}/games/")
    zone = page.locator('select[name="clock_zone"]')
    expect(zone).to_have_value("")  # "My time zone": the default is not the browser's here
    search = page.locator("#id_clock_zone-search")
    search.focus()
    page.keyboard.type("kolkata")
    expect(zone).to_have_value("Asia/Kolkata")
    expect(zone.locator("option")).to_have_count(1)
    page.keyboard.press("Escape")  # the whole list again, the zone found still chosen
    expect(zone.locator("option")).to_have_count(len(zone_names()) + 1)  # and "My time zone"
    expect(zone).to_have_value("Asia/Kolkata")
    assert browser_problems.problems == []
