"""The admins' tools in the browser: log in to /admin/, ban a user with a reason, and hand a seat
of a running game to another player, who then sees that seat's hand and the table the takeover.
"""

import pytest
from django.contrib.admin.models import LogEntry
from playwright.sync_api import expect

from games.read.card_names import card_name

from .conftest import PLAYER_PASSWORD
from .deals import BASE_DEAL

WAIT = 10_000

# Base game, 3 players: Bob (seat 1) leaves; Eve takes his seat and his hand.
DEAL = BASE_DEAL


def run_action(page, action, label):
    page.locator('select[name="action"]').first.select_option(action)
    page.get_by_role("button", name="Run", exact=True).first.click()
    expect(page.get_by_role("heading", name=label)).to_be_visible(timeout=WAIT)


@pytest.mark.django_db(transaction=True)
def test_admin_bans_a_user_and_replaces_a_seat(
    live_server, browser, make_player, rigged_game, player_page, browser_problems
):
    root = make_player("root")
    root.is_staff = root.is_superuser = True
    root.save()
    ann, bob, cid, eve, mal = (make_player(n) for n in ("ann", "bob", "cid", "eve", "mallory"))
    game = rigged_game([ann, bob, cid], ruleset="base", deal=DEAL, name="Deep mine")

    context = browser.new_context()
    context.set_default_timeout(15_000)
    admin = browser_problems.attach(context.new_page(), label="admin")
    try:
        admin.goto(f"{live_server.url}/admin/")
        admin.get_by_label("Username").fill("root")
        admin.get_by_label("Password").fill(PLAYER_PASSWORD)
        admin.get_by_role("button", name="Log in").click()
        expect(admin.get_by_role("link", name="Users")).to_be_visible(timeout=WAIT)

        # Ban Mallory, with a reason.
        admin.get_by_role("link", name="Users").first.click()
        admin.locator("#searchbar").fill("mallory@example.com")
        admin.locator("#searchbar").press("Enter")
        admin.locator(f'input[name="_selected_action"][value="{mal.pk}"]').check()
        run_action(admin, "ban", "Ban users")
        admin.get_by_label("Reason").fill("Insults in chat")
        admin.get_by_role("button", name="Confirm").click()
        expect(admin.locator(".messagelist")).to_contain_text("Banned.", timeout=WAIT)
        mal.refresh_from_db()
        assert not mal.is_active

        # Hand Bob's seat (1) of the running game to Eve.
        admin.goto(f"{live_server.url}/admin/games/game/?status__exact=running")
        admin.locator(f'input[name="_selected_action"][value="{game.pk}"]').check()
        run_action(admin, "replace_seat", "Replace a seat's player")
        admin.get_by_label("Seat").select_option("1")
        admin.get_by_label("New player").fill("eve")
        admin.get_by_label("Reason").fill("Bob moved away")
        admin.get_by_role("button", name="Confirm").click()
        expect(admin.locator(".messagelist")).to_contain_text(
            "Eve took over from Bob", timeout=WAIT
        )
    finally:
        context.close()

    messages = list(LogEntry.objects.values_list("change_message", flat=True))
    assert any("Banned." in m and "Insults in chat" in m for m in messages)
    assert any("Eve took over from Bob" in m and "Bob moved away" in m for m in messages)

    # Eve sees Bob's hand on the normal game page; the log tells the table who took over.
    page = player_page(eve)
    page.goto(f"{live_server.url}/games/{game.pk}/")
    for card in DEAL["hands"]["1"]:
        expect(page.locator(".hand-card__label", has_text=card_name(card)).first).to_be_visible()
    expect(page.get_by_text("Eve took over from Bob.")).to_be_visible()
    table = player_page(ann)
    table.goto(f"{live_server.url}/games/{game.pk}/")
    expect(table.get_by_text("Eve took over from Bob.")).to_be_visible()
    assert browser_problems.problems == []
